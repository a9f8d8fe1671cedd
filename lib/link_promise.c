/*
 * link_promise.c - lookahead promises carried by null messages.
 *
 * A plain null message stamped t says: nothing stamped earlier than t
 * follows. A side that knows more about its future (a model with nothing to
 * do until its next timer, inputs on other links that cannot arrive before
 * their own horizons) adds a promise P to its null message: "I send nothing
 * stamped earlier than P on this link, unless something you sent me that I
 * had not consumed yet makes me". It also says how many of our data messages
 * it had consumed. The receiver knows what it sent since then: the earliest
 * reaction to a message stamped s comes back stamped s + latency or later.
 * So the link's input bound is
 *
 *     max(horizon, min(P, first unseen stamp + latency)).
 *
 * The receiver only needs the stamp of the first data message the peer had
 * not consumed; it keeps the first one sent since the peer last confirmed
 * all of them, which is that stamp or an earlier one (a safe bound in O(1)).
 * docs/protocol.md §4 is the wire format.
 */
#include <string.h>

#include "link_internal.h"
#include "mortar/error.h"

#define PROMISE_PAYLOAD_SIZE 16 /* u64 promise_ps, u64 consumed data messages */

static uint64_t get_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

int link_promise_received(mortar_link *link, const void *payload, uint32_t size)
{
    if (size != PROMISE_PAYLOAD_SIZE)
        return MORTAR_EPROTO;
    const uint8_t *p = payload;
    uint64_t consumed = get_le64(p + 8);
    if (consumed > link->counters.msgs_sent)
        return MORTAR_EPROTO; /* it cannot have consumed what we never sent */
    link->have_promise = true;
    link->promise_ps = get_le64(p);
    if (consumed == link->counters.msgs_sent)
        link->first_unseen_stamp_ps = MORTAR_TIME_MAX;
    return MORTAR_OK;
}

uint64_t link_promise_of(const mortar_slot_header *h)
{
    return get_le64((const uint8_t *)h + MORTAR_SLOT_HEADER_SIZE);
}

uint64_t mortar_link_in_bound(const mortar_link *link)
{
    uint64_t h = link->horizon_ps;
    if (!link->have_promise || link->peer_terminated)
        return h;
    uint64_t bound = link->promise_ps;
    uint64_t first = link->first_unseen_stamp_ps;
    if (first != MORTAR_TIME_MAX) {
        uint64_t reaction = first > MORTAR_TIME_MAX - link->timing.latency_ps
                                ? MORTAR_TIME_MAX
                                : first + link->timing.latency_ps;
        if (reaction < bound)
            bound = reaction;
    }
    return bound > h ? bound : h;
}

int mortar_link_send_promise(mortar_link *link, uint64_t now_ps, uint64_t next_send_ps)
{
    if (link->terminated)
        return MORTAR_OK;
    /* slots hold at least 64 bytes of payload (link.c checks the size) */
    void *dst = mortar_link_reserve(link, PROMISE_PAYLOAD_SIZE);
    if (!dst)
        return MORTAR_EAGAIN;
    uint64_t stamp = link_timing_sync_stamp(&link->timing, now_ps);
    uint64_t promise = next_send_ps > MORTAR_TIME_MAX - link->timing.latency_ps
                           ? MORTAR_TIME_MAX
                           : next_send_ps + link->timing.latency_ps;
    put_le64(dst, promise > stamp ? promise : stamp);
    put_le64((uint8_t *)dst + 8, link->counters.msgs_received);
    link_publish_sync(link, stamp, PROMISE_PAYLOAD_SIZE);
    return MORTAR_OK;
}
