/*
 * switch.c - an Ethernet switch model (kind "switch").
 *
 * N Ethernet ports. A frame that arrives is counted, its source address is
 * learned (source MAC -> ingress port), and it is forwarded: to the learned
 * port of its destination, or flooded to every port but the ingress when the
 * destination is broadcast, multicast or unknown. A frame whose destination
 * was learned on its own ingress port is filtered (dropped).
 *
 * Each output port has a drop-tail queue of `queue_bytes` and serializes at
 * `bandwidth` itself: a frame accepted at time t may start after the internal
 * forwarding delay, start = max(t + latency, end of the previous frame), and
 * leaves at start + (size + MORTAR_ETH_OVERHEAD) * 8 / bandwidth. One timer
 * per port fires at the end of each serialization: it sends the frame with
 * mortar_send() and starts the next. A frame occupies its queue from arrival
 * until it has left. With `pcap`, every frame is written when it leaves.
 *
 * docs/models/switch.md describes parameters, counters and trace events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/component.h"
#include "mortar/error.h"
#include "mortar/eth.h"
#include "sims/registry.h"
#include "sims/switch/mac_table.h"
#include "sims/switch/pcap_writer.h"

#define SWITCH_MAX_PORTS      64
#define ETH_HEADER_BYTES      14
#define DEFAULT_BANDWIDTH_BPS 10000000000ull /* 10 Gbps */
#define DEFAULT_QUEUE_BYTES   (512u * 1024u)

/* Why a frame was dropped: the high half of a frame_drop event's arg1. */
enum drop_reason {
    DROP_NONE = 0,       /* not a drop: a queue emptied at the end of a run */
    DROP_QUEUE_FULL = 1, /* the output queue had no room */
    DROP_MALFORMED = 2,  /* shorter than an Ethernet header, or oversized */
    DROP_FILTERED = 3,   /* destination learned on the ingress port */
    DROP_TX_ERROR = 4,   /* the link refused the frame */
    DROP_NO_MEMORY = 5,  /* the switch could not allocate */
    DROP_TOO_BIG = 6,    /* larger than the output link's slots carry */
};

/* One received frame, shared by every output queue it was forwarded to. */
typedef struct frame_buf {
    uint32_t refs;
    uint32_t size;
    uint8_t data[];
} frame_buf;

typedef struct queued_frame {
    struct queued_frame *next;
    frame_buf *buf;
    uint64_t ready_ps; /* arrival + forwarding latency */
} queued_frame;

typedef struct port_counters {
    uint64_t rx_frames, rx_bytes;
    uint64_t tx_frames, tx_bytes;
    uint64_t drops;     /* output queue full */
    uint64_t too_big;   /* larger than the output link carries */
    uint64_t tx_errors; /* the link refused the frame */
} port_counters;

typedef struct out_port {
    queued_frame *head, *tail;
    uint64_t queued_bytes, peak_bytes;
    bool busy; /* the head frame is serializing; its timer is pending */
    port_counters n;
} out_port;

typedef struct eth_switch {
    mortar_component *self;
    unsigned nports;
    uint64_t bandwidth_bps, queue_bytes, latency_ps;
    pcap_writer *pcap;
    uint16_t ev_rx, ev_tx, ev_drop;
    uint64_t malformed, filtered, unknown_msgs, flooded;
    uint64_t mac_moves, mac_table_full, no_memory;
    out_port ports[SWITCH_MAX_PORTS];
    mac_table macs;
} eth_switch;

/* ---- frame buffers --------------------------------------------------------- */

static frame_buf *frame_buf_new(const void *data, uint32_t size)
{
    frame_buf *b = malloc(sizeof *b + size);
    if (!b)
        return NULL;
    b->refs = 1;
    b->size = size;
    memcpy(b->data, data, size);
    return b;
}

static void frame_buf_release(frame_buf *b)
{
    if (b && --b->refs == 0)
        free(b);
}

/* ---- counting and tracing -------------------------------------------------- */

static void trace_drop(eth_switch *sw, unsigned port, uint32_t size, enum drop_reason why)
{
    mortar_trace(sw->self, sw->ev_drop, 0, port, ((uint64_t)why << 32) | size);
}

static void drop_on_output(eth_switch *sw, unsigned port, uint32_t size,
                           enum drop_reason why)
{
    if (why == DROP_QUEUE_FULL)
        sw->ports[port].n.drops++;
    else if (why == DROP_TOO_BIG)
        sw->ports[port].n.too_big++;
    else if (why == DROP_TX_ERROR)
        sw->ports[port].n.tx_errors++;
    else
        sw->no_memory++;
    trace_drop(sw, port, size, why);
}

/* ---- output ports ---------------------------------------------------------- */

static void drain_queue(eth_switch *sw, unsigned port, enum drop_reason why);

/* Starts serializing the head frame of `port`: its timer fires when the last
 * byte (plus the Ethernet overhead) has left. */
static void start_serializing(eth_switch *sw, unsigned port)
{
    out_port *o = &sw->ports[port];
    uint64_t now = mortar_now(sw->self);
    uint64_t start = o->head->ready_ps > now ? o->head->ready_ps : now;
    uint64_t wire = (uint64_t)o->head->buf->size + MORTAR_ETH_OVERHEAD;
    uint64_t end = start + mortar_serialization_ps(wire, sw->bandwidth_bps);
    o->busy = true;
    if (mortar_timer_set(sw->self, end, port) == 0) {
        mortar_logf(sw->self, MORTAR_LOG_ERROR, "port %u: cannot set a timer", port);
        o->busy = false;
        drain_queue(sw, port, DROP_NO_MEMORY);
    }
}

static queued_frame *pop_head(out_port *o)
{
    queued_frame *q = o->head;
    o->head = q->next;
    if (!o->head)
        o->tail = NULL;
    o->queued_bytes -= q->buf->size;
    return q;
}

/* Empties the queue of `port`, counting every frame as dropped for `why`. */
static void drain_queue(eth_switch *sw, unsigned port, enum drop_reason why)
{
    out_port *o = &sw->ports[port];
    while (o->head) {
        queued_frame *q = pop_head(o);
        if (why != DROP_NONE)
            drop_on_output(sw, port, q->buf->size, why);
        frame_buf_release(q->buf);
        free(q);
    }
}

/* Accepts `buf` into the queue of `port`, or drops it when it does not fit. */
static void enqueue(eth_switch *sw, unsigned port, frame_buf *buf)
{
    out_port *o = &sw->ports[port];
    if (buf->size > mortar_port_max_payload(sw->self, port)) {
        drop_on_output(sw, port, buf->size, DROP_TOO_BIG);
        return;
    }
    if (o->queued_bytes + buf->size > sw->queue_bytes) {
        drop_on_output(sw, port, buf->size, DROP_QUEUE_FULL);
        return;
    }
    queued_frame *q = malloc(sizeof *q);
    if (!q) {
        drop_on_output(sw, port, buf->size, DROP_NO_MEMORY);
        return;
    }
    *q = (queued_frame){.buf = buf, .ready_ps = mortar_now(sw->self) + sw->latency_ps};
    buf->refs++;
    if (o->tail)
        o->tail->next = q;
    else
        o->head = q;
    o->tail = q;
    o->queued_bytes += buf->size;
    if (o->queued_bytes > o->peak_bytes)
        o->peak_bytes = o->queued_bytes;
    if (!o->busy)
        start_serializing(sw, port);
}

/* Puts one frame on the wire of `port` at the current time. */
static void transmit(eth_switch *sw, unsigned port, const frame_buf *buf)
{
    port_counters *n = &sw->ports[port].n;
    int rc = mortar_send(sw->self, port, MORTAR_ETH_FRAME, buf->data, buf->size,
                         buf->size + MORTAR_ETH_OVERHEAD, NULL);
    if (rc != 0) {
        drop_on_output(sw, port, buf->size, DROP_TX_ERROR);
        return;
    }
    n->tx_frames++;
    n->tx_bytes += buf->size;
    if (sw->pcap)
        pcap_writer_frame(sw->pcap, mortar_now(sw->self), buf->data, buf->size);
    mortar_trace(sw->self, sw->ev_tx, 0, port, buf->size);
}

/* The serialization of the head frame of port `cookie` has ended. */
static void switch_timer(void *state, uint64_t cookie)
{
    eth_switch *sw = state;
    if (cookie >= sw->nports || !sw->ports[cookie].busy)
        return;
    unsigned port = (unsigned)cookie;
    out_port *o = &sw->ports[port];
    queued_frame *q = pop_head(o);
    o->busy = false;
    transmit(sw, port, q->buf);
    frame_buf_release(q->buf);
    free(q);
    if (o->head)
        start_serializing(sw, port);
}

/* ---- forwarding ------------------------------------------------------------ */

static void learn_source(eth_switch *sw, const uint8_t *frame, unsigned port)
{
    const uint8_t *src = frame + 6;
    if (src[0] & 1)
        return; /* a group address is never a source */
    mac_learn_result r = mac_table_learn(&sw->macs, src, port);
    if (r == MAC_LEARN_MOVED)
        sw->mac_moves++;
    else if (r == MAC_LEARN_FULL)
        sw->mac_table_full++;
}

/* Sends `buf` to every port but `ingress`. */
static void flood(eth_switch *sw, unsigned ingress, frame_buf *buf)
{
    sw->flooded++;
    for (unsigned p = 0; p < sw->nports; p++)
        if (p != ingress)
            enqueue(sw, p, buf);
}

static void forward(eth_switch *sw, unsigned ingress, const uint8_t *frame, uint32_t size)
{
    const uint8_t *dst = frame;
    int out = (dst[0] & 1) ? -1 : mac_table_lookup(&sw->macs, dst);
    if (out == (int)ingress) {
        sw->filtered++;
        trace_drop(sw, ingress, size, DROP_FILTERED);
        return;
    }
    frame_buf *buf = frame_buf_new(frame, size);
    if (!buf) {
        sw->no_memory++;
        trace_drop(sw, ingress, size, DROP_NO_MEMORY);
        return;
    }
    if (out >= 0)
        enqueue(sw, (unsigned)out, buf);
    else
        flood(sw, ingress, buf);
    frame_buf_release(buf);
}

static void switch_message(void *state, unsigned port, const mortar_msg *msg)
{
    eth_switch *sw = state;
    if (msg->type != MORTAR_ETH_FRAME || port >= sw->nports) {
        sw->unknown_msgs++;
        return;
    }
    port_counters *n = &sw->ports[port].n;
    n->rx_frames++;
    n->rx_bytes += msg->size;
    mortar_trace(sw->self, sw->ev_rx, 0, port, msg->size);
    if (msg->size < ETH_HEADER_BYTES || msg->size > MORTAR_ETH_MAX_FRAME) {
        sw->malformed++;
        trace_drop(sw, port, msg->size, DROP_MALFORMED);
        return;
    }
    learn_source(sw, msg->payload, port);
    forward(sw, port, msg->payload, msg->size);
}

/* ---- parameters and life cycle --------------------------------------------- */

static int bad_param(mortar_component *self, const mortar_params *p, const char *key,
                     const char *why)
{
    mortar_logf(self, MORTAR_LOG_ERROR, "%s.%s: %s", mortar_params_path(p), key, why);
    return MORTAR_EINVAL;
}

static int read_params(eth_switch *sw, const mortar_params *p, const char **pcap_path)
{
    static const char *const known[] = {"ports",   "bandwidth", "queue_bytes",
                                        "latency", "pcap",      NULL};
    uint64_t ports = 0;
    int rc = mortar_params_check_known(p, known);
    if (!rc)
        rc = mortar_params_u64(p, "ports", 0, &ports);
    if (!rc)
        rc = mortar_params_bandwidth(p, "bandwidth", DEFAULT_BANDWIDTH_BPS,
                                     &sw->bandwidth_bps);
    if (!rc)
        rc = mortar_params_u64(p, "queue_bytes", DEFAULT_QUEUE_BYTES, &sw->queue_bytes);
    if (!rc)
        rc = mortar_params_time(p, "latency", 0, &sw->latency_ps);
    if (!rc)
        rc = mortar_params_string(p, "pcap", NULL, pcap_path);
    if (rc)
        return rc;
    if (ports < 1 || ports > SWITCH_MAX_PORTS)
        return bad_param(sw->self, p, "ports", "required, an integer from 1 to 64");
    if (sw->bandwidth_bps == 0)
        return bad_param(sw->self, p, "bandwidth", "must be more than 0bps");
    if (sw->queue_bytes == 0)
        return bad_param(sw->self, p, "queue_bytes", "must be at least 1");
    sw->nports = (unsigned)ports;
    return MORTAR_OK;
}

static int switch_create(mortar_component *self, const mortar_params *p, void **state)
{
    eth_switch *sw = calloc(1, sizeof *sw);
    if (!sw)
        return MORTAR_ENOMEM;
    sw->self = self;
    const char *pcap_path = NULL;
    int rc = read_params(sw, p, &pcap_path);
    if (!rc && pcap_path && (rc = pcap_writer_open(&sw->pcap, pcap_path)) != 0)
        mortar_logf(self, MORTAR_LOG_ERROR, "%s.pcap: cannot create %s: %s",
                    mortar_params_path(p), pcap_path, strerror(errno));
    for (unsigned i = 0; !rc && i < sw->nports; i++)
        rc = mortar_port_declare(self, i, MORTAR_PROTO_ETH, NULL, 0);
    if (rc) {
        pcap_writer_close(sw->pcap);
        free(sw);
        return rc;
    }
    sw->ev_rx = mortar_trace_kind(self, "frame_rx");
    sw->ev_tx = mortar_trace_kind(self, "frame_tx");
    sw->ev_drop = mortar_trace_kind(self, "frame_drop");
    *state = sw;
    return MORTAR_OK;
}

static void stat_port(mortar_stats *s, unsigned port, const char *name, uint64_t value)
{
    char key[48];
    snprintf(key, sizeof key, "port%u.%s", port, name);
    mortar_stats_u64(s, key, value);
}

static void switch_stats(void *state, mortar_stats *s)
{
    eth_switch *sw = state;
    port_counters all = {0};
    for (unsigned i = 0; i < sw->nports; i++) {
        const port_counters *n = &sw->ports[i].n;
        stat_port(s, i, "rx_frames", n->rx_frames);
        stat_port(s, i, "rx_bytes", n->rx_bytes);
        stat_port(s, i, "tx_frames", n->tx_frames);
        stat_port(s, i, "tx_bytes", n->tx_bytes);
        stat_port(s, i, "drops", n->drops);
        stat_port(s, i, "too_big", n->too_big);
        stat_port(s, i, "tx_errors", n->tx_errors);
        stat_port(s, i, "queue_peak_bytes", sw->ports[i].peak_bytes);
        all.rx_frames += n->rx_frames;
        all.rx_bytes += n->rx_bytes;
        all.tx_frames += n->tx_frames;
        all.tx_bytes += n->tx_bytes;
        all.drops += n->drops;
        all.too_big += n->too_big;
        all.tx_errors += n->tx_errors;
    }
    mortar_stats_u64(s, "rx_frames", all.rx_frames);
    mortar_stats_u64(s, "rx_bytes", all.rx_bytes);
    mortar_stats_u64(s, "tx_frames", all.tx_frames);
    mortar_stats_u64(s, "tx_bytes", all.tx_bytes);
    mortar_stats_u64(s, "drops", all.drops);
    mortar_stats_u64(s, "too_big", all.too_big);
    mortar_stats_u64(s, "tx_errors", all.tx_errors);
    mortar_stats_u64(s, "malformed", sw->malformed);
    mortar_stats_u64(s, "filtered", sw->filtered);
    mortar_stats_u64(s, "unknown_msgs", sw->unknown_msgs);
    mortar_stats_u64(s, "flooded", sw->flooded);
    mortar_stats_u64(s, "no_memory", sw->no_memory);
    mortar_stats_u64(s, "mac_entries", sw->macs.count);
    mortar_stats_u64(s, "mac_moves", sw->mac_moves);
    mortar_stats_u64(s, "mac_table_full", sw->mac_table_full);
}

static void switch_destroy(void *state)
{
    eth_switch *sw = state;
    for (unsigned i = 0; i < sw->nports; i++)
        drain_queue(sw, i, DROP_NONE);
    if (pcap_writer_close(sw->pcap) != 0)
        mortar_logf(sw->self, MORTAR_LOG_ERROR, "writing the pcap file failed");
    free(sw);
}

const mortar_component_ops mortar_switch_ops = {
    .kind = "switch",
    .summary =
        "Ethernet switch: MAC learning, per-port bandwidth and drop-tail queue, pcap",
    .create = switch_create,
    .message = switch_message,
    .timer = switch_timer,
    .stats = switch_stats,
    .destroy = switch_destroy,
};
