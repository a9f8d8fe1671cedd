/*
 * matmul_guest.h - user-space drivers for the matmul accelerator
 * (studies/matmul/docs/matmul.md, studies/matmul/model/matmul_regs.h) and the software
 * baseline, behind one interface, for guest programs.
 *
 * The device drivers' sequences are the driver cores of studies/matmul/model/
 * (driver_core.h), the same code the host-stub drivers run for `mortar
 * alone` (studies/matmul/model/drivers_hoststub.c), here over the BARs mapped by the
 * guest library and pinned DMA memory (2 MiB huge pages) with physical
 * addresses:
 *
 *   a         per tile step: A_ADDR, B_ADDR, (C_ADDR), STEP_CTRL posted,
 *             STEP_CTRL read back, DOORBELL, STATUS polled with MMIO reads.
 *             Operands and result tiled in DMA memory.
 *   b         operands tiled into the slot's DMA memory, the completion
 *             record cleared, a descriptor written into the ring (DMA
 *             memory), RING_TAIL written once (posted); done when the record
 *             in host memory says so (polled, no link traffic) or, with
 *             use_irq, after MSI-X vector 0 (mailbox). Several requests may
 *             be queued in the ring at once.
 *   regcopy   both operands written row-major into the BAR2 windows with
 *             MMIO writes of copy_bytes each, START, STATUS polled, the
 *             result read back with MMIO reads of copy_bytes each.
 *   software  the product on this CPU (blocked, SSE2 on x86-64).
 *
 * The product comes back in the format of the options' `result`: int8 (the
 * default), the accumulators requantized by the rule of
 * studies/matmul/model/result.h, or the int32 accumulators. The device drivers
 * program it like a real driver would (a: STEP_CTRL.RESULT_I32 on every
 * step; b: the descriptor's flag; regcopy: CONTROL, once at open); the
 * software baseline requantizes on this CPU with the same rule.
 *
 * A request: matmul_guest_submit hands it over and returns its slot;
 * matmul_guest_wait / matmul_guest_poll see it done; matmul_guest_complete stores the
 * result and the timing and frees the slot. Design regcopy and the software
 * baseline serve one request at a time and do all the work in
 * matmul_guest_submit (the request is done when it returns). Design a also
 * serves one at a time, but its CPU-driven tile steps run inside
 * matmul_guest_wait, for as long as each call allows, so a caller can serve
 * its network between calls. Design b returns as soon as TAIL is written and
 * holds up to `inflight` requests.
 *
 * Timing (matmul_guest_timing): submit_ns is taken when the request is handed to
 * the device (after the operands are laid out in DMA memory; regcopy:
 * before the copy into the windows, which is part of its interface), done_ns
 * when the driver sees it done (a, b: before the result is copied out;
 * regcopy: after it was read back). Both on the guest clock
 * (CLOCK_MONOTONIC, simulated time). The device's own timing: design b's
 * completion record carries it; designs a and regcopy expose it in
 * registers, which matmul_guest_read_device_timing reads with MMIO reads (each a
 * round trip), so a server calls it after its reply is on the way.
 *
 * Errors: functions return 0 (or a documented value) or a negative
 * MORTAR_E code, with the text in matmul_guest_errmsg(). Nothing prints or exits.
 * A handle belongs to one thread.
 */
#ifndef MORTAR_GUEST_MATMUL_DRV_H
#define MORTAR_GUEST_MATMUL_DRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mortar/error.h"
#include "model/result.h"

typedef enum matmul_backend {
    MATMUL_BACKEND_A,
    MATMUL_BACKEND_B,
    MATMUL_BACKEND_REGCOPY,
    MATMUL_BACKEND_SOFTWARE,
} matmul_backend;

/* "a", "b", "regcopy", "software" (also "sw"). Returns 0 or MORTAR_EINVAL. */
int matmul_backend_parse(const char *name, matmul_backend *backend);
const char *matmul_backend_name(matmul_backend backend);

typedef struct matmul_guest_opts {
    uint32_t max_n;       /* largest n a request may have (default 512); regcopy
                             ignores it: requests have exactly the device's N */
    unsigned inflight;    /* the most requests in the device at once: b's ring holds
                             1..63 (default 8), the others 1; more is cut to what
                             the backend holds (matmul_guest_capacity) */
    bool use_irq;         /* b: wait for MSI-X vector 0 instead of polling the record */
    uint32_t copy_bytes;  /* regcopy: bytes per MMIO access, 1, 2, 4 or 8 (default 8) */
    uint64_t timeout_ns;  /* guest time before a request is given up (default 10 s) */
    matmul_result result; /* the product's format (default MATMUL_RESULT_I8) */
} matmul_guest_opts;

/* What a request cost and what the device reported. */
typedef struct matmul_guest_timing {
    uint64_t req_id;
    uint32_t n;
    uint64_t submit_ns, done_ns; /* guest clock: handed to the device / seen done */
    uint32_t queued_behind;      /* requests already in the device at submit (b) */
    /* Device clock (simulated ps); 0 when not known. Software: compute_ps is
     * the CPU time of the product, the others 0. */
    uint64_t dev_compute_ps; /* sum of the tile steps' compute times */
    /* compute start of the first step, compute end of the last */
    uint64_t dev_start_ps, dev_end_ps;
    uint64_t dev_accept_ps, dev_done_ps; /* b: descriptor fetch began / record sent */
    uint32_t steps;                      /* tile steps the device computed */
    uint64_t mmio_reads, mmio_writes;    /* MMIO accesses the driver made for it */
    bool dev_timing;                     /* the dev_* fields are filled in */
} matmul_guest_timing;

typedef struct matmul_guest matmul_guest;

/* Opens the backend: for a device, finds it (vendor 0x1de5, the design's
 * device id), maps BAR0 (and BAR2 for regcopy), checks the ID register,
 * allocates DMA memory for max_n and turns bus mastering on; b also sets up
 * and enables the ring (and MSI-X with use_irq). `o` may be NULL
 * (defaults). On success *dp is the caller's, to matmul_guest_close. On failure
 * the reason is in `err`. */
int matmul_guest_open(matmul_guest **dp, matmul_backend backend,
                      const matmul_guest_opts *o, char *err, size_t err_size);

/* Disables the ring (b), frees DMA memory, closes the device. NULL is ignored. */
void matmul_guest_close(matmul_guest *d);

const char *matmul_guest_errmsg(const matmul_guest *d);
matmul_backend matmul_guest_backend(const matmul_guest *d);

/* Requests the backend holds at once (b: `inflight`; others 1), and how
 * many it holds now (submitted, not yet completed). */
unsigned matmul_guest_capacity(const matmul_guest *d);
/* The largest n a request may have (regcopy: the only n, the device's). */
uint32_t matmul_guest_max_n(const matmul_guest *d);
unsigned matmul_guest_in_flight(const matmul_guest *d);

/* Hands over request `req_id`: c = a x b, n x n row-major, n a multiple of
 * 128 up to max_n. `c` receives the result, n x n elements of the options'
 * format (int8_t or int32_t; by matmul_guest_complete or, for regcopy and
 * software, during this call) and must stay valid until matmul_guest_complete.
 * Returns the slot (>= 0); MORTAR_EAGAIN when the backend is full, or an
 * error (the device reported one, timeout). */
int matmul_guest_submit(matmul_guest *d, uint64_t req_id, uint32_t n, const int8_t *a,
                        const int8_t *b, void *c);

/* Waits up to `timeout_ns` of guest time (0: just look) for the request in
 * `slot` to be done; design a runs its tile steps meanwhile (the last may end
 * a little after the time is up). Returns 1 done, 0 not yet, or an error.
 * Requests finish in the order they were submitted. */
int matmul_guest_wait(matmul_guest *d, int slot, uint64_t timeout_ns);

/* matmul_guest_wait's timeout for "until it is done", which still gives up
 * after the options' timeout_ns. Design a then runs the request to its end
 * without looking at the clock between steps. */
#define MATMUL_GUEST_UNTIL_DONE UINT64_MAX

/* For a done request: the result into its `c`, the timing into *t, the
 * slot freed. Returns 0, or the error that ended it (MORTAR_EPROTO: the
 * device reported one; design a: also a step's timeout), slot freed too;
 * MORTAR_ESTATE when it is not done. */
int matmul_guest_complete(matmul_guest *d, int slot, matmul_guest_timing *t);

/* Designs a and regcopy: read the device's timing registers (COMPUTE,
 * T_FIRST, T_LAST, STATUS steps: four MMIO reads) into *t for the request
 * completed last. Valid until the next submit. b and software: nothing to
 * do (matmul_guest_complete filled them in). Returns 0 or an error. */
int matmul_guest_read_device_timing(matmul_guest *d, matmul_guest_timing *t);

/* Convenience: submit, wait (timeout_ns from the options), complete and
 * read the device timing. */
int matmul_guest_run(matmul_guest *d, uint64_t req_id, uint32_t n, const int8_t *a,
                     const int8_t *b, void *c, matmul_guest_timing *t);

/* Tiled layout (designs a and b): an n x n matrix as (n/128)^2 tiles of
 * 128 x 128, tile (r, c) at (r * n/128 + c) * tile bytes, row-major inside.
 * A result's elements are `elem_bytes` bytes (1: int8, 4: int32). */
void matmul_guest_tile_i8(uint32_t n, const int8_t *row_major, int8_t *tiled);
void matmul_guest_untile(uint32_t n, uint32_t elem_bytes, const void *tiled,
                         void *row_major);

/* The software baseline's product, exposed for tests: c = a x b in format
 * `result` (int8_t or int32_t elements), n a multiple of 8. `work` holds at
 * least matmul_guest_sw_work_bytes(n) bytes, 16-byte aligned. */
size_t matmul_guest_sw_work_bytes(uint32_t n);
void matmul_guest_sw_multiply(uint32_t n, const int8_t *a, const int8_t *b,
                              matmul_result result, void *c, void *work);

#endif
