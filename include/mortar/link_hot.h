/*
 * mortar/link_hot.h - the link's hot path, inline (included by mortar/link.h
 * at its end; not to be included alone).
 *
 * Sending and receiving a message are a few loads and stores on one slot.
 * As calls into the library a one-way stream ran at a fifth of the rate it
 * runs inline: the two sides keep many slots' cache lines in flight only
 * while a message costs each of them a handful of instructions, and a call,
 * the registers it saves and its bookkeeping are more than that
 * (bench/README.md, "Stream"). So, as SimBricks' channel does, the bodies
 * of mortar_link_send, mortar_link_peek, mortar_link_pop and
 * mortar_link_has_input are here, on the part of the link they touch, and
 * every rare case (an error, a null or terminate message, a peer's promise
 * to check, a sleeping consumer to wake) calls into the library.
 *
 * Private: the struct below and everything named mortar_link__ are not
 * API; use the functions of mortar/link.h. Their layout is part of the
 * library's ABI (docs/sdk.md): a change to it changes the major version.
 */
#ifndef MORTAR_LINK_HOT_H
#define MORTAR_LINK_HOT_H

#include <string.h>

#include "mortar/error.h"

/* The hot functions are inlined at every call: a compiler left to choose
 * keeps mortar_link_send out of line (it weighs the rare paths too). */
#define MORTAR_LINK__HOT static inline __attribute__((always_inline))

/* ---- timing: shared by shared-memory links and in-process connections ---- */

/* A sender's wire: the rule of the header comment of mortar/link.h. */
typedef struct mortar_link_timing {
    uint64_t latency_ps;
    uint64_t bandwidth_bps; /* 0: no serialization delay */
    uint64_t busy_until_ps; /* the sender's wire is busy until then */
    uint64_t last_send_ps;  /* `now` of the last send (data or sync) */
    uint64_t last_stamp_ps; /* stamps never decrease */
    /* the last data message on the wire: it left at last_wire_start_ps
     * and took last_wire_ps (0: it cost no wire time) */
    uint64_t last_wire_start_ps, last_wire_ps;
    mortar_pcie_wire pcie; /* gen 0: no PCIe transaction layer */
} mortar_link_timing;

/* A copy of the timing of this side's sends: for a side that works out
 * what its peer's sends would be stamped (the same latency, rate and
 * transaction layer; mortar/pcie.h, held reads). */
void mortar_link_tx_timing(const mortar_link *link, mortar_link_timing *out);

/* How long a message of `wire_bytes` occupies the wire. */
static inline uint64_t mortar_link_timing_wire_ps(const mortar_link_timing *t,
                                                  uint64_t wire_bytes)
{
    return t->bandwidth_bps ? mortar_serialization_ps(wire_bytes, t->bandwidth_bps) : 0;
}

/* The stamp of a message sent at `now` that waits `host_ps` before it
 * enters the wire, occupies it for `wire_ps` and is acted on at the
 * arrival of its first `first_ps` of wire time; updates the state.
 * MORTAR_EINVAL when `now` goes back. */
static inline int mortar_link_timing_stamp_cost(mortar_link_timing *t, uint64_t now,
                                                uint64_t host_ps, uint64_t wire_ps,
                                                uint64_t first_ps, uint64_t *stamp)
{
    if (now < t->last_send_ps)
        return MORTAR_EINVAL;
    uint64_t start = now + host_ps > t->busy_until_ps ? now + host_ps : t->busy_until_ps;
    t->busy_until_ps = start + wire_ps;
    t->last_wire_start_ps = start;
    t->last_wire_ps = wire_ps;
    t->last_send_ps = now;
    /* not below an earlier stamp: that message's first packet left no
     * later than this one's (it is behind it on the wire) */
    uint64_t s = start + first_ps + t->latency_ps;
    t->last_stamp_ps = s > t->last_stamp_ps ? s : t->last_stamp_ps;
    *stamp = s;
    return MORTAR_OK;
}

/* The stamp of a message sent at `now` that occupies the wire for
 * `wire_ps`; updates the state. MORTAR_EINVAL when `now` goes back. */
static inline int mortar_link_timing_stamp(mortar_link_timing *t, uint64_t now,
                                           uint64_t wire_ps, uint64_t *stamp)
{
    return mortar_link_timing_stamp_cost(t, now, 0, wire_ps, wire_ps, stamp);
}

/* The stamp of message `type` with `payload` sent at `now`: the PCIe
 * transaction layer's cost when the timing has one, else `wire_bytes` (0:
 * `size`) at the bandwidth. Library: a PCIe message costs a parse. */
int mortar_link__timing_stamp_message(mortar_link_timing *t, uint64_t now, uint8_t type,
                                      const void *payload, uint32_t size,
                                      uint32_t wire_bytes, uint64_t *stamp);

/* The stamp of a null message at `now`: now + latency, but never below an
 * earlier stamp (a frame still on the wire arrives later than that). */
static inline uint64_t mortar_link_timing_sync_stamp(mortar_link_timing *t, uint64_t now)
{
    if (now > t->last_send_ps)
        t->last_send_ps = now;
    uint64_t s = now + t->latency_ps;
    if (s > t->last_stamp_ps)
        t->last_stamp_ps = s;
    return t->last_stamp_ps;
}

/* ---- the link's hot state ------------------------------------------------ */

/* How this side publishes a slot, from what its consumer announced during
 * setup (docs/protocol.md §2). */
enum {
    MORTAR_LINK__PUBLISH_FENCE = 0, /* seq_cst exchange, then read `waiting` (library) */
    MORTAR_LINK__PUBLISH_CHECK = 1, /* release store, plain read of `waiting` */
    MORTAR_LINK__PUBLISH_RELEASE = 2, /* release store alone: the consumer never sleeps */
};

/* The first member of every link: what the inline functions touch. */
typedef struct mortar_link_hot {
    uint8_t *tx_ring, *rx_ring;
    uint32_t slot_size, slot_count;
    uint32_t tx_pos, rx_pos, tx_seq;
    uint8_t publish;   /* MORTAR_LINK__PUBLISH_* */
    bool terminated;   /* we sent terminate */
    bool have_promise; /* the peer promised: its data messages are checked against it */
    mortar_sync_mode sync_mode;
    const uint32_t *consumer_waiting; /* our consumer's `waiting` word (shared memory) */
    uint64_t horizon_ps;              /* the newest stamp received */
    /* the stamp of our first data message since the peer last said it had
     * consumed them all (MORTAR_TIME_MAX: none); link_promise.c */
    uint64_t first_unseen_stamp_ps;
    mortar_link_timing timing;
    mortar_link_counters counters;
} mortar_link_hot;

static inline mortar_link_hot *mortar_link__hot(mortar_link *link)
{
    return (mortar_link_hot *)(void *)link;
}

static inline mortar_slot_header *mortar_link__slot(uint8_t *ring, uint32_t slot_size,
                                                    uint32_t pos)
{
    return (mortar_slot_header *)(void *)(ring + (size_t)pos * slot_size);
}

/* The ownership byte is the slot's only synchronization: the producer
 * stores it last (release), the consumer reads it first (acquire). */
static inline uint8_t mortar_link__own_type(const mortar_slot_header *h)
{
    return __atomic_load_n(&h->own_type, __ATOMIC_ACQUIRE);
}

static inline void mortar_link__set_own_type(mortar_slot_header *h, uint8_t own_type)
{
    __atomic_store_n(&h->own_type, own_type, __ATOMIC_RELEASE);
}

/* The library's side of the hot path (lib/link.c): the errors (they set
 * the link's error text), the wake-up, the fenced publish, every check of
 * a slot. */
int mortar_link__send_refused(mortar_link *link, uint32_t size) __attribute__((cold));
int mortar_link__commit_refused(mortar_link *link, uint8_t type, uint64_t now_ps)
    __attribute__((cold));
void mortar_link__wake_consumer(mortar_link *link, const mortar_slot_header *h,
                                uint8_t type, uint64_t stamp);
void mortar_link__publish_fenced(mortar_link *link, mortar_slot_header *h, uint8_t type,
                                 uint64_t stamp);
int mortar_link__peek_checked(mortar_link *link, mortar_msg *msg);

/* ---- sending ------------------------------------------------------------- */

/* Fills in slot `h`'s header and hands the slot to the consumer: the
 * ownership byte last, then, if the consumer may sleep, a wake-up. */
MORTAR_LINK__HOT void mortar_link__publish(mortar_link *link, mortar_slot_header *h,
                                           uint8_t type, uint32_t size, uint64_t stamp)
{
    mortar_link_hot *k = mortar_link__hot(link);
    h->payload_size = size;
    h->sequence = k->tx_seq++;
    h->timestamp_ps = stamp;
    k->tx_pos = k->tx_pos + 1 == k->slot_count ? 0 : k->tx_pos + 1;
    uint8_t own_type = (uint8_t)(MORTAR_SLOT_FULL | type);
    if (k->publish == MORTAR_LINK__PUBLISH_RELEASE) {
        mortar_link__set_own_type(h, own_type);
    } else if (k->publish == MORTAR_LINK__PUBLISH_CHECK) {
        /* the consumer's barrier orders this store before the read below
         * (lib/link_barrier.c); the compiler must keep the order too */
        mortar_link__set_own_type(h, own_type);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        if (__atomic_load_n(k->consumer_waiting, __ATOMIC_RELAXED))
            mortar_link__wake_consumer(link, h, type, stamp);
    } else {
        mortar_link__publish_fenced(link, h, type, stamp);
    }
}

/* The stamp of the data message whose payload is in slot `h`: on the wire
 * for `wire_bytes` (0: `size`) at the bandwidth, or what the PCIe
 * transaction layer makes of it. */
MORTAR_LINK__HOT int mortar_link__stamp(mortar_link_hot *k, const mortar_slot_header *h,
                                        uint64_t now_ps, uint8_t type, uint32_t size,
                                        uint32_t wire_bytes, uint64_t *ts)
{
    if (__builtin_expect(k->timing.pcie.gen != 0, 0))
        return mortar_link__timing_stamp_message(&k->timing, now_ps, type,
                                                 (const uint8_t *)h + MORTAR_SLOT_HEADER_SIZE,
                                                 size, wire_bytes, ts);
    uint64_t wire_ps = mortar_link_timing_wire_ps(&k->timing, wire_bytes ? wire_bytes : size);
    return mortar_link_timing_stamp(&k->timing, now_ps, wire_ps, ts);
}

/* Stamps and publishes the data message whose payload is in slot `h`. */
MORTAR_LINK__HOT int mortar_link__commit(mortar_link *link, mortar_slot_header *h,
                                         uint64_t now_ps, uint8_t type, uint32_t size,
                                         uint32_t wire_bytes, uint64_t *stamp)
{
    mortar_link_hot *k = mortar_link__hot(link);
    uint64_t ts;
    if (__builtin_expect(type < MORTAR_MSG_UPPER_MIN || type > MORTAR_MSG_TYPE_MASK ||
                             mortar_link__stamp(k, h, now_ps, type, size, wire_bytes, &ts) !=
                                 0,
                         0))
        return mortar_link__commit_refused(link, type, now_ps);
    if (k->first_unseen_stamp_ps == MORTAR_TIME_MAX)
        k->first_unseen_stamp_ps = ts;
    k->counters.msgs_sent++;
    k->counters.bytes_sent += size;
    if (stamp)
        *stamp = ts;
    mortar_link__publish(link, h, type, size, ts);
    return MORTAR_OK;
}

MORTAR_LINK__HOT int mortar_link_send(mortar_link *link, uint64_t now_ps, uint8_t type,
                                      const void *payload, uint32_t size,
                                      uint32_t wire_bytes, uint64_t *stamp)
{
    mortar_link_hot *k = mortar_link__hot(link);
    if (__builtin_expect(k->terminated || size > k->slot_size - MORTAR_SLOT_HEADER_SIZE,
                         0))
        return mortar_link__send_refused(link, size);
    mortar_slot_header *h = mortar_link__slot(k->tx_ring, k->slot_size, k->tx_pos);
    if (mortar_link__own_type(h) & MORTAR_SLOT_FULL) {
        k->counters.full_stalls++;
        return MORTAR_EAGAIN;
    }
    if (size)
        memcpy((uint8_t *)h + MORTAR_SLOT_HEADER_SIZE, payload, size);
    return mortar_link__commit(link, h, now_ps, type, size, wire_bytes, stamp);
}

/* ---- receiving ----------------------------------------------------------- */

MORTAR_LINK__HOT bool mortar_link_has_input(const mortar_link *link)
{
    const mortar_link_hot *k = (const mortar_link_hot *)(const void *)link;
    const mortar_slot_header *h = mortar_link__slot(k->rx_ring, k->slot_size, k->rx_pos);
    return (mortar_link__own_type(h) & MORTAR_SLOT_FULL) != 0;
}

/* Hands the slot at the read position back to the producer. */
MORTAR_LINK__HOT void mortar_link__release(mortar_link_hot *k, mortar_slot_header *h)
{
    mortar_link__set_own_type(h, 0);
    k->rx_pos = k->rx_pos + 1 == k->slot_count ? 0 : k->rx_pos + 1;
}

/* A data message whose checks are a comparison or two is returned here;
 * anything else (a null or terminate message, a stamp below the horizon,
 * a peer's promise to hold the stamp against, a malformed slot) goes to
 * the library, which reads the slot again and does it all. */
MORTAR_LINK__HOT int mortar_link_peek(mortar_link *link, mortar_msg *msg)
{
    mortar_link_hot *k = mortar_link__hot(link);
    mortar_slot_header *h = mortar_link__slot(k->rx_ring, k->slot_size, k->rx_pos);
    uint8_t own_type = mortar_link__own_type(h);
    if (!(own_type & MORTAR_SLOT_FULL))
        return 0;
    uint8_t type = own_type & MORTAR_MSG_TYPE_MASK;
    uint64_t ts = h->timestamp_ps;
    uint32_t size = h->payload_size; /* read once: the peer may write it */
    if (__builtin_expect(type < MORTAR_MSG_UPPER_MIN ||
                             size > k->slot_size - MORTAR_SLOT_HEADER_SIZE ||
                             (k->sync_mode == MORTAR_SYNC_ON &&
                              (ts < k->horizon_ps || k->have_promise)),
                         0))
        return mortar_link__peek_checked(link, msg);
    if (ts > k->horizon_ps)
        k->horizon_ps = ts;
    msg->type = type;
    msg->size = size;
    msg->timestamp_ps = ts;
    msg->payload = (uint8_t *)h + MORTAR_SLOT_HEADER_SIZE;
    return 1;
}

MORTAR_LINK__HOT void mortar_link_pop(mortar_link *link)
{
    mortar_link_hot *k = mortar_link__hot(link);
    mortar_slot_header *h = mortar_link__slot(k->rx_ring, k->slot_size, k->rx_pos);
    k->counters.msgs_received++;
    k->counters.bytes_received += h->payload_size;
    mortar_link__release(k, h);
}

#endif
