/*
 * drivers_hoststub.c - the matmul drivers over the host stub (see
 * drivers_hoststub.h for the three sequences). Simulated time passes only
 * inside host stub calls: MMIO reads stall for a round trip, posted writes
 * cost nothing, copies into host memory are free.
 */
#include "sims/matmul/drivers_hoststub.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "mortar/error.h"
#include "mortar/time.h"
#include "sims/matmul/reference.h"

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
    if (!hoststub_failed(d->h))
        return MORTAR_OK;
    return fail(d, MORTAR_EIO, "%s: %s", what, hoststub_errmsg(d->h));
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

static uint32_t reg_read(matmul_drv *d, uint64_t offset)
{
    return (uint32_t)hoststub_mmio_read(d->h, MATMUL_BAR_REGS, offset, 4);
}

static uint64_t reg_read64(matmul_drv *d, uint64_t offset)
{
    return hoststub_mmio_read(d->h, MATMUL_BAR_REGS, offset, 8);
}

static void reg_write(matmul_drv *d, uint64_t offset, uint32_t size, uint64_t value)
{
    hoststub_mmio_write(d->h, MATMUL_BAR_REGS, offset, size, value);
}

/* Polls `reg` until one of `mask`'s bits is set; the value in *out. */
static int poll_reg(matmul_drv *d, uint64_t reg, uint32_t mask, uint32_t *out)
{
    uint64_t start = hoststub_now(d->h);
    for (;;) {
        *out = reg_read(d, reg);
        int rc = host_ok(d, "polling STATUS");
        if (rc || (*out & mask))
            return rc;
        if (hoststub_now(d->h) - start > d->o.timeout_ps)
            return fail(d, MORTAR_ETIMEDOUT, "STATUS stayed 0x%x", *out);
        if (d->o.poll_gap_ps)
            hoststub_delay(d->h, d->o.poll_gap_ps);
    }
}

static void begin_result(matmul_drv *d, matmul_drv_result *r, uint64_t req)
{
    hoststub_counters k;
    hoststub_get_counters(d->h, &k);
    *r = (matmul_drv_result){.req_id = req,
                             .submit_ps = hoststub_now(d->h),
                             .mmio_reads = k.mmio_reads,
                             .mmio_writes = k.mmio_writes};
}

static void end_result(matmul_drv *d, matmul_drv_result *r)
{
    hoststub_counters k;
    hoststub_get_counters(d->h, &k);
    r->done_ps = hoststub_now(d->h);
    r->mmio_reads = k.mmio_reads - r->mmio_reads;
    r->mmio_writes = k.mmio_writes - r->mmio_writes;
}

/* A and regcopy: the device's own timing, read after the request. */
static void read_timing(matmul_drv *d, matmul_drv_result *r)
{
    r->dev_first_ps = reg_read64(d, MATMUL_A_T_FIRST);
    r->dev_last_ps = reg_read64(d, MATMUL_A_T_LAST);
    r->dev_compute_ps = reg_read64(d, MATMUL_A_COMPUTE);
    r->steps = MATMUL_STATUS_STEPS(reg_read(d, MATMUL_A_STATUS));
}

/* A and regcopy: after STATUS.ERROR, fetch the code. */
static int device_error(matmul_drv *d, matmul_drv_result *r)
{
    r->error = reg_read(d, MATMUL_A_ERR_CODE);
    reg_write(d, MATMUL_A_STATUS, 4, MATMUL_STATUS_ERROR);
    return fail(d, MORTAR_EPROTO, "the device reported error %u", r->error);
}

static bool result_i32(const matmul_drv *d)
{
    return d->o.result == MATMUL_RESULT_I32;
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
    return MORTAR_OK;
}

static uint32_t step_ctrl(const matmul_drv *d, uint32_t step, uint32_t tiles)
{
    uint32_t k = step % tiles, steps = tiles * tiles * tiles, ctrl = 0;
    if (result_i32(d))
        ctrl |= MATMUL_STEP_RESULT_I32;
    if (k == 0)
        ctrl |= MATMUL_STEP_FIRST;
    if (k == tiles - 1)
        ctrl |= MATMUL_STEP_LAST;
    if (step == 0)
        ctrl |= MATMUL_STEP_REQ_BEGIN;
    if (step == steps - 1)
        ctrl |= MATMUL_STEP_REQ_END;
    return ctrl;
}

/* One tile step: addresses and control (posted), read back, doorbell, poll. */
static int step_a(matmul_drv *d, uint32_t n, uint32_t step, matmul_drv_result *r)
{
    uint32_t t = n / MATMUL_TILE, i = step / (t * t), j = step / t % t, k = step % t;
    uint32_t ctrl = step_ctrl(d, step, t), st;
    reg_write(d, MATMUL_A_A_ADDR, 8,
              d->a_buf + matmul_tile_offset(n, i, k, MATMUL_TILE_I8));
    reg_write(d, MATMUL_A_B_ADDR, 8,
              d->b_buf + matmul_tile_offset(n, k, j, MATMUL_TILE_I8));
    if (ctrl & MATMUL_STEP_LAST)
        reg_write(d, MATMUL_A_C_ADDR, 8,
                  d->c_buf + matmul_tile_offset(n, i, j,
                                                matmul_result_tile_bytes(result_i32(d))));
    reg_write(d, MATMUL_A_STEP_CTRL, 4, ctrl);
    uint32_t back = reg_read(d, MATMUL_A_STEP_CTRL);
    int rc = host_ok(d, "reading STEP_CTRL back");
    if (!rc && back != ctrl)
        rc = fail(d, MORTAR_EPROTO, "step %u: STEP_CTRL reads 0x%x, wrote 0x%x", step,
                  back, ctrl);
    if (rc)
        return rc;
    reg_write(d, MATMUL_A_DOORBELL, 4, 1);
    rc = poll_reg(d, MATMUL_A_STATUS, MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR, &st);
    if (!rc && (st & MATMUL_STATUS_ERROR))
        rc = device_error(d, r);
    return rc;
}

static int run_a(matmul_drv *d, const int8_t *a, const int8_t *b, void *c, uint32_t n,
                 matmul_drv_result *r)
{
    uint64_t nn = (uint64_t)n * n;
    matmul_tile_i8(n, a, hoststub_mem(d->h, d->a_buf, nn));
    matmul_tile_i8(n, b, hoststub_mem(d->h, d->b_buf, nn));
    begin_result(d, r, d->next_req++);
    reg_write(d, MATMUL_A_STATUS, 4, MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR);
    reg_write(d, MATMUL_A_REQ_ID, 4, r->req_id);
    uint32_t t = n / MATMUL_TILE, steps = t * t * t;
    for (uint32_t s = 0; s < steps; s++) {
        int rc = step_a(d, n, s, r);
        if (rc)
            return rc;
    }
    end_result(d, r);
    read_timing(d, r);
    matmul_untile(n, result_bytes(d), hoststub_mem(d->h, d->c_buf, nn * result_bytes(d)),
                  c);
    return host_ok(d, "design A request");
}

/* ---- register copy ------------------------------------------------------------------
 */

static int open_regcopy(matmul_drv *d)
{
    uint32_t dev_n = reg_read(d, MATMUL_REG_N);
    d->win_a = reg_read(d, MATMUL_R_WIN_A);
    d->win_b = reg_read(d, MATMUL_R_WIN_B);
    d->win_c = reg_read(d, MATMUL_R_WIN_C);
    reg_write(d, MATMUL_R_CONTROL, 4, result_i32(d) ? MATMUL_R_CTRL_RESULT_I32 : 0);
    int rc = host_ok(d, "reading the window registers");
    if (!rc && dev_n != d->n)
        rc = fail(d, MORTAR_EINVAL, "the device's windows hold n = %u, not %u", dev_n,
                  d->n);
    return rc;
}

static void copy_in(matmul_drv *d, uint64_t win, const void *src, uint64_t size)
{
    for (uint64_t off = 0; off < size; off += d->o.copy_bytes) {
        uint32_t len =
            (uint32_t)(size - off < d->o.copy_bytes ? size - off : d->o.copy_bytes);
        hoststub_mmio_write_block(d->h, MATMUL_BAR_WINDOW, win + off,
                                  (const uint8_t *)src + off, len);
    }
}

static void copy_out(matmul_drv *d, uint64_t win, void *dst, uint64_t size)
{
    for (uint64_t off = 0; off < size && !hoststub_failed(d->h); off += d->o.copy_bytes) {
        uint32_t len =
            (uint32_t)(size - off < d->o.copy_bytes ? size - off : d->o.copy_bytes);
        hoststub_mmio_read_block(d->h, MATMUL_BAR_WINDOW, win + off, (uint8_t *)dst + off,
                                 len);
    }
}

static int run_regcopy(matmul_drv *d, const int8_t *a, const int8_t *b, void *c,
                       uint32_t n, matmul_drv_result *r)
{
    if (n != d->n)
        return fail(d, MORTAR_EINVAL, "register copy runs n = %u only", d->n);
    uint64_t nn = (uint64_t)n * n;
    uint32_t st;
    begin_result(d, r, d->next_req++);
    reg_write(d, MATMUL_R_STATUS, 4, MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR);
    reg_write(d, MATMUL_R_REQ_ID, 4, r->req_id);
    copy_in(d, d->win_a, a, nn);
    copy_in(d, d->win_b, b, nn);
    reg_write(d, MATMUL_R_START, 4, 1);
    int rc = poll_reg(d, MATMUL_R_STATUS, MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR, &st);
    if (!rc && (st & MATMUL_STATUS_ERROR))
        rc = device_error(d, r);
    if (rc)
        return rc;
    copy_out(d, d->win_c, c, nn * result_bytes(d));
    end_result(d, r);
    read_timing(d, r);
    return host_ok(d, "register-copy request");
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
    reg_write(d, MATMUL_B_RING_BASE, 8, d->ring);
    reg_write(d, MATMUL_B_RING_SIZE, 4, e);
    uint32_t ctrl = reg_read(d, MATMUL_B_CONTROL) | MATMUL_B_CTRL_ENABLE;
    if (d->o.use_irq) {
        hoststub_devctrl(d->h,
                         MORTAR_PCIE_CTRL_MSIX_ENABLE | MORTAR_PCIE_CTRL_BUS_MASTER);
        ctrl |= MATMUL_B_CTRL_IRQ;
    }
    reg_write(d, MATMUL_B_CONTROL, 4, ctrl);
    uint32_t st = reg_read(d, MATMUL_B_STATUS);
    int rc = host_ok(d, "setting up the ring");
    if (!rc && (st & MATMUL_B_ST_ERR_RING))
        rc = fail(d, MORTAR_EPROTO, "the device refused the ring (STATUS 0x%x)", st);
    return rc;
}

int matmul_drv_b_submit_desc(matmul_drv *d, const matmul_desc *desc, uint32_t *slot)
{
    if (d->code != MATMUL_CODE_B)
        return fail(d, MORTAR_EINVAL, "not a design B device");
    if (d->in_flight + 1 >= d->o.ring_entries)
        return fail(d, MORTAR_EAGAIN, "the ring is full");
    uint32_t s = d->tail;
    memset(hoststub_mem(d->h, d->slot[s].cpl, sizeof(matmul_completion)), 0,
           sizeof(matmul_completion));
    memcpy(hoststub_mem(d->h, d->ring + (uint64_t)s * sizeof *desc, sizeof *desc), desc,
           sizeof *desc);
    d->slot[s].req_id = desc->req_id;
    d->slot[s].n = desc->n;
    d->slot[s].busy = true;
    d->slot[s].submit_ps = hoststub_now(d->h);
    d->tail = (d->tail + 1) % d->o.ring_entries;
    d->in_flight++;
    reg_write(d, MATMUL_B_RING_TAIL, 4, d->tail);
    *slot = s;
    return host_ok(d, "writing TAIL");
}

int matmul_drv_b_submit(matmul_drv *d, const int8_t *a, const int8_t *b, uint32_t n,
                        uint32_t *slot)
{
    if (n == 0 || n % MATMUL_TILE || n > d->n)
        return fail(d, MORTAR_EINVAL, "n = %u does not fit the driver's buffers", n);
    uint32_t s = d->tail;
    uint64_t nn = (uint64_t)n * n;
    matmul_tile_i8(n, a, hoststub_mem(d->h, d->slot[s].a, nn));
    matmul_tile_i8(n, b, hoststub_mem(d->h, d->slot[s].b, nn));
    matmul_desc desc = {.req_id = d->next_req++,
                        .a_addr = d->slot[s].a,
                        .b_addr = d->slot[s].b,
                        .c_addr = d->slot[s].c,
                        .completion_addr = d->slot[s].cpl,
                        .n = n,
                        .flags = result_i32(d) ? MATMUL_DESC_RESULT_I32 : 0};
    return matmul_drv_b_submit_desc(d, &desc, slot);
}

static bool record_done(matmul_drv *d, uint32_t slot)
{
    const matmul_completion *c = hoststub_mem(d->h, d->slot[slot].cpl, sizeof *c);
    return c && (c->status & MATMUL_CPL_DONE);
}

/* Waits for the record of `slot`: polling host memory, or on interrupts. */
static int wait_record(matmul_drv *d, uint32_t slot)
{
    uint64_t deadline = hoststub_now(d->h) + d->o.timeout_ps;
    if (!d->o.use_irq) {
        if (!hoststub_wait_mem32(d->h,
                                 d->slot[slot].cpl + offsetof(matmul_completion, status),
                                 MATMUL_CPL_DONE, MATMUL_CPL_DONE, d->o.timeout_ps))
            return fail(d, MORTAR_ETIMEDOUT, "no completion record for slot %u", slot);
        return MORTAR_OK;
    }
    while (!record_done(d, slot)) {
        uint64_t now = hoststub_now(d->h);
        if (now >= deadline || !hoststub_wait_interrupt(d->h, deadline - now, NULL, NULL))
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
    matmul_completion cpl;
    memcpy(&cpl, hoststub_mem(d->h, d->slot[slot].cpl, sizeof cpl), sizeof cpl);
    d->slot[slot].busy = false;
    d->in_flight--;
    r->done_ps = hoststub_now(d->h);
    r->dev_first_ps = cpl.t_start_ps;
    r->dev_last_ps = cpl.t_end_ps;
    r->dev_compute_ps = cpl.compute_ps;
    r->steps = cpl.steps;
    r->error = cpl.error;
    if (cpl.req_id != d->slot[slot].req_id)
        return fail(d, MORTAR_EPROTO, "record of slot %u names request %llu, not %llu",
                    slot, (unsigned long long)cpl.req_id,
                    (unsigned long long)d->slot[slot].req_id);
    if (cpl.status & MATMUL_CPL_ERROR)
        return fail(d, MORTAR_EPROTO, "the device reported error %u", cpl.error);
    uint32_t n = d->slot[slot].n;
    uint32_t elem = result_bytes(d);
    if (c)
        matmul_untile(n, elem,
                      hoststub_mem(d->h, d->slot[slot].c, (uint64_t)n * n * elem), c);
    return MORTAR_OK;
}

static int run_b(matmul_drv *d, const int8_t *a, const int8_t *b, void *c, uint32_t n,
                 matmul_drv_result *r)
{
    uint32_t slot;
    hoststub_counters k0, k1;
    hoststub_get_counters(d->h, &k0);
    int rc = matmul_drv_b_submit(d, a, b, n, &slot);
    if (!rc)
        rc = matmul_drv_b_wait(d, slot, c, r);
    hoststub_get_counters(d->h, &k1);
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
}

int matmul_drv_open(matmul_drv *d, hoststub *h, uint32_t n, const matmul_drv_opts *o)
{
    memset(d, 0, sizeof *d);
    d->h = h;
    d->n = n;
    d->next_req = 1;
    set_options(d, o);
    d->next_free = hoststub_mem_base(h);
    d->mem_end = d->next_free + hoststub_mem_size(h);
    if (n == 0 || n % MATMUL_TILE)
        return fail(d, MORTAR_EINVAL, "n = %u is not a multiple of 128", n);
    if (d->o.result != MATMUL_RESULT_I8 && d->o.result != MATMUL_RESULT_I32)
        return fail(d, MORTAR_EINVAL, "unknown result format %d", (int)d->o.result);
    uint32_t id = reg_read(d, MATMUL_REG_ID);
    int rc = host_ok(d, "reading the ID register");
    if (rc)
        return rc;
    if (id >> 16 != 0x4d4d)
        return fail(d, MORTAR_EPROTO, "ID register reads 0x%08x: not a matmul device",
                    id);
    d->code = (char)((id >> 8) & 0xff);
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
