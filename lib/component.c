/*
 * component.c - the runtime API a model calls from its callbacks: ports,
 * time, sending, timers, trace events, logging and stats.
 */
#include "loop_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mortar/error.h"

int mortar_port_declare(mortar_component *c, unsigned port, uint32_t protocol,
                        const void *intro, uint32_t intro_size)
{
    if (port >= MAX_PORTS || c->ports[port].declared)
        return MORTAR_EINVAL;
    struct port *p = &c->ports[port];
    p->declared = true;
    p->protocol = protocol;
    if (intro_size) {
        p->intro = malloc(intro_size);
        if (!p->intro)
            return MORTAR_ENOMEM;
        memcpy(p->intro, intro, intro_size);
        p->intro_size = intro_size;
    }
    if (port + 1 > c->nports)
        c->nports = port + 1;
    return MORTAR_OK;
}

const void *mortar_port_peer_intro(mortar_component *c, unsigned port, uint32_t *size)
{
    *size = 0;
    if (port >= c->nports)
        return NULL;
    struct port *p = &c->ports[port];
    if (p->binding == PORT_EXTERNAL)
        return mortar_link_peer_intro(p->link, size);
    if (p->binding == PORT_INPROC) {
        struct port *q = &p->inproc.peer->ports[p->inproc.peer_port];
        *size = q->intro_size;
        return q->intro;
    }
    return NULL;
}

uint32_t mortar_port_max_payload(mortar_component *c, unsigned port)
{
    if (port >= c->nports)
        return 0;
    struct port *p = &c->ports[port];
    if (p->binding == PORT_EXTERNAL)
        return mortar_link_max_payload(p->link);
    return p->inproc.max_payload; /* the slot size the link would have */
}

uint64_t mortar_now(const mortar_component *c)
{
    return c->loop->now;
}

const char *mortar_component_name(const mortar_component *c)
{
    return c->name;
}

void mortar_stop(mortar_component *c)
{
    c->loop->stop = true;
}

/* ---- sending ----------------------------------------------------------------- */

static int send_inproc(mortar_component *c, struct port *p, uint8_t type, const void *payload,
                       uint32_t size, uint32_t wire_bytes, uint64_t *stamp)
{
    if (size > p->inproc.max_payload)
        return MORTAR_ETOOBIG;
    event ev = {.order = event_order(p->inproc.peer->index, EV_MESSAGE,
                                     (uint8_t)p->inproc.peer_port)};
    if (mortar_link__timing_stamp_message(&p->inproc.timing, c->loop->now, type, payload, size,
                                          wire_bytes, &ev.time) != 0)
        return MORTAR_EINVAL;
    ev.seq = p->inproc.peer->ports[p->inproc.peer_port].rx_seq++;
    ev.msg.type = type;
    if (event_set_payload(&ev, payload, size) != 0)
        return MORTAR_ENOMEM;
    if (stamp)
        *stamp = ev.time;
    int rc = heap_push(&c->loop->heap, &ev);
    if (rc != 0)
        event_free_payload(&ev);
    return rc;
}

/* Sends on an external link; while its ring is full, keeps draining our own
 * inputs (so two sides that both send cannot deadlock) and waits. */
static int send_external(mortar_component *c, struct port *p, uint8_t type,
                         const void *payload, uint32_t size, uint32_t wire_bytes,
                         uint64_t *stamp)
{
    for (unsigned tries = 0;; tries++) {
        int rc = mortar_link_send(p->link, c->loop->now, type, payload, size, wire_bytes, stamp);
        if (rc != MORTAR_EAGAIN) {
            /* A message that does not fit is the caller's problem; a link
             * that is gone ends the run. */
            if ((rc == MORTAR_EPEER || rc == MORTAR_ESTATE) && !c->loop->fatal)
                c->loop->fatal = loop_set_error(c->loop, rc, "%s", mortar_link_errmsg(p->link));
            return rc;
        }
        if (loop_poll_inputs(c->loop) != 0)
            return c->loop->fatal = MORTAR_EPEER;
        int prc = mortar_link_check_peer(p->link);
        if (prc != 0) {
            c->loop->fatal = loop_set_error(c->loop, prc, "%s", mortar_link_errmsg(p->link));
            return prc;
        }
        if (tries > 600000) { /* about a minute of a full ring */
            c->loop->fatal = loop_set_error(c->loop, MORTAR_ETIMEDOUT,
                                            "link '%s': ring full for a minute; peer stalled",
                                            mortar_link_name(p->link));
            return MORTAR_ETIMEDOUT;
        }
        usleep(100);
    }
}

/* Records the wire time of the DMA data just sent on `p`, as an event
 * "pcie_wire" at the arrival of its first byte: arg0 how long its bytes
 * take to arrive, arg1 the message's type (docs/traces.md). */
static void trace_wire(mortar_component *c, struct port *p, uint8_t type)
{
    if (!mortar_pcie_moves_dma_data(type))
        return;
    uint64_t start, wire, latency;
    if (p->binding == PORT_INPROC) {
        const mortar_link_timing *t = &p->inproc.timing;
        if (!t->pcie.gen)
            return;
        start = t->last_wire_start_ps;
        wire = t->last_wire_ps;
        latency = t->latency_ps;
    } else {
        if (!mortar_link_pcie(p->link)->gen)
            return;
        mortar_link_last_wire(p->link, &start, &wire);
        latency = mortar_link_latency(p->link);
    }
    if (wire == 0)
        return;
    mortar_trace_event ev = {.time_ps = start + latency, .component = c->trace_id,
                             .kind = c->loop->wire_kind, .arg0 = wire, .arg1 = type};
    mortar_trace_writer_event(c->loop->trace, &ev);
}

int mortar_send(mortar_component *c, unsigned port, uint8_t type, const void *payload,
                uint32_t size, uint32_t wire_bytes, uint64_t *stamp)
{
    if (port >= c->nports || c->ports[port].binding == PORT_UNBOUND)
        return MORTAR_EINVAL;
    struct port *p = &c->ports[port];
    int rc = p->binding == PORT_INPROC
                 ? send_inproc(c, p, type, payload, size, wire_bytes, stamp)
                 : send_external(c, p, type, payload, size, wire_bytes, stamp);
    if (rc == MORTAR_OK && c->loop->trace)
        trace_wire(c, p, type);
    return rc;
}

/* ---- timers ------------------------------------------------------------------ */

static int grow_timers(mortar_component *c)
{
    uint32_t cap = c->timer_cap ? c->timer_cap * 2 : 64;
    timer_slot *t = realloc(c->timers, cap * sizeof *t);
    if (!t)
        return MORTAR_ENOMEM;
    c->timers = t;
    uint32_t *f = realloc(c->free_timers, cap * sizeof *f);
    if (!f)
        return MORTAR_ENOMEM;
    c->free_timers = f;
    for (uint32_t i = c->timer_cap; i < cap; i++) {
        c->timers[i].gen = 0;
        c->timers[i].active = false;
        c->free_timers[c->free_count++] = cap - 1 - (i - c->timer_cap);
    }
    c->timer_cap = cap;
    return MORTAR_OK;
}

uint64_t mortar_timer_set(mortar_component *c, uint64_t at_ps, uint64_t cookie)
{
    if (c->free_count == 0 && grow_timers(c) != 0)
        return 0;
    uint32_t slot = c->free_timers[--c->free_count];
    timer_slot *t = &c->timers[slot];
    t->gen++;
    t->active = true;
    event ev = {.time = at_ps < c->loop->now ? c->loop->now : at_ps,
                .order = event_order(c->index, EV_TIMER, 0), .seq = c->timer_seq++};
    ev.timer.slot = slot;
    ev.timer.gen = t->gen;
    ev.timer.cookie = cookie;
    if (heap_push(&c->loop->heap, &ev) != 0)
        return 0;
    return ((uint64_t)t->gen << 32) | (slot + 1u);
}

void mortar_timer_cancel(mortar_component *c, uint64_t id)
{
    uint32_t slot = (uint32_t)(id & 0xffffffffu);
    uint32_t gen = (uint32_t)(id >> 32);
    if (slot == 0 || slot > c->timer_cap)
        return;
    timer_slot *t = &c->timers[slot - 1];
    if (t->gen == gen)
        t->active = false; /* the heap entry is dropped when it comes up */
}

/* ---- trace and log -------------------------------------------------------------- */

uint16_t mortar_trace_kind(mortar_component *c, const char *name)
{
    return loop_trace_kind(c->loop, name);
}

void mortar_trace(mortar_component *c, uint16_t kind, uint64_t req_id, uint64_t arg0,
                  uint64_t arg1)
{
    if (!c->loop->trace)
        return;
    mortar_trace_event ev = {.time_ps = c->loop->now, .component = c->trace_id, .kind = kind,
                             .req_id = req_id, .arg0 = arg0, .arg1 = arg1};
    mortar_trace_writer_event(c->loop->trace, &ev);
}

bool mortar_tracing(const mortar_component *c)
{
    return c->loop->trace != NULL;
}

void mortar_logf(const mortar_component *c, mortar_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mortar_vlog(level, c->name, fmt, ap);
    va_end(ap);
}

/* ---- stats -------------------------------------------------------------------- */

struct mortar_stats {
    json_t *obj;
};

void mortar_stats_u64(mortar_stats *s, const char *name, uint64_t value)
{
    json_object_set_new(s->obj, name, json_integer((json_int_t)value));
}

void mortar_stats_double(mortar_stats *s, const char *name, double value)
{
    json_object_set_new(s->obj, name, json_real(value));
}

void mortar_stats_time(mortar_stats *s, const char *name, uint64_t value_ps)
{
    json_object_set_new(s->obj, name, json_integer((json_int_t)value_ps));
}

static void add_link_stats(json_t *obj, const struct port *p, unsigned index)
{
    if (p->binding != PORT_EXTERNAL)
        return;
    mortar_link_counters k;
    mortar_link_get_counters(p->link, &k);
    char key[96];
    snprintf(key, sizeof key, "port%u.msgs_sent", index);
    json_object_set_new(obj, key, json_integer((json_int_t)k.msgs_sent));
    snprintf(key, sizeof key, "port%u.msgs_received", index);
    json_object_set_new(obj, key, json_integer((json_int_t)k.msgs_received));
    snprintf(key, sizeof key, "port%u.syncs_sent", index);
    json_object_set_new(obj, key, json_integer((json_int_t)k.syncs_sent));
}

int mortar_loop_write_stats(mortar_loop *loop, FILE *f)
{
    json_t *all = json_object();
    for (uint32_t i = 0; i < loop->ncomps; i++) {
        mortar_component *c = loop->comps[i];
        mortar_stats s = {.obj = json_object()};
        if (c->ops->stats)
            c->ops->stats(c->state, &s);
        for (unsigned p = 0; p < c->nports; p++)
            add_link_stats(s.obj, &c->ports[p], p);
        json_object_set_new(all, c->name, s.obj);
    }
    json_object_set_new(all, "_sim_time_ps", json_integer((json_int_t)loop->now));
    int rc = json_dumpf(all, f, JSON_INDENT(1) | JSON_SORT_KEYS) == 0 ? MORTAR_OK : MORTAR_EIO;
    fputc('\n', f);
    json_decref(all);
    return rc;
}
