/*
 * driver_core.c - what the three matmul driver cores share (driver_core.h):
 * binding to a build's ops, error texts, the ID check, STATUS polling and
 * the error fetch of design A and register copy, and their timing
 * registers (the same offsets in both).
 */
#include <stdarg.h>
#include <stdio.h>

#include "mortar/error.h"
#include "model/driver_core_internal.h"

#define POLLS_PER_CLOCK 16 /* STATUS reads between two looks at the clock */

_Static_assert(MATMUL_R_STATUS == MATMUL_A_STATUS &&
                   MATMUL_R_ERR_CODE == MATMUL_A_ERR_CODE &&
                   MATMUL_R_COMPUTE == MATMUL_A_COMPUTE &&
                   MATMUL_R_T_FIRST == MATMUL_A_T_FIRST &&
                   MATMUL_R_T_LAST == MATMUL_A_T_LAST,
               "design A and register copy share the status and timing registers");

void matmul_core_init(matmul_core *c, const matmul_core_ops *ops, void *ctx,
                      const matmul_core_opts *o)
{
    *c = (matmul_core){.ops = ops, .ctx = ctx, .o = *o};
}

int matmul_core_fail(matmul_core *c, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    return code;
}

int matmul_core_io_ok(matmul_core *c, const char *what)
{
    const char *why = c->ops->io_failed ? c->ops->io_failed(c->ctx) : NULL;
    if (!why)
        return MORTAR_OK;
    return matmul_core_fail(c, MORTAR_EIO, "%s: %s", what, why);
}

int matmul_core_identify(matmul_core *c, char *code)
{
    uint32_t id = c->ops->read32(c->ctx, MATMUL_REG_ID);
    int rc = matmul_core_io_ok(c, "reading the ID register");
    if (rc)
        return rc;
    if (id >> 16 != 0x4d4d || (id & 0xff) != MATMUL_REVISION)
        return matmul_core_fail(c, MORTAR_EPROTO,
                                "ID register reads 0x%08x: not a matmul device of "
                                "revision %u",
                                id, MATMUL_REVISION);
    *code = (char)((id >> 8) & 0xff);
    return MORTAR_OK;
}

/* The clock is read once at the start and then every POLLS_PER_CLOCK reads:
 * in the guest a clock read is instructions, that is simulated time. */
int matmul_core_poll_status(matmul_core *c, uint64_t reg, uint32_t *st)
{
    uint64_t start = c->ops->now_ps(c->ctx);
    for (;;) {
        for (int i = 0; i < POLLS_PER_CLOCK; i++) {
            *st = c->ops->read32(c->ctx, reg);
            int rc = matmul_core_io_ok(c, "polling STATUS");
            if (rc || (*st & (MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR)))
                return rc;
            if (c->ops->pause)
                c->ops->pause(c->ctx);
        }
        if (c->ops->now_ps(c->ctx) - start > c->o.timeout_ps)
            return matmul_core_fail(c, MORTAR_ETIMEDOUT, "STATUS stayed 0x%x for %llu ns",
                                    *st, (unsigned long long)(c->o.timeout_ps / 1000));
    }
}

int matmul_core_device_error(matmul_core *c, uint32_t *dev_error)
{
    uint32_t code = c->ops->read32(c->ctx, MATMUL_A_ERR_CODE);
    c->ops->write32(c->ctx, MATMUL_A_STATUS, MATMUL_STATUS_ERROR);
    if (dev_error)
        *dev_error = code;
    return matmul_core_fail(c, MORTAR_EPROTO, "the device reported error %u", code);
}

int matmul_core_read_timing(matmul_core *c, matmul_core_timing *t)
{
    t->compute_ps = c->ops->read64(c->ctx, MATMUL_A_COMPUTE);
    t->start_ps = c->ops->read64(c->ctx, MATMUL_A_T_FIRST);
    t->end_ps = c->ops->read64(c->ctx, MATMUL_A_T_LAST);
    t->steps = MATMUL_STATUS_STEPS(c->ops->read32(c->ctx, MATMUL_A_STATUS));
    return matmul_core_io_ok(c, "reading the timing registers");
}
