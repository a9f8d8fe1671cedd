/*
 * drivers_hoststub.h - the drivers of the three matmul designs over the
 * host stub's blocking API (include/mortar/hoststub.h), for tests and
 * `mortar alone`: the exact sequences of MMIO accesses and host-memory
 * writes a real driver makes, so they measure what the protocol costs.
 *
 * The sequences are not here but in the driver cores
 * (studies/matmul/model/driver_core.h), which the guest's drivers
 * (studies/matmul/guest/matmul_{a,b,regcopy}.c) run too: alone and in-system runs
 * make the same accesses. This file is the host stub's side of them: host
 * memory with a bump allocator, the stub's clock and waits, the slots.
 *
 *   design A  per tile step: write tile addresses and step control
 *             (posted), read STEP_CTRL back, ring the doorbell, poll STATUS.
 *   design B  copy operands, write a descriptor into the ring, write TAIL
 *             once; wait on the completion record in host memory (no link
 *             traffic) or on MSI-X vector 0.
 *   regcopy   write both operands into the BAR2 windows with MMIO writes,
 *             START, poll STATUS, read the result back with MMIO reads.
 *
 * Matrices are row-major n x n in the caller's memory; the driver lays them
 * out in host memory as its design needs (tiled for A and B) and takes
 * buffers from host memory with a bump allocator from its start. The
 * product comes back in the format the options choose (int8 by default,
 * studies/matmul/model/result.h), which the driver programs into the device:
 * STEP_CTRL.RESULT_I32 (A), the descriptor flag (B), CONTROL (regcopy).
 * Design B's ring keeps CONTROL.IRQ as the device resets it (its `msix`
 * parameter) unless use_irq sets it.
 */
#ifndef MORTAR_MATMUL_DRIVERS_HOSTSTUB_H
#define MORTAR_MATMUL_DRIVERS_HOSTSTUB_H

#include <stdbool.h>
#include <stdint.h>

#include "mortar/hoststub.h"
#include "model/driver_core.h"
#include "model/matmul_regs.h"
#include "model/result.h"

typedef struct matmul_drv_opts {
    uint64_t poll_gap_ps; /* A, regcopy: pause between STATUS polls (0: back to back) */
    uint32_t copy_bytes;  /* regcopy: bytes per window access (default 8: word by word) */
    uint32_t ring_entries; /* B: ring size (default 8) */
    bool use_irq;          /* B: wait on MSI-X instead of polling the record */
    uint64_t timeout_ps;   /* simulated time before giving up (default 10 s) */
    matmul_result result;  /* the product's format (default MATMUL_RESULT_I8) */
} matmul_drv_opts;

/* What one request cost and what the device reported. */
typedef struct matmul_drv_result {
    uint64_t req_id;
    uint64_t submit_ps, done_ps;      /* driver handed the request over / saw it done */
    uint64_t dev_first_ps;            /* device: compute start of the first step */
    uint64_t dev_last_ps;             /* device: compute end of the last step */
    uint64_t dev_compute_ps;          /* device: sum of step compute times */
    uint32_t steps;                   /* steps the device computed */
    uint32_t error;                   /* MATMUL_ERR_* from the device, 0 when fine */
    uint64_t mmio_reads, mmio_writes; /* driver's MMIO accesses for the request */
} matmul_drv_result;

#define MATMUL_DRV_SLOTS_MAX 64

typedef struct matmul_drv {
    mortar_hoststub *h;
    matmul_core core; /* the design's sequences, over this stub */
    char code;        /* MATMUL_CODE_* read from the device */
    uint32_t n;       /* largest n the buffers hold */
    matmul_drv_opts o;
    uint64_t next_free, mem_end; /* bump allocator in host memory */
    uint64_t next_req;
    /* A: tiled operands and result */
    uint64_t a_buf, b_buf, c_buf;
    /* B: ring, per-slot buffers and completion records */
    uint64_t ring;
    uint32_t tail, in_flight;
    struct {
        uint64_t a, b, c, cpl;
        uint64_t req_id, submit_ps;
        uint32_t n;
        bool busy;
    } slot[MATMUL_DRV_SLOTS_MAX];
    char err[256];
} matmul_drv;

/* Identifies the device (ID register), allocates buffers for matrices up
 * to `n`, and for design B sets up and enables the ring. `o` may be NULL
 * (defaults). Returns 0 or a MORTAR_E code with matmul_drv_errmsg(). */
int matmul_drv_open(matmul_drv *d, mortar_hoststub *h, uint32_t n,
                    const matmul_drv_opts *o);

/* Runs one request c = a x b (n x n, row-major) with the design's sequence;
 * c gets n x n elements in the options' result format (int8_t or int32_t).
 * `r` (may be NULL) gets the timing. Returns 0; MORTAR_EPROTO when the
 * device reported an error (r->error says which), MORTAR_ETIMEDOUT, or
 * MORTAR_EIO when the host stub failed. */
int matmul_drv_run(matmul_drv *d, const int8_t *a, const int8_t *b, void *c, uint32_t n,
                   matmul_drv_result *r);

/* Design B with several requests in flight: submit queues one (ring slot in
 * *slot), wait collects it (c as for matmul_drv_run, may be NULL). */
int matmul_drv_b_submit(matmul_drv *d, const int8_t *a, const int8_t *b, uint32_t n,
                        uint32_t *slot);
int matmul_drv_b_wait(matmul_drv *d, uint32_t slot, void *c, matmul_drv_result *r);

/* Design B: queues a raw descriptor as given (tests of malformed input).
 * The slot's own buffers are at d->slot[*slot]. */
int matmul_drv_b_submit_desc(matmul_drv *d, const matmul_desc *desc, uint32_t *slot);

/* Takes `size` bytes of host memory (4 KiB aligned); 0 when full. */
uint64_t matmul_drv_alloc(matmul_drv *d, uint64_t size);

const char *matmul_drv_errmsg(const matmul_drv *d);

#endif
