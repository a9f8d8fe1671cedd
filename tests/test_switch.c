/*
 * test_switch.c - the Ethernet switch model (sims/switch) on the in-process
 * runtime.
 *
 * Each test builds a loop with one switch and one small "endpoint" test
 * component per switch port, joined by 1 ns in-process links without
 * bandwidth. An endpoint sends the frames it was given at the given times and
 * records every frame it receives with its arrival time, so the tests can
 * check forwarding, exact timing, queue drops, counters (read back from the
 * stats JSON), the pcap file (read back with tshark) and trace events.
 * For flow control an endpoint can honour PAUSE frames like a NIC: it holds
 * its scheduled frames while paused and sends them when the pause ends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "mortar/error.h"
#include "mortar/eth.h"
#include "mortar/runtime.h"
#include "mortar/trace.h"
#include "sims/eth/pause.h"
#include "sims/registry.h"
#include "sims/switch/mac_table.h"

#define MAX_PORTS    8
#define MAX_TX       64
#define MAX_RX       256
#define FRAME_MAX    1600
#define LINK_PS      MORTAR_NS(1)
#define BROADCAST    0xffu
#define MULTICAST    0xfeu
#define TEST_ETHTYPE 0x88b5 /* IEEE local experimental */

/* ---- the endpoint test component ------------------------------------------ */

typedef struct tx_item {
    uint64_t at_ps;
    uint8_t type;
    uint32_t size;
    uint8_t data[FRAME_MAX];
} tx_item;

typedef struct rx_item {
    uint64_t at_ps;
    uint32_t size;
    uint32_t tag;
    uint8_t src_id;   /* last byte of the source MAC */
    uint8_t head[18]; /* the frame's first bytes */
} rx_item;

#define RESUME_COOKIE MAX_TX /* an endpoint's pause has ended */
#define ENDPOINT_BPS  10000000000ull

typedef struct endpoint {
    mortar_component *self;
    tx_item tx[MAX_TX];
    unsigned ntx;
    rx_item rx[MAX_RX];
    unsigned nrx;
    /* flow control, when honour_pause is set */
    bool honour_pause;
    uint64_t paused_until_ps, resume_timer;
    unsigned deferred[MAX_TX], ndeferred;
} endpoint;

static int endpoint_create(mortar_component *self, const mortar_params *p, void **state)
{
    endpoint *e = calloc(1, sizeof *e);
    if (!e)
        return MORTAR_ENOMEM;
    e->self = self;
    *state = e;
    return mortar_port_declare(self, 0, MORTAR_PROTO_ETH, NULL, 0);
}

static void endpoint_start(void *state)
{
    endpoint *e = state;
    for (unsigned i = 0; i < e->ntx; i++)
        mortar_timer_set(e->self, e->tx[i].at_ps, i);
}

static void endpoint_send(endpoint *e, unsigned i)
{
    const tx_item *t = &e->tx[i];
    mortar_send(e->self, 0, t->type, t->data, t->size, t->size + MORTAR_ETH_OVERHEAD,
                NULL);
}

/* Sends the frames held back by a pause again, in order, one after the
 * other at the endpoint's line rate (a pause may stop them again). */
static void endpoint_resume(endpoint *e)
{
    uint64_t at = mortar_now(e->self);
    for (unsigned k = 0; k < e->ndeferred; k++) {
        mortar_timer_set(e->self, at, e->deferred[k]);
        at += mortar_serialization_ps(e->tx[e->deferred[k]].size + MORTAR_ETH_OVERHEAD,
                                      ENDPOINT_BPS);
    }
    e->ndeferred = 0;
}

static void endpoint_timer(void *state, uint64_t i)
{
    endpoint *e = state;
    if (i == RESUME_COOKIE) {
        e->resume_timer = 0;
        endpoint_resume(e);
    } else if (e->ndeferred || mortar_now(e->self) < e->paused_until_ps) {
        e->deferred[e->ndeferred++] = (unsigned)i;
    } else {
        endpoint_send(e, (unsigned)i);
    }
}

static void endpoint_pause(endpoint *e, uint16_t quanta)
{
    if (e->resume_timer)
        mortar_timer_cancel(e->self, e->resume_timer);
    e->paused_until_ps =
        mortar_now(e->self) + eth_pause_duration_ps(quanta, ENDPOINT_BPS);
    e->resume_timer = mortar_timer_set(e->self, e->paused_until_ps, RESUME_COOKIE);
}

static void endpoint_message(void *state, unsigned port, const mortar_msg *msg)
{
    endpoint *e = state;
    if (e->nrx >= MAX_RX)
        return;
    const uint8_t *f = msg->payload;
    rx_item *r = &e->rx[e->nrx++];
    r->at_ps = mortar_now(e->self);
    r->size = msg->size;
    if (msg->size >= 18) {
        r->src_id = f[11];
        memcpy(&r->tag, f + 14, 4);
        memcpy(r->head, f, 18);
    }
    uint16_t quanta;
    if (e->honour_pause && eth_pause_parse(f, msg->size, &quanta))
        endpoint_pause(e, quanta);
}

static void endpoint_destroy(void *state)
{
    free(state);
}

static const mortar_component_ops endpoint_ops = {
    .kind = "test_endpoint",
    .summary = "sends scripted frames, records received ones",
    .create = endpoint_create,
    .start = endpoint_start,
    .message = endpoint_message,
    .timer = endpoint_timer,
    .destroy = endpoint_destroy,
};

/* 02:00:00:00:00:id; ff:ff:ff:ff:ff:ff for BROADCAST; 01:00:5e:00:00:fe (a
 * group address) for MULTICAST. */
static void mac_of(unsigned id, uint8_t out[6])
{
    static const uint8_t base[6] = {0x02, 0, 0, 0, 0, 0};
    static const uint8_t group[6] = {0x01, 0x00, 0x5e, 0, 0, MULTICAST};
    memcpy(out, id == MULTICAST ? group : base, 6);
    if (id == BROADCAST)
        memset(out, 0xff, 6);
    else if (id != MULTICAST)
        out[5] = (uint8_t)id;
}

/* Schedules a frame dst <- src of `size` bytes carrying `tag`. */
static void send_frame(endpoint *e, uint64_t at_ps, unsigned dst, unsigned src,
                       uint32_t size, uint32_t tag)
{
    assert_true(e->ntx < MAX_TX && size >= 18 && size <= FRAME_MAX);
    tx_item *t = &e->tx[e->ntx++];
    t->at_ps = at_ps;
    t->type = MORTAR_ETH_FRAME;
    t->size = size;
    mac_of(dst, t->data);
    mac_of(src, t->data + 6);
    t->data[12] = TEST_ETHTYPE >> 8;
    t->data[13] = TEST_ETHTYPE & 0xff;
    memcpy(t->data + 14, &tag, 4);
}

/* Schedules a raw message of `type` and `size` bytes (zeros). */
static void send_raw(endpoint *e, uint64_t at_ps, uint8_t type, uint32_t size)
{
    assert_true(e->ntx < MAX_TX && size <= FRAME_MAX);
    tx_item *t = &e->tx[e->ntx++];
    t->at_ps = at_ps;
    t->type = type;
    t->size = size;
}

/* ---- the bench: a switch and one endpoint per port ------------------------- */

typedef struct bench {
    mortar_loop *loop;
    mortar_component *sw;
    endpoint *ep[MAX_PORTS];
    unsigned nports;
} bench;

/* `params` is the switch's JSON params; `trace` a trace file path or NULL. */
static void bench_open(bench *b, unsigned nports, const char *params, const char *trace)
{
    memset(b, 0, sizeof *b);
    b->nports = nports;
    assert_int_equal(mortar_loop_create(&b->loop), 0);
    if (trace)
        assert_int_equal(mortar_loop_trace_to(b->loop, trace), 0);
    mortar_params *p = mortar_params_parse(params, "sw.params", NULL, 0);
    assert_non_null(p);
    int rc = mortar_loop_add(b->loop, &mortar_switch_ops, "sw", p, &b->sw);
    mortar_params_free(p);
    assert_int_equal(rc, 0);
    mortar_link_params lp;
    mortar_link_params_init(&lp);
    lp.protocol = MORTAR_PROTO_ETH;
    lp.latency_ps = LINK_PS;
    lp.name = "test-link";
    for (unsigned i = 0; i < nports; i++) {
        char name[16];
        mortar_component *c;
        snprintf(name, sizeof name, "ep%u", i);
        assert_int_equal(mortar_loop_add(b->loop, &endpoint_ops, name, NULL, &c), 0);
        b->ep[i] = mortar_component_state(c);
        assert_int_equal(mortar_loop_connect(b->loop, b->sw, i, c, 0, &lp), 0);
    }
}

static void bench_run(bench *b)
{
    assert_int_equal(mortar_loop_run(b->loop, MORTAR_TIME_MAX), 0);
}

static void bench_close(bench *b)
{
    mortar_loop_destroy(b->loop);
    b->loop = NULL;
}

/* One counter of the switch, read from the loop's stats JSON. */
static uint64_t switch_stat(bench *b, const char *name)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    assert_int_equal(mortar_loop_write_stats(b->loop, f), 0);
    fclose(f);
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    free(text);
    assert_non_null(root);
    json_t *v = json_object_get(json_object_get(root, "sw"), name);
    if (!v)
        fail_msg("switch stat '%s' is missing", name);
    assert_true(json_is_integer(v));
    uint64_t value = (uint64_t)json_integer_value(v);
    json_decref(root);
    return value;
}

/* Number of frames `e` received that carry `tag`. */
static unsigned received_tag(const endpoint *e, uint32_t tag)
{
    unsigned n = 0;
    for (unsigned i = 0; i < e->nrx; i++)
        n += e->rx[i].tag == tag;
    return n;
}

/* ---- learning and flooding ------------------------------------------------- */

static void test_unknown_destination_floods_to_all_other_ports(void **unused)
{
    bench b;
    bench_open(&b, 4, "{\"ports\": 4}", NULL);
    send_frame(b.ep[0], 0, 2, 1, 64, 7);
    bench_run(&b);
    assert_int_equal(b.ep[0]->nrx, 0);
    for (unsigned i = 1; i < 4; i++) {
        assert_int_equal(b.ep[i]->nrx, 1);
        assert_int_equal(b.ep[i]->rx[0].tag, 7);
        assert_int_equal(b.ep[i]->rx[0].size, 64);
    }
    assert_int_equal(switch_stat(&b, "flooded"), 1);
    assert_int_equal(switch_stat(&b, "tx_frames"), 3);
    bench_close(&b);
}

static void test_reply_and_later_frames_go_only_to_learned_port(void **unused)
{
    bench b;
    bench_open(&b, 4, "{\"ports\": 4}", NULL);
    send_frame(b.ep[0], 0, 2, 1, 64, 1);             /* unknown: flooded */
    send_frame(b.ep[2], MORTAR_US(10), 1, 2, 64, 2); /* reply: 1 was learned on port 0 */
    send_frame(b.ep[0], MORTAR_US(20), 2, 1, 64, 3); /* 2 was learned on port 2 */
    bench_run(&b);
    assert_int_equal(received_tag(b.ep[0], 2), 1);
    assert_int_equal(b.ep[0]->nrx, 1);
    assert_int_equal(received_tag(b.ep[2], 3), 1);
    assert_int_equal(b.ep[2]->nrx, 2);
    for (unsigned i = 1; i < 4; i += 2) { /* ports 1 and 3 saw only the flood */
        assert_int_equal(b.ep[i]->nrx, 1);
        assert_int_equal(b.ep[i]->rx[0].tag, 1);
    }
    assert_int_equal(switch_stat(&b, "flooded"), 1);
    assert_int_equal(switch_stat(&b, "mac_entries"), 2);
    bench_close(&b);
}

static void test_broadcast_floods_even_when_destinations_are_learned(void **unused)
{
    bench b;
    bench_open(&b, 4, "{\"ports\": 4}", NULL);
    for (unsigned i = 0; i < 4; i++) /* every station announces itself */
        send_frame(b.ep[i], MORTAR_US(i), BROADCAST, i + 1, 64, 100 + i);
    send_frame(b.ep[1], MORTAR_US(10), BROADCAST, 2, 64, 9);
    bench_run(&b);
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(received_tag(b.ep[i], 9), i == 1 ? 0 : 1);
        assert_int_equal(b.ep[i]->nrx, i == 1 ? 3 : 4);
    }
    assert_int_equal(switch_stat(&b, "flooded"), 5);
    bench_close(&b);
}

static void test_frame_for_the_ingress_port_is_filtered(void **unused)
{
    bench b;
    bench_open(&b, 3, "{\"ports\": 3}", NULL);
    send_frame(b.ep[0], 0, BROADCAST, 1, 64, 1);    /* 1 lives on port 0 */
    send_frame(b.ep[0], MORTAR_US(1), 1, 5, 64, 2); /* 5 -> 1, both on port 0 */
    bench_run(&b);
    assert_int_equal(received_tag(b.ep[1], 2), 0);
    assert_int_equal(received_tag(b.ep[2], 2), 0);
    assert_int_equal(b.ep[0]->nrx, 0);
    assert_int_equal(switch_stat(&b, "filtered"), 1);
    assert_int_equal(switch_stat(&b, "port0.rx_frames"), 2);
    bench_close(&b);
}

static void test_station_that_moves_is_learned_on_its_new_port(void **unused)
{
    bench b;
    bench_open(&b, 3, "{\"ports\": 3}", NULL);
    send_frame(b.ep[1], 0, BROADCAST, 5, 64, 1);            /* 5 on port 1 */
    send_frame(b.ep[2], MORTAR_US(1), BROADCAST, 5, 64, 2); /* 5 moves to port 2 */
    send_frame(b.ep[0], MORTAR_US(2), 5, 1, 64, 3);
    bench_run(&b);
    assert_int_equal(received_tag(b.ep[2], 3), 1);
    assert_int_equal(received_tag(b.ep[1], 3), 0);
    assert_int_equal(switch_stat(&b, "mac_moves"), 1);
    assert_int_equal(switch_stat(&b, "mac_entries"), 2);
    bench_close(&b);
}

static void test_group_source_address_is_not_learned(void **unused)
{
    bench b;
    bench_open(&b, 3, "{\"ports\": 3}", NULL);
    send_frame(b.ep[1], 0, 1, MULTICAST, 64, 1); /* a bogus group source */
    send_frame(b.ep[0], MORTAR_US(1), MULTICAST, 1, 64, 2);
    bench_run(&b);
    assert_int_equal(received_tag(b.ep[1], 2), 1); /* flooded, not sent to port 1 only */
    assert_int_equal(received_tag(b.ep[2], 2), 1);
    assert_int_equal(switch_stat(&b, "mac_entries"), 1);
    bench_close(&b);
}

static void test_full_address_table_stops_learning_but_keeps_old_entries(void **unused)
{
    mac_table *t = calloc(1, sizeof *t);
    assert_non_null(t);
    uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0};
    for (uint32_t i = 0; i < MAC_TABLE_ENTRIES; i++) {
        memcpy(mac + 2, &i, 4);
        assert_int_equal(mac_table_learn(t, mac, i % 64), MAC_LEARN_NEW);
    }
    uint32_t extra = MAC_TABLE_ENTRIES;
    memcpy(mac + 2, &extra, 4);
    assert_int_equal(mac_table_learn(t, mac, 1), MAC_LEARN_FULL);
    assert_int_equal(mac_table_lookup(t, mac), -1);
    for (uint32_t i = 0; i < MAC_TABLE_ENTRIES; i += 97) {
        memcpy(mac + 2, &i, 4);
        assert_int_equal(mac_table_lookup(t, mac), (int)(i % 64));
        assert_int_equal(mac_table_learn(t, mac, i % 64), MAC_LEARN_SAME);
    }
    uint32_t moved = 5; /* a full table still follows a station that moves */
    memcpy(mac + 2, &moved, 4);
    assert_int_equal(mac_table_learn(t, mac, 9), MAC_LEARN_MOVED);
    assert_int_equal(mac_table_lookup(t, mac), 9);
    free(t);
}

/* ---- bandwidth and queue --------------------------------------------------- */

/* 1000-byte frame + 24 bytes overhead at 3 Gbps: 8192 bits / 3e9 = 2730666.67 ps,
 * rounded up to the next picosecond. */
#define SER_1000B_3GBPS_PS 2730667ull

static void test_burst_leaves_at_exact_serialization_times(void **unused)
{
    enum { N = 8 };
    bench b;
    bench_open(&b, 2, "{\"ports\": 2, \"bandwidth\": \"3Gbps\", \"latency\": \"100ns\"}",
               NULL);
    for (uint32_t k = 0; k < N; k++)
        send_frame(b.ep[0], 0, 2, 1, 1000, k);
    bench_run(&b);
    assert_int_equal(b.ep[1]->nrx, N);
    for (uint32_t k = 0; k < N; k++) {
        uint64_t expect =
            LINK_PS + MORTAR_NS(100) + (k + 1) * SER_1000B_3GBPS_PS + LINK_PS;
        assert_int_equal(b.ep[1]->rx[k].tag, k);
        assert_int_equal(b.ep[1]->rx[k].at_ps, expect);
    }
    /* the last frame: both links, the forwarding delay, N serializations */
    assert_int_equal(b.ep[1]->rx[N - 1].at_ps,
                     2 * LINK_PS + MORTAR_NS(100) + N * SER_1000B_3GBPS_PS);
    assert_int_equal(switch_stat(&b, "port1.tx_bytes"), N * 1000);
    bench_close(&b);
}

static void test_idle_port_sends_after_latency_and_one_serialization(void **unused)
{
    bench b;
    bench_open(&b, 2, "{\"ports\": 2, \"bandwidth\": \"3Gbps\", \"latency\": \"50ns\"}",
               NULL);
    send_frame(b.ep[0], 0, 2, 1, 1000, 1);
    send_frame(b.ep[0], MORTAR_US(100), 2, 1, 1000, 2); /* long after the first left */
    bench_run(&b);
    assert_int_equal(b.ep[1]->nrx, 2);
    assert_int_equal(b.ep[1]->rx[0].at_ps,
                     2 * LINK_PS + MORTAR_NS(50) + SER_1000B_3GBPS_PS);
    assert_int_equal(b.ep[1]->rx[1].at_ps,
                     MORTAR_US(100) + 2 * LINK_PS + MORTAR_NS(50) + SER_1000B_3GBPS_PS);
    bench_close(&b);
}

static void test_output_ports_serialize_independently(void **unused)
{
    bench b;
    bench_open(&b, 4, "{\"ports\": 4, \"bandwidth\": \"3Gbps\"}", NULL);
    send_frame(b.ep[2], 0, BROADCAST, 3, 64, 0); /* learn 3 on port 2 */
    send_frame(b.ep[3], 0, BROADCAST, 4, 64, 0); /* learn 4 on port 3 */
    send_frame(b.ep[0], MORTAR_US(10), 3, 1, 1000, 1);
    send_frame(b.ep[1], MORTAR_US(10), 4, 2, 1000, 2);
    bench_run(&b);
    uint64_t expect = MORTAR_US(10) + 2 * LINK_PS + SER_1000B_3GBPS_PS;
    assert_int_equal(received_tag(b.ep[2], 1), 1);
    assert_int_equal(received_tag(b.ep[3], 2), 1);
    assert_int_equal(b.ep[2]->rx[b.ep[2]->nrx - 1].at_ps, expect);
    assert_int_equal(b.ep[3]->rx[b.ep[3]->nrx - 1].at_ps, expect);
    bench_close(&b);
}

static void test_queue_overflow_drops_the_excess_and_counts_it(void **unused)
{
    enum { N = 10 };
    bench b;
    bench_open(&b, 2, "{\"ports\": 2, \"queue_bytes\": 4000}", NULL);
    for (uint32_t k = 0; k < N; k++) /* all arrive at once: room for four */
        send_frame(b.ep[0], 0, 2, 1, 1000, k);
    send_frame(b.ep[0], MORTAR_US(100), 2, 1, 1000, 99); /* the queue has drained */
    bench_run(&b);
    assert_int_equal(b.ep[1]->nrx, 5);
    for (uint32_t k = 0; k < 4; k++) /* drop-tail: the first ones got in */
        assert_int_equal(b.ep[1]->rx[k].tag, k);
    assert_int_equal(b.ep[1]->rx[4].tag, 99);
    assert_int_equal(switch_stat(&b, "port1.drops"), N - 4);
    assert_int_equal(switch_stat(&b, "drops"), N - 4);
    assert_int_equal(switch_stat(&b, "port1.tx_frames"), 5);
    assert_int_equal(switch_stat(&b, "port0.rx_frames"), N + 1);
    assert_int_equal(switch_stat(&b, "port0.rx_bytes"), (N + 1) * 1000);
    assert_int_equal(switch_stat(&b, "port1.queue_peak_bytes"), 4000);
    bench_close(&b);
}

/* ---- flow control (802.3x PAUSE) ------------------------------------------- */

#define SER_1000 819200ull /* (1000 + 24) bytes at 10 Gb/s, in ps */

/* Schedules a PAUSE frame of `quanta` from endpoint `src`. */
static void send_pause_frame(endpoint *e, uint64_t at_ps, unsigned src, uint16_t quanta)
{
    assert_true(e->ntx < MAX_TX);
    tx_item *t = &e->tx[e->ntx++];
    uint8_t mac[6];
    mac_of(src, mac);
    t->at_ps = at_ps;
    t->type = MORTAR_ETH_FRAME;
    t->size = eth_pause_build(t->data, mac, quanta);
}

/* The pause time of the received frame `r` if it is a PAUSE, else -1. */
static int pause_quanta_of(const rx_item *r)
{
    uint16_t quanta;
    return eth_pause_parse(r->head, sizeof r->head, &quanta) ? quanta : -1;
}

static void test_pause_frame_format_and_duration(void **unused)
{
    (void)unused;
    uint8_t f[ETH_PAUSE_FRAME_BYTES], mac[6] = {2, 0, 0, 0, 0, 7};
    assert_int_equal(eth_pause_build(f, mac, 0x1234), 60);
    const uint8_t head[18] = {0x01, 0x80, 0xC2, 0,    0,    1,    2,    0,    0,
                              0,    0,    7,    0x88, 0x08, 0x00, 0x01, 0x12, 0x34};
    assert_memory_equal(f, head, sizeof head);
    for (unsigned i = 18; i < 60; i++)
        assert_int_equal(f[i], 0);
    uint16_t q = 0;
    assert_true(eth_pause_parse(f, 60, &q));
    assert_int_equal(q, 0x1234);
    assert_false(eth_pause_parse(f, 17, &q)); /* no room for the pause time */
    f[15] = 0x02;                             /* another MAC control opcode */
    assert_false(eth_pause_parse(f, 60, &q));
    assert_true(eth_mac_control(f, 60));
    f[13] = 0x00; /* IPv4 */
    assert_false(eth_mac_control(f, 60));
    /* 512 bit times a quantum: 51.2 ns at 10 Gb/s, 512 ns at 1 Gb/s */
    assert_int_equal(eth_pause_duration_ps(1, 10000000000ull), 51200);
    assert_int_equal(eth_pause_duration_ps(0xFFFF, 1000000000ull), 0xFFFFull * 512000);
}

static void test_paused_port_holds_its_frames_until_the_quanta_pass(void **unused)
{
    (void)unused;
    bench b;
    bench_open(&b, 2, "{\"ports\": 2, \"pause\": true}", NULL);
    send_pause_frame(b.ep[1], 0, 2, 100); /* arrives at 1 ns: holds port 1 for 5.12 us */
    send_frame(b.ep[0], MORTAR_NS(100), 2, 1, 1000, 7);
    send_frame(b.ep[0], MORTAR_NS(200), 2, 1, 1000, 8);
    bench_run(&b);
    uint64_t resume = LINK_PS + 100 * 51200ull;
    assert_int_equal(b.ep[1]->nrx, 2);
    assert_int_equal(b.ep[1]->rx[0].tag, 7);
    assert_int_equal(b.ep[1]->rx[0].at_ps, resume + SER_1000 + LINK_PS);
    assert_int_equal(b.ep[1]->rx[1].at_ps, resume + 2 * SER_1000 + LINK_PS);
    assert_int_equal(b.ep[0]->nrx, 0); /* the PAUSE is never forwarded */
    assert_int_equal(switch_stat(&b, "port1.pause_rx"), 1);
    assert_int_equal(switch_stat(&b, "drops"), 0);
    bench_close(&b);
}

static void test_zero_quanta_pause_lets_the_port_send_at_once(void **unused)
{
    (void)unused;
    bench b;
    bench_open(&b, 2, "{\"ports\": 2, \"pause\": true}", NULL);
    send_pause_frame(b.ep[1], 0, 2, 0xFFFF);
    send_frame(b.ep[0], MORTAR_NS(100), 2, 1, 1000, 7);
    send_pause_frame(b.ep[1], MORTAR_US(2), 2, 0);
    bench_run(&b);
    assert_int_equal(b.ep[1]->nrx, 1);
    assert_int_equal(b.ep[1]->rx[0].at_ps, MORTAR_US(2) + LINK_PS + SER_1000 + LINK_PS);
    assert_int_equal(switch_stat(&b, "port1.pause_rx"), 2);
    bench_close(&b);
}

static void test_pause_is_consumed_but_not_honoured_when_off(void **unused)
{
    (void)unused;
    bench b;
    bench_open(&b, 2, "{\"ports\": 2}", NULL);
    send_pause_frame(b.ep[1], 0, 2, 0xFFFF);
    send_frame(b.ep[0], MORTAR_NS(100), 2, 1, 1000, 7);
    bench_run(&b);
    assert_int_equal(b.ep[1]->nrx, 1);
    assert_int_equal(b.ep[1]->rx[0].at_ps, MORTAR_NS(100) + LINK_PS + SER_1000 + LINK_PS);
    assert_int_equal(b.ep[0]->nrx, 0);
    assert_int_equal(switch_stat(&b, "mac_control"), 1);
    assert_int_equal(switch_stat(&b, "pause_rx"), 0);
    bench_close(&b);
}

static void test_filling_queue_sends_pause_then_xon(void **unused)
{
    (void)unused;
    enum { N = 8 };
    bench b;
    bench_open(&b, 2,
               "{\"ports\": 2, \"queue_bytes\": 8000, \"pause\": true,"
               " \"pause_high_bytes\": 4000, \"pause_low_bytes\": 2000,"
               " \"pause_quanta\": 1000}",
               NULL);
    for (uint32_t k = 0; k < N; k++) /* all at once; the endpoint ignores PAUSE */
        send_frame(b.ep[0], 0, 2, 1, 1000, k);
    bench_run(&b);
    assert_int_equal(b.ep[1]->nrx, N);
    assert_int_equal(switch_stat(&b, "drops"), 0);
    assert_int_equal(b.ep[0]->nrx, 2);
    /* the fifth frame takes the queue above 4000 bytes */
    assert_int_equal(pause_quanta_of(&b.ep[0]->rx[0]), 1000);
    assert_int_equal(b.ep[0]->rx[0].at_ps, 2 * LINK_PS);
    /* six frames gone, 2000 bytes left: XON */
    assert_int_equal(pause_quanta_of(&b.ep[0]->rx[1]), 0);
    assert_int_equal(b.ep[0]->rx[1].at_ps, LINK_PS + 6 * SER_1000 + LINK_PS);
    assert_int_equal(switch_stat(&b, "port0.xoff_tx"), 1);
    assert_int_equal(switch_stat(&b, "port0.xon_tx"), 1);
    bench_close(&b);
}

/* Two senders at 10 Gb/s into one 10 Gb/s port: without PAUSE the queue
 * overflows; with it the senders wait and every frame arrives. */
static void run_two_senders(bench *b, bool pause)
{
    enum { N = 24 };
    bench_open(b, 3,
               pause ? "{\"ports\": 3, \"queue_bytes\": 8000, \"pause\": true,"
                       " \"pause_high_bytes\": 4000, \"pause_low_bytes\": 2000}"
                     : "{\"ports\": 3, \"queue_bytes\": 8000}",
               NULL);
    for (unsigned s = 0; s < 3; s += 2) {
        b->ep[s]->honour_pause = true;
        for (uint32_t k = 0; k < N; k++)
            send_frame(b->ep[s], k * SER_1000, 1, s + 2, 1000, s * 100 + k);
    }
    send_frame(b->ep[1], 0, 2, 1, 100, 999); /* the receiver is learned on port 1 */
    bench_run(b);
}

static void test_pause_avoids_the_drops_of_an_overloaded_port(void **unused)
{
    (void)unused;
    bench b;
    run_two_senders(&b, false);
    assert_true(switch_stat(&b, "drops") > 0);
    bench_close(&b);

    run_two_senders(&b, true);
    assert_int_equal(switch_stat(&b, "drops"), 0);
    assert_int_equal(b.ep[1]->nrx, 48);
    for (uint32_t k = 0; k < 24; k++) {
        assert_int_equal(received_tag(b.ep[1], k), 1);
        assert_int_equal(received_tag(b.ep[1], 200 + k), 1);
    }
    assert_true(switch_stat(&b, "xoff_tx") >= 2); /* both senders were held */
    assert_true(switch_stat(&b, "xon_tx") >= 2);
    assert_true(switch_stat(&b, "port1.queue_peak_bytes") <= 8000);
    bench_close(&b);
}

static void test_port_rate_is_the_bandwidth_parameter(void **unused)
{
    (void)unused;
    mortar_params *p = mortar_params_parse("{\"ports\": 2, \"bandwidth\": \"40Gbps\"}",
                                           "sw.params", NULL, 0);
    assert_int_equal(mortar_switch_ops.port_rate_bps(p, 1), 40000000000ull);
    mortar_params_free(p);
    p = mortar_params_parse("{\"ports\": 2}", "sw.params", NULL, 0);
    assert_int_equal(mortar_switch_ops.port_rate_bps(p, 0), 10000000000ull);
    mortar_params_free(p);
}

/* ---- pcap ------------------------------------------------------------------ */

static uint32_t le32_at(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static void check_pcap_header(const char *path)
{
    uint8_t h[24];
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(h, 1, sizeof h, f), sizeof h);
    fclose(f);
    assert_int_equal(le32_at(h), 0xa1b23c4du);
    assert_int_equal(h[4] | h[5] << 8, 2);
    assert_int_equal(h[6] | h[7] << 8, 4);
    assert_int_equal(le32_at(h + 16), 65535);
    assert_int_equal(le32_at(h + 20), 1);
}

/* "S.FFFFFFFFF" -> nanoseconds, exactly (no floating point). */
static uint64_t epoch_to_ns(const char *text)
{
    char *dot;
    uint64_t ns = strtoull(text, &dot, 10) * 1000000000ull;
    assert_int_equal(*dot, '.');
    uint64_t scale = 100000000ull;
    for (const char *d = dot + 1; *d >= '0' && *d <= '9' && scale; d++, scale /= 10)
        ns += (uint64_t)(*d - '0') * scale;
    return ns;
}

static bool have_tshark(void)
{
    return system("command -v tshark >/dev/null 2>&1") == 0;
}

static void test_pcap_has_every_departure_with_nanosecond_times(void **unused)
{
    enum { N = 5 };
    if (!have_tshark()) {
        print_message("tshark is not installed: skipping the pcap check\n");
        skip();
    }
    char path[] = "/tmp/test_switch_XXXXXX.pcap";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    close(fd);
    char params[256];
    snprintf(params, sizeof params,
             "{\"ports\": 2, \"bandwidth\": \"3Gbps\", \"latency\": \"7ns\", \"pcap\": "
             "\"%s\"}",
             path);
    bench b;
    bench_open(&b, 2, params, NULL);
    uint64_t t0 = MORTAR_MS(1500); /* seconds and nanoseconds both non-zero */
    for (uint32_t k = 0; k < N; k++)
        send_frame(b.ep[0], t0, 2, 1, 1000 - 100 * k, k);
    bench_run(&b);
    uint64_t depart_ps[N];
    assert_int_equal(b.ep[1]->nrx, N);
    for (unsigned k = 0; k < N; k++)
        depart_ps[k] = b.ep[1]->rx[k].at_ps - LINK_PS;
    bench_close(&b); /* flushes the file */
    check_pcap_header(path);

    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "tshark -r '%s' -T fields -e frame.time_epoch -e frame.len 2>/dev/null",
             path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[256];
    unsigned n = 0;
    while (fgets(line, sizeof line, p)) {
        char *tab = strchr(line, '\t');
        assert_non_null(tab);
        assert_true(n < N);
        assert_int_equal(epoch_to_ns(line), depart_ps[n] / 1000);
        assert_int_equal(strtoul(tab + 1, NULL, 10), 1000 - 100 * n);
        n++;
    }
    assert_int_equal(pclose(p), 0);
    assert_int_equal(n, N);
    /* the second frame leaves at a time that is not a whole nanosecond */
    assert_int_not_equal(depart_ps[1] % 1000, 0);
    unlink(path);
}

/* Runs five frames through a switch writing `path` (NULL: no pcap) with
 * the given start; their departures (simulated ps) go to depart_ps. */
static void run_with_pcap_start(const char *path, uint64_t epoch_ns, uint64_t depart_ps[5])
{
    char params[320];
    if (path)
        snprintf(params, sizeof params,
                 "{\"ports\": 2, \"bandwidth\": \"3Gbps\", \"latency\": \"7ns\","
                 " \"pcap\": \"%s\", \"pcap_epoch_ns\": %llu}",
                 path, (unsigned long long)epoch_ns);
    else
        snprintf(params, sizeof params,
                 "{\"ports\": 2, \"bandwidth\": \"3Gbps\", \"latency\": \"7ns\"}");
    bench b;
    bench_open(&b, 2, params, NULL);
    for (uint32_t k = 0; k < 5; k++)
        send_frame(b.ep[0], MORTAR_MS(1500), 2, 1, 1000 - 100 * k, k);
    bench_run(&b);
    assert_int_equal(b.ep[1]->nrx, 5);
    for (unsigned k = 0; k < 5; k++)
        depart_ps[k] = b.ep[1]->rx[k].at_ps - LINK_PS;
    bench_close(&b); /* flushes the file */
}

/* The pcap's records are stamped with the run's wall-clock start plus the
 * simulated time (so Wireshark and the trace exports share one clock),
 * and neither the start nor the pcap changes anything the switch does. */
static void test_pcap_times_start_at_the_given_wall_clock_time(void **unused)
{
    char path[] = "/tmp/test_switch_XXXXXX.pcap";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    close(fd);
    const uint64_t start = 1764606049ull * 1000000000ull + 123456789ull;
    uint64_t depart[5], depart_at_zero[5], depart_no_pcap[5];
    run_with_pcap_start(NULL, 0, depart_no_pcap);
    run_with_pcap_start(path, 0, depart_at_zero);
    run_with_pcap_start(path, start, depart);
    assert_memory_equal(depart, depart_at_zero, sizeof depart);
    assert_memory_equal(depart, depart_no_pcap, sizeof depart);
    check_pcap_header(path);
    uint8_t h[24 + 16];
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(h, 1, sizeof h, f), sizeof h);
    fclose(f);
    uint64_t want_ns = start + depart[0] / 1000;
    assert_int_equal(le32_at(h + 24), want_ns / 1000000000ull);
    assert_int_equal(le32_at(h + 28), want_ns % 1000000000ull);
    if (have_tshark()) { /* and Wireshark's reader says the same of every frame */
        char cmd[512], line[256];
        snprintf(cmd, sizeof cmd, "tshark -r '%s' -T fields -e frame.time_epoch 2>/dev/null",
                 path);
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        unsigned n = 0;
        while (fgets(line, sizeof line, p) && n < 5) {
            assert_int_equal(epoch_to_ns(line), start + depart[n] / 1000);
            n++;
        }
        assert_int_equal(pclose(p), 0);
        assert_int_equal(n, 5);
    }
    unlink(path);
}

/* ---- robustness, parameters, trace ----------------------------------------- */

static void test_malformed_frames_and_unknown_messages_are_counted(void **unused)
{
    bench b;
    bench_open(&b, 2, "{\"ports\": 2}", NULL);
    send_raw(b.ep[0], 0, MORTAR_ETH_FRAME, 5);
    send_raw(b.ep[0], MORTAR_NS(10), MORTAR_ETH_FRAME, 0);
    send_raw(b.ep[0], MORTAR_NS(20), 0x20, 64); /* not an Ethernet message type */
    send_frame(b.ep[0], MORTAR_US(1), 2, 1, 64, 42);
    bench_run(&b);
    assert_int_equal(b.ep[1]->nrx, 1);
    assert_int_equal(b.ep[1]->rx[0].tag, 42);
    assert_int_equal(switch_stat(&b, "malformed"), 2);
    assert_int_equal(switch_stat(&b, "unknown_msgs"), 1);
    assert_int_equal(switch_stat(&b, "port0.rx_frames"), 3);
    assert_int_equal(switch_stat(&b, "mac_entries"), 1);
    bench_close(&b);
}

/* Port 1 of a 2-port switch goes over a real link whose slots hold 1024-byte
 * payloads: a larger frame cannot be sent there and is counted. */
static void test_frame_too_big_for_the_output_link_is_dropped_and_counted(void **unused)
{
    mortar_loop *loop;
    mortar_component *sw, *in, *out;
    assert_int_equal(mortar_loop_create(&loop), 0);
    mortar_params *p = mortar_params_parse("{\"ports\": 2}", "sw.params", NULL, 0);
    assert_int_equal(mortar_loop_add(loop, &mortar_switch_ops, "sw", p, &sw), 0);
    mortar_params_free(p);
    assert_int_equal(mortar_loop_add(loop, &endpoint_ops, "in", NULL, &in), 0);
    assert_int_equal(mortar_loop_add(loop, &endpoint_ops, "out", NULL, &out), 0);
    mortar_link_params lp;
    mortar_link_params_init(&lp);
    lp.protocol = MORTAR_PROTO_ETH;
    lp.latency_ps = LINK_PS;
    lp.name = "small-slots";
    lp.slot_size = 64 + 1024;
    lp.sync_mode = MORTAR_SYNC_OFF; /* both ends in one loop: nobody to wait for */
    mortar_link *a, *b;
    assert_int_equal(mortar_link_pair(&a, &b, &lp), 0);
    assert_int_equal(mortar_loop_bind(loop, sw, 1, a), 0);
    assert_int_equal(mortar_loop_bind(loop, out, 0, b), 0);
    lp.name = "in";
    lp.slot_size = MORTAR_ETH_SLOT_SIZE; /* the ingress link carries jumbo frames */
    assert_int_equal(mortar_loop_connect(loop, in, 0, sw, 0, &lp), 0);
    endpoint *src = mortar_component_state(in), *dst = mortar_component_state(out);
    send_frame(src, 0, 2, 1, 1500, 1);
    send_frame(src, MORTAR_US(1), 2, 1, 1000, 2);
    assert_int_equal(mortar_loop_run(loop, MORTAR_US(100)), 0);
    assert_int_equal(dst->nrx, 1);
    assert_int_equal(dst->rx[0].tag, 2);
    bench b_ = {.loop = loop, .sw = sw};
    assert_int_equal(switch_stat(&b_, "port1.too_big"), 1);
    assert_int_equal(switch_stat(&b_, "port1.queue_peak_bytes"), 1000);
    assert_int_equal(switch_stat(&b_, "port1.tx_frames"), 1);
    mortar_loop_destroy(loop);
}

static int add_switch(const char *params)
{
    mortar_loop *loop;
    assert_int_equal(mortar_loop_create(&loop), 0);
    mortar_params *p = mortar_params_parse(params, "sw.params", NULL, 0);
    assert_non_null(p);
    int rc = mortar_loop_add(loop, &mortar_switch_ops, "sw", p, NULL);
    mortar_params_free(p);
    mortar_loop_destroy(loop);
    return rc;
}

static void test_rejects_bad_parameters(void **unused)
{
    assert_int_equal(add_switch("{}"), MORTAR_EINVAL);
    assert_int_equal(add_switch("{\"ports\": 0}"), MORTAR_EINVAL);
    assert_int_equal(add_switch("{\"ports\": 65}"), MORTAR_EINVAL);
    assert_int_equal(add_switch("{\"ports\": 2, \"bandwidth\": \"0bps\"}"),
                     MORTAR_EINVAL);
    assert_int_equal(add_switch("{\"ports\": 2, \"bandwidth\": 10}"), MORTAR_EINVAL);
    assert_int_equal(add_switch("{\"ports\": 2, \"queue_bytes\": 0}"), MORTAR_EINVAL);
    assert_int_equal(add_switch("{\"ports\": 2, \"latency\": \"5\"}"), MORTAR_EINVAL);
    assert_int_equal(add_switch("{\"ports\": 2, \"colour\": \"red\"}"), MORTAR_EINVAL);
    assert_int_equal(add_switch("{\"ports\": 2, \"pcap\": \"/nonexistent/dir/x.pcap\"}"),
                     MORTAR_EIO);
    assert_int_equal(add_switch("{\"ports\": 2, \"pause\": 1}"), MORTAR_EINVAL);
    assert_int_equal(add_switch("{\"ports\": 2, \"queue_bytes\": 1000,"
                                " \"pause_high_bytes\": 1001}"),
                     MORTAR_EINVAL);
    assert_int_equal(add_switch("{\"ports\": 2, \"pause_high_bytes\": 1000,"
                                " \"pause_low_bytes\": 1000}"),
                     MORTAR_EINVAL);
    assert_int_equal(add_switch("{\"ports\": 2, \"pause_quanta\": 0}"), MORTAR_EINVAL);
    assert_int_equal(add_switch("{\"ports\": 2, \"pause_quanta\": 65536}"),
                     MORTAR_EINVAL);
    assert_int_equal(
        add_switch("{\"ports\": 2, \"pause\": true, \"pause_quanta\": 65535}"), 0);
    assert_int_equal(add_switch("{\"ports\": 64}"), 0);
    assert_int_equal(add_switch("{\"ports\": 1}"), 0);
}

static void test_registry_knows_the_switch(void **unused)
{
    assert_ptr_equal(mortar_registry_find("switch"), &mortar_switch_ops);
}

/* Counts the trace events of each switch event kind. */
static void count_trace(const char *path, unsigned *rx, unsigned *tx, unsigned *drop)
{
    mortar_trace_reader *r;
    char err[256];
    assert_int_equal(mortar_trace_reader_open(&r, path, err, sizeof err), 0);
    mortar_trace_event ev;
    *rx = *tx = *drop = 0;
    while (mortar_trace_reader_next(r, &ev) == 1) {
        const char *kind = mortar_trace_reader_kind(r, ev.kind);
        *rx += strcmp(kind, "frame_rx") == 0;
        *tx += strcmp(kind, "frame_tx") == 0;
        *drop += strcmp(kind, "frame_drop") == 0;
    }
    mortar_trace_reader_close(r);
}

static void test_trace_records_rx_tx_and_drop_events(void **unused)
{
    char path[] = "/tmp/test_switch_trace_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    bench b;
    bench_open(&b, 2, "{\"ports\": 2, \"queue_bytes\": 2000}", path);
    for (uint32_t k = 0; k < 3; k++)
        send_frame(b.ep[0], 0, 2, 1, 1000, k);
    bench_run(&b);
    bench_close(&b);
    unsigned rx, tx, drop;
    count_trace(path, &rx, &tx, &drop);
    assert_int_equal(rx, 3);
    assert_int_equal(tx, 2);
    assert_int_equal(drop, 1);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_destination_floods_to_all_other_ports),
        cmocka_unit_test(test_reply_and_later_frames_go_only_to_learned_port),
        cmocka_unit_test(test_broadcast_floods_even_when_destinations_are_learned),
        cmocka_unit_test(test_frame_for_the_ingress_port_is_filtered),
        cmocka_unit_test(test_station_that_moves_is_learned_on_its_new_port),
        cmocka_unit_test(test_group_source_address_is_not_learned),
        cmocka_unit_test(test_full_address_table_stops_learning_but_keeps_old_entries),
        cmocka_unit_test(test_burst_leaves_at_exact_serialization_times),
        cmocka_unit_test(test_idle_port_sends_after_latency_and_one_serialization),
        cmocka_unit_test(test_output_ports_serialize_independently),
        cmocka_unit_test(test_queue_overflow_drops_the_excess_and_counts_it),
        cmocka_unit_test(test_pause_frame_format_and_duration),
        cmocka_unit_test(test_paused_port_holds_its_frames_until_the_quanta_pass),
        cmocka_unit_test(test_zero_quanta_pause_lets_the_port_send_at_once),
        cmocka_unit_test(test_pause_is_consumed_but_not_honoured_when_off),
        cmocka_unit_test(test_filling_queue_sends_pause_then_xon),
        cmocka_unit_test(test_pause_avoids_the_drops_of_an_overloaded_port),
        cmocka_unit_test(test_port_rate_is_the_bandwidth_parameter),
        cmocka_unit_test(test_pcap_has_every_departure_with_nanosecond_times),
        cmocka_unit_test(test_pcap_times_start_at_the_given_wall_clock_time),
        cmocka_unit_test(test_malformed_frames_and_unknown_messages_are_counted),
        cmocka_unit_test(test_frame_too_big_for_the_output_link_is_dropped_and_counted),
        cmocka_unit_test(test_rejects_bad_parameters),
        cmocka_unit_test(test_registry_knows_the_switch),
        cmocka_unit_test(test_trace_records_rx_tx_and_drop_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
