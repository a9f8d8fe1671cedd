/*
 * driver_core_regcopy.c - the register-copy driver sequence
 * (driver_core.h): design A's unit behind plain register windows. The CPU
 * writes both operands row-major into the BAR2 windows (posted MMIO writes
 * of copy_bytes each), writes START, polls STATUS and reads C back with MMIO
 * reads of copy_bytes each, every one a round trip: n*n bytes for an int8
 * product, 4*n*n for int32 (CONTROL.RESULT_I32, written once at open). No
 * DMA.
 */
#include "mortar/error.h"
#include "model/driver_core_internal.h"

#define MAX_N 4096 /* the model's largest n */

int matmul_core_regcopy_open(matmul_core *c)
{
    c->dev_n = c->ops->read32(c->ctx, MATMUL_REG_N);
    c->win_a = c->ops->read32(c->ctx, MATMUL_R_WIN_A);
    c->win_b = c->ops->read32(c->ctx, MATMUL_R_WIN_B);
    c->win_c = c->ops->read32(c->ctx, MATMUL_R_WIN_C);
    int rc = matmul_core_io_ok(c, "reading the window registers");
    if (rc)
        return rc;
    if (c->dev_n == 0 || c->dev_n % MATMUL_TILE || c->dev_n > MAX_N)
        return matmul_core_fail(c, MORTAR_EPROTO, "the device's N register reads %u",
                                c->dev_n);
    c->ops->write32(c->ctx, MATMUL_R_STATUS, MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR);
    uint32_t ctrl = c->o.result == MATMUL_RESULT_I32 ? MATMUL_R_CTRL_RESULT_I32 : 0;
    c->ops->write32(c->ctx, MATMUL_R_CONTROL, ctrl);
    uint32_t back = c->ops->read32(c->ctx, MATMUL_R_CONTROL);
    rc = matmul_core_io_ok(c, "reading CONTROL back");
    if (!rc && back != ctrl)
        rc = matmul_core_fail(c, MORTAR_EPROTO, "CONTROL reads 0x%x, wrote 0x%x", back,
                              ctrl);
    return rc;
}

int matmul_core_regcopy_run(matmul_core *c, uint64_t req_id, const int8_t *a,
                            const int8_t *b, void *out, uint32_t *dev_error)
{
    uint64_t nn = (uint64_t)c->dev_n * c->dev_n;
    uint32_t access = c->o.copy_bytes, st;
    c->ops->write32(c->ctx, MATMUL_R_STATUS, MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR);
    c->ops->write32(c->ctx, MATMUL_R_REQ_ID, (uint32_t)req_id);
    c->ops->window_write(c->ctx, c->win_a, a, nn, access);
    c->ops->window_write(c->ctx, c->win_b, b, nn, access);
    c->ops->write32(c->ctx, MATMUL_R_START, 1);
    int rc = matmul_core_poll_status(c, MATMUL_R_STATUS, &st);
    if (!rc && (st & MATMUL_STATUS_ERROR))
        rc = matmul_core_device_error(c, dev_error);
    if (rc)
        return rc;
    c->ops->window_read(c->ctx, c->win_c, out, nn * matmul_result_bytes(c->o.result),
                        access);
    return matmul_core_io_ok(c, "reading the result back");
}
