/*
 * matmul.c - the matmul accelerator component (kind "matmul"): parameters,
 * the PCIe intro, dispatch of PCIe messages to registers, windows and the
 * DMA engine, interrupts, stats. Shaped like QEMU's hw/misc/edu.c: a state
 * struct, MMIO read/write handlers with a switch over offsets (the common
 * ones here, the design's in iface_*.c), DMA and interrupt helpers.
 *
 * Parameters: design ("a" | "b" | "regcopy", required), speed (1.0, > 0),
 * cycles_a (12000), cycles_b (16000), clock_mhz (400), dma_chunk (4096
 * bytes), dma_outstanding (8 reads), msix (false: design B raises MSI-X
 * vector 0 after each completion record when true), n (512, a multiple of
 * 128), corrupt (false; a test knob: the first element of every result
 * tile is wrong, so the products are wrong). The result format (int8 or
 * int32) is no parameter: the driver chooses it through the registers or
 * the descriptor. See studies/matmul/docs/matmul.md.
 *
 * Malformed input never crashes the model: bad offsets, sizes or BARs are
 * counted and reads return zeros; truncated messages are counted and
 * dropped.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"
#include "mortar/runtime.h"
#include "mortar/pcie_dispatch.h"
#include "model/matmul_internal.h"

#define MAX_N           4096
#define MAX_CHUNK       (1u << 20)
#define MAX_OUTSTANDING 1024
#define MAX_MMIO_READ   65536 /* larger block reads get this much */
#define MAX_HOLD        4096  /* window bytes a read completion holds for the host */

static const matmul_iface *const ifaces[] = {&matmul_iface_a, &matmul_iface_b,
                                             &matmul_iface_regcopy, NULL};

/* ---- parameters ------------------------------------------------------------------ */

static int read_params(const mortar_params *p, matmul_params *out)
{
    static const char *const known[] = {
        "design",          "speed", "cycles_a", "cycles_b", "clock_mhz", "dma_chunk",
        "dma_outstanding", "msix",  "n",        "corrupt",  NULL};
    int rc = mortar_params_check_known(p, known);
    if (!rc)
        rc = mortar_params_string(p, "design", NULL, &out->design);
    if (!rc)
        rc = mortar_params_double(p, "speed", 1.0, &out->speed);
    if (!rc)
        rc = mortar_params_u64(p, "cycles_a", 12000, &out->cycles_a);
    if (!rc)
        rc = mortar_params_u64(p, "cycles_b", 16000, &out->cycles_b);
    if (!rc)
        rc = mortar_params_u64(p, "clock_mhz", 400, &out->clock_mhz);
    if (!rc)
        rc = mortar_params_u64(p, "dma_chunk", 4096, &out->dma_chunk);
    if (!rc)
        rc = mortar_params_u64(p, "dma_outstanding", 8, &out->dma_outstanding);
    if (!rc)
        rc = mortar_params_bool(p, "msix", false, &out->msix);
    if (!rc)
        rc = mortar_params_bool(p, "corrupt", false, &out->corrupt);
    if (!rc)
        rc = mortar_params_u64(p, "n", 512, &out->n);
    return rc;
}

static const matmul_iface *find_iface(const char *design)
{
    for (int i = 0; design && ifaces[i]; i++)
        if (strcmp(ifaces[i]->design, design) == 0)
            return ifaces[i];
    return NULL;
}

/* A parameter that failed its range check, and why. */
typedef struct param_error {
    const char *key, *why;
} param_error;

static param_error check_speed(matmul_params *p)
{
    if (!isfinite(p->speed) || p->speed <= 0 || p->speed > 1e6)
        return (param_error){"speed", "expected a number > 0 and at most 1e6"};
    p->speed_ppm = (uint64_t)(p->speed * 1e6 + 0.5); /* round to nearest; no libm */
    if (p->speed_ppm == 0)
        return (param_error){"speed", "too small (below 1e-6)"};
    return (param_error){NULL, NULL};
}

/* Range checks; the key is NULL when every parameter is fine. */
static param_error check_params(matmul_params *p)
{
    if (!p->design)
        return (param_error){"design", "required: \"a\", \"b\" or \"regcopy\""};
    if (!find_iface(p->design))
        return (param_error){"design", "expected \"a\", \"b\" or \"regcopy\""};
    param_error e = check_speed(p);
    if (e.key)
        return e;
    if (p->cycles_a == 0 || p->cycles_a > 1000000000)
        return (param_error){"cycles_a", "expected 1..1e9"};
    if (p->cycles_b == 0 || p->cycles_b > 1000000000)
        return (param_error){"cycles_b", "expected 1..1e9"};
    if (p->clock_mhz == 0 || p->clock_mhz > 1000000)
        return (param_error){"clock_mhz", "expected 1..1000000"};
    if (p->dma_chunk == 0 || p->dma_chunk > MAX_CHUNK)
        return (param_error){"dma_chunk", "expected 1..1048576 bytes"};
    if (p->dma_outstanding == 0 || p->dma_outstanding > MAX_OUTSTANDING)
        return (param_error){"dma_outstanding", "expected 1..1024"};
    if (p->n == 0 || p->n % MATMUL_TILE || p->n > MAX_N)
        return (param_error){"n", "expected a multiple of 128 in 128..4096"};
    return (param_error){NULL, NULL};
}

/* ---- intro ------------------------------------------------------------------------ */

static mortar_pcie_dev_intro make_intro(const matmul *m)
{
    mortar_pcie_dev_intro in = {
        .vendor_id = MATMUL_VENDOR_ID,
        .device_id = m->iface->device_id,
        .subsystem_vendor_id = MATMUL_VENDOR_ID,
        .subsystem_id = (uint16_t)m->iface->code,
        .class_code = MATMUL_CLASS,
        .revision = MATMUL_REVISION,
        .intx_pin = 1,
    };
    in.bars[MATMUL_BAR_REGS].size = MATMUL_REGS_SIZE;
    if (m->iface->win_read)
        in.bars[MATMUL_BAR_WINDOW].size = matmul_window_bar_size((uint32_t)m->p.n);
    if (m->iface == &matmul_iface_b) {
        in.msix_vectors = 1;
        in.msix_table_bar = MATMUL_BAR_REGS;
        in.msix_pba_bar = MATMUL_BAR_REGS;
        in.msix_table_offset = MATMUL_MSIX_TABLE;
        in.msix_pba_offset = MATMUL_MSIX_PBA;
    }
    return in;
}

/* ---- create / destroy ----------------------------------------------------------------
 */

static void register_trace_kinds(matmul *m)
{
    mortar_component *s = m->self;
    m->tk.doorbell = mortar_trace_kind(s, "doorbell");
    m->tk.desc_fetch = mortar_trace_kind(s, "desc_fetch");
    m->tk.dma_read = mortar_trace_kind(s, "dma_read");
    m->tk.dma_read_done = mortar_trace_kind(s, "dma_read_done");
    m->tk.dma_write = mortar_trace_kind(s, "dma_write");
    m->tk.dma_write_done = mortar_trace_kind(s, "dma_write_done");
    m->tk.compute_start = mortar_trace_kind(s, "compute_start");
    m->tk.compute_end = mortar_trace_kind(s, "compute_end");
    m->tk.completion = mortar_trace_kind(s, "completion");
    m->tk.interrupt = mortar_trace_kind(s, "interrupt");
    m->tk.error = mortar_trace_kind(s, "error");
}

static void matmul_destroy(void *state)
{
    matmul *m = state;
    if (m->iface && m->iface->destroy)
        m->iface->destroy(m);
    matmul_dma_free(&m->dma);
    matmul_unit_free(&m->unit);
    free(m);
}

/* Builds the parts; returns 0 or a MORTAR_E code. */
static int build(matmul *m, const mortar_params *p)
{
    m->iface = find_iface(m->p.design);
    uint64_t step_ps =
        matmul_step_ps(m->iface->cycles(&m->p), m->p.clock_mhz, m->p.speed_ppm);
    if (step_ps == 0) {
        mortar_logf(m->self, MORTAR_LOG_ERROR,
                    "%s: speed and cycles give no usable step time",
                    mortar_params_path(p));
        return MORTAR_EINVAL;
    }
    int rc = matmul_unit_init(&m->unit, step_ps);
    if (!rc)
        rc = matmul_dma_init(&m->dma, (uint32_t)m->p.dma_chunk,
                             (uint32_t)m->p.dma_outstanding);
    if (!rc)
        rc = m->iface->init(m);
    if (!rc) {
        mortar_pcie_dev_intro intro = make_intro(m);
        rc = mortar_port_declare(m->self, MATMUL_PORT, MORTAR_PROTO_PCIE, &intro,
                                 sizeof intro);
    }
    return rc;
}

static int matmul_create(mortar_component *self, const mortar_params *p, void **state)
{
    matmul *m = calloc(1, sizeof *m);
    if (!m)
        return MORTAR_ENOMEM;
    m->self = self;
    int rc = read_params(p, &m->p);
    param_error bad = {NULL, NULL};
    if (!rc)
        bad = check_params(&m->p);
    if (bad.key) {
        mortar_logf(self, MORTAR_LOG_ERROR, "%s.%s: %s", mortar_params_path(p), bad.key,
                    bad.why);
        rc = MORTAR_EINVAL;
    }
    if (!rc)
        rc = build(m, p);
    if (rc) {
        matmul_destroy(m);
        return rc;
    }
    register_trace_kinds(m);
    *state = m;
    return MORTAR_OK;
}

static void matmul_start(void *state)
{
    matmul *m = state;
    matmul_dma_fit(&m->dma, mortar_port_max_payload(m->self, MATMUL_PORT));
}

/* ---- registers ----------------------------------------------------------------------
 */

static bool common_read(matmul *m, uint32_t offset, uint32_t *value)
{
    switch (offset) {
    case MATMUL_REG_ID:
        *value = MATMUL_ID(m->iface->code);
        return true;
    case MATMUL_REG_TILE:
        *value = MATMUL_TILE;
        return true;
    case MATMUL_REG_N:
        *value = (uint32_t)m->p.n;
        return true;
    }
    return m->iface->reg_read(m, offset, value);
}

/* True when (offset, size) is a register access: 4 or 8 bytes, aligned,
 * inside BAR0. */
static bool reg_access_ok(uint64_t offset, uint32_t size)
{
    return (size == 4 || size == 8) && offset % size == 0 && offset < MATMUL_REGS_SIZE &&
           offset + size <= MATMUL_REGS_SIZE;
}

/* Reads 4 or 8 bytes of registers into `out`; false if any part is unknown. */
static bool regs_read(matmul *m, uint64_t offset, uint32_t size, uint8_t *out)
{
    if (!reg_access_ok(offset, size))
        return false;
    for (uint32_t i = 0; i < size; i += 4) {
        uint32_t v = 0;
        if (!common_read(m, (uint32_t)offset + i, &v))
            return false;
        memcpy(out + i, &v, 4);
    }
    return true;
}

static bool regs_write(matmul *m, uint64_t offset, uint32_t size, const uint8_t *data)
{
    if (!reg_access_ok(offset, size))
        return false;
    bool ok = true;
    for (uint32_t i = 0; i < size; i += 4) {
        uint32_t v;
        memcpy(&v, data + i, 4);
        ok = m->iface->reg_write(m, (uint32_t)offset + i, v) && ok;
    }
    return ok;
}

/* ---- MMIO -----------------------------------------------------------------------------
 */

static uint32_t max_read_data(matmul *m)
{
    uint32_t room = mortar_port_max_payload(m->self, MATMUL_PORT);
    room =
        room > sizeof(mortar_pcie_mmio_done) ? room - sizeof(mortar_pcie_mmio_done) : 0;
    return room < MAX_MMIO_READ ? room : MAX_MMIO_READ;
}

/* Fills `out` with `size` bytes read at (bar, offset); false when unknown. */
static bool mmio_fetch(matmul *m, const mortar_pcie_mmio *rd, uint8_t *out, uint32_t size)
{
    if (size != rd->size)
        return false; /* larger than a completion can carry */
    if (rd->bar == MATMUL_BAR_REGS)
        return regs_read(m, rd->offset, size, out);
    if (rd->bar == MATMUL_BAR_WINDOW && m->iface->win_read)
        return m->iface->win_read(m, rd->offset, out, size);
    return false;
}

/*
 * Held reads (mortar/pcie.h): no read of this device has a side effect, and
 * its registers and windows change only at its own events or at the host's
 * messages. So a read answered before the next of those can hold, for the
 * host, the bytes that follow it in its BAR: a register the driver polls,
 * the rest of a result window it reads word by word. `room` is what the
 * completion has left for them. Returns the hold's length (0: none).
 */
static uint32_t fill_hold(matmul *m, const mortar_pcie_mmio *rd, uint8_t *out, uint32_t room)
{
    uint64_t until = mortar_port_quiet_until(m->self, MATMUL_PORT);
    mortar_pcie_read_hold h = {.until_ps = until, .offset = rd->offset, .bar = rd->bar};
    if (until <= mortar_now(m->self) || room < sizeof h + rd->size)
        return 0;
    uint8_t *data = out + sizeof h;
    h.len = rd->size;
    bool fetched = false;
    if (rd->bar == MATMUL_BAR_WINDOW) { /* as much of the window as fits */
        h.len = room - (uint32_t)sizeof h;
        while (h.len >= rd->size && !fetched) {
            fetched = m->iface->win_read(m, rd->offset, data, h.len);
            if (!fetched)
                h.len /= 2; /* the window ends sooner */
        }
    } else {
        fetched = mmio_fetch(m, rd, data, h.len); /* the register itself */
    }
    if (!fetched)
        return 0;
    memcpy(out, &h, sizeof h); /* `out` follows the read's data: any alignment */
    return h.len;
}

static void mmio_read(void *dev, const mortar_pcie_mmio *rd)
{
    matmul *m = dev;
    uint32_t max = max_read_data(m);
    uint32_t size = rd->size <= max ? rd->size : max;
    uint32_t room = max - size < sizeof(mortar_pcie_read_hold) + MAX_HOLD
                        ? max - size
                        : (uint32_t)sizeof(mortar_pcie_read_hold) + MAX_HOLD;
    mortar_pcie_mmio_done *done = malloc(sizeof *done + size + room);
    if (!done) {
        m->c.errors++;
        return;
    }
    m->c.mmio_reads++;
    uint32_t held = 0;
    if (!mmio_fetch(m, rd, done->data, size)) {
        memset(done->data, 0, size);
        m->c.unknown_reg_accesses++;
    } else if (size == rd->size) {
        held = fill_hold(m, rd, done->data + size, room);
    }
    *done = (mortar_pcie_mmio_done){.req_id = rd->req_id, .size = size};
    done->flags = held ? MORTAR_PCIE_DONE_HOLD : 0;
    uint32_t total = (uint32_t)sizeof *done + size +
                     (held ? (uint32_t)sizeof(mortar_pcie_read_hold) + held : 0);
    mortar_send(m->self, MATMUL_PORT, MORTAR_PCIE_MMIO_READ_DONE, done, total, 0, NULL);
    free(done);
}

static void mmio_write(void *dev, const mortar_pcie_mmio *wr)
{
    matmul *m = dev;
    bool ok = false;
    m->c.mmio_writes++;
    if (wr->bar == MATMUL_BAR_REGS)
        ok = regs_write(m, wr->offset, wr->size, wr->data);
    else if (wr->bar == MATMUL_BAR_WINDOW && m->iface->win_write)
        ok = m->iface->win_write(m, wr->offset, wr->data, wr->size);
    if (!ok)
        m->c.unknown_reg_accesses++;
    if (!wr->posted) {
        mortar_pcie_mmio_done done = {.req_id = wr->req_id};
        mortar_send(m->self, MATMUL_PORT, MORTAR_PCIE_MMIO_WRITE_DONE, &done, sizeof done,
                    0, NULL);
    }
}

/* ---- messages, timers ----------------------------------------------------------------
 */

static void devctrl(void *dev, uint32_t flags)
{
    matmul *m = dev;
    m->devctrl = flags;
    if (m->iface->devctrl)
        m->iface->devctrl(m, m->devctrl);
}

static void dma_done(void *dev, const mortar_msg *msg)
{
    matmul_dma_completion(dev, msg->type == MORTAR_PCIE_DMA_WRITE_DONE, msg->payload,
                          msg->size);
}

static const mortar_pcie_device_ops pcie_ops = {.mmio_read = mmio_read,
                                                .mmio_write = mmio_write,
                                                .devctrl = devctrl,
                                                .dma_done = dma_done};

static void matmul_message(void *state, unsigned port, const mortar_msg *msg)
{
    (void)port;
    matmul *m = state;
    if (!mortar_pcie_dispatch(&pcie_ops, m, msg)) {
        m->c.bad_messages++;
        m->c.errors++;
    }
}

static void matmul_timer(void *state, uint64_t cookie)
{
    matmul *m = state;
    m->iface->timer(m, cookie);
}

void matmul_raise_msix(matmul *m, uint16_t vector, uint64_t req_id)
{
    if (!(m->devctrl & MORTAR_PCIE_CTRL_MSIX_ENABLE))
        return;
    mortar_pcie_interrupt in = {.vector = vector, .kind = MORTAR_PCIE_INT_MSIX};
    if (mortar_send(m->self, MATMUL_PORT, MORTAR_PCIE_INTERRUPT, &in, sizeof in, 0,
                    NULL) != 0)
        return;
    m->c.interrupts++;
    matmul_trace(m, m->tk.interrupt, req_id, vector, 0);
}

/* ---- stats
 * ------------------------------------------------------------------------------ */

static void matmul_stats(void *state, mortar_stats *s)
{
    matmul *m = state;
    const matmul_counters *c = &m->c;
    mortar_stats_u64(s, "requests", c->requests);
    mortar_stats_u64(s, "steps", c->steps);
    mortar_stats_time(s, "busy_ps", c->busy_ps);
    mortar_stats_time(s, "compute_ps", c->compute_ps);
    mortar_stats_time(s, "step_ps", m->unit.step_ps);
    mortar_stats_u64(s, "dma_reads", c->dma_reads);
    mortar_stats_u64(s, "dma_writes", c->dma_writes);
    mortar_stats_u64(s, "dma_bytes", c->dma_bytes);
    mortar_stats_u64(s, "dma_errors", c->dma_errors);
    mortar_stats_u64(s, "mmio_reads", c->mmio_reads);
    mortar_stats_u64(s, "mmio_writes", c->mmio_writes);
    mortar_stats_u64(s, "unknown_reg_accesses", c->unknown_reg_accesses);
    mortar_stats_u64(s, "bad_completions", c->bad_completions);
    mortar_stats_u64(s, "doorbells_ignored", c->doorbells_ignored);
    /* A design without a queue has nothing to count here; reporting zeros
     * would read as "the queue never held a request". */
    if (m->iface->has_ring) {
        mortar_stats_u64(s, "bad_descriptors", c->bad_descriptors);
        mortar_stats_u64(s, "ring_errors", c->ring_errors);
        mortar_stats_u64(s, "queued_on_finish", c->queued_on_finish);
    }
    mortar_stats_u64(s, "interrupts", c->interrupts);
    mortar_stats_u64(s, "bad_messages", c->bad_messages);
    mortar_stats_u64(s, "errors", c->errors);
}

void matmul_get_counters(mortar_component *c, matmul_counters *out)
{
    const matmul *m = mortar_component_state(c);
    *out = m->c;
}

const mortar_component_ops mortar_matmul_ops = {
    .kind = "matmul",
    .summary =
        "matmul accelerator: int8 128x128 tile unit behind design A, B or register copy",
    .create = matmul_create,
    .start = matmul_start,
    .message = matmul_message,
    .timer = matmul_timer,
    .stats = matmul_stats,
    .destroy = matmul_destroy,
};
