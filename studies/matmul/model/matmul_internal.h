/*
 * matmul_internal.h - the parts of the matmul model and how they meet.
 *
 *   matmul.c        the component: parameters, PCIe intro, message dispatch,
 *                   common registers, stats (like QEMU's edu.c realize and
 *                   mmio handlers)
 *   compute.c       the compute unit: 128x128 int8 tiles, int32 accumulator,
 *                   one timer per tile step, int8 or int32 output tiles
 *   dma.c           the DMA engine: chunked requests, bounded reads in
 *                   flight, completions matched by id
 *   iface_a.c       design A's registers (one doorbell per tile step)
 *   iface_b.c       design B's descriptor ring
 *   iface_regcopy.c the register-copy variant (BAR2 windows)
 *
 * An interface owns its state (m->ifs) and gets the registers, windows and
 * timers of the device; it drives the unit and the DMA engine.
 */
#ifndef MORTAR_MATMUL_INTERNAL_H
#define MORTAR_MATMUL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mortar/component.h"
#include "mortar/pcie.h"
#include "model/matmul.h"
#include "model/matmul_regs.h"

#define MATMUL_PORT 0

typedef struct matmul matmul;

typedef struct matmul_params {
    const char *design; /* "a", "b", "regcopy" */
    double speed;
    uint64_t speed_ppm; /* speed * 1e6, rounded: the rational the timing uses */
    uint64_t cycles_a, cycles_b, clock_mhz;
    uint64_t dma_chunk, dma_outstanding;
    bool msix;
    bool corrupt; /* test knob: every result tile's first element is wrong */
    uint64_t n;
} matmul_params;

/* What a design plugs into the device. Register handlers see 32-bit
 * accesses at aligned offsets and return false for an unknown register. */
typedef struct matmul_iface {
    const char *design;
    uint16_t device_id;
    char code;     /* MATMUL_CODE_* */
    bool has_ring; /* a request queue in host memory (B): its counters are reported */
    uint64_t (*cycles)(const matmul_params *p);
    int (*init)(matmul *m);
    void (*destroy)(matmul *m);
    bool (*reg_read)(matmul *m, uint32_t offset, uint32_t *value);
    bool (*reg_write)(matmul *m, uint32_t offset, uint32_t value);
    /* BAR2 window (NULL when the design has none). */
    bool (*win_read)(matmul *m, uint64_t offset, void *dst, uint32_t size);
    bool (*win_write)(matmul *m, uint64_t offset, const void *src, uint32_t size);
    void (*timer)(matmul *m, uint64_t cookie);
    void (*devctrl)(matmul *m, uint32_t flags); /* optional */
} matmul_iface;

extern const matmul_iface matmul_iface_a;
extern const matmul_iface matmul_iface_b;
extern const matmul_iface matmul_iface_regcopy;

/* ---- compute unit (compute.c) ---------------------------------------------- */

typedef struct matmul_unit {
    uint64_t step_ps;
    int32_t *acc; /* 128 x 128 */
    int8_t *out8; /* 128 x 128: the requantized output tile */
    bool busy;
    uint64_t timer_id;
    uint64_t req_id;
    uint32_t step;
    uint64_t started_ps;
} matmul_unit;

int matmul_unit_init(matmul_unit *u, uint64_t step_ps);
void matmul_unit_free(matmul_unit *u);

/* acc += a x b for one tile pair; `lda`/`ldb` are the row strides in bytes.
 * The accumulator shares no memory with the tiles. (mac.c) */
typedef void matmul_mac_fn(int32_t *restrict acc, const int8_t *restrict a, size_t lda,
                           const int8_t *restrict b, size_t ldb);
matmul_mac_fn matmul_unit_mac;
/* The ways this CPU can compute the same sums, fastest first, the plain
 * loop last: matmul_unit_mac takes the first. Fills at most `max`. */
typedef struct matmul_mac_way {
    const char *name;
    matmul_mac_fn *mac;
} matmul_mac_way;
size_t matmul_mac_ways(const matmul_mac_way **ways, size_t max);

/* Starts tile step `step` of request `req`: clears the accumulator when
 * `clear`, multiplies (the real arithmetic happens now), and sets the timer
 * that ends the step after step_ps with `cookie` for the interface. */
void matmul_compute_start(matmul *m, uint64_t req, uint32_t step, bool clear,
                          const int8_t *a, size_t lda, const int8_t *b, size_t ldb,
                          uint64_t cookie);
/* Ends the running step (from the interface's timer): stats and trace. */
void matmul_compute_end(matmul *m);
/* The output tile after the last step of its sum, row-major 128 x 128:
 * int32 accumulators when `i32`, else requantized to int8. *size_bytes gets
 * its size. Valid until the next step starts (the DMA engine copies what it
 * writes). With the `corrupt` knob the first element is wrong. */
const void *matmul_unit_result(matmul *m, bool i32, uint32_t *size_bytes);
/* Drops the running step without finishing it. */
void matmul_compute_abort(matmul *m);

/* ---- DMA engine (dma.c) ---------------------------------------------------- */

/* Called once per request: status 0 when every chunk completed, else
 * MATMUL_ERR_DMA. Never called for a cancelled request. */
typedef void (*matmul_dma_cb)(matmul *m, uint64_t cookie, int status);

typedef struct dma_req dma_req;
typedef struct dma_slot {
    uint64_t id; /* 0: free */
    dma_req *req;
    uint32_t offset, size;
} dma_slot;

typedef struct matmul_dma {
    uint32_t chunk;     /* bytes per DMA message */
    uint32_t max_reads; /* reads in flight */
    uint32_t reads_in_flight;
    dma_req *live;                    /* every request not yet freed */
    dma_req *queue_head, *queue_tail; /* reads with chunks not yet issued */
    dma_slot *slots;                  /* chunks in flight, indexed by id & 0xffff */
    uint32_t nslots;
    uint32_t *free_slots, nfree;
    uint64_t seq;
    uint8_t *msg; /* scratch for one outgoing message */
} matmul_dma;

int matmul_dma_init(matmul_dma *d, uint32_t chunk, uint32_t max_reads);
/* Limits the chunk to what the link carries (called at start). */
void matmul_dma_fit(matmul_dma *d, uint32_t max_payload);
void matmul_dma_free(matmul_dma *d);

/* Reads `size` bytes at host `addr` into `dst` (which must stay valid until
 * the callback or a cancel). Requests are served in order. `owner` groups
 * requests for matmul_dma_cancel(); `req_id` goes into the trace. */
void matmul_dma_read(matmul *m, uint64_t addr, void *dst, uint32_t size, uint64_t owner,
                     uint64_t req_id, matmul_dma_cb cb, uint64_t cookie);
/* Writes a copy of `src` to host `addr`. Writes are posted: every chunk is
 * sent at once; `cb` (may be NULL) runs when all completions are back. */
void matmul_dma_write(matmul *m, uint64_t addr, const void *src, uint32_t size,
                      uint64_t owner, uint64_t req_id, matmul_dma_cb cb, uint64_t cookie);
/* Forgets every request of `owner`: no more callbacks, late completions are
 * absorbed quietly. */
void matmul_dma_cancel(matmul *m, uint64_t owner);
/* A DMA completion from the host (MORTAR_PCIE_DMA_*_DONE). */
void matmul_dma_completion(matmul *m, bool write, const void *payload, uint32_t size);

/* ---- status and timing registers of A and register copy (status_regs.c) ---- */

/* REQ_ID, STATUS, STEP_COUNT, ERR_CODE and the timing registers, which
 * designs A and register-copy share at the same offsets. */
typedef struct matmul_status_regs {
    uint32_t req_id;
    bool busy;
    uint32_t flags;    /* MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR */
    uint32_t err_code; /* MATMUL_ERR_* */
    uint32_t req_steps, step_count;
    bool timed; /* t_first is set */
    uint64_t t_first, t_last, req_compute;
} matmul_status_regs;

bool matmul_status_read(const matmul_status_regs *s, uint32_t offset, uint32_t *value);
bool matmul_status_write(matmul_status_regs *s, uint32_t offset, uint32_t value);
/* A new request: the step counter and timing registers restart. */
void matmul_status_begin_request(matmul_status_regs *s);
void matmul_status_step_started(matmul_status_regs *s, uint64_t now);
void matmul_status_step_ended(matmul_status_regs *s, uint64_t now, uint64_t compute_ps);
/* Sets STATUS.ERROR and ERR_CODE (sticky until written 1 to clear); BUSY
 * is the caller's business. */
void matmul_status_error(matmul_status_regs *s, uint32_t code);

/* ---- the device ------------------------------------------------------------- */

typedef struct matmul_trace_kinds {
    uint16_t doorbell, desc_fetch, dma_read, dma_read_done, dma_write, dma_write_done;
    uint16_t compute_start, compute_end, completion, interrupt, error;
} matmul_trace_kinds;

struct matmul {
    mortar_component *self;
    matmul_params p;
    const matmul_iface *iface;
    matmul_unit unit;
    matmul_dma dma;
    matmul_trace_kinds tk;
    matmul_counters c;
    uint32_t devctrl; /* MORTAR_PCIE_CTRL_* from the host */
    void *ifs;        /* the interface's state */
};

static inline uint64_t matmul_now(const matmul *m)
{
    return mortar_now(m->self);
}

static inline void matmul_trace(matmul *m, uint16_t kind, uint64_t req, uint64_t a0,
                                uint64_t a1)
{
    mortar_trace(m->self, kind, req, a0, a1);
}

/* Sends MSI-X `vector` when the host enabled MSI-X; counts and traces it. */
void matmul_raise_msix(matmul *m, uint16_t vector, uint64_t req_id);

/* Reads the half of the 64-bit register at `base` that `offset` names. */
static inline bool matmul_reg64_read(uint32_t offset, uint32_t base, uint64_t v,
                                     uint32_t *value)
{
    if (offset == base)
        *value = (uint32_t)v;
    else if (offset == base + 4)
        *value = (uint32_t)(v >> 32);
    else
        return false;
    return true;
}

/* Writes the half of the 64-bit register at `base` that `offset` names. */
static inline bool matmul_reg64_write(uint32_t offset, uint32_t base, uint64_t *v,
                                      uint32_t value)
{
    if (offset == base)
        *v = (*v & 0xffffffff00000000ull) | value;
    else if (offset == base + 4)
        *v = (*v & 0xffffffffull) | ((uint64_t)value << 32);
    else
        return false;
    return true;
}

/* True when [addr, addr + size) neither wraps nor starts at 0. */
static inline bool matmul_addr_ok(uint64_t addr, uint64_t size)
{
    return addr != 0 && addr + size > addr;
}

#endif
