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

int mortar_link__timing_stamp_message(mortar_link_timing *t, uint64_t now, uint8_t type,
                                      const void *payload, uint32_t size,
                                      uint32_t wire_bytes, uint64_t *stamp)
{
    if (!t->pcie.gen) {
        uint64_t wire_ps = mortar_link_timing_wire_ps(t, wire_bytes ? wire_bytes : size);
        return mortar_link_timing_stamp(t, now, wire_ps, stamp);
    }
    mortar_pcie_cost c;
    mortar_pcie_wire_cost(&t->pcie, type, payload, size, &c);
    return mortar_link_timing_stamp_cost(t, now, c.host_ps, c.wire_ps, c.first_ps, stamp);
}

void mortar_link_tx_timing(const mortar_link *link, mortar_link_timing *out)
{
    *out = link->hot.timing;
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
    char pcie_why[120] = "pcie."; /* the layer's own message follows the prefix */
    if (p->latency_ps == 0)
        why = "latency must be greater than 0";
    else if (p->latency_ps > MORTAR_LINK_MAX_LATENCY_PS)
        why = "latency must be at most 1 s";
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
    else if (p->pcie.gen && p->protocol != MORTAR_PROTO_PCIE)
        why = "a PCIe transaction layer on a link that does not speak PCIe";
    else if (p->pcie.gen && p->bandwidth_bps)
        why = "a PCIe link takes its rate from its generation and width, not a bandwidth";
    else if (mortar_pcie_wire_check(&p->pcie, pcie_why + 5, sizeof pcie_why - 5))
        why = pcie_why;
    if (!why)
        return MORTAR_OK;
    if (err)
        snprintf(err, err_size, "link '%s': %s", name, why);
    return MORTAR_EINVAL;
}

void link_map_rings(mortar_link *link, bool is_listener)
{
    uint8_t *base = link->shm;
    size_t ring_bytes = (size_t)link->hot.slot_size * link->hot.slot_count;
    uint8_t *ring0 = base + MORTAR_SHM_HEADER_SIZE;
    uint8_t *ring1 = ring0 + ring_bytes;
    shm_header *h = link->shm;
    link->hot.tx_ring = is_listener ? ring0 : ring1;
    link->hot.rx_ring = is_listener ? ring1 : ring0;
    link->tx_dir = is_listener ? &h->dir[0] : &h->dir[1];
    link->rx_dir = is_listener ? &h->dir[1] : &h->dir[0];
    link->hot.consumer_waiting = (const uint32_t *)(const void *)&link->tx_dir->waiting;
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
        link->hot.publish = MORTAR_LINK__PUBLISH_RELEASE;
    else if ((flags & LINK_CONSUMER_BARRIER) && link_barrier_register())
        link->hot.publish = MORTAR_LINK__PUBLISH_CHECK;
    else
        link->hot.publish = MORTAR_LINK__PUBLISH_FENCE;
}

/* ---- getters ----------------------------------------------------------- */

const char *mortar_link_name(const mortar_link *l) { return l->name; }
const char *mortar_link_errmsg(const mortar_link *l) { return l->err[0] ? l->err : "no error"; }
uint64_t mortar_link_latency(const mortar_link *l) { return l->hot.timing.latency_ps; }
uint64_t mortar_link_sync_interval(const mortar_link *l) { return l->sync_interval_ps; }
uint64_t mortar_link_bandwidth(const mortar_link *l) { return l->hot.timing.bandwidth_bps; }
const mortar_pcie_wire *mortar_link_pcie(const mortar_link *l) { return &l->hot.timing.pcie; }
void mortar_link_last_wire(const mortar_link *l, uint64_t *start_ps, uint64_t *wire_ps)
{
    *start_ps = l->hot.timing.last_wire_start_ps;
    *wire_ps = l->hot.timing.last_wire_ps;
}
mortar_sync_mode mortar_link_sync_mode(const mortar_link *l) { return l->hot.sync_mode; }
uint32_t mortar_link_protocol(const mortar_link *l) { return l->protocol; }
uint32_t mortar_link_max_payload(const mortar_link *l)
{
    return l->hot.slot_size - MORTAR_SLOT_HEADER_SIZE;
}
uint64_t mortar_link_in_horizon(const mortar_link *l) { return l->hot.horizon_ps; }
bool mortar_link_peer_terminated(const mortar_link *l) { return l->peer_terminated; }
uint64_t mortar_link_sync_due(const mortar_link *l)
{
    if (link_nulls_over(l))
        return MORTAR_TIME_MAX;
    return l->hot.timing.last_send_ps + l->sync_interval_ps;
}

const void *mortar_link_peer_intro(const mortar_link *l, uint32_t *size)
{
    if (size)
        *size = l->peer_intro_size;
    return l->peer_intro;
}

void mortar_link_get_counters(const mortar_link *l, mortar_link_counters *out)
{
    *out = l->hot.counters;
}

/* ---- sending ----------------------------------------------------------- */

/* Bumps the futex word and wakes the consumer sleeping on it. */
static void wake_peer(mortar_link *link)
{
    atomic_fetch_add_explicit(&link->tx_dir->futex_seq, 1, memory_order_release);
    syscall(SYS_futex, &link->tx_dir->futex_seq, FUTEX_WAKE, 1, NULL, NULL, 0);
    link->hot.counters.wakes_sent++;
}

static inline mortar_slot_header *free_tx_slot(mortar_link *link)
{
    mortar_slot_header *h = link_tx_slot(link);
    if (mortar_link__own_type(h) & MORTAR_SLOT_FULL)
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

/* Wakes the consumer that announced it sleeps, if it wants slot `h`
 * (mortar_link__publish in mortar/link_hot.h, after the slot's store). */
void mortar_link__wake_consumer(mortar_link *link, const mortar_slot_header *h,
                                uint8_t type, uint64_t stamp)
{
    if (consumer_wants(link, h, type, stamp))
        wake_peer(link);
}

/* Publishing for a consumer that may sleep without the barrier: the store
 * of the slot's ownership byte and the read of `waiting` need a fence
 * between them (link_wait.c does the reverse), so each message waits for
 * its slot's cache line; with the barrier (MORTAR_LINK__PUBLISH_CHECK) or
 * a consumer that never sleeps the stores of a stream overlap. */
void mortar_link__publish_fenced(mortar_link *link, mortar_slot_header *h, uint8_t type,
                                 uint64_t stamp)
{
    atomic_exchange_explicit((_Atomic uint8_t *)&h->own_type,
                             (uint8_t)(MORTAR_SLOT_FULL | type), memory_order_seq_cst);
    if (atomic_load_explicit(&link->tx_dir->waiting, memory_order_seq_cst))
        mortar_link__wake_consumer(link, h, type, stamp);
}

#define unlikely(x) __builtin_expect(!!(x), 0)

int mortar_link__send_refused(mortar_link *link, uint32_t size)
{
    if (link->hot.terminated)
        return link_set_error(link, MORTAR_ESTATE, "send after terminate");
    if (size > mortar_link_max_payload(link))
        return link_set_error(
            link, MORTAR_ETOOBIG,
            "message of %u bytes does not fit a slot (at most %u bytes)", size,
            mortar_link_max_payload(link));
    return MORTAR_OK;
}

int mortar_link__commit_refused(mortar_link *link, uint8_t type, uint64_t now_ps)
{
    if (type < MORTAR_MSG_UPPER_MIN || type > MORTAR_MSG_TYPE_MASK)
        return link_set_error(link, MORTAR_EINVAL,
                              "message type 0x%x is not an upper-protocol type", type);
    return link_set_error(link, MORTAR_EINVAL,
                          "send at %llu ps is earlier than a previous send",
                          (unsigned long long)now_ps);
}

void *mortar_link_reserve(mortar_link *link, uint32_t size)
{
    if (unlikely(link->hot.terminated || size > mortar_link_max_payload(link))) {
        mortar_link__send_refused(link, size);
        return NULL;
    }
    mortar_slot_header *h = free_tx_slot(link);
    if (!h) {
        link->hot.counters.full_stalls++; /* not an error: no message text (hot path) */
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
    int rc = mortar_link__commit(link, h, now_ps, type, size, wire_bytes, stamp);
    if (rc == MORTAR_OK)
        link->reserved = NULL;
    return rc;
}

mortar_slot_header *link_null_slot(mortar_link *link)
{
    mortar_slot_header *h = free_tx_slot(link);
    if (!h)
        link->hot.counters.full_stalls++;
    return h;
}

void link_publish_null(mortar_link *link, mortar_slot_header *h, uint64_t stamp,
                       uint64_t promise_ps, uint64_t consumed)
{
    link->reserved = NULL; /* a reserved slot is this one: taken back */
    h->promise_ps = promise_ps; /* cleared too: the slot held other messages */
    h->consumed = consumed;
    mortar_link__publish(link, h, MORTAR_MSG_SYNC, 0, stamp);
    link->hot.counters.syncs_sent++;
}

int mortar_link_send_sync(mortar_link *link, uint64_t now_ps)
{
    if (link_nulls_over(link))
        return MORTAR_OK;
    mortar_slot_header *h = link_null_slot(link);
    if (!h)
        return MORTAR_EAGAIN;
    link_publish_null(link, h, mortar_link_timing_sync_stamp(&link->hot.timing, now_ps), 0, 0);
    return MORTAR_OK;
}

int mortar_link_terminate(mortar_link *link, uint32_t timeout_ms)
{
    if (link->hot.terminated)
        return MORTAR_OK;
    for (uint32_t waited_us = 0;; waited_us += 100) {
        mortar_slot_header *h = free_tx_slot(link);
        if (h || link->peer_terminated) {
            /* a peer that ended reads nothing more: no need to wait for a slot */
            if (h)
                mortar_link__publish(link, h, MORTAR_MSG_TERMINATE, 0, MORTAR_TIME_MAX);
            link->hot.terminated = true;
            return MORTAR_OK;
        }
        if (waited_us >= timeout_ms * 1000u)
            return link_set_error(link, MORTAR_ETIMEDOUT,
                                  "ring stayed full for %u ms while sending terminate", timeout_ms);
        usleep(100);
    }
}

/* ---- receiving --------------------------------------------------------- */

/* A data message stamped `ts` that breaks the peer's promise: the error. */
__attribute__((cold)) static int promise_broken(mortar_link *link, uint64_t ts)
{
    if (ts < link->hot.horizon_ps)
        return link_set_error(link, MORTAR_EPROTO,
                              "message stamped %llu ps arrived after a promise of %llu ps",
                              (unsigned long long)ts, (unsigned long long)link->hot.horizon_ps);
    if (ts < mortar_link_in_bound(link))
        return link_set_error(link, MORTAR_EPROTO,
                              "message stamped %llu ps arrived before the peer's promise of "
                              "%llu ps",
                              (unsigned long long)ts,
                              (unsigned long long)mortar_link_in_bound(link));
    return link_set_error(link, MORTAR_EPROTO,
                          "message stamped %llu ps arrived before an earlier promise of the "
                          "peer's still bound it (%llu ps; its latest promised %llu ps)",
                          (unsigned long long)ts, (unsigned long long)link->standing_ps,
                          (unsigned long long)mortar_link_in_bound(link));
}

/* Consumes a slot of the link's own types (terminate, null message), or
 * reports a malformed one. */
static int consume_link_message(mortar_link *link, mortar_slot_header *h, uint8_t type,
                                uint64_t ts)
{
    if (type == MORTAR_MSG_TERMINATE) {
        link->hot.horizon_ps = MORTAR_TIME_MAX;
        link->peer_terminated = true;
        mortar_link__release(&link->hot, h);
        return MORTAR_OK;
    }
    if (type != MORTAR_MSG_SYNC)
        return link_set_error(link, MORTAR_EPROTO, "malformed slot: type 0x%x, %u bytes", type,
                              h->payload_size);
    if (ts < link->hot.horizon_ps && link->hot.sync_mode == MORTAR_SYNC_ON)
        return promise_broken(link, ts);
    if (ts > link->hot.horizon_ps)
        link->hot.horizon_ps = ts;
    uint32_t size = h->payload_size;
    if (size)
        return link_set_error(link, MORTAR_EPROTO, "malformed null message: %u bytes of payload",
                              size);
    if (link_promise_received(link, h) != MORTAR_OK)
        return link_set_error(link, MORTAR_EPROTO,
                              "malformed promise: %llu of our data messages consumed, %llu sent",
                              (unsigned long long)h->consumed,
                              (unsigned long long)link->hot.counters.msgs_sent);
    link->hot.counters.syncs_received++;
    mortar_link__release(&link->hot, h);
    return MORTAR_OK;
}

/* mortar_link_peek's every case, the inline one's too (mortar/link_hot.h):
 * null and terminate messages, and each check of a data message. */
int mortar_link__peek_checked(mortar_link *link, mortar_msg *msg)
{
    for (;;) {
        mortar_slot_header *h = link_rx_slot(link);
        uint8_t own_type = mortar_link__own_type(h);
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
        if (unlikely(link->hot.sync_mode == MORTAR_SYNC_ON &&
                     (ts < link->hot.horizon_ps ||
                      (link->hot.have_promise && ts < link_promise_standing(link)))))
            return promise_broken(link, ts);
        if (unlikely(size > mortar_link_max_payload(link)))
            return link_set_error(link, MORTAR_EPROTO, "malformed slot: type 0x%x, %u bytes",
                                  type, size);
        if (ts > link->hot.horizon_ps)
            link->hot.horizon_ps = ts;
        msg->type = type;
        msg->size = size;
        msg->timestamp_ps = ts;
        msg->payload = (uint8_t *)h + MORTAR_SLOT_HEADER_SIZE;
        return 1;
    }
}
