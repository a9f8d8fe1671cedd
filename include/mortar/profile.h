/*
 * mortar/profile.h - who waits for whom: the wall-clock profile of a loop.
 *
 * A loop measures, at no cost to the simulation, where its wall time goes:
 * the whole run (from mortar_loop_start to the end of mortar_loop_run), the
 * part spent blocked waiting for input and, for each external link, the
 * part spent waiting because that link held the safe time back (its peer
 * had not promised far enough yet). Waits without a synchronized input
 * link are charged to "any input". Busy time is the rest: handling events,
 * polling, sending. Beside the times, each link's message and null-message
 * (sync) counts, each component's handled events, and the simulated time
 * the loop reached.
 *
 * Cost: two CLOCK_MONOTONIC reads per wait and two per run; none per
 * event. Profiling never changes simulated time or the order of events;
 * mortar_loop_set_profiling(loop, false) removes even the clock reads.
 *
 * All times here are wall-clock nanoseconds, except sim_time_ps.
 */
#ifndef MORTAR_PROFILE_H
#define MORTAR_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mortar/link.h"
#include "mortar/runtime.h"

/* The loop as a whole. */
typedef struct mortar_loop_profile {
    bool enabled;         /* false: profiling was switched off, times are 0 */
    uint64_t wall_ns;     /* start of the run to its end (or to now, mid-run) */
    uint64_t wait_ns;     /* blocked waiting for input: every link's plus any-input */
    uint64_t busy_ns;     /* wall_ns - wait_ns */
    uint64_t wait_any_ns; /* waits without a holder link (no synchronized input) */
    uint64_t waits_any;
    uint64_t sim_time_ps; /* the simulated time the loop reached */
    uint64_t events;      /* events handled */
} mortar_loop_profile;

/* One external link, from this loop's side. */
typedef struct mortar_link_profile {
    const char *link;      /* the link's name; valid while the loop lives */
    const char *component; /* the component whose port the link is bound to */
    unsigned port;
    uint64_t wait_ns;              /* blocked because this link held the safe time back */
    uint64_t waits;                /* how many such waits */
    mortar_link_counters counters; /* messages and syncs sent and received */
} mortar_link_profile;

/* Switches profiling on (the default) or off; call before the run starts.
 * Returns MORTAR_ESTATE once it has started. */
int mortar_loop_set_profiling(mortar_loop *loop, bool on);

/* The loop's profile so far. */
void mortar_loop_get_profile(const mortar_loop *loop, mortar_loop_profile *out);

/* External links bound to the loop, in the order they were bound. */
uint32_t mortar_loop_link_count(const mortar_loop *loop);

/* Link `i`'s profile; MORTAR_EINVAL when `i` is out of range. */
int mortar_loop_get_link_profile(const mortar_loop *loop, uint32_t i,
                                 mortar_link_profile *out);

/* Events (messages and timers) handled by component `c`. */
uint64_t mortar_component_events(const mortar_component *c);

/*
 * Writes the profile as one JSON object to `f` (layout in
 * docs/profile.md): {"profile_version": 1, "enabled", "wall_ns",
 * "busy_ns", "wait_ns", "wait_any_ns", "waits_any", "sim_time_ps",
 * "events", "links": [{"link", "component", "port", "wait_ns", "waits",
 * "msgs_sent", "msgs_received", "syncs_sent", "syncs_received",
 * "waits_blocked" (waits that slept on the futex after spinning),
 * "wakes_sent" (times this side woke its sleeping peer), "full_stalls"
 * (sends refused by a full ring)}, ...],
 * "components": [{"name", "events", "wait_ns", "msgs_sent",
 * "msgs_received", "syncs_sent", "syncs_received"}, ...]} where a
 * component's figures are the sums over its external links. Returns 0 or
 * MORTAR_EIO.
 */
int mortar_loop_write_profile(const mortar_loop *loop, FILE *f);

#endif
