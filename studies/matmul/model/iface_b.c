/*
 * iface_b.c - design B, "deep pipeline": one descriptor per request in a
 * ring in host memory.
 *
 * The driver writes a descriptor (matmul_regs.h) into the ring and writes
 * TAIL (posted). The device fetches the descriptor at HEAD by DMA, then runs
 * the (n/128)^3 tile steps, streaming operand tiles by DMA into two buffer
 * pairs: while step k computes, the tiles of step k+1 are fetched (double
 * buffering), and a buffer pair is refilled for step k+2 as soon as step k
 * releases it. After the last step of each output tile the result tile is
 * written by DMA (posted): int8, requantized, or the int32 accumulators
 * when the descriptor's flags carry MATMUL_DESC_RESULT_I32. After the last step the
 * completion record (request id, status, timing) is written, MSI-X vector 0 is raised
 * when CONTROL.IRQ is set (reset value: the `msix` parameter) and the host enabled MSI-X,
 * HEAD advances, and the next descriptor is fetched at once if TAIL != HEAD.
 *
 * Errors: a bad TAIL or ring setting sets STATUS.ERR_RING and is ignored; a
 * descriptor with a bad n or address gets an error completion record
 * (ERR_DESC); a refused DMA ends the request with an error record
 * (ERR_DMA); a descriptor that cannot be read or whose completion address
 * is unusable is skipped. The ring keeps going after each of them.
 */
#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"
#include "model/matmul_internal.h"

/* One operand buffer pair. */
typedef struct b_slot {
    int8_t *a, *b;
    uint32_t step;    /* the step it holds or is fetching */
    uint32_t pending; /* tiles still on their way */
    bool ready;
} b_slot;

typedef struct iface_b {
    uint64_t ring_base;
    uint32_t ring_size, head, tail, control, err_bits, completed;
    /* the descriptor being served */
    bool active;
    uint64_t gen; /* DMA owner and timer cookie of this descriptor */
    uint8_t desc_raw[sizeof(matmul_desc)];
    matmul_desc desc;
    uint32_t tiles, steps, step, fetched;
    b_slot slot[2];
    matmul_completion cpl;
} iface_b;

#define OWNER_DEVICE 0 /* completion records: never cancelled */

static void kick(matmul *m);

static iface_b *state(matmul *m)
{
    return m->ifs;
}

static uint64_t b_cycles(const matmul_params *p)
{
    return p->cycles_b;
}

static int b_init(matmul *m)
{
    iface_b *s = calloc(1, sizeof *s);
    if (!s)
        return MORTAR_ENOMEM;
    m->ifs = s;
    s->control = m->p.msix ? MATMUL_B_CTRL_IRQ : 0;
    for (int i = 0; i < 2; i++) {
        s->slot[i].a = malloc(MATMUL_TILE_I8);
        s->slot[i].b = malloc(MATMUL_TILE_I8);
        if (!s->slot[i].a || !s->slot[i].b)
            return MORTAR_ENOMEM;
    }
    return MORTAR_OK;
}

static void b_destroy(matmul *m)
{
    iface_b *s = state(m);
    if (!s)
        return;
    for (int i = 0; i < 2; i++) {
        free(s->slot[i].a);
        free(s->slot[i].b);
    }
    free(s);
    m->ifs = NULL;
}

/* ---- finishing a descriptor ---------------------------------------------------------
 */

/* Moves to the next ring entry and serves it if one is queued. */
static void advance(matmul *m)
{
    iface_b *s = state(m);
    s->active = false;
    s->head = (s->head + 1) % s->ring_size;
    kick(m);
}

static void record_written(matmul *m, uint64_t cookie, int status)
{
    if (status)
        state(m)->err_bits |= MATMUL_B_ST_ERR_DMA;
}

/* Writes the completion record with `code`, interrupts, moves on. */
static void complete(matmul *m, uint32_t code)
{
    iface_b *s = state(m);
    matmul_completion *c = &s->cpl;
    c->req_id = s->desc.req_id;
    c->status = MATMUL_CPL_DONE | (code ? MATMUL_CPL_ERROR : 0);
    c->error = code;
    c->t_done_ps = matmul_now(m);
    matmul_dma_write(m, s->desc.completion_addr, c, sizeof *c, OWNER_DEVICE, c->req_id,
                     record_written, 0);
    matmul_trace(m, m->tk.completion, c->req_id, code, c->compute_ps);
    if (s->control & MATMUL_B_CTRL_IRQ)
        matmul_raise_msix(m, 0, c->req_id);
    s->completed++;
    m->c.busy_ps += matmul_now(m) - c->t_accept_ps;
    if ((s->head + 1) % s->ring_size != s->tail)
        m->c.queued_on_finish++;
    advance(m);
}

/* Ends the request early: nothing of it may call back any more. */
static void fail(matmul *m, uint32_t code)
{
    iface_b *s = state(m);
    matmul_dma_cancel(m, s->gen);
    matmul_compute_abort(m);
    s->err_bits |= code == MATMUL_ERR_DMA ? MATMUL_B_ST_ERR_DMA : MATMUL_B_ST_ERR_DESC;
    complete(m, code);
}

/* ---- streaming the steps --------------------------------------------------------------
 */

static void try_start(matmul *m)
{
    iface_b *s = state(m);
    b_slot *sl = &s->slot[s->step % 2];
    if (m->unit.busy || s->step >= s->steps || !sl->ready || sl->step != s->step)
        return;
    if (s->step == 0)
        s->cpl.t_start_ps = matmul_now(m);
    matmul_compute_start(m, s->desc.req_id, s->step, s->step % s->tiles == 0, sl->a,
                         MATMUL_TILE, sl->b, MATMUL_TILE, s->gen);
}

static void tile_arrived(matmul *m, uint64_t cookie, int status)
{
    iface_b *s = state(m);
    if (!s->active || cookie >> 1 != s->gen)
        return;
    if (status) {
        fail(m, MATMUL_ERR_DMA);
        return;
    }
    b_slot *sl = &s->slot[cookie & 1];
    if (--sl->pending == 0) {
        sl->ready = true;
        try_start(m);
    }
}

/* Fetches the operand tiles of the next unfetched step into slot `idx`. */
static void fetch_into(matmul *m, unsigned idx)
{
    iface_b *s = state(m);
    b_slot *sl = &s->slot[idx];
    uint32_t t = s->tiles, st = s->fetched++, n = s->desc.n;
    uint32_t i = st / (t * t), j = st / t % t, k = st % t;
    *sl = (b_slot){.a = sl->a, .b = sl->b, .step = st, .pending = 2};
    uint64_t cookie = s->gen << 1 | idx;
    matmul_dma_read(m, s->desc.a_addr + matmul_tile_offset(n, i, k, MATMUL_TILE_I8),
                    sl->a, MATMUL_TILE_I8, s->gen, s->desc.req_id, tile_arrived, cookie);
    matmul_dma_read(m, s->desc.b_addr + matmul_tile_offset(n, k, j, MATMUL_TILE_I8),
                    sl->b, MATMUL_TILE_I8, s->gen, s->desc.req_id, tile_arrived, cookie);
}

static void result_written(matmul *m, uint64_t gen, int status)
{
    iface_b *s = state(m);
    if (!status)
        return;
    s->err_bits |= MATMUL_B_ST_ERR_DMA;
    if (s->active && gen == s->gen)
        fail(m, MATMUL_ERR_DMA);
}

static bool result_i32(const matmul_desc *d)
{
    return d->flags & MATMUL_DESC_RESULT_I32;
}

static void write_result_tile(matmul *m, uint32_t step)
{
    iface_b *s = state(m);
    uint32_t t = s->tiles, i = step / (t * t), j = step / t % t, size;
    const void *tile = matmul_unit_result(m, result_i32(&s->desc), &size);
    uint64_t addr = s->desc.c_addr + matmul_tile_offset(s->desc.n, i, j, size);
    matmul_dma_write(m, addr, tile, size, s->gen, s->desc.req_id, result_written, s->gen);
}

static void b_timer(matmul *m, uint64_t gen)
{
    iface_b *s = state(m);
    if (!s->active || gen != s->gen || !m->unit.busy)
        return;
    uint32_t done = s->step++;
    s->cpl.compute_ps += matmul_now(m) - m->unit.started_ps;
    s->cpl.steps++;
    matmul_compute_end(m);
    s->slot[done % 2].ready = false;
    if (done % s->tiles == s->tiles - 1)
        write_result_tile(m, done);
    if (!s->active || gen != s->gen)
        return; /* the write failed at once and ended the request */
    if (s->step == s->steps) {
        s->cpl.t_end_ps = matmul_now(m);
        complete(m, MATMUL_ERR_NONE);
        return;
    }
    if (s->fetched < s->steps)
        fetch_into(m, done % 2);
    try_start(m);
}

/* ---- descriptors
 * ------------------------------------------------------------------------ */

static uint32_t check_desc(const matmul *m, const matmul_desc *d)
{
    if (d->n < MATMUL_TILE || d->n % MATMUL_TILE || d->n > m->p.n)
        return MATMUL_ERR_BAD_N;
    uint64_t operand = (uint64_t)d->n * d->n;
    uint64_t result = operand * (result_i32(d) ? 4 : 1);
    if (!matmul_addr_ok(d->a_addr, operand) || !matmul_addr_ok(d->b_addr, operand) ||
        !matmul_addr_ok(d->c_addr, result))
        return MATMUL_ERR_BAD_ADDR;
    return MATMUL_ERR_NONE;
}

static void begin_steps(matmul *m)
{
    iface_b *s = state(m);
    s->tiles = s->desc.n / MATMUL_TILE;
    s->steps = s->tiles * s->tiles * s->tiles;
    s->step = s->fetched = 0;
    fetch_into(m, 0);
    if (s->steps > 1)
        fetch_into(m, 1);
}

static void desc_arrived(matmul *m, uint64_t gen, int status)
{
    iface_b *s = state(m);
    if (!s->active || gen != s->gen)
        return;
    if (status) { /* unreadable: no completion address to report to */
        s->err_bits |= MATMUL_B_ST_ERR_DMA;
        advance(m);
        return;
    }
    memcpy(&s->desc, s->desc_raw, sizeof s->desc);
    matmul_trace(m, m->tk.desc_fetch, s->desc.req_id, s->head,
                 s->ring_base + (uint64_t)s->head * sizeof(matmul_desc));
    m->c.requests++;
    if (!matmul_addr_ok(s->desc.completion_addr, sizeof(matmul_completion))) {
        m->c.bad_descriptors++;
        m->c.errors++;
        s->err_bits |= MATMUL_B_ST_ERR_DESC;
        advance(m);
        return;
    }
    uint32_t code = check_desc(m, &s->desc);
    if (code) {
        m->c.bad_descriptors++;
        m->c.errors++;
        matmul_trace(m, m->tk.error, s->desc.req_id, code, 0);
        fail(m, code);
        return;
    }
    begin_steps(m);
}

/* Serves the descriptor at HEAD when the ring is on, idle and not empty. */
static void kick(matmul *m)
{
    iface_b *s = state(m);
    if (!(s->control & MATMUL_B_CTRL_ENABLE) || s->active || s->head == s->tail)
        return;
    s->active = true;
    s->gen++;
    memset(&s->cpl, 0, sizeof s->cpl);
    s->cpl.t_accept_ps = matmul_now(m);
    uint64_t addr = s->ring_base + (uint64_t)s->head * sizeof(matmul_desc);
    matmul_dma_read(m, addr, s->desc_raw, sizeof s->desc_raw, s->gen, 0, desc_arrived,
                    s->gen);
}

/* ---- registers
 * ---------------------------------------------------------------------------- */

static bool ring_error(matmul *m)
{
    iface_b *s = state(m);
    s->err_bits |= MATMUL_B_ST_ERR_RING;
    m->c.ring_errors++;
    m->c.errors++;
    matmul_trace(m, m->tk.error, 0, MATMUL_B_ST_ERR_RING, s->tail);
    return true; /* the register exists; the value was refused */
}

static bool write_tail(matmul *m, uint32_t value)
{
    iface_b *s = state(m);
    if (value >= s->ring_size)
        return ring_error(m);
    s->tail = value;
    matmul_trace(m, m->tk.doorbell, 0, value, s->head);
    kick(m);
    return true;
}

static bool write_control(matmul *m, uint32_t value)
{
    iface_b *s = state(m);
    bool enabling =
        (value & MATMUL_B_CTRL_ENABLE) && !(s->control & MATMUL_B_CTRL_ENABLE);
    if (enabling &&
        (s->active || s->ring_size == 0 ||
         !matmul_addr_ok(s->ring_base, (uint64_t)s->ring_size * sizeof(matmul_desc))))
        return ring_error(m);
    s->control = value & (MATMUL_B_CTRL_ENABLE | MATMUL_B_CTRL_IRQ);
    if (enabling)
        s->head = s->tail = 0;
    return true;
}

static bool write_ring_setting(matmul *m, uint32_t offset, uint32_t value)
{
    iface_b *s = state(m);
    if (s->control & MATMUL_B_CTRL_ENABLE)
        return ring_error(m);
    if (offset == MATMUL_B_RING_SIZE) {
        if (value == 0 || value > MATMUL_B_RING_MAX)
            return ring_error(m);
        s->ring_size = value;
        return true;
    }
    return matmul_reg64_write(offset, MATMUL_B_RING_BASE, &s->ring_base, value);
}

static bool b_reg_write(matmul *m, uint32_t offset, uint32_t value)
{
    iface_b *s = state(m);
    switch (offset) {
    case MATMUL_B_RING_BASE:
    case MATMUL_B_RING_BASE + 4:
    case MATMUL_B_RING_SIZE:
        return write_ring_setting(m, offset, value);
    case MATMUL_B_RING_TAIL:
        return write_tail(m, value);
    case MATMUL_B_CONTROL:
        return write_control(m, value);
    case MATMUL_B_STATUS:
        s->err_bits &= ~value;
        return true;
    }
    return false;
}

static bool b_reg_read(matmul *m, uint32_t offset, uint32_t *value)
{
    iface_b *s = state(m);
    switch (offset) {
    case MATMUL_B_RING_SIZE:
        *value = s->ring_size;
        return true;
    case MATMUL_B_RING_HEAD:
        *value = s->head;
        return true;
    case MATMUL_B_RING_TAIL:
        *value = s->tail;
        return true;
    case MATMUL_B_CONTROL:
        *value = s->control;
        return true;
    case MATMUL_B_STATUS:
        *value = (s->active ? MATMUL_B_ST_BUSY : 0) | s->err_bits;
        return true;
    case MATMUL_B_COMPLETED:
        *value = s->completed;
        return true;
    }
    return matmul_reg64_read(offset, MATMUL_B_RING_BASE, s->ring_base, value);
}

const matmul_iface matmul_iface_b = {
    .design = "b",
    .device_id = MATMUL_DEVICE_B,
    .code = MATMUL_CODE_B,
    .has_ring = true,
    .cycles = b_cycles,
    .init = b_init,
    .destroy = b_destroy,
    .reg_read = b_reg_read,
    .reg_write = b_reg_write,
    .timer = b_timer,
};
