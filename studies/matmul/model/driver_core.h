/*
 * driver_core.h - the matmul drivers' sequences, written once: what a driver
 * of each design puts on the link (studies/matmul/docs/matmul.md), over a small table
 * of operations that each build provides. Two builds compile these files:
 *
 *   studies/matmul/model/drivers_hoststub.c     the host stub: unit tests and
 *                                      `mortar alone` (component alone)
 *   studies/matmul/guest/matmul_{a,b,regcopy}.c   a Linux guest: mapped BARs, DMA memory
 *                                      (the system runs)
 *
 * so a design's alone figures and its in-system figures come from one
 * sequence. Both are thin adapters: they own memory, slots, the options of
 * their API and how they wait; the order of MMIO accesses, their values, the
 * descriptor and the record are here.
 *
 *   design A   open: STATUS <- DONE|ERROR. Per request: STATUS <- DONE|ERROR,
 *              REQ_ID. Per tile step (matmul_core_a_step, one step at a time
 *              so a caller may do other work between steps): A_ADDR, B_ADDR,
 *              C_ADDR (LAST steps only), STEP_CTRL (posted); STEP_CTRL read
 *              back; DOORBELL; STATUS polled until DONE or ERROR; on ERROR
 *              ERR_CODE read and STATUS <- ERROR.
 *   design B   open: CONTROL <- 0, STATUS <- the three error bits, RING_BASE,
 *              RING_SIZE, (the adapter turns bus mastering / MSI-X on),
 *              CONTROL <- ENABLE (| IRQ), STATUS read (ERR_RING fails).
 *              Per request: completion record cleared, descriptor written at
 *              TAIL (host memory), barrier, RING_TAIL (posted). The adapter
 *              waits; the record then becomes timing or an error.
 *   regcopy    open: N, WIN_A, WIN_B, WIN_C read; STATUS <- DONE|ERROR;
 *              CONTROL <- RESULT_I32 or 0, read back. Per request:
 *              STATUS <- DONE|ERROR, REQ_ID, A and B into their windows in
 *              accesses of copy_bytes, START, STATUS polled, C read back in
 *              accesses of copy_bytes.
 *   A, regcopy after a request: COMPUTE, T_FIRST, T_LAST, STATUS (steps).
 *
 * Plain C11 and the C library only (no libmortar call): the guest links it
 * statically into its programs. Functions return 0 or a negative MORTAR_E
 * code with the text in core->err. Nothing prints, exits or allocates.
 */
#ifndef MORTAR_MATMUL_DRIVER_CORE_H
#define MORTAR_MATMUL_DRIVER_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/matmul_regs.h"
#include "model/result.h"

/* The matrices of a design A request, for ops->tile_addr (in the order a
 * buffer holding all three would have them). */
typedef enum matmul_core_matrix {
    MATMUL_CORE_MATRIX_A = 0,
    MATMUL_CORE_MATRIX_B = 1,
    MATMUL_CORE_MATRIX_C = 2,
} matmul_core_matrix;

/* What a build provides. `ctx` is the adapter's handle, passed back as is.
 * Entries marked "may be NULL" are optional; the others are required for
 * the designs that use them. */
typedef struct matmul_core_ops {
    /* BAR0 registers, little-endian. A read stalls for a round trip over the
     * link; a write is posted. */
    uint32_t (*read32)(void *ctx, uint64_t offset);
    uint64_t (*read64)(void *ctx, uint64_t offset);
    void (*write32)(void *ctx, uint64_t offset, uint32_t value);
    void (*write64)(void *ctx, uint64_t offset, uint64_t value);

    /* Register copy: `size` bytes to / from BAR2 at `offset` as consecutive
     * MMIO accesses of `access_bytes` each, in address order (the last one
     * shorter when size is not a multiple), as memcpy_toio does. One call
     * per window rather than one per access: in the guest every instruction
     * is simulated time (-icount), and an indirect call per posted 8-byte
     * write would add a quarter of a millisecond to a 512 x 512 request. */
    void (*window_write)(void *ctx, uint64_t offset, const void *src, uint64_t size,
                         uint32_t access_bytes);
    void (*window_read)(void *ctx, uint64_t offset, void *dst, uint64_t size,
                        uint32_t access_bytes);

    /* Design B: host memory at device (physical) address `addr`: descriptors
     * and completion records, 64 bytes each, 8-byte aligned. */
    void (*mem_write)(void *ctx, uint64_t addr, const void *src, uint32_t size);
    void (*mem_read)(void *ctx, uint64_t addr, void *dst, uint32_t size);
    /* Host memory written so far reaches the device before the next MMIO
     * write (a real driver's wmb()). May be NULL. */
    void (*mem_barrier)(void *ctx);

    /* Design A: device address of byte `offset` of the request's tiled
     * matrix `which`. */
    uint64_t (*tile_addr)(void *ctx, matmul_core_matrix which, uint64_t offset);

    /* The clock in ps (timeouts), and the pause between two STATUS polls
     * (may be NULL: back to back). */
    uint64_t (*now_ps)(void *ctx);
    void (*pause)(void *ctx);

    /* NULL while every access so far worked, else what went wrong (the host
     * stub: a read that never completed). May be NULL: accesses cannot
     * fail. */
    const char *(*io_failed)(void *ctx);
} matmul_core_ops;

/* How design B's CONTROL.IRQ is set when the ring is enabled. */
typedef enum matmul_core_irq {
    MATMUL_CORE_IRQ_OFF,  /* cleared: the driver polls the completion record */
    MATMUL_CORE_IRQ_ON,   /* set: MSI-X vector 0 after each record */
    MATMUL_CORE_IRQ_KEEP, /* as CONTROL reads at open (the device's reset value,
                             its `msix` parameter): one more MMIO read */
} matmul_core_irq;

typedef struct matmul_core_opts {
    matmul_result result; /* the product's format */
    uint64_t timeout_ps;  /* STATUS polled this long at most (per poll) */
    uint32_t copy_bytes;  /* regcopy: bytes per window access (1..8192) */
} matmul_core_opts;

/* The device's own view of a request. */
typedef struct matmul_core_timing {
    uint64_t accept_ps;  /* B: the device began fetching the descriptor */
    uint64_t start_ps;   /* compute start of the first step */
    uint64_t end_ps;     /* compute end of the last step */
    uint64_t compute_ps; /* sum of the step compute times */
    uint64_t done_ps;    /* B: the record was sent */
    uint32_t steps;      /* steps computed */
    uint32_t error;      /* MATMUL_ERR_* the device reported, 0 when fine */
} matmul_core_timing;

/* One driver's core state. Fields are read by the adapters; only the
 * functions below write them. */
typedef struct matmul_core {
    const matmul_core_ops *ops;
    void *ctx;
    matmul_core_opts o;
    /* B: the ring and the CONTROL bits set with ENABLE */
    uint64_t ring_addr;
    uint32_t ring_entries, irq_ctrl;
    /* regcopy: the device's n and its windows in BAR2 */
    uint32_t dev_n;
    uint64_t win_a, win_b, win_c;
    char err[256];
} matmul_core;

/* Binds the core to a build's ops and context (both owned by the caller and
 * outliving the core). No access. */
void matmul_core_init(matmul_core *c, const matmul_core_ops *ops, void *ctx,
                      const matmul_core_opts *o);

/* Reads ID; *code is the design letter (MATMUL_CODE_*). MORTAR_EPROTO when
 * it is not a matmul device of the revision this driver knows. */
int matmul_core_identify(matmul_core *c, char *code);

/* A and regcopy, after a request: COMPUTE, T_FIRST, T_LAST and STATUS's
 * step count (four MMIO reads) into t (accept_ps, done_ps, error
 * untouched). */
int matmul_core_read_timing(matmul_core *c, matmul_core_timing *t);

/* ---- design A -----------------------------------------------------------------------
 */

/* Open: STATUS <- DONE|ERROR. */
int matmul_core_a_open(matmul_core *c);

/* The tile steps of a request of size n: (n/128)^3. */
uint32_t matmul_core_a_steps(uint32_t n);

/* STEP_CTRL of step `step` of a request of size n. */
uint32_t matmul_core_a_step_ctrl(const matmul_core *c, uint32_t n, uint32_t step);

/* Starts a request: STATUS <- DONE|ERROR, REQ_ID <- req_id (its low 32 bits). */
void matmul_core_a_begin(matmul_core *c, uint64_t req_id);

/* Runs tile step `step` (0..steps-1, in order) to its end. Output tile (i,
 * j) is summed over k: step ((i * T) + j) * T + k, T = n/128. On a device
 * error *dev_error (may be NULL) gets ERR_CODE and the result is
 * MORTAR_EPROTO; MORTAR_ETIMEDOUT when STATUS never said DONE or ERROR. */
int matmul_core_a_step(matmul_core *c, uint32_t n, uint32_t step, uint32_t *dev_error);

/* ---- design B -----------------------------------------------------------------------
 */

/* Open, first part: (IRQ_KEEP: CONTROL read), CONTROL <- 0 (a previous
 * driver may have left the ring enabled), STATUS <- the error bits,
 * RING_BASE, RING_SIZE. TAIL is 0 after enabling. The caller then turns bus
 * mastering (and MSI-X) on and calls matmul_core_b_ring_enable. */
void matmul_core_b_ring_program(matmul_core *c, uint64_t ring_addr, uint32_t entries,
                                matmul_core_irq irq);

/* Open, second part: CONTROL <- ENABLE (0 -> 1 resets HEAD and TAIL) with
 * the IRQ bit chosen above, then STATUS read: MORTAR_EPROTO when the device
 * refused the ring. */
int matmul_core_b_ring_enable(matmul_core *c);

/* Close: CONTROL <- 0. */
void matmul_core_b_ring_disable(matmul_core *c);

/* The descriptor of a request, flags from the result format. */
matmul_desc matmul_core_b_desc(const matmul_core *c, uint64_t req_id, uint64_t a_addr,
                               uint64_t b_addr, uint64_t c_addr, uint64_t record_addr,
                               uint32_t n);

/* Queues `desc` at ring entry *tail (the caller keeps TAIL, 0 after
 * matmul_core_b_ring_program, and keeps one entry free): the record at
 * `record_addr` (the one the caller will watch, normally
 * desc->completion_addr) cleared, the descriptor written, barrier, *tail
 * advanced and written to RING_TAIL (posted). */
int matmul_core_b_queue(matmul_core *c, uint32_t *tail, const matmul_desc *desc,
                        uint64_t record_addr);

/* The record's DONE bit, read from host memory (no link traffic). The word
 * and bit, for builds that can wait on memory themselves: */
bool matmul_core_b_record_done(matmul_core *c, uint64_t record_addr);
static inline uint64_t matmul_core_b_done_word(uint64_t record_addr)
{
    return record_addr + offsetof(matmul_completion, status);
}

/* The done record of request `req_id` into *t. MORTAR_EPROTO when it names
 * another request or reports an error (t->error says which). */
int matmul_core_b_finish(matmul_core *c, uint64_t record_addr, uint64_t req_id,
                         matmul_core_timing *t);

/* ---- register copy ------------------------------------------------------------------
 */

/* Open: reads N and the windows (c->dev_n, c->win_*; MORTAR_EPROTO for an N
 * that is not a multiple of 128 in 128..4096), then STATUS <- DONE|ERROR and
 * CONTROL <- the result format, read back. */
int matmul_core_regcopy_open(matmul_core *c);

/* One request of n = c->dev_n: a and b row-major int8 into the windows, the
 * product row-major into `out` (n x n elements of the result format). On a
 * device error *dev_error (may be NULL) gets ERR_CODE. */
int matmul_core_regcopy_run(matmul_core *c, uint64_t req_id, const int8_t *a,
                            const int8_t *b, void *out, uint32_t *dev_error);

#endif
