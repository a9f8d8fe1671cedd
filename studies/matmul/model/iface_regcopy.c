/*
 * iface_regcopy.c - the register-copy variant: design A's compute unit
 * behind a plain register interface, no DMA.
 *
 * The CPU writes both operands into BAR2 windows with MMIO writes (any size
 * up to a message's payload, so block writes work too), writes START, polls
 * STATUS, and reads the result back from the C window with MMIO reads. The
 * device computes the whole n x n product as (n/128)^3 tile steps of design
 * A's timing, in the same order as design A's driver: output tiles
 * row-major, each summed over n/128 steps. Windows are row-major (layout in
 * matmul_regs.h). CONTROL.RESULT_I32, latched at START, chooses what the C
 * window receives: the int8 product (requantized, n*n bytes, the default)
 * or the int32 accumulators (4*n*n bytes). A START while busy is counted
 * and ignored; writes while busy change the operands of the steps not yet
 * started.
 */
#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"
#include "model/matmul_internal.h"

typedef struct iface_rc {
    uint8_t *win; /* A, B (int8) and C (int8, or int32 LE), row-major */
    uint64_t win_size, operand_size;
    uint32_t n, tiles; /* tiles per row */
    matmul_status_regs st;
    uint32_t control; /* MATMUL_R_CTRL_* as written */
    bool i32;         /* the running product's format, latched at START */
    uint32_t step, steps;
    uint32_t req;
    uint64_t gen, start_ps;
} iface_rc;

static iface_rc *state(matmul *m)
{
    return m->ifs;
}

static uint64_t rc_cycles(const matmul_params *p)
{
    return p->cycles_a;
}

static int rc_init(matmul *m)
{
    iface_rc *s = calloc(1, sizeof *s);
    if (!s)
        return MORTAR_ENOMEM;
    m->ifs = s;
    s->n = (uint32_t)m->p.n;
    s->tiles = s->n / MATMUL_TILE;
    s->steps = s->tiles * s->tiles * s->tiles;
    s->operand_size = matmul_window_c(s->n); /* A and B */
    s->win_size = 6ull * s->n * s->n;
    s->win = calloc(1, s->win_size);
    return s->win ? MORTAR_OK : MORTAR_ENOMEM;
}

static void rc_destroy(matmul *m)
{
    iface_rc *s = state(m);
    if (!s)
        return;
    free(s->win);
    free(s);
    m->ifs = NULL;
}

/* ---- the run --------------------------------------------------------------------- */

static void start_step(matmul *m)
{
    iface_rc *s = state(m);
    uint32_t t = s->tiles, i = s->step / (t * t), j = s->step / t % t, k = s->step % t;
    const int8_t *a = (const int8_t *)s->win + matmul_window_a(s->n) +
                      (uint64_t)i * MATMUL_TILE * s->n + (uint64_t)k * MATMUL_TILE;
    const int8_t *b = (const int8_t *)s->win + matmul_window_b(s->n) +
                      (uint64_t)k * MATMUL_TILE * s->n + (uint64_t)j * MATMUL_TILE;
    matmul_status_step_started(&s->st, matmul_now(m));
    matmul_compute_start(m, s->req, s->step, k == 0, a, s->n, b, s->n, s->gen);
}

/* Copies the finished output tile (i, j) into the C window. */
static void store_tile(matmul *m, uint32_t i, uint32_t j)
{
    iface_rc *s = state(m);
    uint8_t *c = s->win + matmul_window_c(s->n);
    uint32_t size;
    const uint8_t *tile = matmul_unit_result(m, s->i32, &size);
    uint32_t elem = size / (MATMUL_TILE * MATMUL_TILE), row_bytes = MATMUL_TILE * elem;
    for (uint32_t r = 0; r < MATMUL_TILE; r++) {
        uint64_t row = (uint64_t)i * MATMUL_TILE + r;
        memcpy(c + (row * s->n + (uint64_t)j * MATMUL_TILE) * elem,
               tile + (size_t)r * row_bytes, row_bytes);
    }
}

static void finish_run(matmul *m)
{
    iface_rc *s = state(m);
    s->st.busy = false;
    s->st.flags |= MATMUL_STATUS_DONE;
    m->c.busy_ps += matmul_now(m) - s->start_ps;
    matmul_trace(m, m->tk.completion, s->req, s->st.req_steps, s->st.req_compute);
}

static void rc_timer(matmul *m, uint64_t gen)
{
    iface_rc *s = state(m);
    if (gen != s->gen || !s->st.busy)
        return;
    uint64_t compute_ps = matmul_now(m) - m->unit.started_ps;
    matmul_compute_end(m);
    matmul_status_step_ended(&s->st, matmul_now(m), compute_ps);
    uint32_t t = s->tiles;
    if (s->step % t == t - 1)
        store_tile(m, s->step / (t * t), s->step / t % t);
    if (++s->step < s->steps)
        start_step(m);
    else
        finish_run(m);
}

static void start(matmul *m)
{
    iface_rc *s = state(m);
    if (s->st.busy) {
        m->c.doorbells_ignored++;
        m->c.errors++;
        return;
    }
    s->req = s->st.req_id;
    s->i32 = s->control & MATMUL_R_CTRL_RESULT_I32;
    s->gen++;
    s->step = 0;
    s->start_ps = matmul_now(m);
    s->st.busy = true;
    s->st.flags &= ~MATMUL_STATUS_DONE;
    m->c.requests++;
    matmul_status_begin_request(&s->st);
    matmul_trace(m, m->tk.doorbell, s->req, 0, s->st.step_count);
    start_step(m);
}

/* ---- registers and windows
 * -------------------------------------------------------------- */

static bool rc_reg_read(matmul *m, uint32_t offset, uint32_t *value)
{
    iface_rc *s = state(m);
    switch (offset) {
    case MATMUL_R_WIN_A:
        *value = (uint32_t)matmul_window_a(s->n);
        return true;
    case MATMUL_R_WIN_B:
        *value = (uint32_t)matmul_window_b(s->n);
        return true;
    case MATMUL_R_WIN_C:
        *value = (uint32_t)matmul_window_c(s->n);
        return true;
    case MATMUL_R_CONTROL:
        *value = s->control;
        return true;
    }
    return matmul_status_read(&s->st, offset, value);
}

static bool rc_reg_write(matmul *m, uint32_t offset, uint32_t value)
{
    iface_rc *s = state(m);
    switch (offset) {
    case MATMUL_R_START:
        start(m);
        return true;
    case MATMUL_R_CONTROL:
        s->control = value & MATMUL_R_CTRL_RESULT_I32;
        return true;
    }
    return matmul_status_write(&s->st, offset, value);
}

/* True when [offset, offset + size) lies inside [0, limit). */
static bool inside(uint64_t offset, uint64_t size, uint64_t limit)
{
    return size > 0 && offset < limit && size <= limit - offset;
}

static bool rc_win_read(matmul *m, uint64_t offset, void *dst, uint32_t size)
{
    iface_rc *s = state(m);
    if (!inside(offset, size, s->win_size))
        return false;
    memcpy(dst, s->win + offset, size);
    return true;
}

/* Only the operand windows take writes. */
static bool rc_win_write(matmul *m, uint64_t offset, const void *src, uint32_t size)
{
    iface_rc *s = state(m);
    if (!inside(offset, size, s->operand_size))
        return false;
    memcpy(s->win + offset, src, size);
    return true;
}

const matmul_iface matmul_iface_regcopy = {
    .design = "regcopy",
    .device_id = MATMUL_DEVICE_REGCOPY,
    .code = MATMUL_CODE_REGCOPY,
    .cycles = rc_cycles,
    .init = rc_init,
    .destroy = rc_destroy,
    .reg_read = rc_reg_read,
    .reg_write = rc_reg_write,
    .win_read = rc_win_read,
    .win_write = rc_win_write,
    .timer = rc_timer,
};
