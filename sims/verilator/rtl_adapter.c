/*
 * rtl_adapter.c - the `rtl` component: an RTL design clocked on the
 * simulated clock, on the device side of a PCIe link (rtl_adapter.h).
 *
 * The clock: edge k happens at t0 + k * period_ps (t0, the run's start).
 * Each edge is one timer: the bridge sets the inputs (rtl_bridge.c), the
 * model evaluates the edge, the bridge acts on the outputs. After an edge
 * at which the design said idle, took no input, and nothing waits for it,
 * the clock stops: no timer is pending and no edge is evaluated. A message
 * that gives the design something restarts it at the first grid edge at or
 * after the message's time (messages come before timers at equal times, so
 * an edge at that very time sees it). Skipped edges are counted, not run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"
#include "mortar/runtime.h"
#include "sims/verilator/rtl_adapter_internal.h"

#define CLOCK_MHZ_MAX 10000 /* 100 ps: beyond any block's clock */

uint64_t mortar_rtl_period_ps(uint64_t clock_mhz)
{
    return (MORTAR_US(1) + clock_mhz / 2) / clock_mhz;
}

static void arm(rtl_adapter *a)
{
    a->running = true;
    if (!mortar_timer_set(a->self, a->t0 + a->next_edge * a->period_ps, 0))
        a->running = false; /* out of memory: the clock stops, counted nowhere better */
}

/* Restarts a stopped clock at the first grid edge at or after now. */
static void resume(rtl_adapter *a)
{
    uint64_t since = mortar_now(a->self) - a->t0;
    uint64_t k = (since + a->period_ps - 1) / a->period_ps;
    if (k < a->next_edge)
        k = a->next_edge;
    a->skipped += k - a->next_edge;
    a->next_edge = k;
    arm(a);
}

static void rtl_timer(void *state, uint64_t cookie)
{
    (void)cookie;
    rtl_adapter *a = state;
    bool in_reset = a->next_edge < RTL_RESET_EDGES;
    mortar_rtl_ports *p = &a->ports;
    a->running = false;
    a->next_edge++;
    p->now_ps = mortar_now(a->self);
    p->rst_n = !in_reset;
    if (!in_reset)
        rtl_bridge_present(a);
    mortar_rtl_model_edge(a->model, p);
    a->c.edges++;
    bool moved = !in_reset && rtl_bridge_collect(a);
    if (in_reset || moved || !p->idle || rtl_bridge_pending(a))
        arm(a);
}

static void rtl_start(void *state)
{
    rtl_adapter *a = state;
    a->t0 = mortar_now(a->self);
    arm(a);
}

static void rtl_message(void *state, unsigned port, const mortar_msg *msg)
{
    (void)port;
    rtl_adapter *a = state;
    if (rtl_bridge_message(a, msg) && !a->running)
        resume(a);
}

/* ---- parameters and creation ---------------------------------------------------- */

static int unknown_design(const mortar_params *p, const char *name, const char *why)
{
    char known[256] = "";
    const mortar_rtl_design *const *all = mortar_rtl_designs();
    for (int i = 0; all[i]; i++) {
        size_t used = strlen(known);
        snprintf(known + used, sizeof known - used, "%s\"%s\"", i ? ", " : "",
                 all[i]->name);
    }
    if (!name)
        return mortar_params_error(p, "design", "required: one of %s", known);
    return mortar_params_error(p, "design", "unknown RTL design \"%s\" (%s); built in: %s",
                               name, why, known);
}

static int read_params(const mortar_params *p, const mortar_rtl_design **design,
                       uint64_t *clock_mhz)
{
    static const char *const known[] = {"design", "clock_mhz", NULL};
    const char *name = NULL;
    int rc = mortar_params_check_known(p, known);
    if (!rc)
        rc = mortar_params_string(p, "design", NULL, &name);
    char why[1024] = "";
    if (!rc && (!name || !(*design = mortar_rtl_design_lookup(name, why, sizeof why))))
        rc = unknown_design(p, name, why);
    if (!rc)
        rc = mortar_params_u64(p, "clock_mhz", 400, clock_mhz);
    if (!rc && (*clock_mhz == 0 || *clock_mhz > CLOCK_MHZ_MAX))
        rc = mortar_params_error(p, "clock_mhz", "expected 1..%d", CLOCK_MHZ_MAX);
    return rc;
}

static void register_traces(rtl_adapter *a)
{
    const mortar_rtl_design *d = a->design;
    a->trace_unknown = mortar_trace_kind(a->self, "unknown");
    for (unsigned k = 0; k < 256; k++)
        a->trace_kind[k] = a->trace_unknown;
    for (unsigned k = 0; k < d->trace_count && k < 256; k++)
        if (d->trace_names[k])
            a->trace_kind[k] = mortar_trace_kind(a->self, d->trace_names[k]);
}

static void rtl_destroy(void *state)
{
    rtl_adapter *a = state;
    if (!a)
        return;
    mortar_rtl_model_destroy(a->model);
    free(a->slots);
    free(a);
}

static int rtl_create(mortar_component *self, const mortar_params *p, void **state)
{
    const mortar_rtl_design *design = NULL;
    uint64_t clock_mhz = 0;
    int rc = read_params(p, &design, &clock_mhz);
    if (rc)
        return rc;
    rtl_adapter *a = calloc(1, sizeof *a);
    if (!a)
        return MORTAR_ENOMEM;
    a->self = self;
    a->design = design;
    a->period_ps = mortar_rtl_period_ps(clock_mhz);
    a->slots = calloc(RTL_DMA_SLOTS, sizeof *a->slots);
    a->model = a->slots ? mortar_rtl_model_create(design) : NULL;
    if (!a->model) {
        rtl_destroy(a);
        return MORTAR_ENOMEM;
    }
    register_traces(a);
    mortar_port_declare(self, RTL_PORT, MORTAR_PROTO_PCIE, &design->intro,
                        sizeof design->intro);
    *state = a;
    return 0;
}

/* ---- stats ------------------------------------------------------------------------- */

static void counters(const rtl_adapter *a, mortar_rtl_counters *out)
{
    *out = a->c;
    out->edges_skipped = a->skipped;
    /* A stopped clock skips every grid edge up to now. */
    uint64_t now = mortar_now(a->self);
    if (!a->running && now >= a->t0) {
        uint64_t grid = (now - a->t0) / a->period_ps + 1;
        if (grid > a->next_edge)
            out->edges_skipped += grid - a->next_edge;
    }
}

void mortar_rtl_get_counters(mortar_component *c, mortar_rtl_counters *out)
{
    counters(mortar_component_state(c), out);
}

static void rtl_stats(void *state, mortar_stats *s)
{
    mortar_rtl_counters c;
    counters(state, &c);
    mortar_stats_u64(s, "edges", c.edges);
    mortar_stats_u64(s, "edges_skipped", c.edges_skipped);
    mortar_stats_u64(s, "mmio_reads", c.mmio_reads);
    mortar_stats_u64(s, "mmio_writes", c.mmio_writes);
    mortar_stats_u64(s, "mmio_refused", c.mmio_refused);
    mortar_stats_u64(s, "mmio_dropped", c.mmio_dropped);
    mortar_stats_u64(s, "dma_reads", c.dma_reads);
    mortar_stats_u64(s, "dma_writes", c.dma_writes);
    mortar_stats_u64(s, "dma_read_bytes", c.dma_read_bytes);
    mortar_stats_u64(s, "dma_write_bytes", c.dma_write_bytes);
    mortar_stats_u64(s, "dma_errors", c.dma_errors);
    mortar_stats_u64(s, "irqs", c.irqs);
    mortar_stats_u64(s, "irqs_dropped", c.irqs_dropped);
    mortar_stats_u64(s, "traces", c.traces);
    mortar_stats_u64(s, "bad_messages", c.bad_messages);
    mortar_stats_u64(s, "design_errors", c.design_errors);
    mortar_stats_u64(s, "send_errors", c.send_errors);
}

static const char *const rtl_lost_stats[] = {"mmio_dropped", "irqs_dropped",
                                             "send_errors", NULL};

const mortar_component_ops mortar_rtl_ops = {
    .kind = "rtl",
    .summary = "an RTL design (Verilator) on a PCIe link: parameter design names it",
    .create = rtl_create,
    .start = rtl_start,
    .message = rtl_message,
    .timer = rtl_timer,
    .stats = rtl_stats,
    .destroy = rtl_destroy,
    .lost_stats = rtl_lost_stats,
};
