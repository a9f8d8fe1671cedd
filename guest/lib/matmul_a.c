/*
 * matmul_a.c - the design A driver: the CPU runs every tile step across the
 * link (docs/models/matmul.md, "Design A"; the same sequence as
 * sims/matmul/drivers_hoststub.c).
 *
 * Operands and result live tiled in one DMA buffer (2 MiB huge pages). Per
 * step: A_ADDR, B_ADDR, C_ADDR (LAST steps only) and STEP_CTRL with posted
 * writes, STEP_CTRL read back (a round trip: the writes have landed), the
 * DOORBELL, then STATUS polled with MMIO reads, each stalling the CPU for a
 * round trip, until DONE or ERROR. REQ_ID is written once per request.
 * STEP_CTRL carries RESULT_I32 on every step when the options ask for the
 * int32 accumulators (the device uses it on LAST steps), so the result
 * format costs no extra access.
 *
 * submit only starts a request; wait runs its steps for up to the time it
 * is given and returns, so that a caller with other work (the server's
 * network) can come back between steps. A step that fails ends the
 * request: wait reports it done and complete returns the error.
 */
#include <string.h>

#include "matmul_internal.h"

static int a_open(matmul_guest *d)
{
    int rc = matmul_slot_alloc(d, &d->slots[0], false);
    if (rc) {
        return rc;
    }
    rc = mortar_guest_bus_master(d->pci, true);
    if (rc) {
        return matmul_fail(d, rc, "%s", mortar_guest_errmsg(d->pci));
    }
    mm_wr32(d, MATMUL_A_STATUS, MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR);
    return 0;
}

static uint32_t step_ctrl(const matmul_guest *d, uint32_t step, uint32_t tiles)
{
    uint32_t k = step % tiles, steps = tiles * tiles * tiles, ctrl = 0;
    if (matmul_result_i32(d)) {
        ctrl |= MATMUL_STEP_RESULT_I32;
    }
    if (k == 0) {
        ctrl |= MATMUL_STEP_FIRST;
    }
    if (k == tiles - 1) {
        ctrl |= MATMUL_STEP_LAST;
    }
    if (step == 0) {
        ctrl |= MATMUL_STEP_REQ_BEGIN;
    }
    if (step == steps - 1) {
        ctrl |= MATMUL_STEP_REQ_END;
    }
    return ctrl;
}

/* Physical address of a tile of the matrix at byte `region` of the buffer. */
static uint64_t tile_phys(const matmul_slot *s, size_t region, uint32_t n, uint32_t r,
                          uint32_t c, uint32_t tile_bytes)
{
    return mortar_guest_dma_phys(s->mem,
                                 region + matmul_tile_offset(n, r, c, tile_bytes));
}

/* One tile step: addresses and control (posted), read back, doorbell, poll. */
static int a_step(matmul_guest *d, matmul_slot *s, uint32_t step)
{
    size_t nn = (size_t)d->o.max_n * d->o.max_n;
    uint32_t n = s->n, t = n / MATMUL_TILE;
    uint32_t i = step / (t * t), j = step / t % t, k = step % t;
    uint32_t ctrl = step_ctrl(d, step, t), st;
    mm_wr64(d, MATMUL_A_A_ADDR, tile_phys(s, 0, n, i, k, MATMUL_TILE_I8));
    mm_wr64(d, MATMUL_A_B_ADDR, tile_phys(s, nn, n, k, j, MATMUL_TILE_I8));
    if (ctrl & MATMUL_STEP_LAST) {
        mm_wr64(d, MATMUL_A_C_ADDR,
                tile_phys(s, 2 * nn, n, i, j,
                          matmul_result_tile_bytes(matmul_result_i32(d))));
    }
    mm_wr32(d, MATMUL_A_STEP_CTRL, ctrl);
    uint32_t back = mm_rd32(d, MATMUL_A_STEP_CTRL);
    if (back != ctrl) {
        return matmul_fail(d, MORTAR_EPROTO, "step %u: STEP_CTRL reads 0x%x, wrote 0x%x",
                           step, back, ctrl);
    }
    mm_wr32(d, MATMUL_A_DOORBELL, 1);
    int rc = matmul_poll_status(d, MATMUL_A_STATUS, &st);
    if (!rc && (st & MATMUL_STATUS_ERROR)) {
        rc = matmul_device_error(d, MATMUL_A_ERR_CODE, MATMUL_A_STATUS);
    }
    return rc;
}

static int a_submit(matmul_guest *d, matmul_slot *s, const int8_t *a, const int8_t *b)
{
    matmul_guest_tile_i8(s->n, a, s->a_virt);
    matmul_guest_tile_i8(s->n, b, s->b_virt);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* operands in memory before the doorbell */
    s->t.submit_ns = mortar_guest_now_ns();
    s->next_step = 0;
    s->error = 0;
    mm_wr32(d, MATMUL_A_STATUS, MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR);
    mm_wr32(d, MATMUL_A_REQ_ID, (uint32_t)s->req_id);
    return 0;
}

static int a_wait(matmul_guest *d, matmul_slot *s, uint64_t timeout_ns)
{
    if (timeout_ns == 0) {
        return 0;
    }
    uint32_t t = s->n / MATMUL_TILE, steps = t * t * t;
    /* Each step has its own timeout: a wait as long as that runs to the end
     * without reading the clock between steps. */
    bool to_the_end = timeout_ns >= d->o.timeout_ns;
    uint64_t deadline = to_the_end ? 0 : mortar_guest_now_ns() + timeout_ns;
    for (;;) {
        s->error = a_step(d, s, s->next_step++);
        if (s->error || s->next_step == steps) {
            s->t.done_ns = mortar_guest_now_ns();
            s->done = true;
            return 1;
        }
        if (!to_the_end && mortar_guest_now_ns() >= deadline) {
            return 0;
        }
    }
}

static int a_complete(matmul_guest *d, matmul_slot *s)
{
    if (s->error) {
        return s->error; /* the message is the failed step's */
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    matmul_guest_untile(s->n, matmul_elem_bytes(d), s->c_virt, s->c);
    return 0;
}

/* The timing registers of the request completed last (shared by regcopy:
 * the same offsets). */
static int a_device_timing(matmul_guest *d, matmul_guest_timing *t)
{
    t->dev_compute_ps = mm_rd64(d, MATMUL_A_COMPUTE);
    t->dev_start_ps = mm_rd64(d, MATMUL_A_T_FIRST);
    t->dev_end_ps = mm_rd64(d, MATMUL_A_T_LAST);
    t->steps = MATMUL_STATUS_STEPS(mm_rd32(d, MATMUL_A_STATUS));
    t->dev_timing = true;
    return 0;
}

const matmul_ops matmul_ops_a = {
    .open = a_open,
    .submit = a_submit,
    .wait = a_wait,
    .complete = a_complete,
    .device_timing = a_device_timing,
};
