/*
 * compute.c - the compute unit shared by every design: a 128 x 128 int32
 * accumulator fed one pair of 128 x 128 int8 tiles per step.
 *
 * Timing: a tile step takes `cycles` clock cycles at `clock_mhz`, divided by
 * the speed knob. The speed is a rational (speed_ppm / 1e6), so the step time
 * is exact integer picoseconds: cycles * 1e12 / (clock_mhz * speed_ppm),
 * rounded to the nearest ps (12000 cycles at 400 MHz, 1x: 30,000,000 ps).
 * The arithmetic is real and happens when the step starts; the step ends on
 * a timer, when the interface may use the accumulator. After the last step
 * of an output tile the interface takes the tile in the format its driver
 * chose: the int32 accumulator itself, or the accumulator requantized to
 * int8 (studies/matmul/model/result.h) into the unit's output buffer. Requantizing
 * is part of the step's pipeline and costs no extra time.
 */
#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"
#include "model/matmul_internal.h"
#include "model/result.h"

uint64_t matmul_step_ps(uint64_t cycles, uint64_t clock_mhz, uint64_t speed_ppm)
{
    if (clock_mhz == 0 || speed_ppm == 0)
        return 0;
    unsigned __int128 num = (unsigned __int128)cycles * 1000000000000ull;
    unsigned __int128 den = (unsigned __int128)clock_mhz * speed_ppm;
    unsigned __int128 ps = (num + den / 2) / den;
    return ps > UINT64_MAX / 4096 ? 0 : (uint64_t)ps;
}

int matmul_unit_init(matmul_unit *u, uint64_t step_ps)
{
    memset(u, 0, sizeof *u);
    u->step_ps = step_ps;
    u->acc = calloc(MATMUL_TILE * MATMUL_TILE, sizeof *u->acc);
    u->out8 = calloc(MATMUL_TILE * MATMUL_TILE, sizeof *u->out8);
    return u->acc && u->out8 ? MORTAR_OK : MORTAR_ENOMEM;
}

void matmul_unit_free(matmul_unit *u)
{
    free(u->acc);
    free(u->out8);
    u->acc = NULL;
    u->out8 = NULL;
}

void matmul_compute_start(matmul *m, uint64_t req, uint32_t step, bool clear,
                          const int8_t *a, size_t lda, const int8_t *b, size_t ldb,
                          uint64_t cookie)
{
    matmul_unit *u = &m->unit;
    if (clear)
        memset(u->acc, 0, MATMUL_TILE * MATMUL_TILE * sizeof *u->acc);
    matmul_unit_mac(u->acc, a, lda, b, ldb);
    u->busy = true;
    u->req_id = req;
    u->step = step;
    u->started_ps = matmul_now(m);
    u->timer_id = mortar_timer_set(m->self, u->started_ps + u->step_ps, cookie);
    matmul_trace(m, m->tk.compute_start, req, step, u->step_ps);
}

const void *matmul_unit_result(matmul *m, bool i32, uint32_t *size_bytes)
{
    matmul_unit *u = &m->unit;
    *size_bytes = matmul_result_tile_bytes(i32);
    if (i32) {
        if (m->p.corrupt)
            u->acc[0] ^= 1; /* a broken unit, for the tests that wrong products fail */
        return u->acc;
    }
    matmul_requantize_all(u->acc, u->out8, MATMUL_TILE * MATMUL_TILE);
    if (m->p.corrupt)
        u->out8[0] ^= 1;
    return u->out8;
}

void matmul_compute_end(matmul *m)
{
    matmul_unit *u = &m->unit;
    if (!u->busy)
        return;
    u->busy = false;
    u->timer_id = 0;
    m->c.steps++;
    m->c.compute_ps += matmul_now(m) - u->started_ps;
    matmul_trace(m, m->tk.compute_end, u->req_id, u->step, 0);
}

void matmul_compute_abort(matmul *m)
{
    matmul_unit *u = &m->unit;
    if (u->busy && u->timer_id)
        mortar_timer_cancel(m->self, u->timer_id);
    u->busy = false;
    u->timer_id = 0;
}
