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
 * Flow control (802.3x, `pause`): MAC control frames are consumed, never
 * forwarded. A PAUSE received on a port holds that port's output (after the
 * frame being serialized) for its quanta at the port's rate, or until a
 * zero-quanta PAUSE; frames wait in the queue. When an output queue rises
 * above `pause_high_bytes`, every ingress port whose frame was queued there
 * while it was above gets a PAUSE of `pause_quanta` (renewed when half of it
 * has passed and it still sends); when the queue falls to `pause_low_bytes`,
 * the ports it held and no other queue holds get a zero-quanta PAUSE (XON).
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
#include "sims/eth/pause.h"
#include "sims/registry.h"
#include "sims/switch/mac_table.h"
#include "sims/switch/pcap_writer.h"

#define SWITCH_MAX_PORTS      64
#define ETH_HEADER_BYTES      14
#define DEFAULT_BANDWIDTH_BPS 10000000000ull /* 10 Gbps */
#define DEFAULT_QUEUE_BYTES   (512u * 1024u)
#define DEFAULT_PAUSE_QUANTA  0xFFFFu

/* Timer cookies: a port's serialization ends (cookie = port), or a port's
 * received PAUSE ends (RESUME_COOKIE + port). */
#define RESUME_COOKIE SWITCH_MAX_PORTS

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
    uint64_t pause_rx;  /* PAUSE frames honoured (XON included) */
    uint64_t xoff_tx, xon_tx;
    uint64_t mac_control; /* other MAC control frames, and PAUSE with `pause` off */
} port_counters;

typedef struct out_port {
    queued_frame *head, *tail;
    uint64_t queued_bytes, peak_bytes;
    bool busy; /* the head frame is serializing; its timer is pending */
    port_counters n;
    /* flow control, as an output: held by a PAUSE received on this port */
    uint64_t paused_until_ps, resume_timer;
    /* as a queue: the ingress ports this queue asked to pause (bit i) */
    uint64_t holds;
    /* as an ingress: we asked its peer to pause, last at xoff_sent_ps */
    bool xoff_active;
    uint64_t xoff_sent_ps;
} out_port;

typedef struct eth_switch {
    mortar_component *self;
    unsigned nports;
    uint64_t bandwidth_bps, queue_bytes, latency_ps;
    bool pause;
    uint64_t pause_high_bytes, pause_low_bytes, pause_quanta;
    pcap_writer *pcap;
    uint16_t ev_rx, ev_tx, ev_drop, ev_pause_rx, ev_pause_tx;
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
static void hold_ingress(eth_switch *sw, unsigned port, unsigned ingress);
static void release_holds(eth_switch *sw, unsigned port);

/* Starts serializing the head frame of `port`: its timer fires when the last
 * byte (plus the Ethernet overhead) has left. */
static void start_serializing(eth_switch *sw, unsigned port)
{
    out_port *o = &sw->ports[port];
    uint64_t now = mortar_now(sw->self);
    if (o->paused_until_ps > now) {
        if (!o->resume_timer)
            o->resume_timer =
                mortar_timer_set(sw->self, o->paused_until_ps, RESUME_COOKIE + port);
        return; /* frames wait in the queue; the resume timer restarts it */
    }
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
    if (why != DROP_NONE)
        release_holds(sw, port);
}

/* Accepts `buf` from `ingress` into the queue of `port`, or drops it when it
 * does not fit. */
static void enqueue(eth_switch *sw, unsigned port, unsigned ingress, frame_buf *buf)
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
    if (sw->pause && o->queued_bytes > sw->pause_high_bytes)
        hold_ingress(sw, port, ingress);
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

static void resume_after_pause(eth_switch *sw, unsigned port);

/* The serialization of the head frame of port `cookie` has ended, or the
 * PAUSE that held port `cookie - RESUME_COOKIE`. */
static void switch_timer(void *state, uint64_t cookie)
{
    eth_switch *sw = state;
    if (cookie >= RESUME_COOKIE && cookie - RESUME_COOKIE < sw->nports) {
        sw->ports[cookie - RESUME_COOKIE].resume_timer = 0;
        resume_after_pause(sw, (unsigned)(cookie - RESUME_COOKIE));
        return;
    }
    if (cookie >= sw->nports || !sw->ports[cookie].busy)
        return;
    unsigned port = (unsigned)cookie;
    out_port *o = &sw->ports[port];
    queued_frame *q = pop_head(o);
    o->busy = false;
    transmit(sw, port, q->buf);
    frame_buf_release(q->buf);
    free(q);
    release_holds(sw, port);
    if (o->head)
        start_serializing(sw, port);
}

/* ---- flow control (802.3x) ------------------------------------------------- */

/* The source address of the PAUSE frames the switch sends on `port`: a
 * locally administered 02:4d:52:00:00:<port>. */
static void port_address(unsigned port, uint8_t mac[6])
{
    const uint8_t base[6] = {0x02, 0x4d, 0x52, 0x00, 0x00, (uint8_t)port};
    memcpy(mac, base, 6);
}

/* Sends a PAUSE of `quanta` on `port` now, ahead of the frames queued there
 * (MAC control frames go first; the frame being serialized is not waited
 * for). */
static void send_pause(eth_switch *sw, unsigned port, uint16_t quanta)
{
    out_port *o = &sw->ports[port];
    uint8_t mac[6], frame[ETH_PAUSE_FRAME_BYTES];
    port_address(port, mac);
    uint32_t size = eth_pause_build(frame, mac, quanta);
    if (mortar_send(sw->self, port, MORTAR_ETH_FRAME, frame, size,
                    size + MORTAR_ETH_OVERHEAD, NULL) != 0) {
        o->n.tx_errors++;
        return;
    }
    if (quanta) {
        o->n.xoff_tx++;
        o->xoff_active = true;
        o->xoff_sent_ps = mortar_now(sw->self);
    } else {
        o->n.xon_tx++;
        o->xoff_active = false;
    }
    mortar_trace(sw->self, sw->ev_pause_tx, 0, port, quanta);
}

/* The queue of `port` is above the high mark and `ingress` fills it: ask
 * the ingress's peer to pause, unless an earlier PAUSE still holds it for
 * more than half its time. */
static void hold_ingress(eth_switch *sw, unsigned port, unsigned ingress)
{
    out_port *in = &sw->ports[ingress];
    sw->ports[port].holds |= 1ull << ingress;
    uint64_t half =
        eth_pause_duration_ps((uint16_t)sw->pause_quanta, sw->bandwidth_bps) / 2;
    if (in->xoff_active && mortar_now(sw->self) - in->xoff_sent_ps < half)
        return;
    send_pause(sw, ingress, (uint16_t)sw->pause_quanta);
}

static bool held_by_any_queue(const eth_switch *sw, unsigned ingress)
{
    for (unsigned p = 0; p < sw->nports; p++) /* O(ports), at most 64 */
        if (sw->ports[p].holds & (1ull << ingress))
            return true;
    return false;
}

/* The queue of `port` may have fallen to the low mark: let go the ingress
 * ports it held, and send XON to those no other queue holds. */
static void release_holds(eth_switch *sw, unsigned port)
{
    out_port *o = &sw->ports[port];
    if (!o->holds || o->queued_bytes > sw->pause_low_bytes)
        return;
    uint64_t held = o->holds;
    o->holds = 0;
    for (unsigned i = 0; i < sw->nports; i++)
        if ((held & (1ull << i)) && !held_by_any_queue(sw, i) && sw->ports[i].xoff_active)
            send_pause(sw, i, 0);
}

/* The PAUSE that held `port` has ended: serialize again. */
static void resume_after_pause(eth_switch *sw, unsigned port)
{
    out_port *o = &sw->ports[port];
    if (!o->busy && o->head)
        start_serializing(sw, port);
}

/* A PAUSE arrived on `port`: hold its output for `quanta` at the port's
 * rate, from now (a new PAUSE replaces the old one; 0 ends it). */
static void honour_pause(eth_switch *sw, unsigned port, uint16_t quanta)
{
    out_port *o = &sw->ports[port];
    o->n.pause_rx++;
    mortar_trace(sw->self, sw->ev_pause_rx, 0, port, quanta);
    if (o->resume_timer)
        mortar_timer_cancel(sw->self, o->resume_timer);
    o->resume_timer = 0;
    o->paused_until_ps =
        mortar_now(sw->self) + eth_pause_duration_ps(quanta, sw->bandwidth_bps);
    resume_after_pause(sw, port);
}

/* A MAC control frame arrived on `port`: consumed here, never forwarded. */
static void mac_control(eth_switch *sw, unsigned port, const uint8_t *frame,
                        uint32_t size)
{
    uint16_t quanta;
    if (sw->pause && eth_pause_parse(frame, size, &quanta))
        honour_pause(sw, port, quanta);
    else
        sw->ports[port].n.mac_control++;
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
            enqueue(sw, p, ingress, buf);
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
        enqueue(sw, (unsigned)out, ingress, buf);
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
    if (eth_mac_control(msg->payload, msg->size)) {
        mac_control(sw, port, msg->payload, msg->size);
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

/* Flow control: off by default; the marks default to half and a quarter of
 * the queue (headroom for what is already on its way when a PAUSE leaves). */
static int read_pause_params(eth_switch *sw, const mortar_params *p)
{
    int rc = mortar_params_bool(p, "pause", false, &sw->pause);
    if (!rc)
        rc = mortar_params_u64(p, "pause_high_bytes", sw->queue_bytes / 2,
                               &sw->pause_high_bytes);
    if (!rc)
        rc = mortar_params_u64(p, "pause_low_bytes", sw->queue_bytes / 4,
                               &sw->pause_low_bytes);
    if (!rc)
        rc =
            mortar_params_u64(p, "pause_quanta", DEFAULT_PAUSE_QUANTA, &sw->pause_quanta);
    return rc;
}

static int read_params(eth_switch *sw, const mortar_params *p, const char **pcap_path,
                       uint64_t *pcap_epoch_ns)
{
    static const char *const known[] = {
        "ports",        "bandwidth", "queue_bytes",      "latency",         "pcap",
        "pcap_epoch_ns", "pause",    "pause_high_bytes", "pause_low_bytes", "pause_quanta",
        NULL};
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
    if (!rc)
        rc = mortar_params_u64(p, "pcap_epoch_ns", 0, pcap_epoch_ns);
    if (!rc)
        rc = read_pause_params(sw, p);
    if (rc)
        return rc;
    if (ports < 1 || ports > SWITCH_MAX_PORTS)
        return bad_param(sw->self, p, "ports", "required, an integer from 1 to 64");
    if (sw->bandwidth_bps == 0)
        return bad_param(sw->self, p, "bandwidth", "must be more than 0bps");
    if (sw->queue_bytes == 0)
        return bad_param(sw->self, p, "queue_bytes", "must be at least 1");
    if (sw->pause_high_bytes > sw->queue_bytes)
        return bad_param(sw->self, p, "pause_high_bytes", "must not exceed queue_bytes");
    if (sw->pause_low_bytes >= sw->pause_high_bytes)
        return bad_param(sw->self, p, "pause_low_bytes",
                         "must be below pause_high_bytes");
    if (sw->pause_quanta < 1 || sw->pause_quanta > 0xFFFF)
        return bad_param(sw->self, p, "pause_quanta", "an integer from 1 to 65535");
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
    uint64_t pcap_epoch_ns = 0;
    int rc = read_params(sw, p, &pcap_path, &pcap_epoch_ns);
    if (!rc && pcap_path &&
        (rc = pcap_writer_open(&sw->pcap, pcap_path, pcap_epoch_ns)) != 0)
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
    sw->ev_pause_rx = mortar_trace_kind(self, "pause_rx");
    sw->ev_pause_tx = mortar_trace_kind(self, "pause_tx");
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
        stat_port(s, i, "pause_rx", n->pause_rx);
        stat_port(s, i, "xoff_tx", n->xoff_tx);
        stat_port(s, i, "xon_tx", n->xon_tx);
        all.rx_frames += n->rx_frames;
        all.rx_bytes += n->rx_bytes;
        all.tx_frames += n->tx_frames;
        all.tx_bytes += n->tx_bytes;
        all.drops += n->drops;
        all.too_big += n->too_big;
        all.tx_errors += n->tx_errors;
        all.pause_rx += n->pause_rx;
        all.xoff_tx += n->xoff_tx;
        all.xon_tx += n->xon_tx;
        all.mac_control += n->mac_control;
    }
    mortar_stats_u64(s, "rx_frames", all.rx_frames);
    mortar_stats_u64(s, "rx_bytes", all.rx_bytes);
    mortar_stats_u64(s, "tx_frames", all.tx_frames);
    mortar_stats_u64(s, "tx_bytes", all.tx_bytes);
    mortar_stats_u64(s, "drops", all.drops);
    mortar_stats_u64(s, "too_big", all.too_big);
    mortar_stats_u64(s, "tx_errors", all.tx_errors);
    mortar_stats_u64(s, "pause_rx", all.pause_rx);
    mortar_stats_u64(s, "xoff_tx", all.xoff_tx);
    mortar_stats_u64(s, "xon_tx", all.xon_tx);
    mortar_stats_u64(s, "mac_control", all.mac_control);
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

/* Every output port serializes at the `bandwidth` parameter. */
static uint64_t switch_port_rate_bps(const mortar_params *p, unsigned port)
{
    (void)port;
    uint64_t bps;
    return mortar_params_bandwidth(p, "bandwidth", DEFAULT_BANDWIDTH_BPS, &bps) ? 0 : bps;
}

/* Frames dropped: queue full, too big for the link, refused by the link,
 * out of memory, malformed. (`filtered` is forwarding, not a loss.) */
static const char *const switch_lost_stats[] = {"drops",     "too_big",   "tx_errors",
                                                "no_memory", "malformed", NULL};

const mortar_component_ops mortar_switch_ops = {
    .kind = "switch",
    .summary =
        "Ethernet switch: MAC learning, per-port bandwidth and drop-tail queue, 802.3x "
        "PAUSE, pcap",
    .create = switch_create,
    .message = switch_message,
    .timer = switch_timer,
    .stats = switch_stats,
    .destroy = switch_destroy,
    .lost_stats = switch_lost_stats,
    .port_rate_bps = switch_port_rate_bps,
};
