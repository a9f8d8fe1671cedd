/*
 * matmul_drv.c - the common part of the matmul drivers (matmul_drv.h):
 * opening a backend, the slot bookkeeping around submit / wait / complete,
 * the driver core's ops over this library, DMA memory per request, and the
 * tiled layout. The devices' sequences are the driver core's
 * (studies/matmul/model/driver_core_*.c, shared with the host stub's drivers);
 * matmul_a.c, matmul_b.c and matmul_regcopy.c adapt them to slots and
 * waits, matmul_sw.c is the software baseline.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matmul_internal.h"

#define DEFAULT_MAX_N      512u
#define DEFAULT_INFLIGHT   8u
#define DEFAULT_TIMEOUT_NS 10000000000ull /* 10 s of guest time */

static const struct {
    const char *name;
    matmul_backend backend;
    uint16_t device_id;
    char code;
    const matmul_ops *ops;
} backends[] = {
    {"a", MATMUL_BACKEND_A, MATMUL_DEVICE_A, MATMUL_CODE_A, &matmul_ops_a},
    {"b", MATMUL_BACKEND_B, MATMUL_DEVICE_B, MATMUL_CODE_B, &matmul_ops_b},
    {"regcopy", MATMUL_BACKEND_REGCOPY, MATMUL_DEVICE_REGCOPY, MATMUL_CODE_REGCOPY,
     &matmul_ops_regcopy},
    {"software", MATMUL_BACKEND_SOFTWARE, 0, 0, &matmul_ops_software},
};
#define NBACKENDS (sizeof backends / sizeof backends[0])

int matmul_backend_parse(const char *name, matmul_backend *backend)
{
    for (size_t i = 0; i < NBACKENDS; i++) {
        if (!strcmp(name, backends[i].name)) {
            *backend = backends[i].backend;
            return 0;
        }
    }
    if (!strcmp(name, "sw")) {
        *backend = MATMUL_BACKEND_SOFTWARE;
        return 0;
    }
    return MORTAR_EINVAL;
}

const char *matmul_backend_name(matmul_backend backend)
{
    return (unsigned)backend < NBACKENDS ? backends[backend].name : "?";
}

int matmul_fail(matmul_guest *d, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof d->err, fmt, ap);
    va_end(ap);
    return code;
}

const char *matmul_guest_errmsg(const matmul_guest *d)
{
    return d->err[0] ? d->err : "no error";
}

matmul_backend matmul_guest_backend(const matmul_guest *d)
{
    return d->backend;
}

unsigned matmul_guest_capacity(const matmul_guest *d)
{
    return d->nslots;
}

uint32_t matmul_guest_max_n(const matmul_guest *d)
{
    return d->o.max_n;
}

unsigned matmul_guest_in_flight(const matmul_guest *d)
{
    return d->in_flight;
}

/* ---- opening ------------------------------------------------------------------ */

static int set_options(matmul_guest *d, const matmul_guest_opts *o)
{
    if (o) {
        d->o = *o;
    }
    if (!d->o.max_n) {
        d->o.max_n = DEFAULT_MAX_N;
    }
    if (d->o.max_n % MATMUL_TILE || d->o.max_n > 4096) {
        return matmul_fail(d, MORTAR_EINVAL, "max_n = %u: a multiple of 128 up to 4096",
                           d->o.max_n);
    }
    /* Only b's ring holds several requests; the caller queues the rest. */
    unsigned holds = d->backend == MATMUL_BACKEND_B ? MATMUL_SLOTS_MAX : 1;
    if (!d->o.inflight) {
        d->o.inflight = d->backend == MATMUL_BACKEND_B ? DEFAULT_INFLIGHT : 1;
    }
    if (d->o.inflight > holds) {
        d->o.inflight = holds;
    }
    if (!d->o.copy_bytes) {
        d->o.copy_bytes = 8;
    }
    uint32_t cb = d->o.copy_bytes;
    if (cb != 1 && cb != 2 && cb != 4 && cb != 8) {
        return matmul_fail(d, MORTAR_EINVAL, "copy_bytes = %u: 1, 2, 4 or 8", cb);
    }
    if (!d->o.timeout_ns) {
        d->o.timeout_ns = DEFAULT_TIMEOUT_NS;
    }
    if (d->o.result != MATMUL_RESULT_I8 && d->o.result != MATMUL_RESULT_I32) {
        return matmul_fail(d, MORTAR_EINVAL, "unknown result format %d",
                           (int)d->o.result);
    }
    d->nslots = d->o.inflight;
    uint64_t timeout_ps =
        d->o.timeout_ns > UINT64_MAX / 1000 ? UINT64_MAX : d->o.timeout_ns * 1000;
    matmul_core_opts co = {
        .result = d->o.result, .timeout_ps = timeout_ps, .copy_bytes = d->o.copy_bytes};
    matmul_core_init(&d->core, &matmul_core_guest_ops, d, &co);
    return 0;
}

/* Finds and opens the design's device, maps BAR0 and checks ID. */
static int open_device(matmul_guest *d, size_t which)
{
    char err[320];
    int rc = mortar_guest_open(&d->pci, MATMUL_VENDOR_ID, backends[which].device_id, 0,
                               err, sizeof err);
    if (rc) {
        return matmul_fail(d, rc, "design %s: %s", backends[which].name, err);
    }
    rc = mortar_guest_bar_map(d->pci, MATMUL_BAR_REGS, &d->regs);
    if (rc) {
        return matmul_fail(d, rc, "%s", mortar_guest_errmsg(d->pci));
    }
    char code;
    rc = matmul_core_identify(&d->core, &code);
    if (rc) {
        return matmul_fail(d, rc, "%s: %s", mortar_guest_info(d->pci)->bdf, d->core.err);
    }
    if (code != backends[which].code) {
        return matmul_fail(d, MORTAR_EPROTO, "%s: the device is design '%c', not '%c'",
                           mortar_guest_info(d->pci)->bdf, code, backends[which].code);
    }
    return 0;
}

int matmul_guest_open(matmul_guest **dp, matmul_backend backend,
                      const matmul_guest_opts *o, char *err, size_t err_size)
{
    *dp = NULL;
    if ((unsigned)backend >= NBACKENDS) {
        snprintf(err, err_size, "unknown backend %d", (int)backend);
        return MORTAR_EINVAL;
    }
    matmul_guest *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, err_size, "out of memory");
        return MORTAR_ENOMEM;
    }
    d->backend = backend;
    d->ops = backends[backend].ops;
    int rc = set_options(d, o);
    if (!rc && backend != MATMUL_BACKEND_SOFTWARE) {
        rc = open_device(d, backend);
    }
    if (!rc) {
        rc = d->ops->open(d);
    }
    if (rc) {
        snprintf(err, err_size, "%s", d->err);
        matmul_guest_close(d);
        return rc;
    }
    *dp = d;
    return 0;
}

void matmul_guest_close(matmul_guest *d)
{
    if (!d) {
        return;
    }
    if (d->ops->close) {
        d->ops->close(d);
    }
    mortar_guest_close(d->pci); /* bus mastering and interrupts off */
    for (unsigned i = 0; i < MATMUL_SLOTS_MAX; i++) {
        mortar_guest_dma_free(d->slots[i].mem);
    }
    mortar_guest_dma_free(d->ring_mem);
    free(d->work);
    free(d);
}

int matmul_slot_alloc(matmul_guest *d, matmul_slot *s, bool contiguous)
{
    size_t nn = (size_t)d->o.max_n * d->o.max_n;
    char err[320];
    int rc = mortar_guest_dma_alloc(&s->mem, 6 * nn, 0, err, sizeof err);
    if (rc) {
        return matmul_fail(d, rc, "DMA memory for n = %u: %s", d->o.max_n, err);
    }
    uint8_t *base = mortar_guest_dma_virt(s->mem);
    s->a_virt = (int8_t *)base;
    s->b_virt = (int8_t *)base + nn;
    s->c_virt = base + 2 * nn;
    s->a_phys = mortar_guest_dma_phys(s->mem, 0);
    s->b_phys = mortar_guest_dma_phys(s->mem, nn);
    s->c_phys = mortar_guest_dma_phys(s->mem, 2 * nn);
    if (contiguous &&
        (!mortar_guest_dma_contiguous(s->mem, 0, nn) ||
         !mortar_guest_dma_contiguous(s->mem, nn, nn) ||
         !mortar_guest_dma_contiguous(s->mem, 2 * nn, nn * matmul_elem_bytes(d)))) {
        return matmul_fail(d, MORTAR_ENOMEM,
                           "n = %u: a matrix is not physically contiguous in DMA memory "
                           "(%s pages; design b needs each matrix in one piece)",
                           d->o.max_n,
                           mortar_guest_dma_is_huge(s->mem) ? "huge" : "small");
    }
    return 0;
}

/* ---- requests ------------------------------------------------------------------- */

static matmul_slot *slot_of(matmul_guest *d, int slot)
{
    if (slot < 0 || (unsigned)slot >= d->nslots || !d->slots[slot].busy) {
        return NULL;
    }
    return &d->slots[slot];
}

int matmul_guest_submit(matmul_guest *d, uint64_t req_id, uint32_t n, const int8_t *a,
                        const int8_t *b, void *c)
{
    if (n == 0 || n % MATMUL_TILE || n > d->o.max_n) {
        return matmul_fail(d, MORTAR_EINVAL, "n = %u: a multiple of 128 up to %u", n,
                           d->o.max_n);
    }
    int free_slot = -1;
    uint32_t behind = 0;
    for (unsigned i = 0; i < d->nslots; i++) {
        if (!d->slots[i].busy) {
            free_slot = free_slot < 0 ? (int)i : free_slot;
        } else if (!d->slots[i].done) {
            behind++;
        }
    }
    if (free_slot < 0) {
        return matmul_fail(d, MORTAR_EAGAIN, "all %u slots are busy", d->nslots);
    }
    matmul_slot *s = &d->slots[free_slot];
    s->busy = true;
    s->done = false;
    s->req_id = req_id;
    s->n = n;
    s->c = c;
    s->seq = d->next_seq++;
    s->t = (matmul_guest_timing){.req_id = req_id, .n = n, .queued_behind = behind};
    uint64_t reads = d->mmio_reads, writes = d->mmio_writes;
    d->in_flight++;
    int rc = d->ops->submit(d, s, a, b);
    s->t.mmio_reads += d->mmio_reads - reads;
    s->t.mmio_writes += d->mmio_writes - writes;
    if (rc) {
        s->busy = false;
        d->in_flight--;
        return rc;
    }
    return free_slot;
}

int matmul_guest_wait(matmul_guest *d, int slot, uint64_t timeout_ns)
{
    matmul_slot *s = slot_of(d, slot);
    if (!s) {
        return matmul_fail(d, MORTAR_EINVAL, "slot %d holds no request", slot);
    }
    if (s->done) {
        return 1;
    }
    if (!d->ops->wait) {
        return matmul_fail(d, MORTAR_ESTATE, "slot %d: not done and nothing to wait for",
                           slot);
    }
    if (timeout_ns > d->o.timeout_ns) {
        timeout_ns = d->o.timeout_ns; /* MATMUL_GUEST_UNTIL_DONE */
    }
    uint64_t reads = d->mmio_reads, writes = d->mmio_writes;
    int rc = d->ops->wait(d, s, timeout_ns);
    s->t.mmio_reads += d->mmio_reads - reads;
    s->t.mmio_writes += d->mmio_writes - writes;
    return rc;
}

int matmul_guest_complete(matmul_guest *d, int slot, matmul_guest_timing *t)
{
    matmul_slot *s = slot_of(d, slot);
    if (!s) {
        return matmul_fail(d, MORTAR_EINVAL, "slot %d holds no request", slot);
    }
    if (!s->done) {
        return matmul_fail(d, MORTAR_ESTATE, "slot %d: request %llu is not done", slot,
                           (unsigned long long)s->req_id);
    }
    int rc = d->ops->complete ? d->ops->complete(d, s) : 0;
    if (t) {
        *t = s->t;
    }
    s->busy = false;
    d->in_flight--;
    return rc;
}

int matmul_guest_read_device_timing(matmul_guest *d, matmul_guest_timing *t)
{
    return d->ops->device_timing ? d->ops->device_timing(d, t) : 0;
}

int matmul_guest_run(matmul_guest *d, uint64_t req_id, uint32_t n, const int8_t *a,
                     const int8_t *b, void *c, matmul_guest_timing *t)
{
    int slot = matmul_guest_submit(d, req_id, n, a, b, c);
    if (slot < 0) {
        return slot;
    }
    int rc = matmul_guest_wait(d, slot, d->o.timeout_ns);
    if (rc == 0) {
        rc = matmul_fail(d, MORTAR_ETIMEDOUT, "request %llu: not done within %llu ns",
                         (unsigned long long)req_id, (unsigned long long)d->o.timeout_ns);
    }
    if (rc < 0) {
        return rc;
    }
    matmul_guest_timing tmp;
    if (!t) {
        t = &tmp;
    }
    rc = matmul_guest_complete(d, slot, t);
    if (!rc) {
        rc = matmul_guest_read_device_timing(d, t);
    }
    return rc;
}

/* ---- the driver core's ops ------------------------------------------------------ */

int matmul_core_failed(matmul_guest *d, int rc)
{
    return matmul_fail(d, rc, "%s", d->core.err);
}

static uint32_t op_read32(void *x, uint64_t off)
{
    return mm_rd32(x, off);
}

static uint64_t op_read64(void *x, uint64_t off)
{
    return mm_rd64(x, off);
}

static void op_write32(void *x, uint64_t off, uint32_t v)
{
    mm_wr32(x, off, v);
}

static void op_write64(void *x, uint64_t off, uint64_t v)
{
    mm_wr64(x, off, v);
}

/* `size` bytes from src into BAR2 at `off`, `access` bytes (1, 2, 4 or 8,
 * size a multiple) per MMIO write: one store each in a tight loop. */
static void op_window_write(void *x, uint64_t off, const void *src, uint64_t size,
                            uint32_t access)
{
    matmul_guest *d = x;
    volatile uint8_t *w = d->win->base + off;
    const uint8_t *p = src;
    uint64_t i;
    switch (access) {
    case 8:
        for (i = 0; i < size; i += 8) {
            uint64_t v;
            memcpy(&v, p + i, 8);
            *(volatile uint64_t *)(w + i) = v;
        }
        break;
    case 4:
        for (i = 0; i < size; i += 4) {
            uint32_t v;
            memcpy(&v, p + i, 4);
            *(volatile uint32_t *)(w + i) = v;
        }
        break;
    case 2:
        for (i = 0; i < size; i += 2) {
            uint16_t v;
            memcpy(&v, p + i, 2);
            *(volatile uint16_t *)(w + i) = v;
        }
        break;
    default:
        for (i = 0; i < size; i++) {
            w[i] = p[i];
        }
    }
    d->mmio_writes += size / access;
}

/* `size` bytes from BAR2 at `off` into dst, `access` bytes per MMIO read. */
static void op_window_read(void *x, uint64_t off, void *dst, uint64_t size,
                           uint32_t access)
{
    matmul_guest *d = x;
    const volatile uint8_t *w = d->win->base + off;
    uint8_t *p = dst;
    uint64_t i;
    switch (access) {
    case 8:
        for (i = 0; i < size; i += 8) {
            uint64_t v = *(const volatile uint64_t *)(w + i);
            memcpy(p + i, &v, 8);
        }
        break;
    case 4:
        for (i = 0; i < size; i += 4) {
            uint32_t v = *(const volatile uint32_t *)(w + i);
            memcpy(p + i, &v, 4);
        }
        break;
    case 2:
        for (i = 0; i < size; i += 2) {
            uint16_t v = *(const volatile uint16_t *)(w + i);
            memcpy(p + i, &v, 2);
        }
        break;
    default:
        for (i = 0; i < size; i++) {
            p[i] = w[i];
        }
    }
    d->mmio_reads += size / access;
}

/* b: the ring memory (descriptors, then records) at physical `addr`; NULL
 * outside it. */
static volatile uint8_t *ring_virt(matmul_guest *d, uint64_t addr, uint32_t size)
{
    if (!d->ring_mem || addr < d->ring_phys || addr - d->ring_phys > d->ring_mem_bytes ||
        size > d->ring_mem_bytes - (addr - d->ring_phys)) {
        return NULL;
    }
    return (volatile uint8_t *)mortar_guest_dma_virt(d->ring_mem) + (addr - d->ring_phys);
}

/* 64-bit stores (the device reads what the CPU wrote whole words of). */
static void op_mem_write(void *x, uint64_t addr, const void *src, uint32_t size)
{
    volatile uint8_t *p = ring_virt(x, addr, size);
    if (!p) {
        return;
    }
    for (uint32_t i = 0; i + 8 <= size; i += 8) {
        uint64_t v;
        memcpy(&v, (const uint8_t *)src + i, 8);
        *(volatile uint64_t *)(p + i) = v;
    }
}

static void op_mem_read(void *x, uint64_t addr, void *dst, uint32_t size)
{
    const volatile uint8_t *p = ring_virt(x, addr, size);
    uint8_t *out = dst;
    for (uint32_t i = 0; i < size; i += 4) {
        uint32_t v = p ? *(const volatile uint32_t *)(p + i) : 0;
        memcpy(out + i, &v, size - i < 4 ? size - i : 4);
    }
}

static void op_mem_barrier(void *x)
{
    (void)x;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* a: the slot's buffer holds A, B and C at max_n, each at its region. */
static uint64_t op_tile_addr(void *x, matmul_core_matrix which, uint64_t offset)
{
    matmul_guest *d = x;
    size_t region = (size_t)d->o.max_n * d->o.max_n * (size_t)which;
    return mortar_guest_dma_phys(d->active->mem, region + offset);
}

static uint64_t op_now_ps(void *x)
{
    (void)x;
    return mortar_guest_now_ns() * 1000;
}

const matmul_core_ops matmul_core_guest_ops = {
    .read32 = op_read32,
    .read64 = op_read64,
    .write32 = op_write32,
    .write64 = op_write64,
    .window_write = op_window_write,
    .window_read = op_window_read,
    .mem_write = op_mem_write,
    .mem_read = op_mem_read,
    .mem_barrier = op_mem_barrier,
    .tile_addr = op_tile_addr,
    .now_ps = op_now_ps,
};

/* ---- tiled layout --------------------------------------------------------------- */

void matmul_guest_tile_i8(uint32_t n, const int8_t *row_major, int8_t *tiled)
{
    uint32_t t = n / MATMUL_TILE;
    for (uint32_t tr = 0; tr < t; tr++) {
        for (uint32_t tc = 0; tc < t; tc++) {
            int8_t *dst = tiled + matmul_tile_offset(n, tr, tc, MATMUL_TILE_I8);
            const int8_t *src =
                row_major + (size_t)tr * MATMUL_TILE * n + (size_t)tc * MATMUL_TILE;
            for (uint32_t r = 0; r < MATMUL_TILE; r++) {
                memcpy(dst + (size_t)r * MATMUL_TILE, src + (size_t)r * n, MATMUL_TILE);
            }
        }
    }
}

void matmul_guest_untile(uint32_t n, uint32_t elem_bytes, const void *tiled,
                         void *row_major)
{
    uint32_t t = n / MATMUL_TILE, row_bytes = MATMUL_TILE * elem_bytes;
    for (uint32_t tr = 0; tr < t; tr++) {
        for (uint32_t tc = 0; tc < t; tc++) {
            const uint8_t *src = (const uint8_t *)tiled +
                                 matmul_tile_offset(n, tr, tc, MATMUL_TILE * row_bytes);
            uint8_t *dst =
                (uint8_t *)row_major +
                ((size_t)tr * MATMUL_TILE * n + (size_t)tc * MATMUL_TILE) * elem_bytes;
            for (uint32_t r = 0; r < MATMUL_TILE; r++) {
                memcpy(dst + (size_t)r * n * elem_bytes, src + (size_t)r * row_bytes,
                       row_bytes);
            }
        }
    }
}
