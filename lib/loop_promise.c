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
 * the promise says so (mortar/link.h, mortar_link_send_promise).
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

/* The earliest time a component could send on external link x, after
 * loop_promise_scan. */
uint64_t loop_promise_next_send(const mortar_loop *loop, const ext_link *x)
{
    uint32_t n = loop->ncomps, to = x->comp->index;
    uint64_t next = MORTAR_TIME_MAX;
    for (uint32_t c = 0; c < n; c++) {
        uint64_t t = add_sat(loop->earliest[c], loop->reach[c * n + to]);
        if (t < next)
            next = t;
    }
    for (uint32_t i = 0; i < loop->nexts; i++) {
        const ext_link *in = &loop->exts[i];
        if (in == x)
            continue;
        uint64_t d = loop->reach[in->comp->index * n + to];
        if (d == MORTAR_TIME_MAX)
            continue;
        uint64_t bound = in->synchronized ? mortar_link_in_bound(in->link) : loop->now;
        uint64_t t = add_sat(bound, d);
        if (t < next)
            next = t;
    }
    return next < loop->now ? loop->now : next;
}
