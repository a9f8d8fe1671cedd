/*
 * matmul_internal.h - what the files of the matmul drivers share
 * (matmul_drv.c, matmul_a.c, matmul_b.c, matmul_regcopy.c, matmul_sw.c):
 * the handle's layout, the per-backend operations, MMIO accessors that
 * count every access, and the driver core (studies/matmul/model/driver_core.h) that
 * makes the devices' sequences over them. Guest programs include
 * matmul_drv.h only.
 */
#ifndef MORTAR_GUEST_MATMUL_INTERNAL_H
#define MORTAR_GUEST_MATMUL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "matmul_drv.h"
#include "mortar_guest.h"
#include "model/driver_core.h"
#include "model/matmul_regs.h"

#define MATMUL_SLOTS_MAX 63 /* b: requests in flight; the ring has one entry more */

/* One request's place in the driver. Designs a, regcopy and software have
 * one; design b one per request it may hold, each with its own DMA memory
 * and completion record. */
typedef struct matmul_slot {
    bool busy; /* submitted, not completed */
    bool done; /* the driver saw it done */
    uint64_t req_id;
    uint32_t n;
    void *c; /* the caller's result buffer, row-major, the options' format */
    matmul_guest_timing t;
    uint64_t seq; /* submit order, for queued_behind */
    /* a: the next tile step to run, and the error that ended the request
     * (0: none), reported by complete. */
    uint32_t next_step;
    int error;
    /* DMA memory (a, b): A and B tiled int8, C tiled (int8 or int32), at max_n. */
    mortar_guest_dma *mem;
    int8_t *a_virt, *b_virt;
    void *c_virt;
    uint64_t a_phys, b_phys, c_phys;
    /* b: this slot's completion record in the ring memory */
    volatile matmul_completion *cpl;
    uint64_t cpl_phys;
} matmul_slot;

typedef struct matmul_ops {
    /* Set up after the common part (device opened for a/b/regcopy). */
    int (*open)(matmul_guest *d);
    void (*close)(matmul_guest *d);
    /* Hand the request over. regcopy, software: run it to the end and set
     * s->done (timing in s->t); a: start it; b: queue it. */
    int (*submit)(matmul_guest *d, matmul_slot *s, const int8_t *a, const int8_t *b);
    /* a: run tile steps, b: wait, for up to timeout_ns (0: only look);
     * 1 done (s->done set), 0 not yet. */
    int (*wait)(matmul_guest *d, matmul_slot *s, uint64_t timeout_ns);
    /* s is done: result into s->c, device timing into s->t. */
    int (*complete)(matmul_guest *d, matmul_slot *s);
    /* a, regcopy: read the timing registers (NULL: nothing to read). */
    int (*device_timing)(matmul_guest *d, matmul_guest_timing *t);
} matmul_ops;

struct matmul_guest {
    matmul_backend backend;
    const matmul_ops *ops;
    matmul_guest_opts o;
    matmul_core core;      /* a, b, regcopy: the sequences, over matmul_core_guest_ops */
    matmul_slot *active;   /* a: the request whose tiles the steps address */
    mortar_guest_dev *pci; /* NULL for software */
    const mortar_guest_bar *regs; /* BAR0 */
    const mortar_guest_bar *win;  /* regcopy: BAR2 */
    uint64_t mmio_reads, mmio_writes;
    unsigned nslots, in_flight;
    uint64_t next_seq;
    matmul_slot slots[MATMUL_SLOTS_MAX];
    /* b: ring of nslots + 1 descriptors, then nslots completion records */
    mortar_guest_dma *ring_mem;
    uint64_t ring_phys;
    size_t ring_mem_bytes;
    uint32_t ring_entries, tail;
    /* software: transposed B and widened A rows */
    void *work;
    char err[320];
};

extern const matmul_ops matmul_ops_a, matmul_ops_b, matmul_ops_regcopy,
    matmul_ops_software;

/* The driver core's ops over this library (matmul_drv.c): BAR0 and BAR2
 * accesses counted in mmio_reads / mmio_writes, the ring memory of b, the
 * tiles of a's active slot, CLOCK_MONOTONIC, no pause between polls. */
extern const matmul_core_ops matmul_core_guest_ops;

/* Format an error into d->err; returns `code`. */
int matmul_fail(matmul_guest *d, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* MMIO on BAR0, counted. Reads stall for a round trip over the link;
 * writes are posted. */
static inline uint32_t mm_rd32(matmul_guest *d, uint64_t off)
{
    d->mmio_reads++;
    return mortar_guest_read32(d->regs, off);
}

static inline uint64_t mm_rd64(matmul_guest *d, uint64_t off)
{
    d->mmio_reads++;
    return mortar_guest_read64(d->regs, off);
}

static inline void mm_wr32(matmul_guest *d, uint64_t off, uint32_t v)
{
    d->mmio_writes++;
    mortar_guest_write32(d->regs, off, v);
}

static inline void mm_wr64(matmul_guest *d, uint64_t off, uint64_t v)
{
    d->mmio_writes++;
    mortar_guest_write64(d->regs, off, v);
}

/* A driver core call failed with `rc`: its text becomes the handle's. */
int matmul_core_failed(matmul_guest *d, int rc);

/* a, regcopy: the device's timing registers into *t (matmul_a.c). */
int matmul_device_timing(matmul_guest *d, matmul_guest_timing *t);

/* Allocates DMA memory for one request at max_n (A and B tiled int8, C
 * tiled in the result format) into s; whole matrices must be contiguous when `contiguous`
 * (b's descriptor has one address each), else tiles only (a). */
int matmul_slot_alloc(matmul_guest *d, matmul_slot *s, bool contiguous);

/* Bytes per element of the product, and whether it is int32. */
static inline uint32_t matmul_elem_bytes(const matmul_guest *d)
{
    return matmul_result_bytes(d->o.result);
}

static inline bool matmul_result_i32(const matmul_guest *d)
{
    return d->o.result == MATMUL_RESULT_I32;
}

#endif
