/*
 * driver_core_a.c - design A's driver sequence (driver_core.h): the CPU
 * runs every tile step across the link. Per step the tile addresses and
 * STEP_CTRL go out as posted writes, STEP_CTRL is read back (a round trip:
 * the writes have landed, as real drivers make sure), the DOORBELL starts
 * the step and STATUS is polled until DONE or ERROR. STEP_CTRL carries
 * RESULT_I32 on every step of an int32 request (the device uses it on LAST
 * steps), so the format costs no access of its own.
 */
#include "mortar/error.h"
#include "model/driver_core_internal.h"

int matmul_core_a_open(matmul_core *c)
{
    c->ops->write32(c->ctx, MATMUL_A_STATUS, MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR);
    return MORTAR_OK;
}

uint32_t matmul_core_a_steps(uint32_t n)
{
    uint32_t t = n / MATMUL_TILE;
    return t * t * t;
}

uint32_t matmul_core_a_step_ctrl(const matmul_core *c, uint32_t n, uint32_t step)
{
    uint32_t tiles = n / MATMUL_TILE, k = step % tiles, ctrl = 0;
    if (c->o.result == MATMUL_RESULT_I32)
        ctrl |= MATMUL_STEP_RESULT_I32;
    if (k == 0)
        ctrl |= MATMUL_STEP_FIRST;
    if (k == tiles - 1)
        ctrl |= MATMUL_STEP_LAST;
    if (step == 0)
        ctrl |= MATMUL_STEP_REQ_BEGIN;
    if (step == matmul_core_a_steps(n) - 1)
        ctrl |= MATMUL_STEP_REQ_END;
    return ctrl;
}

void matmul_core_a_begin(matmul_core *c, uint64_t req_id)
{
    c->ops->write32(c->ctx, MATMUL_A_STATUS, MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR);
    c->ops->write32(c->ctx, MATMUL_A_REQ_ID, (uint32_t)req_id);
}

/* The step's addresses and control, posted. */
static void post_step(matmul_core *c, uint32_t n, uint32_t step, uint32_t ctrl)
{
    uint32_t t = n / MATMUL_TILE, i = step / (t * t), j = step / t % t, k = step % t;
    uint32_t c_tile = matmul_result_tile_bytes(c->o.result == MATMUL_RESULT_I32);
    void *x = c->ctx;
    c->ops->write64(x, MATMUL_A_A_ADDR,
                    c->ops->tile_addr(x, MATMUL_CORE_MATRIX_A,
                                      matmul_tile_offset(n, i, k, MATMUL_TILE_I8)));
    c->ops->write64(x, MATMUL_A_B_ADDR,
                    c->ops->tile_addr(x, MATMUL_CORE_MATRIX_B,
                                      matmul_tile_offset(n, k, j, MATMUL_TILE_I8)));
    if (ctrl & MATMUL_STEP_LAST)
        c->ops->write64(x, MATMUL_A_C_ADDR,
                        c->ops->tile_addr(x, MATMUL_CORE_MATRIX_C,
                                          matmul_tile_offset(n, i, j, c_tile)));
    c->ops->write32(x, MATMUL_A_STEP_CTRL, ctrl);
}

int matmul_core_a_step(matmul_core *c, uint32_t n, uint32_t step, uint32_t *dev_error)
{
    uint32_t ctrl = matmul_core_a_step_ctrl(c, n, step), st;
    post_step(c, n, step, ctrl);
    uint32_t back = c->ops->read32(c->ctx, MATMUL_A_STEP_CTRL);
    int rc = matmul_core_io_ok(c, "reading STEP_CTRL back");
    if (!rc && back != ctrl)
        rc = matmul_core_fail(c, MORTAR_EPROTO,
                              "step %u: STEP_CTRL reads 0x%x, wrote 0x%x", step, back,
                              ctrl);
    if (rc)
        return rc;
    c->ops->write32(c->ctx, MATMUL_A_DOORBELL, 1);
    rc = matmul_core_poll_status(c, MATMUL_A_STATUS, &st);
    if (!rc && (st & MATMUL_STATUS_ERROR))
        rc = matmul_core_device_error(c, dev_error);
    return rc;
}
