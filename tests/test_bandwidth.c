/*
 * test_bandwidth.c - serialization on links with a bandwidth: back-to-back
 * messages queue behind each other by exactly bytes/bandwidth, an idle wire
 * starts at once, null messages never promise less than a frame still on the
 * wire, and in-process connections stamp exactly like shared-memory links.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mortar/error.h"
#include "mortar/link.h"
#include "mortar/runtime.h"

#define LAT 1000000ull     /* 1 us */
#define BW 10000000000ull  /* 10 Gbit/s: 800 ps per byte */

static void make_pair(mortar_link **a, mortar_link **b)
{
    mortar_link_params p;
    mortar_link_params_init(&p);
    p.name = "bw";
    p.slot_size = 16384;
    p.slot_count = 16;
    p.latency_ps = LAT;
    p.bandwidth_bps = BW;
    assert_int_equal(mortar_link_pair(a, b, &p), 0);
}

static void test_back_to_back_messages_serialize_exactly(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b);
    static uint8_t buf[9000];
    const uint32_t sizes[] = {100, 1500, 9000, 64};
    uint64_t wire_end = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t stamp;
        assert_int_equal(mortar_link_send(a, 0, 0x10, buf, sizes[i], 0, &stamp), 0);
        wire_end += (uint64_t)sizes[i] * 800;
        assert_int_equal(stamp, wire_end + LAT);
    }
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_idle_wire_starts_at_send_time(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b);
    uint8_t buf[1000] = {0};
    uint64_t stamp;
    assert_int_equal(mortar_link_send(a, 0, 0x10, buf, 1000, 0, &stamp), 0);
    assert_int_equal(stamp, 800000 + LAT);
    /* long after the wire went idle */
    assert_int_equal(mortar_link_send(a, 5000000, 0x10, buf, 1000, 0, &stamp), 0);
    assert_int_equal(stamp, 5000000 + 800000 + LAT);
    /* wire_bytes overrides the payload size */
    assert_int_equal(mortar_link_send(a, 10000000, 0x10, buf, 10, 1024, &stamp), 0);
    assert_int_equal(stamp, 10000000 + 1024 * 800 + LAT);
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_sync_never_promises_less_than_a_frame_on_the_wire(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b);
    static uint8_t buf[9000];
    uint64_t stamp;
    assert_int_equal(mortar_link_send(a, 0, 0x10, buf, 9000, 0, &stamp), 0);
    assert_int_equal(mortar_link_send_sync(a, 10), 0);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(b, &m), 1);
    mortar_link_pop(b);
    assert_int_equal(mortar_link_peek(b, &m), 0); /* the sync */
    assert_int_equal(mortar_link_in_horizon(b), stamp);
    mortar_link_close(a);
    mortar_link_close(b);
}

/* A component that sends a burst at start and records arrival stamps. */
typedef struct burst {
    mortar_component *self;
    uint64_t stamps[8];
    int received;
} burst;

static int burst_create(mortar_component *self, const mortar_params *p, void **state)
{
    (void)p;
    burst *b = calloc(1, sizeof *b);
    b->self = self;
    mortar_port_declare(self, 0, MORTAR_PROTO_TEST, NULL, 0);
    *state = b;
    return 0;
}

static void burst_start(void *state)
{
    burst *b = state;
    static uint8_t buf[4000];
    for (int i = 0; i < 4; i++)
        mortar_send(b->self, 0, 0x10, buf, (uint32_t)(1000 * (i + 1)), 0, NULL);
}

static void burst_message(void *state, unsigned port, const mortar_msg *m)
{
    (void)port;
    burst *b = state;
    b->stamps[b->received++] = mortar_now(b->self);
    assert_int_equal(m->timestamp_ps, mortar_now(b->self));
}

static void burst_destroy(void *state)
{
    free(state);
}

static const mortar_component_ops burst_ops = {
    .kind = "burst", .create = burst_create, .start = burst_start,
    .message = burst_message, .destroy = burst_destroy};

static void test_inprocess_connection_stamps_like_a_link(void **state)
{
    (void)state;
    mortar_loop *loop;
    assert_int_equal(mortar_loop_create(&loop), 0);
    mortar_component *x, *y;
    assert_int_equal(mortar_loop_add(loop, &burst_ops, "x", NULL, &x), 0);
    assert_int_equal(mortar_loop_add(loop, &burst_ops, "y", NULL, &y), 0);
    mortar_link_params p;
    mortar_link_params_init(&p);
    p.latency_ps = LAT;
    p.bandwidth_bps = BW;
    p.slot_size = 8192;
    assert_int_equal(mortar_loop_connect(loop, x, 0, y, 0, &p), 0);
    assert_int_equal(mortar_loop_run(loop, MORTAR_TIME_MAX), 0);
    burst *by = mortar_component_state(y);
    assert_int_equal(by->received, 4);
    uint64_t wire_end = 0;
    for (int i = 0; i < 4; i++) {
        wire_end += (uint64_t)(1000 * (i + 1)) * 800;
        assert_int_equal(by->stamps[i], wire_end + LAT);
    }
    mortar_loop_destroy(loop);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_back_to_back_messages_serialize_exactly),
        cmocka_unit_test(test_idle_wire_starts_at_send_time),
        cmocka_unit_test(test_sync_never_promises_less_than_a_frame_on_the_wire),
        cmocka_unit_test(test_inprocess_connection_stamps_like_a_link),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
