/*
 * link.c - the hot path of a link: stamping, sending into the transmit ring,
 * peeking and popping the receive ring, null and terminate messages.
 *
 * Each direction is a ring of fixed-size slots. The producer writes a slot's
 * payload and header, then publishes it by storing the ownership byte with
 * release order; the consumer reads the byte with acquire order, uses the
 * slot, and hands it back by clearing the byte. Positions are private to each
 * side; only slots (and the futex words) are shared.
 */
#include "link_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include "mortar/error.h"

int link_set_error(mortar_link *link, int code, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(link->err, sizeof link->err, "link '%s': %s", link->name, msg);
    return code;
}

void mortar_link_params_init(mortar_link_params *p)
{
    memset(p, 0, sizeof *p);
    p->protocol = MORTAR_PROTO_TEST;
    p->slot_size = 2048;
    p->slot_count = 1024;
    p->latency_ps = MORTAR_NS(500);
    p->sync_mode = MORTAR_SYNC_ON;
    p->wait_policy = MORTAR_WAIT_BLOCK;
    p->spin_ns = 2000;
    p->handshake_timeout_ms = 30000;
}

int mortar_link_params_check(const mortar_link_params *p, char *err, size_t err_size)
{
    const char *name = p->name ? p->name : "?";
    uint64_t interval = p->sync_interval_ps ? p->sync_interval_ps : p->latency_ps;
    const char *why = NULL;
    if (p->latency_ps == 0)
        why = "latency must be greater than 0";
    else if (interval > p->latency_ps)
        why = "sync interval must not exceed the latency (0 < sync_interval <= latency)";
    else if (p->slot_size < MORTAR_SLOT_HEADER_SIZE || p->slot_size % 64 != 0)
        why = "slot size must be a multiple of 64 and at least 64 bytes";
    else if (p->slot_size > (16u << 20))
        why = "slot size must be at most 16 MiB";
    else if (p->slot_count < 2 || p->slot_count > (1u << 20))
        why = "slot count must be between 2 and 1048576";
    else if (p->sync_mode != MORTAR_SYNC_ON && p->sync_mode != MORTAR_SYNC_OFF)
        why = "unknown sync mode";
    else if (p->wait_policy > MORTAR_WAIT_BLOCK)
        why = "unknown wait policy";
    else if (p->upper_intro_size > 65536)
        why = "upper intro larger than 64 KiB";
    if (!why)
        return MORTAR_OK;
    if (err)
        snprintf(err, err_size, "link '%s': %s", name, why);
    return MORTAR_EINVAL;
}

void link_map_rings(mortar_link *link, bool is_listener)
{
    uint8_t *base = link->shm;
    size_t ring_bytes = (size_t)link->slot_size * link->slot_count;
    uint8_t *ring0 = base + MORTAR_SHM_HEADER_SIZE;
    uint8_t *ring1 = ring0 + ring_bytes;
    shm_header *h = link->shm;
    link->tx_ring = is_listener ? ring0 : ring1;
    link->rx_ring = is_listener ? ring1 : ring0;
    link->tx_dir = is_listener ? &h->dir[0] : &h->dir[1];
    link->rx_dir = is_listener ? &h->dir[1] : &h->dir[0];
}

void link_announce_sleeping(mortar_link *link)
{
    uint32_t flags = 0;
    if (link->wait_policy != MORTAR_WAIT_BLOCK)
        flags = LINK_CONSUMER_NEVER_SLEEPS;
    else if (link_barrier_available())
        flags = LINK_CONSUMER_BARRIER;
    link->sleep_barrier = flags == LINK_CONSUMER_BARRIER;
    atomic_store_explicit(&link->rx_dir->consumer_flags, flags, memory_order_relaxed);
}

void link_learn_peer_sleeping(mortar_link *link)
{
    uint32_t flags = atomic_load_explicit(&link->tx_dir->consumer_flags, memory_order_relaxed);
    if (flags & LINK_CONSUMER_NEVER_SLEEPS)
        link->publish = PUBLISH_RELEASE;
    else if ((flags & LINK_CONSUMER_BARRIER) && link_barrier_register())
        link->publish = PUBLISH_CHECK;
    else
        link->publish = PUBLISH_FENCE;
}

/* ---- getters ----------------------------------------------------------- */

const char *mortar_link_name(const mortar_link *l) { return l->name; }
const char *mortar_link_errmsg(const mortar_link *l) { return l->err[0] ? l->err : "no error"; }
uint64_t mortar_link_latency(const mortar_link *l) { return l->timing.latency_ps; }
uint64_t mortar_link_sync_interval(const mortar_link *l) { return l->sync_interval_ps; }
uint64_t mortar_link_bandwidth(const mortar_link *l) { return l->timing.bandwidth_bps; }
mortar_sync_mode mortar_link_sync_mode(const mortar_link *l) { return l->sync_mode; }
uint32_t mortar_link_protocol(const mortar_link *l) { return l->protocol; }
uint32_t mortar_link_max_payload(const mortar_link *l) { return l->slot_size - MORTAR_SLOT_HEADER_SIZE; }
uint64_t mortar_link_in_horizon(const mortar_link *l) { return l->horizon_ps; }
bool mortar_link_peer_terminated(const mortar_link *l) { return l->peer_terminated; }
uint64_t mortar_link_sync_due(const mortar_link *l) { return l->timing.last_send_ps + l->sync_interval_ps; }

const void *mortar_link_peer_intro(const mortar_link *l, uint32_t *size)
{
    if (size)
        *size = l->peer_intro_size;
    return l->peer_intro;
}

void mortar_link_get_counters(const mortar_link *l, mortar_link_counters *out)
{
    *out = l->counters;
}

/* ---- sending ----------------------------------------------------------- */

/* Bumps the futex word and wakes the consumer sleeping on it. */
static void wake_peer(mortar_link *link)
{
    atomic_fetch_add_explicit(&link->tx_dir->futex_seq, 1, memory_order_release);
    syscall(SYS_futex, &link->tx_dir->futex_seq, FUTEX_WAKE, 1, NULL, NULL, 0);
    link->counters.wakes_sent++;
}

static inline mortar_slot_header *free_tx_slot(mortar_link *link)
{
    mortar_slot_header *h = link_slot(link->tx_ring, link->slot_size, link->tx_pos);
    if (slot_own_type(h) & MORTAR_SLOT_FULL)
        return NULL;
    return h;
}

/* Whether the sleeping consumer wants this slot: data always; a null
 * message only when its stamp or promise reaches the consumer's wake_from
 * (mortar_link_wait_bound). Read only when the consumer sleeps. */
static bool consumer_wants(const mortar_link *link, const mortar_slot_header *h, uint8_t type,
                           uint64_t stamp)
{
    uint64_t from = atomic_load_explicit(&link->tx_dir->wake_from_ps, memory_order_relaxed);
    if (type != MORTAR_MSG_SYNC || from == 0 || stamp >= from)
        return true;
    return h->promise_ps >= from;
}

/* Stores the slot's ownership byte last, then wakes a sleeping consumer.
 * The wake needs, on our side, the store before the read of `waiting`
 * (link_wait.c does the reverse): a fence per message, unless the consumer
 * never sleeps (no read at all) or runs the barrier for us before it sleeps
 * (link_barrier.c: a plain read). The fence makes each message wait for its
 * slot's cache line; without it the stores of a stream overlap. */
__attribute__((always_inline)) static inline void publish(mortar_link *link,
                                                         mortar_slot_header *h, uint8_t type,
                                                         uint32_t size, uint64_t stamp)
{
    h->payload_size = size;
    h->sequence = link->tx_seq++;
    h->timestamp_ps = stamp;
    link->tx_pos = (link->tx_pos + 1 == link->slot_count) ? 0 : link->tx_pos + 1;
    uint8_t own_type = (uint8_t)(MORTAR_SLOT_FULL | type);
    switch (link->publish) {
    case PUBLISH_RELEASE:
        slot_set_own_type(h, own_type);
        return;
    case PUBLISH_CHECK:
        slot_set_own_type(h, own_type);
        atomic_signal_fence(memory_order_seq_cst); /* the compiler keeps the order */
        if (atomic_load_explicit(&link->tx_dir->waiting, memory_order_relaxed) &&
            consumer_wants(link, h, type, stamp))
            wake_peer(link);
        return;
    case PUBLISH_FENCE:
        atomic_exchange_explicit((_Atomic uint8_t *)&h->own_type, own_type,
                                 memory_order_seq_cst);
        if (atomic_load_explicit(&link->tx_dir->waiting, memory_order_seq_cst) &&
            consumer_wants(link, h, type, stamp))
            wake_peer(link);
        return;
    }
}

#define unlikely(x) __builtin_expect(!!(x), 0)
/* Error paths stay out of the hot functions' code and registers. */
#define COLD __attribute__((cold, noinline))

/* Why a send of `size` bytes cannot even look at the ring (sets the error
 * text), or MORTAR_OK. */
COLD static int send_refused(mortar_link *link, uint32_t size)
{
    if (link->terminated)
        return link_set_error(link, MORTAR_ESTATE, "send after terminate");
    if (size > mortar_link_max_payload(link))
        return link_set_error(link, MORTAR_ETOOBIG,
                              "message of %u bytes does not fit a slot (at most %u bytes)", size,
                              mortar_link_max_payload(link));
    return MORTAR_OK;
}

/* Why a commit of a message of `type` at `now_ps` was refused (sets the
 * error text). */
COLD static int commit_refused(mortar_link *link, uint8_t type, uint64_t now_ps)
{
    if (type < MORTAR_MSG_UPPER_MIN || type > MORTAR_MSG_TYPE_MASK)
        return link_set_error(link, MORTAR_EINVAL,
                              "message type 0x%x is not an upper-protocol type", type);
    return link_set_error(link, MORTAR_EINVAL, "send at %llu ps is earlier than a previous send",
                          (unsigned long long)now_ps);
}

/* Stamps and publishes the data message whose payload is in slot `h`
 * (inlined into send: the call cost a quarter of a send). */
__attribute__((always_inline)) static inline int commit_data(mortar_link *link,
                                                            mortar_slot_header *h,
                                                            uint64_t now_ps, uint8_t type,
                                                            uint32_t size, uint32_t wire_bytes,
                                                            uint64_t *stamp)
{
    uint64_t ts;
    if (unlikely(type < MORTAR_MSG_UPPER_MIN || type > MORTAR_MSG_TYPE_MASK ||
                 link_timing_stamp(&link->timing, now_ps, wire_bytes ? wire_bytes : size, &ts) !=
                     0))
        return commit_refused(link, type, now_ps);
    publish(link, h, type, size, ts);
    link_promise_sent(link, ts);
    link->counters.msgs_sent++;
    link->counters.bytes_sent += size;
    if (stamp)
        *stamp = ts;
    return MORTAR_OK;
}

void *mortar_link_reserve(mortar_link *link, uint32_t size)
{
    if (send_refused(link, size) != MORTAR_OK)
        return NULL;
    mortar_slot_header *h = free_tx_slot(link);
    if (!h) {
        link->counters.full_stalls++; /* not an error: no message text (hot path) */
        return NULL;
    }
    link->reserved = h;
    return (uint8_t *)h + MORTAR_SLOT_HEADER_SIZE;
}

int mortar_link_commit(mortar_link *link, uint64_t now_ps, uint8_t type, uint32_t size,
                       uint32_t wire_bytes, uint64_t *stamp)
{
    mortar_slot_header *h = link->reserved;
    if (!h)
        return link_set_error(link, MORTAR_ESTATE, "commit without reserve");
    int rc = commit_data(link, h, now_ps, type, size, wire_bytes, stamp);
    if (rc == MORTAR_OK)
        link->reserved = NULL;
    return rc;
}

/* The hot path: one look at the ring, the copy, the stamp, the store. */
int mortar_link_send(mortar_link *link, uint64_t now_ps, uint8_t type, const void *payload,
                     uint32_t size, uint32_t wire_bytes, uint64_t *stamp)
{
    if (unlikely(link->terminated || size > mortar_link_max_payload(link)))
        return send_refused(link, size);
    mortar_slot_header *h = free_tx_slot(link);
    if (!h) {
        link->counters.full_stalls++;
        return MORTAR_EAGAIN;
    }
    if (size)
        memcpy((uint8_t *)h + MORTAR_SLOT_HEADER_SIZE, payload, size);
    return commit_data(link, h, now_ps, type, size, wire_bytes, stamp);
}

mortar_slot_header *link_null_slot(mortar_link *link)
{
    mortar_slot_header *h = free_tx_slot(link);
    if (!h)
        link->counters.full_stalls++;
    return h;
}

void link_publish_null(mortar_link *link, mortar_slot_header *h, uint64_t stamp,
                       uint64_t promise_ps, uint64_t consumed)
{
    link->reserved = NULL; /* a reserved slot is this one: taken back */
    h->promise_ps = promise_ps; /* cleared too: the slot held other messages */
    h->consumed = consumed;
    publish(link, h, MORTAR_MSG_SYNC, 0, stamp);
    link->counters.syncs_sent++;
}

int mortar_link_send_sync(mortar_link *link, uint64_t now_ps)
{
    if (link->terminated)
        return MORTAR_OK;
    mortar_slot_header *h = link_null_slot(link);
    if (!h)
        return MORTAR_EAGAIN;
    link_publish_null(link, h, link_timing_sync_stamp(&link->timing, now_ps), 0, 0);
    return MORTAR_OK;
}

int mortar_link_terminate(mortar_link *link, uint32_t timeout_ms)
{
    if (link->terminated)
        return MORTAR_OK;
    for (uint32_t waited_us = 0;; waited_us += 100) {
        mortar_slot_header *h = free_tx_slot(link);
        if (h) {
            publish(link, h, MORTAR_MSG_TERMINATE, 0, MORTAR_TIME_MAX);
            link->terminated = true;
            return MORTAR_OK;
        }
        if (waited_us >= timeout_ms * 1000u)
            return link_set_error(link, MORTAR_ETIMEDOUT,
                                  "ring stayed full for %u ms while sending terminate", timeout_ms);
        usleep(100);
    }
}

/* ---- receiving --------------------------------------------------------- */

bool mortar_link_has_input(const mortar_link *link)
{
    const mortar_slot_header *h = link_slot(link->rx_ring, link->slot_size, link->rx_pos);
    return (slot_own_type(h) & MORTAR_SLOT_FULL) != 0;
}

static inline void release_rx(mortar_link *link, mortar_slot_header *h)
{
    slot_set_own_type(h, 0);
    link->rx_pos = (link->rx_pos + 1 == link->slot_count) ? 0 : link->rx_pos + 1;
}

/* A data message stamped `ts` that breaks the peer's promise: the error. */
COLD static int promise_broken(mortar_link *link, uint64_t ts)
{
    if (ts < link->horizon_ps)
        return link_set_error(link, MORTAR_EPROTO,
                              "message stamped %llu ps arrived after a promise of %llu ps",
                              (unsigned long long)ts, (unsigned long long)link->horizon_ps);
    return link_set_error(link, MORTAR_EPROTO,
                          "message stamped %llu ps arrived before the peer's promise of %llu ps",
                          (unsigned long long)ts,
                          (unsigned long long)mortar_link_in_bound(link));
}

/* Consumes a slot of the link's own types (terminate, null message), or
 * reports a malformed one. */
static int consume_link_message(mortar_link *link, mortar_slot_header *h, uint8_t type,
                                uint64_t ts)
{
    if (type == MORTAR_MSG_TERMINATE) {
        link->horizon_ps = MORTAR_TIME_MAX;
        link->peer_terminated = true;
        release_rx(link, h);
        return MORTAR_OK;
    }
    if (type != MORTAR_MSG_SYNC)
        return link_set_error(link, MORTAR_EPROTO, "malformed slot: type 0x%x, %u bytes", type,
                              h->payload_size);
    if (ts < link->horizon_ps && link->sync_mode == MORTAR_SYNC_ON)
        return promise_broken(link, ts);
    if (ts > link->horizon_ps)
        link->horizon_ps = ts;
    uint32_t size = h->payload_size;
    if (size)
        return link_set_error(link, MORTAR_EPROTO, "malformed null message: %u bytes of payload",
                              size);
    if (link_promise_received(link, h) != MORTAR_OK)
        return link_set_error(link, MORTAR_EPROTO,
                              "malformed promise: %llu of our data messages consumed, %llu sent",
                              (unsigned long long)h->consumed,
                              (unsigned long long)link->counters.msgs_sent);
    link->counters.syncs_received++;
    release_rx(link, h);
    return MORTAR_OK;
}

int mortar_link_peek(mortar_link *link, mortar_msg *msg)
{
    for (;;) {
        mortar_slot_header *h = link_slot(link->rx_ring, link->slot_size, link->rx_pos);
        uint8_t own_type = slot_own_type(h);
        if (!(own_type & MORTAR_SLOT_FULL))
            return 0;
        uint8_t type = own_type & MORTAR_MSG_TYPE_MASK;
        uint64_t ts = h->timestamp_ps;
        if (unlikely(type < MORTAR_MSG_UPPER_MIN)) {
            int rc = consume_link_message(link, h, type, ts);
            if (rc != MORTAR_OK)
                return rc;
            continue;
        }
        uint32_t size = h->payload_size; /* read once: the peer may write it */
        if (unlikely(link->sync_mode == MORTAR_SYNC_ON &&
                     (ts < link->horizon_ps ||
                      (link->have_promise && ts < mortar_link_in_bound(link)))))
            return promise_broken(link, ts);
        if (unlikely(size > mortar_link_max_payload(link)))
            return link_set_error(link, MORTAR_EPROTO, "malformed slot: type 0x%x, %u bytes",
                                  type, size);
        if (ts > link->horizon_ps)
            link->horizon_ps = ts;
        msg->type = type;
        msg->size = size;
        msg->timestamp_ps = ts;
        msg->payload = (uint8_t *)h + MORTAR_SLOT_HEADER_SIZE;
        return 1;
    }
}

void mortar_link_pop(mortar_link *link)
{
    mortar_slot_header *h = link_slot(link->rx_ring, link->slot_size, link->rx_pos);
    link->counters.msgs_received++;
    link->counters.bytes_received += h->payload_size;
    release_rx(link, h);
}
