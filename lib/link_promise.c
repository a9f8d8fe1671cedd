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
 *
 * A promise binds the peer for good, not only until its next one: a later
 * promise may be lower (a peer may promise less than it knows) without
 * freeing it from the earlier. What still binds it is the highest bound
 * any of its promises gave, each lowered by what we sent since (the
 * reaction to our message stamped s may come at s + latency): every data
 * message of the peer's is checked against that, so that a broken promise
 * is seen even when a lower one came between (link_promise_standing).
 */

#include "link_internal.h"
#include "mortar/error.h"

static uint64_t plus_latency(const mortar_link *link, uint64_t t)
{
    uint64_t l = link->hot.timing.latency_ps;
    return t > MORTAR_TIME_MAX - l ? MORTAR_TIME_MAX : t + l;
}

/* What binds the peer lowered by what we sent since it was last folded:
 * the first of those sends is our first data message since the peer last
 * confirmed them all (or an earlier one: a lower, safe bound). */
static void fold_our_sends(mortar_link *link)
{
    uint64_t sent = link->hot.counters.msgs_sent;
    if (sent == link->standing_sent)
        return;
    uint64_t first = link->hot.first_unseen_stamp_ps;
    if (first != MORTAR_TIME_MAX && plus_latency(link, first) < link->standing_ps)
        link->standing_ps = plus_latency(link, first);
    link->standing_sent = sent;
}

uint64_t link_promise_standing(mortar_link *link)
{
    fold_our_sends(link);
    return link->standing_ps;
}

/* The peer promises nothing stamped before `promise`, having consumed
 * `consumed` of our data messages. */
static int take(mortar_link *link, uint64_t promise, uint64_t consumed)
{
    if (consumed > link->hot.counters.msgs_sent)
        return MORTAR_EPROTO; /* it cannot have consumed what we never sent */
    fold_our_sends(link); /* before the first unseen stamp may be reset */
    link->hot.have_promise = true;
    link->promise_ps = promise;
    if (consumed == link->hot.counters.msgs_sent)
        link->hot.first_unseen_stamp_ps = MORTAR_TIME_MAX;
    uint64_t bound = mortar_link_in_bound(link);
    if (bound > link->standing_ps)
        link->standing_ps = bound;
    return MORTAR_OK;
}

int link_promise_received(mortar_link *link, const mortar_slot_header *h)
{
    if (h->promise_ps == 0)
        return MORTAR_OK; /* a plain null message */
    return take(link, h->promise_ps, h->consumed);
}

int mortar_link_take_promise(mortar_link *link, uint64_t next_send_ps, uint64_t consumed)
{
    return take(link, plus_latency(link, next_send_ps), consumed);
}

int mortar_link_charge(mortar_link *link, uint64_t now_ps, uint8_t type, const void *payload,
                       uint32_t size, uint64_t *stamp)
{
    /* The peer heard nothing: the next null message stays due as it was. */
    uint64_t last_send = link->hot.timing.last_send_ps;
    int rc = mortar_link__timing_stamp_message(&link->hot.timing, now_ps, type, payload, size,
                                               0, stamp);
    link->hot.timing.last_send_ps = last_send;
    return rc;
}

uint64_t mortar_link_in_bound(const mortar_link *link)
{
    uint64_t h = link->hot.horizon_ps;
    if (!link->hot.have_promise || link->peer_terminated)
        return h;
    uint64_t bound = link->promise_ps;
    uint64_t first = link->hot.first_unseen_stamp_ps;
    if (first != MORTAR_TIME_MAX) {
        uint64_t reaction = plus_latency(link, first);
        if (reaction < bound)
            bound = reaction;
    }
    return bound > h ? bound : h;
}

int mortar_link_send_promise(mortar_link *link, uint64_t now_ps, uint64_t next_send_ps)
{
    if (link_nulls_over(link))
        return MORTAR_OK;
    mortar_slot_header *h = link_null_slot(link);
    if (!h)
        return MORTAR_EAGAIN;
    uint64_t stamp = mortar_link_timing_sync_stamp(&link->hot.timing, now_ps);
    uint64_t promise = plus_latency(link, next_send_ps);
    /* at least the stamp, which is above 0 (the latency is): never "none" */
    link_publish_null(link, h, stamp, promise > stamp ? promise : stamp,
                      link->hot.counters.msgs_received);
    return MORTAR_OK;
}
