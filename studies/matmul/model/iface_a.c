/*
 * iface_a.c - design A, "wide array": the driver runs every tile step across
 * the link.
 *
 * Per step the driver writes the operand and result tile addresses and the
 * step control (posted), reads one register back, and rings the doorbell.
 * The device then fetches operand tile A by DMA, then tile B (one after the
 * other), computes for one step time, and after a step marked LAST writes
 * the 128x128 result tile to C by DMA (posted), then sets DONE: int8, the
 * accumulators requantized (16 KiB), or with STEP_CTRL.RESULT_I32 the int32
 * accumulators (64 KiB). The
 * driver polls STATUS. Tiles are contiguous in host memory (the driver lays
 * matrices out tile by tile; see matmul_regs.h).
 *
 * Doorbells while a step runs are counted and ignored. A bad address or a
 * refused DMA ends the step with STATUS.ERROR and ERR_CODE set; the device
 * takes the next doorbell normally.
 */
#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"
#include "model/matmul_internal.h"

typedef struct iface_a {
    uint64_t a_addr, b_addr, c_addr;
    uint32_t step_ctrl;
    matmul_status_regs st;
    struct { /* the step in progress, latched at the doorbell */
        uint64_t a, b, c;
        uint32_t ctrl, req;
        uint64_t doorbell_ps;
    } cur;
    uint64_t gen; /* step generation: DMA owner and timer cookie */
    int8_t *tile_a, *tile_b;
} iface_a;

static iface_a *state(matmul *m)
{
    return m->ifs;
}

static uint64_t a_cycles(const matmul_params *p)
{
    return p->cycles_a;
}

static int a_init(matmul *m)
{
    iface_a *s = calloc(1, sizeof *s);
    if (!s)
        return MORTAR_ENOMEM;
    m->ifs = s;
    s->tile_a = malloc(MATMUL_TILE_I8);
    s->tile_b = malloc(MATMUL_TILE_I8);
    return s->tile_a && s->tile_b ? MORTAR_OK : MORTAR_ENOMEM;
}

static void a_destroy(matmul *m)
{
    iface_a *s = state(m);
    if (!s)
        return;
    free(s->tile_a);
    free(s->tile_b);
    free(s);
    m->ifs = NULL;
}

/* ---- the step ------------------------------------------------------------------ */

static void end_step(matmul *m)
{
    iface_a *s = state(m);
    s->st.busy = false;
    m->c.busy_ps += matmul_now(m) - s->cur.doorbell_ps;
}

/* Ends the step with an error; DMA errors were counted by the engine. */
static void fail_step(matmul *m, uint32_t code)
{
    iface_a *s = state(m);
    matmul_dma_cancel(m, s->gen);
    matmul_compute_abort(m);
    matmul_status_error(&s->st, code);
    if (code != MATMUL_ERR_DMA) {
        m->c.errors++;
        matmul_trace(m, m->tk.error, s->cur.req, code, 0);
    }
    end_step(m);
}

/* A posted result write failed after its step ended: sticky error. */
static void result_written(matmul *m, uint64_t gen, int status)
{
    if (status)
        matmul_status_error(&state(m)->st, MATMUL_ERR_DMA);
}

static void b_fetched(matmul *m, uint64_t gen, int status)
{
    iface_a *s = state(m);
    if (gen != s->gen || !s->st.busy)
        return;
    if (status) {
        fail_step(m, MATMUL_ERR_DMA);
        return;
    }
    matmul_status_step_started(&s->st, matmul_now(m));
    matmul_compute_start(m, s->cur.req, s->st.req_steps, s->cur.ctrl & MATMUL_STEP_FIRST,
                         s->tile_a, MATMUL_TILE, s->tile_b, MATMUL_TILE, s->gen);
}

static void a_fetched(matmul *m, uint64_t gen, int status)
{
    iface_a *s = state(m);
    if (gen != s->gen || !s->st.busy)
        return;
    if (status) {
        fail_step(m, MATMUL_ERR_DMA);
        return;
    }
    matmul_dma_read(m, s->cur.b, s->tile_b, MATMUL_TILE_I8, s->gen, s->cur.req, b_fetched,
                    s->gen);
}

static bool result_i32(const iface_a *s)
{
    return s->cur.ctrl & MATMUL_STEP_RESULT_I32;
}

static bool addresses_ok(const iface_a *s)
{
    return matmul_addr_ok(s->cur.a, MATMUL_TILE_I8) &&
           matmul_addr_ok(s->cur.b, MATMUL_TILE_I8) &&
           (!(s->cur.ctrl & MATMUL_STEP_LAST) ||
            matmul_addr_ok(s->cur.c, matmul_result_tile_bytes(result_i32(s))));
}

static void doorbell(matmul *m)
{
    iface_a *s = state(m);
    if (s->st.busy) {
        m->c.doorbells_ignored++;
        m->c.errors++;
        return;
    }
    s->cur.a = s->a_addr;
    s->cur.b = s->b_addr;
    s->cur.c = s->c_addr;
    s->cur.ctrl = s->step_ctrl;
    s->cur.req = s->st.req_id;
    s->cur.doorbell_ps = matmul_now(m);
    s->gen++;
    s->st.busy = true;
    s->st.flags &= ~MATMUL_STATUS_DONE;
    matmul_trace(m, m->tk.doorbell, s->cur.req, s->cur.ctrl, s->st.step_count);
    if (s->cur.ctrl & MATMUL_STEP_REQ_BEGIN) {
        m->c.requests++;
        matmul_status_begin_request(&s->st);
    }
    if (!addresses_ok(s)) {
        fail_step(m, MATMUL_ERR_BAD_ADDR);
        return;
    }
    matmul_dma_read(m, s->cur.a, s->tile_a, MATMUL_TILE_I8, s->gen, s->cur.req, a_fetched,
                    s->gen);
}

static void a_timer(matmul *m, uint64_t gen)
{
    iface_a *s = state(m);
    if (gen != s->gen || !s->st.busy)
        return;
    uint64_t compute_ps = matmul_now(m) - m->unit.started_ps;
    matmul_compute_end(m);
    matmul_status_step_ended(&s->st, matmul_now(m), compute_ps);
    if (s->cur.ctrl & MATMUL_STEP_LAST) {
        uint32_t size;
        const void *tile = matmul_unit_result(m, result_i32(s), &size);
        matmul_dma_write(m, s->cur.c, tile, size, s->gen, s->cur.req, result_written,
                         s->gen);
    }
    s->st.flags |= MATMUL_STATUS_DONE;
    if (s->cur.ctrl & MATMUL_STEP_REQ_END)
        matmul_trace(m, m->tk.completion, s->cur.req, s->st.req_steps, s->st.req_compute);
    end_step(m);
}

/* ---- registers -------------------------------------------------------------------- */

static bool a_reg_read(matmul *m, uint32_t offset, uint32_t *value)
{
    iface_a *s = state(m);
    if (offset == MATMUL_A_STEP_CTRL) {
        *value = s->step_ctrl;
        return true;
    }
    return matmul_reg64_read(offset, MATMUL_A_A_ADDR, s->a_addr, value) ||
           matmul_reg64_read(offset, MATMUL_A_B_ADDR, s->b_addr, value) ||
           matmul_reg64_read(offset, MATMUL_A_C_ADDR, s->c_addr, value) ||
           matmul_status_read(&s->st, offset, value);
}

static bool a_reg_write(matmul *m, uint32_t offset, uint32_t value)
{
    iface_a *s = state(m);
    switch (offset) {
    case MATMUL_A_STEP_CTRL:
        s->step_ctrl =
            value & (MATMUL_STEP_FIRST | MATMUL_STEP_LAST | MATMUL_STEP_REQ_BEGIN |
                     MATMUL_STEP_REQ_END | MATMUL_STEP_RESULT_I32);
        return true;
    case MATMUL_A_DOORBELL:
        doorbell(m);
        return true;
    }
    return matmul_reg64_write(offset, MATMUL_A_A_ADDR, &s->a_addr, value) ||
           matmul_reg64_write(offset, MATMUL_A_B_ADDR, &s->b_addr, value) ||
           matmul_reg64_write(offset, MATMUL_A_C_ADDR, &s->c_addr, value) ||
           matmul_status_write(&s->st, offset, value);
}

const matmul_iface matmul_iface_a = {
    .design = "a",
    .device_id = MATMUL_DEVICE_A,
    .code = MATMUL_CODE_A,
    .cycles = a_cycles,
    .init = a_init,
    .destroy = a_destroy,
    .reg_read = a_reg_read,
    .reg_write = a_reg_write,
    .timer = a_timer,
};
