/*
 * mortar_hub.c - the host's clock keeper: services every mortar link of this
 * QEMU process under the conservative rule (see mortar_hub.h).
 *
 * Messages from all links are handled in (stamp, link index) order. A link
 * whose next message has not arrived holds time at its horizon; the hub
 * waits on it (sending its own due null messages first, so the peer can move
 * too). An MMIO read stalls the vCPU: the hub runs the same service with a
 * moving clock until the completion is handled, then moves the virtual clock
 * to the completion's stamp. The rule's arithmetic (earliest input, due null
 * messages, promises) is lib/sync_rule.c, shared with mortar-sim's event
 * loop; what is the host's own is here: its next virtual timer as its
 * promise while idle, and how far the vCPU may run (next_deadline_ns).
 */
#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/timer.h"
#include "qemu/main-loop.h"
#include "sysemu/cpu-timers.h"
#include "hw/core/cpu.h"
#include "sysemu/cpus.h"
#include "sysemu/runstate.h"
#include "migration/misc.h"
#include "migration/vmstate.h"
#include "qapi/error.h"
#include "qapi/qapi-commands-migration.h"

#include "mortar_hub.h"
#include "mortar_hub_digest.h"
#include "mortar_hub_history.h"
#include "mortar_hub_profile.h"
#include "mortar_hub_spin.h"
#include "mortar_hub_trace.h"
#include "mortar_park.h"
#include "mortar_snapshot_digest.h"
#include "mortar/error.h"
#include "mortar/pcie.h"
#include "mortar/progress.h"
#include "lib/sync_rule.h"

#define MAX_ENDPOINTS 16
#define WAIT_SLICE_MS 100
#define IDLE_BATCH_NS 1000000 /* wall time per idle fast-forward batch */

typedef void (*sync_start_fn)(void *opaque);

typedef struct mortar_hub_state {
    mortar_endpoint *eps[MAX_ENDPOINTS];
    /* the same links under the rule, by index (sync_rule.h) */
    sync_link sync[MAX_ENDPOINTS];
    int n;
    uint64_t start_ps;
    bool synced;
    bool ended; /* the guest asked to shut down: the links are terminated */
    bool guest_ready;
    bool handling;  /* inside run_until: handlers send at `clock` */
    bool no_promises; /* MORTAR_PROMISES=0: plain null messages only */
    /* MORTAR_STOP_JITTER=<ns>: extra vCPU stops, up to that far apart */
    uint64_t stop_jitter_ns;
    uint64_t jitter_state;
    /* MORTAR_BOUND_JITTER=1: use less than the links allow, at random */
    bool bound_jitter;
    /* the link of the MMIO read the vCPU is stalled in (mortar_hub_mmio_read) */
    mortar_endpoint *stalled;
    /* an MMIO read whose completion is known (from a hold, or handled): the
     * vCPU resumes no earlier (0: none) */
    uint64_t held_resume_ps;
    uint64_t clock;
    const char *rendezvous; /* directory shared by the run's hosts, or NULL */
    unsigned hosts;         /* how many hosts meet there */
    const char *host;       /* this host's name in it */
    bool hooked;            /* the horizon handler is registered */
    int64_t horizon_ns;     /* the vCPU's horizon as last armed */
    /* how far the links' bounds last let the vCPU (its horizon) or the
     * clock (an idle jump) go, in ns: a message stamped before it breaks
     * the bound it was let go on (check_bound_held) */
    uint64_t committed_ns;
    const char *snapshot;   /* write a snapshot there at the snapshot point */
    bool snapshot_taken;
    bool run_over; /* a kept QEMU's guest ended its run (mortar_park.h) */
    uint64_t first_start_ps; /* start_ps as the devices set it, for the next run */
    int64_t start_insns; /* icount's raw count when synchronization started */
    mortar_hub_stats stats;
    mortar_digest digest; /* the run's fingerprint (mortar_hub_digest.h) */
} mortar_hub_state;

static mortar_hub_state hub;
static const VMStateDescription vmstate_mortar_hub;
/* the hub's last steps in time, for the log of a fault (mortar_hub_history.h) */
static mortar_history history;
static void poke_main_loop(void *opaque);

/* While the hub handles messages (in particular while the vCPU is stalled on
 * an MMIO read and the hub's clock runs ahead of the frozen virtual clock),
 * "now" for anything a handler sends is the hub's clock: never earlier than
 * the null messages already sent. */
uint64_t mortar_hub_now_ps(void)
{
    uint64_t v = (uint64_t)qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) * 1000u;
    return hub.handling && hub.clock > v ? hub.clock : v;
}

bool mortar_hub_synchronized(void)
{
    return hub.synced;
}

void mortar_hub_get_stats(mortar_hub_stats *out)
{
    *out = hub.stats;
}

static void G_NORETURN die(mortar_endpoint *ep)
{
    error_report("mortar: device '%s': %s", ep->name, mortar_link_errmsg(ep->link));
    exit(1);
}

/*
 * The ring of `full` is full: its peer must drain it, and may be waiting
 * for our horizon on another link to move before it handles what is
 * queued (mortar-sim waits on the link that holds its safe time back). A
 * guest that posts writes faster than the peer takes them never makes that
 * null message due: send it now on every other link that has not heard
 * `now` yet.
 */
static void sync_others_at(const mortar_endpoint *full, uint64_t now)
{
    for (int i = 0; i < hub.n; i++) {
        mortar_link *l = hub.eps[i]->link;
        if (i == full->hub_index || !hub.sync[i].synchronized ||
            mortar_link_sync_due(l) - mortar_link_sync_interval(l) >= now) {
            continue;
        }
        mortar_link_send_sync(l, now);
    }
}

/* The wire time of the DMA data just sent on `ep`, as the runtime records
 * it (lib/component.c): at the arrival of its first byte. */
static void trace_wire(mortar_endpoint *ep, uint8_t type)
{
    uint64_t start, wire;
    mortar_link_last_wire(ep->link, &start, &wire);
    if (wire && mortar_link_pcie(ep->link)->gen && mortar_pcie_moves_dma_data(type)) {
        mortar_trace_device(ep->name, MORTAR_EV_PCIE_WIRE,
                            start + mortar_link_latency(ep->link), 0, wire, type);
    }
}

void mortar_hub_send(mortar_endpoint *ep, uint8_t type, const void *payload, uint32_t size)
{
    if (hub.ended) {
        return; /* shutting down: the models heard the end; the vCPU is about to stop */
    }
    uint64_t now = mortar_hub_now_ps();
    if (!hub.handling) {
        mortar_spin_forget(); /* the guest acts: it is not waiting */
    }
    mortar_hold_drop(&ep->hold); /* the device may change now */
    for (unsigned tries = 0;; tries++) {
        uint64_t stamp = 0;
        int rc = mortar_link_send(ep->link, now, type, payload, size, 0, &stamp);
        if (rc == 0) {
            const mortar_link_hot *k = (const mortar_link_hot *)(const void *)ep->link;
            mortar_history_note(&history, MORTAR_STEP_SEND, ep->hub_index, type, now, stamp,
                                k->counters.msgs_sent, 0);
            mortar_digest_fold(&hub.digest, ep->hub_index, true, now, type, payload, size);
            if (mortar_trace_on()) {
                trace_wire(ep, type);
            }
            return;
        }
        if (rc != MORTAR_EAGAIN) {
            die(ep);
        }
        if (mortar_link_check_peer(ep->link) != 0) {
            die(ep);
        }
        if (hub.synced && tries == 0) {
            sync_others_at(ep, now);
        }
        /* ring full: the device drains it; a yield hands a shared core to
         * it at once, a sleep keeps a stopped device from costing a core */
        if (tries < 100) {
            sched_yield();
        } else {
            g_usleep(100);
        }
    }
}

/* ---- handling messages in order -------------------------------------------- */

/* The hub's pseudo-random sequence, the same in every run (xorshift64). */
static uint64_t jitter_next(void)
{
    uint64_t x = hub.jitter_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    hub.jitter_state = x;
    return x;
}

/*
 * MORTAR_BOUND_JITTER=1 makes the hub use less than the links allow, at
 * pseudo-random points: the vCPU stops short of a link's bound, an idle
 * host or a skipped wait goes less far, a block is not run whole, a read
 * waiting on a ring is not served in a wait, a device's hold is not taken.
 * Each is what the hub does anyway when a peer's promise or message comes
 * late in wall time, so results must not change: a check that they do not
 * depend on when the peers' messages come (test_case_study.sh).
 * True about every other call, with it on.
 */
static bool jitter_holds_back(void)
{
    return hub.bound_jitter && hub.synced && (jitter_next() >> 32) % 2 == 0;
}

/* `v`, or with bound jitter on now and then a time from `lo` to `v`. */
static uint64_t jitter_below(uint64_t lo, uint64_t v)
{
    if (v <= lo || v == UINT64_MAX || !jitter_holds_back()) {
        return v;
    }
    return lo + jitter_next() % (v - lo + 1);
}

static void dispatch(mortar_endpoint *ep, const mortar_msg *m)
{
    hub.stats.messages++;
    if (m->type != MORTAR_PCIE_DMA_READ) {
        /* a DMA write or an interrupt may end a wait; a DMA read of RAM
         * changes nothing the guest can see (serve_dma_read in
         * mortar_pci.c forgets the loop when it reads anything else) */
        mortar_spin_forget();
    }
    if (m->type == MORTAR_PCIE_MMIO_READ_DONE && m->size >= sizeof(mortar_pcie_mmio_done)) {
        const mortar_pcie_mmio_done *d = m->payload;
        if (d->req_id == ep->wait_req && !ep->wait_done) {
            ep->wait_size = MIN(d->size, (uint32_t)sizeof ep->wait_data);
            ep->wait_size = MIN(ep->wait_size, m->size - (uint32_t)sizeof *d);
            memcpy(ep->wait_data, d->data, ep->wait_size);
            ep->wait_stamp_ps = m->timestamp_ps;
            ep->wait_done = true;
            mortar_hold_take(&ep->hold, ep->link, m, ep->read_sent,
                             hub.synced && mortar_skip_enabled() && !jitter_holds_back());
            return;
        }
    }
    mortar_hold_drop(&ep->hold);
    ep->handle(ep->opaque, m);
}

static uint64_t ceil_ns(uint64_t ps)
{
    return ps / 1000 + (ps % 1000 != 0);
}

/* A link's bound as the hub read it to let the vCPU or the clock run on:
 * what it let (`let_ps`), and what that rested on. */
static void note_bound(int i, uint64_t now_ps, uint64_t let_ps, bool message_waits)
{
    const mortar_link *l = hub.eps[i]->link;
    const mortar_link_hot *k = (const mortar_link_hot *)(const void *)l;
    mortar_history_note(&history, MORTAR_STEP_BOUND, (unsigned)i, message_waits, now_ps,
                        let_ps, mortar_link_in_bound(l), k->first_unseen_stamp_ps);
}

/* QEMU's log: the hub's last steps, after the first fault of a run. */
static void warn_history(void)
{
    const char *names[MAX_ENDPOINTS];
    for (int i = 0; i < hub.n; i++) {
        names[i] = hub.eps[i]->name;
    }
    warn_report("mortar: the hub's last %u steps (ps), oldest first:",
                (unsigned)MIN(history.count, (uint64_t)MORTAR_HISTORY_LEN));
    mortar_history_write(&history, stderr, "mortar:   ", names, (unsigned)hub.n);
}

/* A message stamped before the time the links' bounds had let the vCPU
 * run to (its horizon) or the clock jump to (an idle host) was not on the
 * rings then: the vCPU stops for it in time only if something else stops
 * it first (an MMIO read). Counted, late or not; QEMU's log names the
 * first, with what its link's bound rested on. */
static void check_bound_held(const mortar_endpoint *ep, const mortar_msg *m)
{
    if (!hub.synced || ceil_ns(m->timestamp_ps) >= hub.committed_ns) {
        return;
    }
    if (hub.stats.bound_breaks++ == 0) {
        warn_report("mortar: link '%s': a message (type 0x%x) stamped %" PRIu64
                    " ps came before the %" PRIu64 " ns the links had let the host go to",
                    ep->name, m->type, m->timestamp_ps, hub.committed_ns);
        warn_history();
    }
}

/* A message is handled at the whole ns the vCPU stops at for it, or
 * earlier (an MMIO read's stall); later means the vCPU ran past it, and the
 * guest may have seen a state it should not have (docs/hosts.md, "Time").
 * Counted; QEMU's log names the first of a run. */
static void check_in_time(const mortar_endpoint *ep, const mortar_msg *m, uint64_t clock)
{
    if (!hub.synced || clock <= ceil_ns(m->timestamp_ps) * 1000) {
        return;
    }
    if (hub.stats.late_messages++ == 0) {
        warn_report("mortar: link '%s': a message (type 0x%x) stamped %" PRIu64
                    " ps was handled at %" PRIu64 " ps, after the vCPU had passed it"
                    " (horizon %" PRId64 " ns, the links had let the host go to %" PRIu64
                    " ns, %s)",
                    ep->name, m->type, m->timestamp_ps, clock, hub.horizon_ns,
                    hub.committed_ns,
                    hub.stalled || hub.held_resume_ps ? "in an MMIO read"
                                                      : "at a stop or an idle jump");
        warn_history();
    }
}

/* At a stop: the vCPU stands past its horizon by a whole instruction or
 * more, so it ran instructions the links had not let it run; a message
 * due there would be late. Counted; QEMU's log names the first. */
static void check_horizon_held(uint64_t now_ps)
{
    uint64_t insn_ns = MAX((uint64_t)icount_to_ns(1), 1);
    if (hub.horizon_ns == INT64_MAX || now_ps / 1000 < (uint64_t)hub.horizon_ns + insn_ns) {
        return;
    }
    if (hub.stats.horizon_overruns++ == 0) {
        warn_report("mortar: the vCPU stopped at %" PRIu64 " ps, past its horizon at %" PRId64
                    " ns",
                    now_ps, hub.horizon_ns);
        warn_history();
    }
}

/* Handles link ep's next message `m` with the hub's clock at `clock` (what
 * its handler sends is stamped then), and takes it off the ring. */
static void handle_at(mortar_endpoint *ep, const mortar_msg *m, uint64_t clock)
{
    mortar_history_note(&history, MORTAR_STEP_HANDLE, ep->hub_index, m->type, clock,
                        m->timestamp_ps, 0, 0);
    check_in_time(ep, m, clock);
    check_bound_held(ep, m);
    mortar_digest_fold(&hub.digest, ep->hub_index, false, m->timestamp_ps, m->type, m->payload,
                       m->size);
    hub.handling = true;
    hub.clock = clock;
    dispatch(ep, m);
    hub.handling = false;
    mortar_link_pop(ep->link);
}

/* The earliest thing each link can still bring: its next message, or
 * without one its input bound (the horizon, or the peer's lookahead
 * promise: mortar/link.h); the smallest (time, index) (sync_rule.c). */
static mortar_endpoint *earliest(sync_input *in)
{
    if (sync_rule_earliest(hub.sync, (unsigned)hub.n, in) != 0) {
        die(hub.eps[in->index]);
    }
    return in->index < 0 ? NULL : hub.eps[in->index];
}

/*
 * While every vCPU is halted, this host does nothing before its next virtual
 * timer or the next message of a link: it can promise that much on each
 * link (sync_rule_next_send; mortar/link.h, mortar_link_send_promise). A
 * running vCPU may touch a device at any moment: no promise then, unless it
 * waits in a pure wait loop (mortar_hub_spin.h), which ends no earlier than
 * a message, a timer or the loop's own deadline, or it is stalled in an
 * MMIO read whose completion has not come: it resumes at the completion, a
 * message, and the virtual clock (its timers with it) stands still until
 * then; what the host sends meanwhile answers messages it handles. Once the
 * completion is handled it is consumed, and no promise may lean on it. A
 * read answered from a hold (mortar_hub_hold.h) stalls the vCPU the same
 * way, up to a completion the host knows: nothing before it either.
 */
static uint64_t idle_own_next(void *ctx, unsigned j)
{
    int64_t timer = qemu_clock_deadline_ns_all(QEMU_CLOCK_VIRTUAL, QEMU_TIMER_ATTR_ALL);
    uint64_t next = mortar_spin_deadline_ns();
    if (timer >= 0) {
        next = MIN(next, (uint64_t)qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + (uint64_t)timer);
    }
    uint64_t own = next == UINT64_MAX ? MORTAR_TIME_MAX : next * 1000;
    return hub.held_resume_ps ? MIN(own, hub.held_resume_ps) : own;
}

/* The vCPU waits in an MMIO read whose completion has not been handled. */
static bool stalled_unanswered(void)
{
    return hub.stalled && !hub.stalled->wait_done;
}

/* Nothing the peers could see happens before a timer or a message (or the
 * held read's completion, idle_own_next). */
static bool host_waits(void)
{
    return stalled_unanswered() || hub.held_resume_ps || all_cpu_threads_idle() ||
           mortar_spin_waiting();
}

/* Messages wait on the rings until handled: a link brings its waiting
 * message's stamp. */
static const sync_promiser idle_promiser = {.own_next = idle_own_next, .peek = true};

/* Sends the due null messages (sync_rule.c); one the full ring refuses
 * stays due and is tried again at every service and wait. A ring that
 * stays full may mean a dead peer. */
static void send_due_syncs(uint64_t now)
{
    bool idle = !hub.no_promises && host_waits();
    sync_due due;
    if (sync_rule_send_due(hub.sync, (unsigned)hub.n, now, idle ? &idle_promiser : NULL,
                           &due) != 0) {
        die(hub.eps[due.failed]);
    }
    if (idle && stalled_unanswered()) {
        hub.stats.stall_promises += due.sent;
    }
}

static void wait_on(mortar_endpoint *ep)
{
    hub.stats.waits++;
    int64_t since = mortar_hub_profile_clock();
    int rc = mortar_link_wait(ep->link, WAIT_SLICE_MS);
    mortar_hub_profile_wait(ep->hub_index, since);
    if (rc != 0 && rc != MORTAR_ETIMEDOUT) {
        die(ep);
    }
    if (rc == 0 || mortar_link_has_input(ep->link)) {
        return;
    }
    if (mortar_link_check_peer(ep->link) != 0) {
        die(ep);
    }
}

/*
 * Handles every message stamped <= *limit, in (stamp, index) order, and
 * returns once every link promises nothing more up to *limit. `clock` is
 * the host's time for null messages; it moves with what is handled. When
 * `stall` is set, handling its MMIO completion sets *limit to its stamp.
 */
static void run_until(uint64_t *clock, uint64_t *limit, mortar_endpoint *stall)
{
    for (;;) {
        sync_input in;
        mortar_endpoint *ep = earliest(&in);
        if (!ep || in.time > *limit) {
            return;
        }
        if (in.time > *clock) {
            *clock = in.time;
        }
        if (in.is_msg) {
            handle_at(ep, &in.msg, *clock);
            if (stall && stall->wait_done && *limit == MORTAR_TIME_MAX) {
                *limit = stall->wait_stamp_ps;
            }
            continue;
        }
        send_due_syncs(*clock);
        wait_on(ep);
    }
}

/* Before synchronization starts: handle whatever is there, at once. */
static void drain_unsynchronized(void)
{
    for (int i = 0; i < hub.n; i++) {
        mortar_msg m;
        int r;
        while ((r = mortar_link_peek(hub.eps[i]->link, &m)) == 1) {
            dispatch(hub.eps[i], &m);
            mortar_link_pop(hub.eps[i]->link);
        }
        if (r < 0) {
            die(hub.eps[i]);
        }
    }
}

/* ---- the horizon ------------------------------------------------------------ */

/*
 * How far the vCPU may run on link l's account. A promise of the peer's
 * holds only for what it has consumed: if the vCPU sends now, the reaction
 * may come back two latencies later. So at most now + 2 x latency beyond
 * the plain horizon, and the vCPU never needs stopping after a send.
 */
static uint64_t vcpu_bound_ps(mortar_link *l, uint64_t now_ps)
{
    uint64_t bound = mortar_link_in_bound(l), horizon = mortar_link_in_horizon(l);
    if (mortar_spin_waiting()) {
        return MAX(horizon, bound); /* it sends nothing before the next stop */
    }
    uint64_t reach = now_ps + 2 * mortar_link_latency(l);
    return MAX(horizon, MIN(bound, reach));
}

/* Next time (ns) the hub must look: a message to handle, or a horizon the
 * guest may not pass. A null message falling due is none: the vCPU stops
 * at the latest two latencies on (vcpu_bound_ps), and every stop and every
 * wait sends the due ones (stopping a running guest each sync interval for
 * them made a case-study run with a 0.5 us link cost 20 % more, for the same results:
 * icount-stop-exact.patch). Before synchronization: its start, or in a
 * functional run (no start) a look every 100 us. */
static uint64_t next_deadline_ns(uint64_t now_ps)
{
    uint64_t now_ns = now_ps / 1000, next = UINT64_MAX;
    if (!hub.synced) {
        if (hub.start_ps == MORTAR_START_AT_READY) {
            return now_ns + 1000000; /* booting: nothing should come; look each 1 ms */
        }
        if (hub.start_ps != UINT64_MAX) {
            return MAX(hub.start_ps / 1000, now_ns + 1);
        }
        return now_ns + 100000;
    }
    for (int i = 0; i < hub.n; i++) {
        mortar_link *l = hub.eps[i]->link;
        mortar_msg m;
        uint64_t cand;
        if (mortar_link_peek(l, &m) == 1) {
            cand = ceil_ns(m.timestamp_ps);
            note_bound(i, now_ps, cand * 1000, true);
        } else {
            uint64_t bound = vcpu_bound_ps(l, now_ps);
            note_bound(i, now_ps, bound, false);
            cand = jitter_below(now_ns + 1, bound / 1000); /* strict: wait there */
        }
        next = MIN(next, MAX(cand, now_ns + 1));
    }
    return MIN(next, MAX(mortar_spin_next_stop_ns(), now_ns + 1));
}

/*
 * MORTAR_STOP_JITTER=<ns> stops the vCPU at pseudo-random times as well, at
 * most that far apart: a check that results do not depend on where the
 * vCPU stops (the stops of a kept QEMU depend on the blocks its earlier
 * runs translated). The sequence is the same in every run.
 */
static uint64_t jitter_stop_ns(uint64_t now_ps)
{
    if (!hub.stop_jitter_ns || !hub.synced) {
        return UINT64_MAX;
    }
    return now_ps / 1000 + 1 + jitter_next() % hub.stop_jitter_ns;
}

/* The vCPU runs until the next deadline and no further; there the vCPU
 * thread calls hub_at_horizon() (icount-stall.patch). */
static void arm(uint64_t now_ps)
{
    int64_t next = (int64_t)MIN(MIN(next_deadline_ns(now_ps), jitter_stop_ns(now_ps)),
                                (uint64_t)INT64_MAX - 1);
    hub.horizon_ns = next;
    hub.committed_ns = (uint64_t)next;
    icount_set_horizon_ns(next);
    mortar_history_note(&history, MORTAR_STEP_ARM, 0, 0, now_ps, (uint64_t)next,
                        hub.committed_ns, 0);
}

/* Lets the guest run freely: the links are gone. */
static void disarm(void)
{
    hub.horizon_ns = INT64_MAX;
    icount_set_horizon_ns(INT64_MAX);
}

static void start_synchronization(uint64_t now)
{
    hub.synced = true;
    hub.start_insns = icount_get_raw();
    mortar_digest_start(&hub.digest, (unsigned)hub.n, now);
    mortar_hub_profile_start();
    sync_rule_start(hub.sync, (unsigned)hub.n, now);
    poke_main_loop(NULL);
    for (int i = 0; i < hub.n; i++) {
        if (hub.eps[i]->on_sync_start) {
            hub.eps[i]->on_sync_start(hub.eps[i]->opaque);
        }
    }
}

/* Handles everything due at `now` and sends the due null messages. */
static void service(uint64_t now)
{
    uint64_t clock = now, limit = now;
    hub.stats.services++;
    run_until(&clock, &limit, NULL);
    send_due_syncs(now);
}

/*
 * How far an idle host may move its clock at once: to its next virtual
 * timer, the next message of a link, or the smallest input bound, and at
 * most IDLE_JUMP_NS (so that its clock and progress keep moving). An idle
 * vCPU sends nothing before its timer or a message wakes it, so no
 * reaction can come back earlier: the two-latency cap of vcpu_bound_ps is
 * for a running one.
 */
#define IDLE_JUMP_NS 1000000
#define IDLE_WAIT_SLICE_MS 10 /* then QEMU's main loop gets the lock */

/* The next virtual timer, or IDLE_JUMP_NS ahead. */
static uint64_t idle_wake_ns(uint64_t now_ns, int64_t timer_ns)
{
    uint64_t wake = now_ns + IDLE_JUMP_NS;
    return timer_ns >= 0 ? MIN(wake, now_ns + (uint64_t)timer_ns) : wake;
}

/* Link i's next message into *m: 1, or 0 for none; a broken link ends QEMU. */
static int peek_or_die(int i, mortar_msg *m)
{
    int r = mortar_link_peek(hub.eps[i]->link, m);
    if (r < 0) {
        die(hub.eps[i]);
    }
    return r;
}

/* How far the links let an idle host go from now_ns: the next message of
 * a link, or its input bound; the smallest. */
static uint64_t idle_links_reach_ns(uint64_t now_ns)
{
    uint64_t reach = UINT64_MAX;
    for (int i = 0; i < hub.n; i++) {
        mortar_msg m;
        if (peek_or_die(i, &m) == 1) {
            reach = MIN(reach, ceil_ns(m.timestamp_ps));
            note_bound(i, now_ns * 1000, ceil_ns(m.timestamp_ps) * 1000, true);
            continue;
        }
        uint64_t bound = mortar_link_in_bound(hub.eps[i]->link);
        note_bound(i, now_ns * 1000, bound, false);
        reach = MIN(reach, jitter_below(now_ns + 1, bound / 1000));
    }
    return reach;
}

/*
 * An idle host with one link, held short of its timer by that link's bound,
 * has nothing to do until the timer or the peer's next data message: it
 * renews its promise (nothing before its timer; mortar/link.h) and sleeps
 * through the peer's null messages until the bound reaches the timer
 * (mortar_link_wait_bound), instead of following each of them. With more
 * links its promise on one depends on what the others bring, so it keeps
 * sending: false, the step-by-step path.
 */
static bool idle_wait(uint64_t now_ns, int64_t timer_ns)
{
    if (hub.n != 1 || !hub.sync[0].synchronized || hub.no_promises ||
        jitter_holds_back()) {
        return false;
    }
    mortar_endpoint *ep = hub.eps[0];
    mortar_msg m;
    if (mortar_link_peek(ep->link, &m) != 0) {
        return false; /* a message to handle first (or an error to report) */
    }
    uint64_t wake_ns = idle_wake_ns(now_ns, timer_ns);
    if (mortar_link_send_promise(ep->link, now_ns * 1000, idle_own_next(NULL, 0)) != 0) {
        return false; /* ring full: the usual path retries */
    }
    hub.stats.waits++;
    int64_t since = mortar_hub_profile_clock();
    int rc = mortar_link_wait_bound(ep->link, wake_ns * 1000, IDLE_WAIT_SLICE_MS);
    mortar_hub_profile_wait(ep->hub_index, since);
    if (rc != 0 && (rc != MORTAR_ETIMEDOUT || mortar_link_check_peer(ep->link) != 0)) {
        die(ep);
    }
    return true;
}

/* Moves an idle host's clock from now_ns to next_ns and services the
 * links there. */
static void idle_jump(uint64_t now_ns, uint64_t next_ns)
{
    icount_add_stall_ns((int64_t)(next_ns - now_ns));
    hub.committed_ns = MAX(hub.committed_ns, next_ns);
    mortar_history_note(&history, MORTAR_STEP_IDLE_JUMP, 0, 0, now_ns * 1000, next_ns * 1000,
                        0, 0);
    hub.stats.idle_skips++;
    service(next_ns * 1000);
}

/*
 * While the guest is idle, moving time from one link deadline to the next
 * needs no trip through QEMU's main loop: warp the virtual clock ourselves,
 * as QEMU's idle warp would, until another timer is due or a device message
 * wakes the CPU.
 */
static void idle_fast_forward(void)
{
    /* Give the lock back now and then: QEMU's main loop (shutdown, console)
     * needs it too. */
    int64_t until = get_clock() + IDLE_BATCH_NS;
    while (all_cpu_threads_idle() && get_clock() < until) {
        uint64_t now_ns = (uint64_t)qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
        int64_t timer = qemu_clock_deadline_ns_all(QEMU_CLOCK_VIRTUAL, QEMU_TIMER_ATTR_ALL);
        uint64_t reach = idle_links_reach_ns(now_ns);
        if (timer >= 0 && reach >= now_ns + (uint64_t)timer) {
            /* a timer of the guest's devices comes first */
            if (timer > 0 && reach > now_ns + (uint64_t)timer) {
                idle_jump(now_ns, now_ns + (uint64_t)timer);
            }
            return;
        }
        uint64_t wake = idle_wake_ns(now_ns, timer), next = MIN(reach, wake);
        if (next < wake && idle_wait(now_ns, timer)) {
            continue;
        }
        if (next <= now_ns) {
            next = next_deadline_ns(now_ns * 1000);
            if (timer >= 0 && next >= now_ns + (uint64_t)timer) {
                return;
            }
        }
        idle_jump(now_ns, next);
    }
}

/* Terminates every link once: nothing more comes from this host. */
static void end_links(void)
{
    if (hub.ended) {
        return;
    }
    hub.ended = true;
    mortar_hub_profile_end();
    for (int i = 0; i < hub.n; i++) {
        mortar_link_terminate(hub.eps[i]->link, 1000);
    }
}

/* MORTAR_PROGRESS=<file>: the host's virtual time, about once a second of
 * wall time, for the orchestrator's stall watch (mortar/progress.h). */
static struct {
    const char *path;
    int64_t next_ns;
    bool looked;
} progress;

static void report_progress(uint64_t now_ps)
{
    if (!progress.looked) {
        progress.looked = true;
        progress.path = getenv("MORTAR_PROGRESS");
    }
    int64_t wall = get_clock_realtime();
    if (!progress.path || wall < progress.next_ns) {
        return;
    }
    progress.next_ns = wall + NANOSECONDS_PER_SECOND;
    mortar_progress_write(progress.path, now_ps);
}

/*
 * The vCPU stands at a landing point of a verified wait that only a
 * message can end before `until` (ps; mortar_spin_landed_until_ns). Its
 * loop stores nothing, so until a message of another kind the guest's
 * memory stays as it is: answer the devices' reads of it stamped before
 * `until` that are on the rings here, each at the whole ns where the vCPU
 * would have stopped for it and answered it, without running the vCPU
 * through the wait to each of them. Stops at the first message of another kind (left for
 * its stop), a read that is not of RAM (serve_dma_read ends the wait),
 * `until`, or an empty ring: it waits for nothing (the peers may need the
 * null messages that only the clock's moving on makes due). The spin
 * skipper then moves the clock up to what comes next.
 */
static void serve_reads_in_wait(uint64_t now, uint64_t until)
{
    uint64_t clock = now;
    while (mortar_spin_waiting() && !jitter_holds_back()) {
        sync_input in;
        mortar_endpoint *ep = earliest(&in);
        if (!ep || !in.is_msg || in.msg.type != MORTAR_PCIE_DMA_READ) {
            return;
        }
        /* its stop would be at the next whole ns (next_deadline_ns) */
        uint64_t at = ceil_ns(in.time) * 1000;
        if (at >= until) {
            return;
        }
        clock = MAX(clock, at);
        handle_at(ep, &in.msg, clock);
        hub.stats.reads_in_wait++;
    }
}

/* A stop of a running vCPU: the spin skipper may find a pure wait here, or
 * skip one it follows up to what the links let come (mortar_hub_spin.h). */
static void spin_stop(uint64_t now_ns)
{
    mortar_spin_at_stop(now_ns, idle_links_reach_ns(now_ns));
    uint64_t after = mortar_hub_now_ps();
    if (after != now_ns * 1000) {
        mortar_history_note(&history, MORTAR_STEP_SKIP, 0, 0, now_ns * 1000, after, 0, 0);
    }
}

/* The virtual clock stands at the horizon: service the links and move the
 * horizon on. */
static void service_at_horizon(void)
{
    uint64_t now = mortar_hub_now_ps();
    if (!runstate_is_running() && !qemu_shutdown_requested_get()) {
        return; /* a stopped VM's clock stands still, as its timers do */
    }
    if (hub.snapshot_taken || hub.run_over) {
        return; /* stopping at the snapshot point or the run's end: the clock stays */
    }
    if (qemu_shutdown_requested_get()) {
        /* Stop pacing the guest, so QEMU's main loop gets the lock and
         * finishes the shutdown; the models see a clean end. */
        end_links();
        disarm();
        return;
    }
    if (!hub.synced) {
        hub.stats.services++;
        drain_unsynchronized();
        if (now >= hub.start_ps) {
            start_synchronization(now);
        }
    }
    if (hub.synced) {
        mortar_history_note(&history, MORTAR_STEP_STOP, 0, 0, now, (uint64_t)hub.horizon_ns, 0,
                            0);
        check_horizon_held(now);
        mortar_spin_revalidate(now / 1000);
        service(now);
        idle_fast_forward();
        if (!all_cpu_threads_idle()) {
            uint64_t now_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
            uint64_t until_ns = mortar_spin_landed_until_ns(now_ns);
            if (until_ns) {
                serve_reads_in_wait(now_ns * 1000, until_ns * 1000);
            }
            spin_stop(now_ns);
        }
    }
    arm(mortar_hub_now_ps());
    report_progress(mortar_hub_now_ps());
}

/* Called by the vCPU thread with the big lock (icount-stall.patch). */
static void hub_at_horizon(void)
{
    mortar_hub_profile_enter();
    service_at_horizon();
    mortar_hub_profile_spinning(mortar_spin_waiting());
    mortar_hub_profile_leave();
}

/* Whether every link lets the vCPU run to `want` (ps) now: no message
 * before it, and a bound at or past it. Else *short_of gets a link whose
 * peer has not promised that far (NULL: a message comes first). */
static bool links_allow(uint64_t now, uint64_t want, mortar_endpoint **short_of)
{
    *short_of = NULL;
    if (jitter_holds_back()) {
        return false; /* as if a message came first */
    }
    bool allow = true;
    for (int i = 0; i < hub.n; i++) {
        mortar_msg m;
        int r = peek_or_die(i, &m);
        if (r == 1 && m.timestamp_ps < want) {
            *short_of = NULL;
            return false;
        }
        if (r == 0 && vcpu_bound_ps(hub.eps[i]->link, now) < want) {
            *short_of = hub.eps[i];
            allow = false;
        }
    }
    return allow;
}

/*
 * A null message on every link at `now`, due or not. At a horizon the due
 * ones suffice: the vCPU stops where a peer may wait for it. Short of one,
 * a peer may be waiting for this host's next null message, which falls due
 * only later: each must learn that nothing comes from here before now plus
 * its latency, which is as far as hub_extend needs it to go.
 */
static void tell_time(uint64_t now)
{
    for (int i = 0; i < hub.n; i++) {
        int rc = mortar_link_send_sync(hub.eps[i]->link, now);
        if (rc != 0 && rc != MORTAR_EAGAIN) {
            die(hub.eps[i]);
        }
    }
}

/* Whether waiting for every link to promise up to `want` surely ends: each
 * peer can go a latency past our own promise, so `want` must lie within
 * one latency of now on every link. */
static bool within_a_latency(uint64_t now, uint64_t want)
{
    for (int i = 0; i < hub.n; i++) {
        if (want - now >= mortar_link_latency(hub.eps[i]->link)) {
            return false;
        }
    }
    return true;
}

/*
 * The vCPU's budget ends inside its next translation block, which would
 * end at want_ns (icount-whole-tb.patch). If the links let the vCPU go on
 * to want_ns — no message before it, and every peer promises that far,
 * after waiting for them as at a horizon — move the horizon there, and the
 * block runs whole. Nothing is handled here: a message is still handled
 * when the vCPU stands at its stamp, at the same instruction as without
 * this. A loop the spin skipper follows keeps its exact stops, and one it
 * could follow is left to the horizon's stop (mortar_spin_loop_here).
 */
static void hub_extend(int64_t now_ns, int64_t want_ns)
{
    uint64_t now = (uint64_t)now_ns * 1000, want = (uint64_t)want_ns * 1000;
    if (!hub.synced || hub.ended || hub.horizon_ns >= want_ns || !runstate_is_running() ||
        qemu_shutdown_requested_get() || mortar_spin_next_stop_ns() < (uint64_t)want_ns ||
        !within_a_latency(now, want)) {
        return;
    }
    bool following = mortar_spin_next_stop_ns() != UINT64_MAX;
    if (!following && mortar_spin_loop_here()) {
        return; /* stop at the horizon, where the loop can be followed */
    }
    mortar_hub_profile_enter();
    mortar_endpoint *short_of;
    bool told = false;
    while (!links_allow(now, want, &short_of) && short_of) {
        send_due_syncs(now);
        if (!told) {
            tell_time(now);
            told = true;
        }
        wait_on(short_of);
    }
    if (!following) {
        /* this stop may find a loop, as a horizon's would, and skip it:
         * the clock may move on here (icount_extend_budget then gives the
         * vCPU what the new horizon leaves) */
        spin_stop((uint64_t)now_ns);
    }
    mortar_history_note(&history, MORTAR_STEP_EXTEND, 0, 0, now, want, mortar_hub_now_ps(), 0);
    arm(mortar_hub_now_ps());
    if (hub.horizon_ns >= want_ns) {
        hub.stats.blocks_whole++;
    }
    report_progress(mortar_hub_now_ps());
    mortar_hub_profile_leave();
}

/* MORTAR_HOST_STATS=path gets the host's counters as JSON. */
static void write_stats(void)
{
    const char *path = getenv("MORTAR_HOST_STATS");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (!f) {
        return;
    }
    fprintf(f,
            "{\"virtual_time_ps\": %" PRIu64 ", \"sync_start_ps\": %" PRIu64
            ", \"synchronized\": %s, \"mmio_reads\": %" PRIu64
            ", \"mmio_stall_ps\": %" PRIu64 ", \"services\": %" PRIu64
            ", \"waits\": %" PRIu64 ", \"messages\": %" PRIu64
            ", \"idle_skips\": %" PRIu64 ", \"stall_promises\": %" PRIu64
            ", \"mmio_reads_held\": %" PRIu64 ", \"guest_insns\": %" PRId64
            ", \"blocks_whole\": %" PRIu64 ", \"io_insns_apart\": %u, \"qemu_run\": %u"
            ", \"spin_reads_served\": %" PRIu64 ", \"late_messages\": %" PRIu64
            ", \"bound_breaks\": %" PRIu64 ", \"horizon_overruns\": %" PRIu64,
            mortar_hub_now_ps(), hub.start_ps, hub.synced ? "true" : "false",
            hub.stats.mmio_reads, hub.stats.mmio_stall_ps, hub.stats.services,
            hub.stats.waits, hub.stats.messages, hub.stats.idle_skips,
            hub.stats.stall_promises, hub.stats.mmio_reads_held,
            hub.synced ? icount_get_raw() - hub.start_insns : 0, hub.stats.blocks_whole,
            tb_io_insns_count(), mortar_park_run_number(), hub.stats.reads_in_wait,
            hub.stats.late_messages, hub.stats.bound_breaks, hub.stats.horizon_overruns);
    mortar_spin_stats spin;
    mortar_spin_get_stats(&spin);
    fprintf(f,
            ", \"spin_skips\": %" PRIu64 ", \"spin_skipped_insns\": %" PRIu64
            ", \"spin_skipped_ps\": %" PRIu64 ", \"spin_verified\": %" PRIu64
            ", \"spin_refused\": %" PRIu64,
            spin.skips, spin.skipped_insns, spin.skipped_ns * 1000, spin.verified, spin.refused);
    mortar_link *links[MAX_ENDPOINTS];
    for (int i = 0; i < hub.n; i++) {
        links[i] = hub.eps[i]->link;
    }
    mortar_hub_profile_write(f, links, (unsigned)hub.n);
    const char *names[MAX_ENDPOINTS];
    for (int i = 0; i < hub.n; i++) {
        names[i] = hub.eps[i]->name;
    }
    mortar_digest_write_json(&hub.digest, f, names);
    fprintf(f, "}\n");
    fclose(f);
}

/* At exit: terminate every link and write the counters (once per run: a
 * kept QEMU wrote its last run's already). */
static void write_stats_at_exit(void)
{
    if (hub.run_over) {
        return;
    }
    end_links();
    write_stats();
}

void mortar_hub_end_run(void)
{
    end_links();
    write_stats();
    mortar_trace_close();
}

/* A whole number from 1 to `max` in the environment variable `name` (0:
 * unset); anything else is refused with a warning and reads as unset. */
static uint64_t whole_from_env(const char *name, uint64_t max)
{
    const char *v = getenv(name);
    if (!v || !*v) {
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (*v < '1' || *v > '9' || *end || errno || n > max) {
        warn_report("mortar: %s='%s' is not a whole number from 1 to %" PRIu64 ": ignored",
                    name, v, max);
        return 0;
    }
    return n;
}

/*
 * MORTAR_MAIN_LOOP_POKE_US=<us> wakes QEMU's main loop that often, with a
 * realtime timer that does nothing else. Each wakeup is a chance for the
 * main loop to warp an idle vCPU's clock at an awkward moment, such as
 * just after the vCPU halted and before it counted its last instructions:
 * a check that the warp keeps to the horizon (icount-warp-counted.patch,
 * test_case_study.sh). Only while synchronized: a boot so poked crawls
 * (each wakeup also ends the vCPU's instruction budget). Wall-time work
 * only: results do not change.
 */
static QEMUTimer *poke_timer;
static int64_t poke_ns;

static void poke_main_loop(void *opaque)
{
    if (poke_ns && hub.synced && !hub.ended) {
        timer_mod(poke_timer, qemu_clock_get_ns(QEMU_CLOCK_REALTIME) + poke_ns);
    }
}

static void poke_from_env(void)
{
    poke_ns = (int64_t)whole_from_env("MORTAR_MAIN_LOOP_POKE_US", 1000000) * 1000;
    if (!poke_timer) {
        poke_timer = timer_new_ns(QEMU_CLOCK_REALTIME, poke_main_loop, NULL);
    }
    timer_del(poke_timer);
}

/* The settings a run takes from the environment. */
static void read_env(void)
{
    const char *whole = getenv("MORTAR_WHOLE_BLOCKS");
    icount_set_extend_handler(!whole || strcmp(whole, "0") ? hub_extend : NULL);
    const char *io = getenv("MORTAR_IO_BLOCKS");
    tb_io_insns_apart(!io || strcmp(io, "0"));
    const char *promises = getenv("MORTAR_PROMISES");
    hub.no_promises = promises && !strcmp(promises, "0");
    hub.stop_jitter_ns = whole_from_env("MORTAR_STOP_JITTER", 1000000000);
    poke_from_env();
    hub.jitter_state = 0x9e3779b97f4a7c15ull;
    memset(&history, 0, sizeof history);
    const char *bounds = getenv("MORTAR_BOUND_JITTER");
    hub.bound_jitter = bounds && !strcmp(bounds, "1");
    mortar_spin_init();
    mortar_hub_profile_init();
}

/*
 * The hub as a fresh QEMU has it before loading the snapshot: its
 * endpoints (on the links mortar_pci_relink gave them) and the devices'
 * start; everything a run learns or counts is forgotten.
 */
void mortar_hub_new_run(const char *rendezvous, unsigned hosts, const char *host)
{
    static char *names[2];
    mortar_hub_state keep = hub;
    memset(&hub, 0, sizeof hub);
    memcpy(hub.eps, keep.eps, sizeof hub.eps);
    hub.n = keep.n;
    hub.hooked = keep.hooked;
    hub.start_ps = hub.first_start_ps = keep.first_start_ps;
    hub.horizon_ns = INT64_MAX;
    for (int i = 0; i < hub.n; i++) {
        hub.sync[i] = (sync_link){.link = hub.eps[i]->link, .synchronized = true};
    }
    g_free(names[0]);
    g_free(names[1]);
    names[0] = g_strdup(rendezvous);
    names[1] = g_strdup(host ? host : "host");
    mortar_hub_set_rendezvous(names[0], hosts ? hosts : 1, names[1]);
    memset(&progress, 0, sizeof progress);
    read_env();
}

/*
 * A snapshot's guest RAM is a file of its own (docs/snapshots.md, "The
 * guest's RAM"): the QEMU that builds it runs the guest in the file,
 * shared, and its migration leaves shared RAM out. Both ends of a
 * migration must agree on that (the stream then carries each RAM block's
 * address), so every mortar host sets it; a host whose RAM is not shared
 * migrates it as before.
 */
static void ignore_shared_ram(void)
{
    MigrationCapabilityStatus cap = {.capability = MIGRATION_CAPABILITY_X_IGNORE_SHARED,
                                     .state = true};
    MigrationCapabilityStatusList list = {.value = &cap};
    Error *err = NULL;
    qmp_migrate_set_capabilities(&list, &err);
    if (err) {
        error_report_err(err);
        exit(1);
    }
}

void mortar_hub_add(mortar_endpoint *ep, uint64_t start_ps)
{
    if (hub.n == MAX_ENDPOINTS) {
        error_report("mortar: more than %d mortar devices in one host", MAX_ENDPOINTS);
        exit(1);
    }
    if (hub.n > 0 && start_ps != hub.start_ps) {
        error_report("mortar: device '%s' starts synchronization at %" PRIu64
                     " ps, another device at %" PRIu64 " ps; they must agree",
                     ep->name, start_ps, hub.start_ps);
        exit(1);
    }
    hub.start_ps = hub.first_start_ps = start_ps;
    ep->hub_index = (unsigned)hub.n;
    /* every link follows the rule once the host is synchronized */
    hub.sync[hub.n] = (sync_link){.link = ep->link, .synchronized = true};
    hub.eps[hub.n++] = ep;
    if (!hub.hooked) {
        hub.hooked = true;
        icount_set_horizon_handler(hub_at_horizon);
        read_env();
        ignore_shared_ram();
        mortar_park_init();
        atexit(write_stats_at_exit);
        vmstate_register(NULL, 0, &vmstate_mortar_hub, &hub);
    }
    arm(mortar_hub_now_ps());
}

/* ---- booted-guest snapshots (docs/snapshots.md) ---------------------------- */

/* A snapshot is only taken before synchronization: the devices' models at
 * the other end of the links keep no state of the guest yet. */
static int hub_pre_save(void *opaque)
{
    if (hub.synced || hub.guest_ready) {
        error_report("mortar: a snapshot must be taken before the guest reports ready");
        return -EINVAL;
    }
    return 0;
}

/* The restored vCPU stops where the saved one would have stopped next. */
static int hub_post_load(void *opaque, int version_id)
{
    icount_set_horizon_ns(hub.horizon_ns);
    return 0;
}

static const VMStateDescription vmstate_mortar_hub = {
    .name = "mortar-hub",
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_save = hub_pre_save,
    .post_load = hub_post_load,
    .fields = (VMStateField[]){
        VMSTATE_INT64(horizon_ns, mortar_hub_state),
        VMSTATE_END_OF_LIST(),
    },
};

static Notifier snapshot_done;

/* The migration to the snapshot file ended: QEMU's work is done. */
static void snapshot_state_changed(Notifier *notifier, void *data)
{
    MigrationState *ms = data;
    if (migration_has_finished(ms)) {
        info_report("mortar: snapshot written to %s", hub.snapshot);
        qemu_system_shutdown_request(SHUTDOWN_CAUSE_HOST_QMP_QUIT);
    } else if (migration_has_failed(ms)) {
        error_report("mortar: writing the snapshot to %s failed", hub.snapshot);
        exit(1);
    }
}

/* Main loop: once the vCPU stopped, migrate the machine into the file. */
static QEMUTimer *snapshot_timer;

static void snapshot_when_stopped(void *opaque)
{
    if (runstate_is_running()) {
        timer_mod(snapshot_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + 1);
        return;
    }
    g_autofree char *uri = g_strdup_printf("exec:cat > '%s'", hub.snapshot);
    g_autofree char *digest = g_strdup_printf("%s.sha256", hub.snapshot);
    Error *err = NULL;
    if (!mortar_snapshot_write_digest(digest, &err)) {
        error_report_err(err);
        exit(1);
    }
    snapshot_done.notify = snapshot_state_changed;
    add_migration_state_change_notifier(&snapshot_done);
    qmp_migrate(uri, false, false, false, false, false, false, false, false, &err);
    if (err) {
        error_report_err(err);
        exit(1);
    }
}

void mortar_hub_set_snapshot(const char *path)
{
    hub.snapshot = path;
}

/*
 * The guest reached the snapshot point (vCPU thread, big lock). With a
 * snapshot file named, the vCPU stops right after the guest's write, at an
 * instruction count that does not depend on wall time, and the main loop
 * saves the machine there; otherwise the guest goes on.
 */
void mortar_hub_snapshot_point(void)
{
    if (!hub.snapshot || hub.snapshot_taken || hub.guest_ready || hub.synced) {
        return;
    }
    hub.snapshot_taken = true;
    /*
     * From the vCPU thread vm_stop only asks the main loop to stop the VM.
     * Until it does, the run state is still "running" while the vCPU is
     * stopped, so all vCPUs look idle, and a main loop that looked in that
     * moment warped the virtual clock to the next timer (icount sleep=off)
     * and the vCPU thread then ran that timer: whether a snapshot's clock
     * stood some hundred us later, with a timer interrupt pending, depended
     * on the wall clock. A horizon at this very time forbids any warp
     * (icount-stall.patch), and service_at_horizon() leaves it there.
     */
    icount_set_horizon_ns(qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    vm_stop(RUN_STATE_PAUSED);
    snapshot_timer = timer_new_ms(QEMU_CLOCK_REALTIME, snapshot_when_stopped, NULL);
    timer_mod(snapshot_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME));
}

void mortar_hub_guest_done(void)
{
    if (mortar_park_enabled()) {
        hub.run_over = true;
        mortar_park_run_over(); /* the QEMU is kept for the next run */
        return;
    }
    qemu_system_shutdown_request(SHUTDOWN_CAUSE_GUEST_SHUTDOWN);
}

/* ---- the common start ------------------------------------------------------ */

#define START_MARGIN_PS 1000000000ull /* 1 ms after the last host is ready */
#define RENDEZVOUS_TIMEOUT_S 600

static uint64_t read_ready_time(const char *path)
{
    FILE *f = fopen(path, "r");
    uint64_t t = 0;
    if (f) {
        if (fscanf(f, "%" SCNu64, &t) != 1) {
            t = 0;
        }
        fclose(f);
    }
    return t;
}

/* Publishes this host's ready time and waits (wall clock, guest frozen)
 * until every host of the run has; returns the latest of them. */
static uint64_t meet_other_hosts(uint64_t ready_ps)
{
    g_autofree char *mine = g_strdup_printf("%s/%s", hub.rendezvous, hub.host);
    g_autofree char *tmp = g_strdup_printf("%s.tmp", mine);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%" PRIu64 "\n", ready_ps) < 0 || fclose(f) != 0 ||
        rename(tmp, mine) != 0) {
        error_report("mortar: cannot write %s: %s", mine, strerror(errno));
        exit(1);
    }
    int64_t deadline = get_clock() + (int64_t)RENDEZVOUS_TIMEOUT_S * 1000000000;
    for (;;) {
        g_autoptr(GDir) dir = g_dir_open(hub.rendezvous, 0, NULL);
        unsigned seen = 0;
        uint64_t latest = ready_ps;
        const char *name;
        while (dir && (name = g_dir_read_name(dir))) {
            if (g_str_has_suffix(name, ".tmp")) {
                continue;
            }
            g_autofree char *path = g_strdup_printf("%s/%s", hub.rendezvous, name);
            latest = MAX(latest, read_ready_time(path));
            seen++;
        }
        if (seen >= hub.hosts) {
            return latest;
        }
        if (get_clock() > deadline) {
            error_report("mortar: host '%s': only %u of %u hosts became ready within %d s",
                         hub.host, seen, hub.hosts, RENDEZVOUS_TIMEOUT_S);
            exit(1);
        }
        g_usleep(2000);
    }
}

void mortar_hub_guest_ready(void)
{
    if (hub.guest_ready || hub.synced) {
        return;
    }
    hub.guest_ready = true;
    uint64_t ready = mortar_hub_now_ps();
    if (hub.start_ps != MORTAR_START_AT_READY) {
        return; /* a fixed start, or a functional run */
    }
    uint64_t latest = hub.rendezvous ? meet_other_hosts(ready) : ready;
    /* a common start on a microsecond boundary, later than every clock */
    uint64_t start = (latest + START_MARGIN_PS + 999999) / 1000000 * 1000000;
    if (hub.start_ps == MORTAR_START_AT_READY) {
        hub.start_ps = start;
    }
    arm(ready);
}

void mortar_hub_set_rendezvous(const char *dir, unsigned hosts, const char *host)
{
    hub.rendezvous = dir;
    hub.hosts = hosts;
    hub.host = host;
}

/* ---- MMIO reads: the stalled vCPU --------------------------------------------- */

/* The read `req` at `start`, answered from the device's hold: as if its
 * completion had come (mortar_hub_hold.h). */
static bool read_held(mortar_endpoint *ep, const void *req, uint32_t size, uint64_t start)
{
    mortar_pcie_mmio rd;
    if (!hub.synced || size < sizeof rd) {
        return false;
    }
    memcpy(&rd, req, sizeof rd);
    if (rd.size > sizeof ep->wait_data ||
        !mortar_hold_answer(&ep->hold, ep->link, &rd, start, ep->wait_data,
                            &ep->wait_stamp_ps)) {
        return false;
    }
    ep->wait_size = rd.size;
    ep->wait_done = true;
    hub.stats.mmio_reads_held++;
    mortar_spin_forget(); /* the guest acts: it is not waiting */
    return true;
}

uint32_t mortar_hub_mmio_read(mortar_endpoint *ep, const void *req, uint32_t size,
                              uint64_t req_id)
{
    if (hub.ended) {
        /* Shutting down (end_links): the vCPU may run on until the main
         * loop stops it, and a read then gets what a device that is gone
         * answers, all ones, without touching the link. */
        memset(ep->wait_data, 0xff, sizeof ep->wait_data);
        ep->wait_size = sizeof ep->wait_data;
        return ep->wait_size;
    }
    uint64_t start = mortar_hub_now_ps();
    ep->wait_req = req_id;
    ep->wait_done = false;
    hub.stats.mmio_reads++;
    bool held = read_held(ep, req, size, start);
    if (!held) {
        mortar_hub_send(ep, MORTAR_PCIE_MMIO_READ, req, size);
        mortar_link_counters c;
        mortar_link_get_counters(ep->link, &c);
        ep->read_sent = c.msgs_sent;
    }
    if (!hub.synced) {
        while (!ep->wait_done) {
            drain_unsynchronized();
            if (!ep->wait_done) {
                wait_on(ep);
            }
        }
        return ep->wait_size;
    }
    /* Every message up to the completion is handled before the vCPU
     * resumes; a held read's completion is known from the start. */
    uint64_t clock = start, limit = held ? ep->wait_stamp_ps : MORTAR_TIME_MAX;
    mortar_hub_profile_enter();
    hub.stalled = held ? NULL : ep;
    hub.held_resume_ps = held ? ep->wait_stamp_ps : 0;
    run_until(&clock, &limit, hub.stalled);
    /* The vCPU resumes in the whole ns after the completion: what comes in
     * that ns is handled in the stall too, as a stop there would have. */
    hub.stalled = NULL;
    hub.held_resume_ps = ceil_ns(ep->wait_stamp_ps) * 1000;
    limit = hub.held_resume_ps;
    run_until(&clock, &limit, NULL);
    hub.held_resume_ps = 0;
    mortar_hub_profile_leave();
    uint64_t stall_ns = ceil_ns(ep->wait_stamp_ps) - start / 1000;
    hub.stats.mmio_stall_ps += ep->wait_stamp_ps - start;
    icount_add_stall_ns((int64_t)stall_ns);
    mortar_history_note(&history, MORTAR_STEP_STALL, ep->hub_index, 0, start,
                        start + stall_ns * 1000, ep->wait_stamp_ps, 0);
    if (current_cpu) {
        cpu_exit(current_cpu); /* re-plan the instruction budget at the new time */
    }
    arm(start + stall_ns * 1000);
    report_progress(start + stall_ns * 1000);
    return ep->wait_size;
}
