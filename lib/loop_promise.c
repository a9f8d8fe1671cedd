/*
 * loop_promise.c - what the event loop can promise on each synchronized
 * link: the earliest time any of its components could next send there.
 *
 * A component sends only while it handles an event. So an output on the
 * link of component j is at least as late as
 *   - a pending event of component c, plus the least in-process latency
 *     from c to j (the path its consequences would take);
 *   - the input bound of another external link i, plus the least latency
 *     from i's component to j (what arrives there can only cause it later);
 *   - for an unsynchronized input: now (its messages happen on arrival).
 * Input on the link itself is left out: the peer knows what it sends, and
 * the promise says so (mortar/link.h, mortar_link_send_promise). The rule
 * that combines these is sync_rule_next_send (sync_rule.c); this file gives
 * it the loop's side: the components' next events and the latencies.
 */
#include "loop_internal.h"

#include <stdlib.h>

#include "mortar/error.h"

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > MORTAR_TIME_MAX - b ? MORTAR_TIME_MAX : a + b;
}

/* reach[a * n + b]: the least in-process latency from component a to b
 * (0 for a == b, MORTAR_TIME_MAX when no path), by Floyd-Warshall over the
 * in-process connections. */
int loop_promise_setup(mortar_loop *loop)
{
    uint32_t n = loop->ncomps;
    free(loop->reach);
    free(loop->earliest);
    loop->reach = malloc((size_t)n * n * sizeof *loop->reach + 1);
    loop->earliest = malloc((size_t)n * sizeof *loop->earliest + 1);
    if (!loop->reach || !loop->earliest)
        return loop_set_error(loop, MORTAR_ENOMEM, "out of memory for lookahead promises");
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++)
            loop->reach[a * n + b] = a == b ? 0 : MORTAR_TIME_MAX;
    for (uint32_t a = 0; a < n; a++) {
        mortar_component *c = loop->comps[a];
        for (unsigned p = 0; p < c->nports; p++) {
            if (c->ports[p].binding != PORT_INPROC)
                continue;
            uint64_t *r = &loop->reach[a * n + c->ports[p].inproc.peer->index];
            if (c->ports[p].inproc.timing.latency_ps < *r)
                *r = c->ports[p].inproc.timing.latency_ps;
        }
    }
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = 0; b < n; b++) {
                uint64_t via = add_sat(loop->reach[a * n + k], loop->reach[k * n + b]);
                if (via < loop->reach[a * n + b])
                    loop->reach[a * n + b] = via;
            }
    return MORTAR_OK;
}

/* The earliest pending event of each component (cancelled timers count:
 * a safe bound). */
void loop_promise_scan(mortar_loop *loop)
{
    for (uint32_t c = 0; c < loop->ncomps; c++)
        loop->earliest[c] = MORTAR_TIME_MAX;
    for (size_t i = 0; i < loop->heap.count; i++) {
        const event *ev = &loop->heap.items[i];
        uint32_t c = event_comp(ev);
        if (ev->time < loop->earliest[c])
            loop->earliest[c] = ev->time;
    }
}

/* `t`, or with bound jitter on now and then a time from loop->now to `t`
 * (mortar_loop_set_bound_jitter; xorshift64). */
static uint64_t jitter_below(mortar_loop *loop, uint64_t t)
{
    if (!loop->bound_jitter || t <= loop->now || t == MORTAR_TIME_MAX)
        return t;
    uint64_t x = loop->jitter_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    loop->jitter_state = x;
    if ((x >> 32) % 2)
        return t;
    return loop->now + (x & 0xffffffffu) % (t - loop->now + 1);
}

/* The earliest time a pending event of this loop could make a component
 * send on external link j: each component's next event plus the least
 * in-process latency from it to j's component. */
static uint64_t own_next(void *ctx, unsigned j)
{
    loop_promiser *p = ctx;
    mortar_loop *loop = p->loop;
    if (!p->scanned) {
        loop_promise_scan(loop);
        p->scanned = true;
    }
    uint32_t n = loop->ncomps, to = loop->exts[j].comp->index;
    uint64_t next = MORTAR_TIME_MAX;
    for (uint32_t c = 0; c < n; c++) {
        uint64_t t = add_sat(loop->earliest[c], loop->reach[c * n + to]);
        if (t < next)
            next = t;
    }
    return jitter_below(loop, next);
}

/* The least in-process latency from external link i's component to j's. */
static uint64_t latency(void *ctx, unsigned i, unsigned j)
{
    const mortar_loop *loop = ((loop_promiser *)ctx)->loop;
    uint32_t n = loop->ncomps;
    return loop->reach[loop->exts[i].comp->index * n + loop->exts[j].comp->index];
}

void loop_promiser_init(loop_promiser *p, mortar_loop *loop)
{
    p->rule = (sync_promiser){.own_next = own_next, .latency = latency, .peek = false, .ctx = p};
    p->loop = loop;
    p->scanned = false;
}

/* The index of port's external link if the loop makes promises on it, or
 * -1: the port is in-process or unsynchronized, or promises are off. */
static int promised_link(const mortar_component *c, unsigned port)
{
    const mortar_loop *loop = c->loop;
    if (loop->promises_off || port >= c->nports || c->ports[port].binding != PORT_EXTERNAL)
        return -1;
    for (uint32_t j = 0; j < loop->nexts; j++)
        if (loop->exts[j].comp == c && loop->exts[j].port == port)
            return loop->sync[j].synchronized ? (int)j : -1;
    return -1;
}

uint64_t mortar_port_quiet_until(mortar_component *c, unsigned port)
{
    mortar_loop *loop = c->loop;
    int j = promised_link(c, port);
    if (j < 0)
        return loop->now;
    loop_promiser p;
    loop_promiser_init(&p, loop);
    return sync_rule_next_send(loop->sync, loop->nexts, (unsigned)j, loop->now, &p.rule);
}

uint64_t mortar_port_quiet_until_own(mortar_component *c, unsigned port)
{
    mortar_loop *loop = c->loop;
    if (promised_link(c, port) < 0)
        return loop->now;
    loop_promise_scan(loop);
    uint64_t next = loop->earliest[c->index];
    return next < loop->now ? loop->now : jitter_below(loop, next);
}
