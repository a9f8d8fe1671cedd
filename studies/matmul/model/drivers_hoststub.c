/*
 * drivers_hoststub.c - the matmul drivers over the host stub (see
 * drivers_hoststub.h): the driver cores' ops over the stub, its host
 * memory and its waits. The sequences themselves are the cores'
 * (driver_core_*.c). Simulated time passes only inside host stub calls: MMIO
 * reads stall for a round trip, posted writes cost nothing, copies into host
 * memory are free.
 */
#include "model/drivers_hoststub.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "mortar/error.h"
#include "mortar/time.h"
#include "model/reference.h"

#define DEFAULT_TIMEOUT_PS MORTAR_S(10)
#define MAX_COPY_BYTES     8192

static int fail(matmul_drv *d, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(matmul_drv *d, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof d->err, fmt, ap);
    va_end(ap);
    return code;
}

static int host_ok(matmul_drv *d, const char *what)
{
    if (!mortar_hoststub_failed(d->h))
        return MORTAR_OK;
    return fail(d, MORTAR_EIO, "%s: %s", what, mortar_hoststub_errmsg(d->h));
}

const char *matmul_drv_errmsg(const matmul_drv *d)
{
    return d->err[0] ? d->err : "no error";
}

uint64_t matmul_drv_alloc(matmul_drv *d, uint64_t size)
{
    uint64_t addr = (d->next_free + 4095) & ~4095ull;
    if (addr < d->next_free || size > d->mem_end - addr || addr > d->mem_end)
        return 0;
    d->next_free = addr + size;
    return addr;
}

/* ---- the cores' ops over the stub ----------------------------------------------------
 */

static uint32_t op_read32(void *x, uint64_t offset)
{
    matmul_drv *d = x;
    return (uint32_t)mortar_hoststub_mmio_read(d->h, MATMUL_BAR_REGS, offset, 4);
}

static uint64_t op_read64(void *x, uint64_t offset)
{
    matmul_drv *d = x;
    return mortar_hoststub_mmio_read(d->h, MATMUL_BAR_REGS, offset, 8);
}

static void op_write32(void *x, uint64_t offset, uint32_t value)
{
    matmul_drv *d = x;
    mortar_hoststub_mmio_write(d->h, MATMUL_BAR_REGS, offset, 4, value);
}

static void op_write64(void *x, uint64_t offset, uint64_t value)
{
    matmul_drv *d = x;
    mortar_hoststub_mmio_write(d->h, MATMUL_BAR_REGS, offset, 8, value);
}

static uint32_t access_len(uint64_t size, uint64_t off, uint32_t access)
{
    return (uint32_t)(size - off < access ? size - off : access);
}

static void op_window_write(void *x, uint64_t win, const void *src, uint64_t size,
                            uint32_t access)
{
    matmul_drv *d = x;
    for (uint64_t off = 0; off < size; off += access)
        mortar_hoststub_mmio_write_block(d->h, MATMUL_BAR_WINDOW, win + off,
                                         (const uint8_t *)src + off,
                                         access_len(size, off, access));
}

static void op_window_read(void *x, uint64_t win, void *dst, uint64_t size,
                           uint32_t access)
{
    matmul_drv *d = x;
    for (uint64_t off = 0; off < size && !mortar_hoststub_failed(d->h); off += access)
        mortar_hoststub_mmio_read_block(d->h, MATMUL_BAR_WINDOW, win + off,
                                        (uint8_t *)dst + off,
                                        access_len(size, off, access));
}

/* Outside host memory: writes are dropped and reads give zeros (a record
 * address a test made bad is never polled). */
static void op_mem_write(void *x, uint64_t addr, const void *src, uint32_t size)
{
    matmul_drv *d = x;
    void *p = mortar_hoststub_mem(d->h, addr, size);
    if (p)
        memcpy(p, src, size);
}

static void op_mem_read(void *x, uint64_t addr, void *dst, uint32_t size)
{
    matmul_drv *d = x;
    const void *p = mortar_hoststub_mem(d->h, addr, size);
    if (p)
        memcpy(dst, p, size);
    else
        memset(dst, 0, size);
}

static uint64_t op_tile_addr(void *x, matmul_core_matrix which, uint64_t offset)
{
    matmul_drv *d = x;
    switch (which) {
    case MATMUL_CORE_MATRIX_A:
        return d->a_buf + offset;
    case MATMUL_CORE_MATRIX_B:
        return d->b_buf + offset;
    case MATMUL_CORE_MATRIX_C:
        break;
    }
    return d->c_buf + offset;
}

static uint64_t op_now_ps(void *x)
{
    matmul_drv *d = x;
    return mortar_hoststub_now(d->h);
}

static void op_pause(void *x)
{
    matmul_drv *d = x;
    if (d->o.poll_gap_ps)
        mortar_hoststub_delay(d->h, d->o.poll_gap_ps);
}

static const char *op_io_failed(void *x)
{
    matmul_drv *d = x;
    return mortar_hoststub_failed(d->h) ? mortar_hoststub_errmsg(d->h) : NULL;
}

static const matmul_core_ops stub_ops = {
    .read32 = op_read32,
    .read64 = op_read64,
    .write32 = op_write32,
    .write64 = op_write64,
    .window_write = op_window_write,
    .window_read = op_window_read,
    .mem_write = op_mem_write,
    .mem_read = op_mem_read,
    .tile_addr = op_tile_addr,
    .now_ps = op_now_ps,
    .pause = op_pause,
    .io_failed = op_io_failed,
};

/* A core call failed: its text becomes the driver's. */
static int core_failed(matmul_drv *d, int rc)
{
    return fail(d, rc, "%s", d->core.err);
}

/* ---- requests' accounting ---------------------------------------------------------- */

static void begin_result(matmul_drv *d, matmul_drv_result *r, uint64_t req)
{
    mortar_hoststub_counters k;
    mortar_hoststub_get_counters(d->h, &k);
    *r = (matmul_drv_result){.req_id = req,
                             .submit_ps = mortar_hoststub_now(d->h),
                             .mmio_reads = k.mmio_reads,
                             .mmio_writes = k.mmio_writes};
}

static void end_result(matmul_drv *d, matmul_drv_result *r)
{
    mortar_hoststub_counters k;
    mortar_hoststub_get_counters(d->h, &k);
    r->done_ps = mortar_hoststub_now(d->h);
    r->mmio_reads = k.mmio_reads - r->mmio_reads;
    r->mmio_writes = k.mmio_writes - r->mmio_writes;
}

/* A and regcopy: the device's own timing, read after the request. */
static int read_timing(matmul_drv *d, matmul_drv_result *r)
{
    matmul_core_timing t;
    int rc = matmul_core_read_timing(&d->core, &t);
    r->dev_first_ps = t.start_ps;
    r->dev_last_ps = t.end_ps;
    r->dev_compute_ps = t.compute_ps;
    r->steps = t.steps;
    return rc ? core_failed(d, rc) : MORTAR_OK;
}

/* Bytes per element of the product. */
static uint32_t result_bytes(const matmul_drv *d)
{
    return matmul_result_bytes(d->o.result);
}

/* ---- design A ------------------------------------------------------------------ */

static int open_a(matmul_drv *d)
{
    uint64_t nn = (uint64_t)d->n * d->n;
    d->a_buf = matmul_drv_alloc(d, nn);
    d->b_buf = matmul_drv_alloc(d, nn);
    d->c_buf = matmul_drv_alloc(d, nn * result_bytes(d));
    if (!d->a_buf || !d->b_buf || !d->c_buf)
        return fail(d, MORTAR_ENOMEM, "host memory too small for n = %u", d->n);
    return matmul_core_a_open(&d->core);
}

static int run_a(matmul_drv *d, const int8_t *a, const int8_t *b, void *c, uint32_t n,
                 matmul_drv_result *r)
{
    uint64_t nn = (uint64_t)n * n;
    matmul_tile_i8(n, a, mortar_hoststub_mem(d->h, d->a_buf, nn));
    matmul_tile_i8(n, b, mortar_hoststub_mem(d->h, d->b_buf, nn));
    begin_result(d, r, d->next_req++);
    matmul_core_a_begin(&d->core, r->req_id);
    uint32_t steps = matmul_core_a_steps(n);
    for (uint32_t s = 0; s < steps; s++) {
        int rc = matmul_core_a_step(&d->core, n, s, &r->error);
        if (rc)
            return core_failed(d, rc);
    }
    end_result(d, r);
    int rc = read_timing(d, r);
    if (rc)
        return rc;
    matmul_untile(n, result_bytes(d),
                  mortar_hoststub_mem(d->h, d->c_buf, nn * result_bytes(d)), c);
    return host_ok(d, "design A request");
}

/* ---- register copy ------------------------------------------------------------------
 */

static int open_regcopy(matmul_drv *d)
{
    int rc = matmul_core_regcopy_open(&d->core);
    if (rc)
        return core_failed(d, rc);
    if (d->core.dev_n != d->n)
        return fail(d, MORTAR_EINVAL, "the device's windows hold n = %u, not %u",
                    d->core.dev_n, d->n);
    return MORTAR_OK;
}

static int run_regcopy(matmul_drv *d, const int8_t *a, const int8_t *b, void *c,
                       uint32_t n, matmul_drv_result *r)
{
    if (n != d->n)
        return fail(d, MORTAR_EINVAL, "register copy runs n = %u only", d->n);
    begin_result(d, r, d->next_req++);
    int rc = matmul_core_regcopy_run(&d->core, r->req_id, a, b, c, &r->error);
    if (rc)
        return core_failed(d, rc);
    end_result(d, r);
    return read_timing(d, r);
}

/* ---- design B
 * -------------------------------------------------------------------------- */

static int open_b(matmul_drv *d)
{
    uint32_t e = d->o.ring_entries;
    uint64_t nn = (uint64_t)d->n * d->n;
    if (e < 2 || e > MATMUL_DRV_SLOTS_MAX)
        return fail(d, MORTAR_EINVAL, "ring_entries must be 2..%d", MATMUL_DRV_SLOTS_MAX);
    d->ring = matmul_drv_alloc(d, (uint64_t)e * sizeof(matmul_desc));
    uint64_t records = matmul_drv_alloc(d, (uint64_t)e * sizeof(matmul_completion));
    for (uint32_t i = 0; i < e; i++) {
        d->slot[i].a = matmul_drv_alloc(d, nn);
        d->slot[i].b = matmul_drv_alloc(d, nn);
        d->slot[i].c = matmul_drv_alloc(d, nn * result_bytes(d));
        d->slot[i].cpl = records + (uint64_t)i * sizeof(matmul_completion);
        if (!d->slot[i].a || !d->slot[i].b || !d->slot[i].c)
            return fail(d, MORTAR_ENOMEM, "host memory too small for %u slots of n = %u",
                        e, d->n);
    }
    if (!d->ring || !records)
        return fail(d, MORTAR_ENOMEM, "host memory too small for the ring");
    matmul_core_b_ring_program(&d->core, d->ring, e,
                               d->o.use_irq ? MATMUL_CORE_IRQ_ON : MATMUL_CORE_IRQ_KEEP);
    d->tail = 0;
    if (d->o.use_irq)
        mortar_hoststub_devctrl(d->h, MORTAR_PCIE_CTRL_MSIX_ENABLE |
                                          MORTAR_PCIE_CTRL_BUS_MASTER);
    int rc = matmul_core_b_ring_enable(&d->core);
    return rc ? core_failed(d, rc) : MORTAR_OK;
}

int matmul_drv_b_submit_desc(matmul_drv *d, const matmul_desc *desc, uint32_t *slot)
{
    if (d->code != MATMUL_CODE_B)
        return fail(d, MORTAR_EINVAL, "not a design B device");
    if (d->in_flight + 1 >= d->o.ring_entries)
        return fail(d, MORTAR_EAGAIN, "the ring is full");
    uint32_t s = d->tail;
    d->slot[s].req_id = desc->req_id;
    d->slot[s].n = desc->n;
    d->slot[s].busy = true;
    d->slot[s].submit_ps = mortar_hoststub_now(d->h);
    d->in_flight++;
    *slot = s;
    int rc = matmul_core_b_queue(&d->core, &d->tail, desc, d->slot[s].cpl);
    return rc ? core_failed(d, rc) : MORTAR_OK;
}

int matmul_drv_b_submit(matmul_drv *d, const int8_t *a, const int8_t *b, uint32_t n,
                        uint32_t *slot)
{
    if (n == 0 || n % MATMUL_TILE || n > d->n)
        return fail(d, MORTAR_EINVAL, "n = %u does not fit the driver's buffers", n);
    uint32_t s = d->tail;
    uint64_t nn = (uint64_t)n * n;
    matmul_tile_i8(n, a, mortar_hoststub_mem(d->h, d->slot[s].a, nn));
    matmul_tile_i8(n, b, mortar_hoststub_mem(d->h, d->slot[s].b, nn));
    matmul_desc desc = matmul_core_b_desc(&d->core, d->next_req++, d->slot[s].a,
                                          d->slot[s].b, d->slot[s].c, d->slot[s].cpl, n);
    return matmul_drv_b_submit_desc(d, &desc, slot);
}

/* Waits for the record of `slot`: polling host memory, or on interrupts. */
static int wait_record(matmul_drv *d, uint32_t slot)
{
    uint64_t deadline = mortar_hoststub_now(d->h) + d->o.timeout_ps;
    uint64_t record = d->slot[slot].cpl;
    if (!d->o.use_irq) {
        if (!mortar_hoststub_wait_mem32(d->h, matmul_core_b_done_word(record),
                                        MATMUL_CPL_DONE, MATMUL_CPL_DONE,
                                        d->o.timeout_ps))
            return fail(d, MORTAR_ETIMEDOUT, "no completion record for slot %u", slot);
        return MORTAR_OK;
    }
    while (!matmul_core_b_record_done(&d->core, record)) {
        uint64_t now = mortar_hoststub_now(d->h);
        if (now >= deadline ||
            !mortar_hoststub_wait_interrupt(d->h, deadline - now, NULL, NULL))
            return fail(d, MORTAR_ETIMEDOUT, "no interrupt for slot %u", slot);
    }
    return MORTAR_OK;
}

int matmul_drv_b_wait(matmul_drv *d, uint32_t slot, void *c, matmul_drv_result *r)
{
    matmul_drv_result tmp;
    if (!r)
        r = &tmp;
    if (slot >= d->o.ring_entries || !d->slot[slot].busy)
        return fail(d, MORTAR_EINVAL, "slot %u holds no request", slot);
    *r = (matmul_drv_result){.req_id = d->slot[slot].req_id,
                             .submit_ps = d->slot[slot].submit_ps};
    int rc = wait_record(d, slot);
    if (!rc)
        rc = host_ok(d, "waiting for the completion record");
    if (rc)
        return rc;
    matmul_core_timing t;
    rc = matmul_core_b_finish(&d->core, d->slot[slot].cpl, d->slot[slot].req_id, &t);
    d->slot[slot].busy = false;
    d->in_flight--;
    r->done_ps = mortar_hoststub_now(d->h);
    r->dev_first_ps = t.start_ps;
    r->dev_last_ps = t.end_ps;
    r->dev_compute_ps = t.compute_ps;
    r->steps = t.steps;
    r->error = t.error;
    if (rc)
        return core_failed(d, rc);
    uint32_t n = d->slot[slot].n;
    uint32_t elem = result_bytes(d);
    if (c)
        matmul_untile(n, elem,
                      mortar_hoststub_mem(d->h, d->slot[slot].c, (uint64_t)n * n * elem),
                      c);
    return MORTAR_OK;
}

static int run_b(matmul_drv *d, const int8_t *a, const int8_t *b, void *c, uint32_t n,
                 matmul_drv_result *r)
{
    uint32_t slot;
    mortar_hoststub_counters k0, k1;
    mortar_hoststub_get_counters(d->h, &k0);
    int rc = matmul_drv_b_submit(d, a, b, n, &slot);
    if (!rc)
        rc = matmul_drv_b_wait(d, slot, c, r);
    mortar_hoststub_get_counters(d->h, &k1);
    r->mmio_reads = k1.mmio_reads - k0.mmio_reads;
    r->mmio_writes = k1.mmio_writes - k0.mmio_writes;
    return rc;
}

/* ---- common
 * ------------------------------------------------------------------------------ */

static void set_options(matmul_drv *d, const matmul_drv_opts *o)
{
    if (o)
        d->o = *o;
    if (!d->o.copy_bytes)
        d->o.copy_bytes = 8;
    if (d->o.copy_bytes > MAX_COPY_BYTES)
        d->o.copy_bytes = MAX_COPY_BYTES;
    if (!d->o.ring_entries)
        d->o.ring_entries = 8;
    if (!d->o.timeout_ps)
        d->o.timeout_ps = DEFAULT_TIMEOUT_PS;
    matmul_core_opts co = {.result = d->o.result,
                           .timeout_ps = d->o.timeout_ps,
                           .copy_bytes = d->o.copy_bytes};
    matmul_core_init(&d->core, &stub_ops, d, &co);
}

int matmul_drv_open(matmul_drv *d, mortar_hoststub *h, uint32_t n,
                    const matmul_drv_opts *o)
{
    memset(d, 0, sizeof *d);
    d->h = h;
    d->n = n;
    d->next_req = 1;
    set_options(d, o);
    d->next_free = mortar_hoststub_mem_base(h);
    d->mem_end = d->next_free + mortar_hoststub_mem_size(h);
    if (n == 0 || n % MATMUL_TILE)
        return fail(d, MORTAR_EINVAL, "n = %u is not a multiple of 128", n);
    if (d->o.result != MATMUL_RESULT_I8 && d->o.result != MATMUL_RESULT_I32)
        return fail(d, MORTAR_EINVAL, "unknown result format %d", (int)d->o.result);
    int rc = matmul_core_identify(&d->core, &d->code);
    if (rc)
        return core_failed(d, rc);
    switch (d->code) {
    case MATMUL_CODE_A:
        return open_a(d);
    case MATMUL_CODE_B:
        return open_b(d);
    case MATMUL_CODE_REGCOPY:
        return open_regcopy(d);
    }
    return fail(d, MORTAR_EPROTO, "unknown matmul design '%c'", d->code);
}

int matmul_drv_run(matmul_drv *d, const int8_t *a, const int8_t *b, void *c, uint32_t n,
                   matmul_drv_result *r)
{
    matmul_drv_result tmp;
    if (!r)
        r = &tmp;
    memset(r, 0, sizeof *r);
    if (n == 0 || n % MATMUL_TILE || n > d->n)
        return fail(d, MORTAR_EINVAL, "n = %u does not fit (multiple of 128, at most %u)",
                    n, d->n);
    switch (d->code) {
    case MATMUL_CODE_A:
        return run_a(d, a, b, c, n, r);
    case MATMUL_CODE_B:
        return run_b(d, a, b, c, n, r);
    case MATMUL_CODE_REGCOPY:
        return run_regcopy(d, a, b, c, n, r);
    }
    return fail(d, MORTAR_ESTATE, "the driver is not open");
}
