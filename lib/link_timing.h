/*
 * link_timing.h - how a link stamps messages: latency plus serialization
 * behind earlier traffic. Shared by shared-memory links and in-process
 * connections so both have exactly the same timing.
 */
#ifndef MORTAR_LINK_TIMING_H
#define MORTAR_LINK_TIMING_H

#include <stdint.h>

#include "mortar/error.h"
#include "mortar/time.h"

typedef struct link_timing {
    uint64_t latency_ps;
    uint64_t bandwidth_bps;
    uint64_t busy_until_ps; /* the sender's wire is busy until then */
    uint64_t last_send_ps;  /* `now` of the last send (data or sync) */
    uint64_t last_stamp_ps; /* stamps never decrease */
} link_timing;

/* The stamp of a message of `wire_bytes` sent at `now`; updates the state.
 * MORTAR_EINVAL when `now` goes back in time. */
static inline int link_timing_stamp(link_timing *t, uint64_t now, uint64_t wire_bytes,
                                    uint64_t *stamp)
{
    if (now < t->last_send_ps)
        return MORTAR_EINVAL;
    uint64_t start = now > t->busy_until_ps ? now : t->busy_until_ps;
    if (t->bandwidth_bps)
        start += mortar_serialization_ps(wire_bytes, t->bandwidth_bps);
    t->busy_until_ps = start;
    t->last_send_ps = now;
    t->last_stamp_ps = t->busy_until_ps + t->latency_ps;
    *stamp = t->last_stamp_ps;
    return MORTAR_OK;
}

/* The stamp of a null message at `now`: now + latency, but never below an
 * earlier stamp (a frame still on the wire arrives later than that). */
static inline uint64_t link_timing_sync_stamp(link_timing *t, uint64_t now)
{
    if (now > t->last_send_ps)
        t->last_send_ps = now;
    uint64_t s = now + t->latency_ps;
    if (s > t->last_stamp_ps)
        t->last_stamp_ps = s;
    return t->last_stamp_ps;
}

#endif
