/*
 * link_wait.c - waiting for a peer without burning a core forever.
 *
 * Every policy first spins for `spin_ns` (the peer is usually a few hundred
 * nanoseconds away), except that YIELD and BLOCK skip it when the peer last
 * waited on our CPU (it cannot be running then), and keep spinning up to
 * PEER_WAITING_SPIN_NS while the peer, elsewhere, waits on this same link:
 * its message is on the way, and a yield can cost the whole slice of
 * another task on our CPU (bench/README.md, "Oversubscribed"). Then SPIN keeps spinning,
 * YIELD calls sched_yield() between polls, and BLOCK yields for a short
 * while and then sleeps on the direction's futex word, which the producer
 * bumps and wakes after publishing a slot (see wake_peer() in link.c).
 * Sleeps are sliced so that a dead peer (its socket hung up) is noticed
 * within tens of milliseconds. A consumer that has just taken in a long
 * run of data messages first lets the stream run ahead, and peers that
 * keep meeting on one CPU are moved apart (both below).
 */
#include "link_internal.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "mortar/error.h"

#define PEER_CHECK_NS 20000000ull /* look at the socket every 20 ms of waiting */
/* BLOCK: after spinning, yield this long before sleeping, so a peer that
 * shares our core gets it without paying for a futex round trip. */
#define YIELD_NS 5000000ull

static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

int mortar_link_check_peer(mortar_link *link)
{
    if (link->sock_fd < 0 || link->peer_terminated)
        return MORTAR_OK;
    struct pollfd pfd = {.fd = link->sock_fd, .events = POLLIN | POLLRDHUP};
    if (poll(&pfd, 1, 0) <= 0)
        return MORTAR_OK;
    if (pfd.revents & (POLLHUP | POLLRDHUP | POLLERR)) {
        /* The peer may have sent terminate just before exiting. */
        if (mortar_link_has_input(link))
            return MORTAR_OK;
        return link_set_error(link, MORTAR_EPEER, "%s without terminating",
                              mortar_strerror(MORTAR_EPEER));
    }
    return MORTAR_OK;
}

/* Sleeps on the futex until the producer bumps it or `max_ns` passes.
 * With the barrier announced, our producer does not fence: the barrier
 * after our store of `waiting` stands in for its fence (link_barrier.c). A
 * failed barrier (never seen) shortens the sleep to a millisecond: a wake
 * may be missed, not the message. */
#define FAILED_BARRIER_SLEEP_NS 1000000ull
static void block_on_futex(mortar_link *link, uint64_t max_ns, uint64_t wake_from_ps)
{
    uint32_t seq = atomic_load_explicit(&link->rx_dir->futex_seq, memory_order_acquire);
    atomic_store_explicit(&link->rx_dir->wake_from_ps, wake_from_ps, memory_order_relaxed);
    atomic_store_explicit(&link->rx_dir->waiting, 1, memory_order_seq_cst);
    if (link->sleep_barrier && !link_barrier_issue() && max_ns > FAILED_BARRIER_SLEEP_NS)
        max_ns = FAILED_BARRIER_SLEEP_NS;
    const mortar_slot_header *h = link_rx_slot(link);
    if (!(atomic_load_explicit((const _Atomic uint8_t *)&h->own_type, memory_order_seq_cst) &
          MORTAR_SLOT_FULL)) {
        struct timespec ts = {.tv_sec = (time_t)(max_ns / 1000000000ull),
                              .tv_nsec = (long)(max_ns % 1000000000ull)};
        syscall(SYS_futex, &link->rx_dir->futex_seq, FUTEX_WAIT, seq, &ts, NULL, 0);
        link->hot.counters.waits_blocked++;
    }
    atomic_store_explicit(&link->rx_dir->waiting, 0, memory_order_relaxed);
}

/* Polls a few hundred times before touching the clock: most waits end
 * within a cache-line transfer. Each look comes after a pause (19 ns on
 * the test machine): looks back to back pull the slot's cache line away
 * from the peer that is about to write it, and a handoff between two cores
 * there took twice as long (bench/README.md, "Polling"). */
static bool quick_poll(const mortar_link *link)
{
    const mortar_slot_header *h = link_rx_slot(link);
    for (unsigned i = 0; i < 384; i++) {
        cpu_relax();
        if (mortar_link__own_type(h) & MORTAR_SLOT_FULL)
            return true;
    }
    return false;
}

/* Two peers that keep finding each other on one CPU run one at a time,
 * and the scheduler sees no reason to part them: each is runnable only
 * half the time, so their CPU looks no busier than one with a single
 * task. The listener's side then moves itself off that CPU. Only one side
 * moves, or both could land together again. Where other processes keep
 * bringing the two back together a move buys nothing: a move soon after
 * the last one doubles the least gap to the next (bench/README.md,
 * "Oversubscribed"). */
#define SHARED_WAITS_TO_MOVE 64
/* ... or for this long: with a CPU-bound task on the same CPU as the two,
 * a wait can last its whole slice (4 ms here), and 64 such took 90 ms. */
#define SHARED_TIME_TO_MOVE_NS 1000000ull
#define MOVE_GAP_MIN_NS 1000000ull
#define MOVE_GAP_MAX_NS 1000000000ull

static bool move_is_due(mortar_link *link)
{
    const shm_header *hdr = link->shm;
    if (link->shm_fd < 0 || link->rx_dir != &hdr->dir[1])
        return false; /* in-process, or the connector's side */
    uint64_t now = wall_ns();
    uint64_t since = now - link->moved_at_ns;
    if (link->move_gap_ns == 0)
        link->move_gap_ns = MOVE_GAP_MIN_NS;
    else if (since < link->move_gap_ns)
        return false;
    else if (since < 4 * link->move_gap_ns)
        link->move_gap_ns = link->move_gap_ns < MOVE_GAP_MAX_NS / 2 ? 2 * link->move_gap_ns
                                                                    : MOVE_GAP_MAX_NS;
    else if (link->move_gap_ns >= 2 * MOVE_GAP_MIN_NS)
        link->move_gap_ns /= 2;
    link->moved_at_ns = now;
    return true;
}

/* Forbids this thread the CPU it runs on and allows it again: the
 * scheduler moves it to another CPU it may run on, and only its placement
 * changed. */
static void leave_cpu(void)
{
    int cpu = sched_getcpu();
    cpu_set_t allowed, others;
    if (cpu < 0 || sched_getaffinity(0, sizeof allowed, &allowed) != 0 ||
        !CPU_ISSET(cpu, &allowed) ||
        CPU_COUNT(&allowed) < 2)
        return;
    others = allowed;
    CPU_CLR(cpu, &others);
    if (sched_setaffinity(0, sizeof others, &others) == 0)
        sched_setaffinity(0, sizeof allowed, &allowed);
}

/* Counts the waits in a row that found the peer on our CPU, and since
 * when they do. */
static void keep_apart(mortar_link *link, bool shared_cpu)
{
    if (!shared_cpu) {
        link->shared_cpu_waits = 0;
        return;
    }
    uint64_t now = wall_ns();
    if (link->shared_cpu_waits++ == 0)
        link->shared_since_ns = now;
    bool long_enough = link->shared_cpu_waits >= SHARED_WAITS_TO_MOVE ||
                       now - link->shared_since_ns >= SHARED_TIME_TO_MOVE_NS;
    if (long_enough && move_is_due(link)) {
        link->shared_cpu_waits = 0;
        leave_cpu();
    }
}

/* Says on which CPU we wait (in the direction we consume, only when it
 * changed: the line also holds `waiting`, which our producer reads per
 * message) and whether the peer last waited on the same one. Then the
 * peer is not running now (we are), and spinning only keeps it from the
 * CPU: such a wait yields at once. Stale when a side moved since; it only
 * decides how we wait. */
static bool peer_shares_our_cpu(mortar_link *link)
{
    int cpu = sched_getcpu();
    if (cpu < 0)
        return false;
    uint32_t mine = (uint32_t)cpu + 1;
    if (atomic_load_explicit(&link->rx_dir->consumer_cpu, memory_order_relaxed) != mine)
        atomic_store_explicit(&link->rx_dir->consumer_cpu, mine, memory_order_relaxed);
    return atomic_load_explicit(&link->tx_dir->consumer_cpu, memory_order_relaxed) == mine;
}

/* What ends a wait: anything new on the ring (mortar_link_wait), or a
 * data message or the input bound reaching `bound_ps`
 * (mortar_link_wait_bound), which takes null messages in on the way. */
typedef struct wait_goal {
    bool any;
    uint64_t bound_ps;
} wait_goal;

/* 1: the goal is met, 0: not yet, or a link error. */
static int goal_met(mortar_link *link, const wait_goal *g)
{
    if (g->any)
        return mortar_link_has_input(link) || link->peer_terminated;
    mortar_msg m;
    int r = mortar_link_peek(link, &m);
    if (r != 0)
        return r;
    return link->peer_terminated || mortar_link_in_bound(link) >= g->bound_ps;
}

/* A wait for a bound is expected to be long (the peer's many steps): it
 * yields only briefly before it sleeps. */
#define BOUND_YIELD_NS 50000ull

/* While the peer, on another CPU, waits on this same link too, its message
 * is on its way (each side sends before it waits), unless the peer was
 * preempted right there: spin this long before yielding. A yield where
 * another task is runnable gives that task the CPU for the rest of its
 * slice (bench/README.md, "Oversubscribed"). */
#define PEER_WAITING_SPIN_NS 50000ull

static bool peer_waits_here(const mortar_link *link)
{
    return atomic_load_explicit(&link->tx_dir->in_wait, memory_order_relaxed) != 0;
}

/* The wait past the first polls: spin, then per policy. */
static int wait_long(mortar_link *link, const wait_goal *g, uint32_t timeout_ms, bool shared_cpu)
{
    uint64_t start = wall_ns();
    uint64_t deadline = start + (uint64_t)timeout_ms * 1000000ull;
    uint64_t spin_until = shared_cpu ? start : start + link->spin_ns;
    uint64_t peer_spin_until = shared_cpu ? start : start + PEER_WAITING_SPIN_NS;
    uint64_t yield_until = spin_until + (g->any ? YIELD_NS : BOUND_YIELD_NS);
    uint64_t next_peer_check = start + PEER_CHECK_NS;
    uint64_t wake_from = g->any ? 0 : (g->bound_ps ? g->bound_ps : 1);
    int met;
    for (unsigned i = 0;; i++) {
        if ((met = goal_met(link, g)) != 0)
            return met < 0 ? met : MORTAR_OK;
        if ((i & 63) != 0) {
            cpu_relax();
            continue;
        }
        uint64_t now = wall_ns();
        if (now >= next_peer_check) {
            int rc = mortar_link_check_peer(link);
            if (rc != 0)
                return rc;
            next_peer_check = now + PEER_CHECK_NS;
        }
        if (now >= deadline)
            return link_set_error(link, MORTAR_ETIMEDOUT, "nothing arrived for %u ms", timeout_ms);
        if (now < spin_until || link->wait_policy == MORTAR_WAIT_SPIN ||
            (now < peer_spin_until && peer_waits_here(link))) {
            cpu_relax();
        } else if (link->wait_policy == MORTAR_WAIT_YIELD || now < yield_until) {
            sched_yield();
            i = 63; /* look at the clock again after each yield */
        } else {
            uint64_t slice = next_peer_check - now;
            if (deadline - now < slice)
                slice = deadline - now;
            block_on_futex(link, slice, wake_from);
            i = 63;
        }
    }
}

static int wait_for(mortar_link *link, const wait_goal *g, uint32_t timeout_ms)
{
    bool shared_cpu = link->wait_policy != MORTAR_WAIT_SPIN && peer_shares_our_cpu(link);
    keep_apart(link, shared_cpu);
    int met = goal_met(link, g);
    if (met == 0 && g->any && !shared_cpu)
        met = quick_poll(link);
    if (met != 0)
        return met < 0 ? met : MORTAR_OK;
    atomic_store_explicit(&link->rx_dir->in_wait, 1, memory_order_relaxed);
    int rc = wait_long(link, g, timeout_ms, shared_cpu);
    atomic_store_explicit(&link->rx_dir->in_wait, 0, memory_order_relaxed);
    return rc;
}

/* A consumer that took STREAM_RUN data messages or more since its last
 * wait has caught up with a stream. Looking at once at the slot the
 * producer writes next pulls that slot's cache line back and forth with
 * every message, and the stream then runs at the rate of those handoffs
 * (bench/README.md, "Stream"). So it first lets the producer run up to
 * STREAM_AHEAD slots ahead, for at most STREAM_HOLD pauses (about 2.5 us
 * on the test machine), and then takes them in one sweep. Values from a
 * small sweep there (bench-link's stream): a shorter hold or a nearer
 * slot gave up most of the gain; where handoffs are fast a consumer that
 * catches up takes runs of 4 to 64 messages between waits, so a hold only
 * after 64 missed them. A ping-pong takes one message per wait. */
#define STREAM_RUN 16
#define STREAM_AHEAD 64
#define STREAM_HOLD 128
static void let_stream_run_ahead(mortar_link *link)
{
    uint64_t taken = link->hot.counters.msgs_received;
    uint64_t run = taken - link->taken_at_wait;
    link->taken_at_wait = taken;
    if (run < STREAM_RUN || mortar_link_has_input(link))
        return;
    uint32_t ahead = link->hot.slot_count / 2 < STREAM_AHEAD ? link->hot.slot_count / 2
                                                              : STREAM_AHEAD;
    uint32_t pos = (link->hot.rx_pos + ahead) % link->hot.slot_count;
    const mortar_slot_header *h = mortar_link__slot(link->hot.rx_ring, link->hot.slot_size, pos);
    for (unsigned i = 0; i < STREAM_HOLD; i++) {
        cpu_relax();
        if (mortar_link__own_type(h) & MORTAR_SLOT_FULL)
            return;
    }
}

int mortar_link_wait(mortar_link *link, uint32_t timeout_ms)
{
    let_stream_run_ahead(link);
    wait_goal any = {.any = true};
    return wait_for(link, &any, timeout_ms);
}

int mortar_link_wait_bound(mortar_link *link, uint64_t bound_ps, uint32_t timeout_ms)
{
    wait_goal bound = {.any = false, .bound_ps = bound_ps};
    return wait_for(link, &bound, timeout_ms);
}
