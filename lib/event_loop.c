/*
 * event_loop.c - running components under the conservative rule.
 *
 * One iteration: move what arrived on external links into the heap; if the
 * earliest event is before the safe time (the smallest input bound over the
 * synchronized input links) handle it; otherwise advance the clock as far as
 * is safe, send the null messages that are due, and wait for the peer whose
 * bound holds us back. At start every synchronized link gets a null message
 * at time 0, so two idle peers never wait for each other. The rule's
 * arithmetic (safe time, due null messages, promises) is sync_rule.c, shared
 * with QEMU's hub.
 *
 * Profile (lib/profile.c reads it): one clock read before and after each
 * wait, charged to the link that held the safe time back (or to "any
 * input" without one), and one at the start and the end of the run; no
 * clock read per event. The read that ends a wait comes after the null
 * messages the wait made due are sent (or before the event it let run): a
 * clock read costs tens of nanoseconds on a virtual machine, as much as
 * the rest of a step, and the peer waits for those messages. It never
 * touches simulated time.
 */
#include "loop_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mortar/error.h"
#include "wall_ticks.h"

#define WAIT_SLICE_MS 100

int loop_set_error(mortar_loop *loop, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(loop->err, sizeof loop->err, fmt, ap);
    va_end(ap);
    return code;
}

static int push_external(mortar_loop *loop, ext_link *x, const mortar_msg *m)
{
    struct port *p = &x->comp->ports[x->port];
    event ev = {.order = event_order(x->comp->index, EV_MESSAGE, (uint8_t)x->port),
                .seq = p->rx_seq++};
    /* Unsynchronized peers may stamp a message in our past; it happens now. */
    ev.time = m->timestamp_ps < loop->now ? loop->now : m->timestamp_ps;
    ev.msg.type = m->type;
    if (event_set_payload(&ev, m->payload, m->size) != 0)
        return MORTAR_ENOMEM;
    int rc = heap_push(&loop->heap, &ev);
    if (rc != 0)
        event_free_payload(&ev);
    return rc;
}

int loop_poll_inputs(mortar_loop *loop)
{
    for (uint32_t i = 0; i < loop->nexts; i++) {
        ext_link *x = &loop->exts[i];
        mortar_msg m;
        int r;
        while ((r = mortar_link_peek(x->link, &m)) == 1) {
            int rc = push_external(loop, x, &m);
            mortar_link_pop(x->link);
            if (rc != 0)
                return loop_set_error(loop, rc, "out of memory queueing a message");
        }
        if (r < 0)
            return loop_set_error(loop, r, "%s", mortar_link_errmsg(x->link));
    }
    return MORTAR_OK;
}

/* Sends a null message on every synchronized link quiet for a sync
 * interval (sync_rule.c), with the loop's promise unless promises are off
 * (loop_promise.c), and remembers when the next one can be due. A refused
 * one stays due: it is tried again at every step. */
static int send_due_syncs(mortar_loop *loop)
{
    loop_promiser promiser;
    loop_promiser_init(&promiser, loop);
    sync_due due;
    int rc = sync_rule_send_due(loop->sync, loop->nexts, loop->now,
                                loop->promises_off ? NULL : &promiser.rule, &due);
    if (rc != 0)
        return loop_set_error(loop, rc, "%s", mortar_link_errmsg(loop->sync[due.failed].link));
    loop->next_sync_due = due.next_due;
    return MORTAR_OK;
}

static bool all_peers_terminated(const mortar_loop *loop)
{
    if (loop->nexts == 0)
        return false;
    for (uint32_t i = 0; i < loop->nexts; i++)
        if (!mortar_link_peer_terminated(loop->exts[i].link))
            return false;
    return true;
}

/*
 * Nothing can ever happen here again: no event is pending, the safe time is
 * "never" (every synchronized link terminated, or its peer promised to send
 * nothing more, having consumed all we sent) and every unsynchronized link
 * is terminated. Two simulators whose hosts are gone reach this together,
 * each waiting only on the other; without it neither would end
 * (all_peers_terminated). The point is the same whatever the wall clock:
 * by then every event has run.
 */
static bool quiescent(const mortar_loop *loop, uint64_t safe)
{
    if (loop->nexts == 0 || loop->heap.count != 0 || safe != MORTAR_TIME_MAX)
        return false;
    for (uint32_t i = 0; i < loop->nexts; i++)
        if (!loop->sync[i].synchronized && !mortar_link_peer_terminated(loop->exts[i].link))
            return false;
    return true;
}

/* The clock is also read by other threads (mortar_loop_now_shared): an
 * atomic store, free on the usual machines. */
static void set_now(mortar_loop *loop, uint64_t t)
{
    __atomic_store_n(&loop->now, t, __ATOMIC_RELAXED);
}

static void dispatch(mortar_loop *loop, event *ev)
{
    mortar_component *c = loop->comps[event_comp(ev)];
    set_now(loop, ev->time);
    if (event_class(ev) == EV_MESSAGE) {
        mortar_msg m = {.type = ev->msg.type, .size = ev->msg.size, .timestamp_ps = ev->time,
                        .payload = event_payload(ev)};
        loop->events++;
        c->events++;
        c->ops->message(c->state, event_port(ev), &m);
        event_free_payload(ev);
        return;
    }
    timer_slot *t = &c->timers[ev->timer.slot];
    if (t->gen != ev->timer.gen || !t->active)
        return; /* cancelled */
    t->active = false;
    c->free_timers[c->free_count++] = ev->timer.slot;
    loop->events++;
    c->events++;
    if (c->ops->timer)
        c->ops->timer(c->state, ev->timer.cookie);
}

uint64_t loop_wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Waits for the link that holds the safe time back, or, without synchronized
 * links, for any input. */
static int wait_untimed(mortar_loop *loop, ext_link *holder)
{
    if (holder) {
        int rc = mortar_link_wait(holder->link, WAIT_SLICE_MS);
        if (rc == MORTAR_ETIMEDOUT)
            return MORTAR_OK; /* keep going; stalls are the orchestrator's call */
        if (rc != 0)
            return loop_set_error(loop, rc, "%s", mortar_link_errmsg(holder->link));
        return MORTAR_OK;
    }
    for (uint32_t i = 0; i < loop->nexts; i++) {
        ext_link *x = &loop->exts[i];
        if (mortar_link_peer_terminated(x->link))
            continue;
        int rc = mortar_link_wait(x->link, 1);
        if (rc == 0 && mortar_link_has_input(x->link))
            return MORTAR_OK;
        if (rc != 0 && rc != MORTAR_ETIMEDOUT)
            return loop_set_error(loop, rc, "%s", mortar_link_errmsg(x->link));
    }
    return MORTAR_OK;
}

/* Charges the wall time of the wait that ended last, if not done yet, to
 * its holder (the profile). */
static void charge_wait(mortar_loop *loop)
{
    if (!loop->wait_open)
        return;
    loop->wait_open = false;
    uint64_t waited = wall_ticks() - loop->wait_start_ticks;
    if (loop->wait_holder >= 0) {
        loop->exts[loop->wait_holder].wait_ticks += waited;
        loop->exts[loop->wait_holder].waits++;
    } else {
        loop->wait_any_ticks += waited;
        loop->waits_any++;
    }
}

/* The same, timed for the profile; charge_wait ends the timing later.
 * No polling of our own first: the link's wait polls a while before it
 * yields or sleeps, with pauses, which matters: polls back to back keep
 * pulling the slot's line back from the producer writing it (bench-link's
 * sync_idle: 1.35-1.6 times as fast without 256 such polls here, together
 * with the late clock read above). */
static int wait_for_input(mortar_loop *loop, int held_by)
{
    ext_link *holder = held_by < 0 ? NULL : &loop->exts[held_by];
    if (loop->profile_off)
        return wait_untimed(loop, holder);
    loop->wait_open = true; /* the step charged the last one after its sends */
    loop->wait_holder = held_by;
    loop->wait_start_ticks = wall_ticks();
    return wait_untimed(loop, holder);
}

static void start_components(mortar_loop *loop)
{
    for (uint32_t i = 0; i < loop->ncomps; i++) {
        mortar_component *c = loop->comps[i];
        if (c->ops->start)
            c->ops->start(c->state);
    }
}

static int check_bound(mortar_loop *loop)
{
    for (uint32_t i = 0; i < loop->ncomps; i++) {
        mortar_component *c = loop->comps[i];
        for (unsigned p = 0; p < c->nports; p++)
            if (c->ports[p].declared && c->ports[p].binding == PORT_UNBOUND)
                return loop_set_error(loop, MORTAR_EINVAL,
                                      "component '%s': port %u is not connected to a link",
                                      c->name, p);
    }
    return MORTAR_OK;
}

static void terminate_links(mortar_loop *loop)
{
    for (uint32_t i = 0; i < loop->nexts; i++)
        mortar_link_terminate(loop->exts[i].link, 1000);
}

int mortar_loop_set_start(mortar_loop *loop, uint64_t start_ps)
{
    if (loop->started)
        return loop_set_error(loop, MORTAR_ESTATE, "the start time is set before the run");
    set_now(loop, start_ps);
    return MORTAR_OK;
}

int mortar_loop_start(mortar_loop *loop)
{
    if (loop->started)
        return MORTAR_OK;
    int rc = check_bound(loop);
    if (rc != 0)
        return rc;
    if ((rc = loop_promise_setup(loop)) != 0)
        return rc;
    loop->started = true;
    if (!loop->profile_off) {
        loop->wall_start_ns = loop_wall_ns();
        loop->wall_start_ticks = wall_ticks();
    }
    sync_rule_start(loop->sync, loop->nexts, loop->now);
    start_components(loop);
    return MORTAR_OK;
}

int mortar_loop_step(mortar_loop *loop, uint64_t until_ps)
{
    int rc = mortar_loop_start(loop);
    while (rc == 0 && !loop->stop && !loop->fatal) {
        if ((rc = loop_poll_inputs(loop)) != 0)
            break;
        int held_by;
        uint64_t safe = sync_rule_safe_time(loop->sync, loop->nexts, &held_by);
        uint64_t next = loop->heap.count ? loop->heap.items[0].time : MORTAR_TIME_MAX;
        if (next < safe && next < until_ps) {
            charge_wait(loop);
            event ev;
            heap_pop(&loop->heap, &ev);
            dispatch(loop, &ev);
            if (loop->now >= loop->next_sync_due && (rc = send_due_syncs(loop)) != 0)
                break;
            return 1;
        }
        uint64_t target = safe < next ? safe : next;
        if (until_ps < target)
            target = until_ps;
        if (target > loop->now && target != MORTAR_TIME_MAX)
            set_now(loop, target);
        /* next_sync_due only errs low: a link's next sync only moves later */
        if (loop->now >= loop->next_sync_due && (rc = send_due_syncs(loop)) != 0)
            break;
        charge_wait(loop);
        if (loop->now >= until_ps || all_peers_terminated(loop) || quiescent(loop, safe))
            return 0;
        if (loop->heap.count == 0 && loop->nexts == 0)
            return 0; /* nothing left to do */
        if (next < safe)
            continue;
        rc = wait_for_input(loop, held_by);
    }
    charge_wait(loop);
    if (loop->fatal && rc == 0)
        rc = loop->fatal;
    return rc;
}

/* A loop without external links has no ring to poll and no safe time to
 * wait for: its events run back to back, in the heap's order, as step
 * would run them one by one (step then ends the run as usual). */
static void run_inproc_events(mortar_loop *loop, uint64_t until_ps)
{
    while (loop->heap.count && loop->heap.items[0].time < until_ps && !loop->stop &&
           !loop->fatal) {
        event ev;
        heap_pop(&loop->heap, &ev);
        dispatch(loop, &ev);
    }
}

int mortar_loop_run(mortar_loop *loop, uint64_t until_ps)
{
    int rc;
    while ((rc = mortar_loop_step(loop, until_ps)) == 1)
        if (loop->nexts == 0)
            run_inproc_events(loop, until_ps);
    if (!loop->profile_off && loop->started) {
        loop->wall_end_ns = loop_wall_ns();
        loop->wall_end_ticks = wall_ticks();
    }
    terminate_links(loop);
    return rc;
}

void mortar_loop_set_promises(mortar_loop *loop, bool on)
{
    loop->promises_off = !on;
}

void mortar_loop_set_bound_jitter(mortar_loop *loop, bool on)
{
    loop->bound_jitter = on;
    loop->jitter_state = 0x9e3779b97f4a7c15ull;
}

bool mortar_loop_stopped(const mortar_loop *loop)
{
    return loop->stop;
}

void *mortar_component_state(mortar_component *c)
{
    return c->state;
}

uint64_t mortar_loop_now(const mortar_loop *loop)
{
    return loop->now;
}

uint64_t mortar_loop_now_shared(const mortar_loop *loop)
{
    return __atomic_load_n(&loop->now, __ATOMIC_RELAXED);
}

uint64_t mortar_loop_events(const mortar_loop *loop)
{
    return loop->events;
}

const char *mortar_loop_errmsg(const mortar_loop *loop)
{
    return loop->err[0] ? loop->err : "no error";
}
