/*
 * test_ring.c - the slot rings of a link: order, wrap-around, full and
 * empty, payload sizes up to the slot limit, oversized messages refused,
 * null and terminate messages consumed as promises, nothing more sent to a
 * peer that terminated, and a broken peer's data
 * slots (too large, stamped below the horizon) refused by the reader.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mortar/error.h"
#include "mortar/link.h"

static void make_pair(mortar_link **a, mortar_link **b, uint32_t slot_size, uint32_t count)
{
    mortar_link_params p;
    mortar_link_params_init(&p);
    p.name = "ring";
    p.slot_size = slot_size;
    p.slot_count = count;
    p.latency_ps = 1000;
    assert_int_equal(mortar_link_pair(a, b, &p), 0);
}

static void test_ring_keeps_message_order_across_wraparound(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b, 128, 4);
    uint64_t now = 0;
    for (uint32_t round = 0; round < 10; round++) {
        for (uint32_t i = 0; i < 3; i++) {
            uint32_t v = round * 3 + i;
            assert_int_equal(mortar_link_send(a, now++, 0x10, &v, sizeof v, 0, NULL), 0);
        }
        for (uint32_t i = 0; i < 3; i++) {
            mortar_msg m;
            assert_int_equal(mortar_link_peek(b, &m), 1);
            uint32_t v;
            memcpy(&v, m.payload, sizeof v);
            assert_int_equal(v, round * 3 + i);
            mortar_link_pop(b);
        }
    }
    mortar_msg m;
    assert_int_equal(mortar_link_peek(b, &m), 0);
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_ring_reports_full_and_empty(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b, 128, 4);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(b, &m), 0);
    assert_false(mortar_link_has_input(b));
    for (int i = 0; i < 4; i++)
        assert_int_equal(mortar_link_send(a, 0, 0x10, "x", 1, 0, NULL), 0);
    assert_int_equal(mortar_link_send(a, 0, 0x10, "x", 1, 0, NULL), MORTAR_EAGAIN);
    assert_true(mortar_link_has_input(b));
    assert_int_equal(mortar_link_peek(b, &m), 1);
    mortar_link_pop(b);
    assert_int_equal(mortar_link_send(a, 0, 0x10, "y", 1, 0, NULL), 0);
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_ring_carries_payloads_up_to_the_slot_limit(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b, 1024, 8);
    uint32_t max = mortar_link_max_payload(a);
    assert_int_equal(max, 1024 - 64);
    uint8_t buf[1024];
    for (uint32_t size = 0; size <= max; size += 137) {
        for (uint32_t i = 0; i < size; i++)
            buf[i] = (uint8_t)(i * 7 + size);
        assert_int_equal(mortar_link_send(a, 0, 0x11, buf, size, 0, NULL), 0);
        mortar_msg m;
        assert_int_equal(mortar_link_peek(b, &m), 1);
        assert_int_equal(m.size, size);
        assert_int_equal(m.type, 0x11);
        assert_memory_equal(m.payload, buf, size);
        mortar_link_pop(b);
    }
    assert_int_equal(mortar_link_send(a, 0, 0x11, buf, max, 0, NULL), 0);
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_ring_refuses_oversized_message(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b, 256, 4);
    uint8_t buf[512] = {0};
    assert_int_equal(mortar_link_send(a, 0, 0x10, buf, 256 - 64 + 1, 0, NULL), MORTAR_ETOOBIG);
    assert_non_null(strstr(mortar_link_errmsg(a), "does not fit"));
    assert_non_null(strstr(mortar_link_errmsg(a), "ring"));
    mortar_msg m;
    assert_int_equal(mortar_link_peek(b, &m), 0);
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_ring_stamps_send_time_plus_latency(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b, 128, 8);
    uint64_t stamp;
    assert_int_equal(mortar_link_send(a, 5000, 0x10, "x", 1, 0, &stamp), 0);
    assert_int_equal(stamp, 6000);
    assert_int_equal(mortar_link_send(a, 4000, 0x10, "x", 1, 0, NULL), MORTAR_EINVAL);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(b, &m), 1);
    assert_int_equal(m.timestamp_ps, 6000);
    assert_int_equal(mortar_link_in_horizon(b), 6000);
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_ring_consumes_sync_and_terminate_as_promises(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b, 128, 8);
    assert_int_equal(mortar_link_send_sync(a, 7000), 0);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(b, &m), 0);
    assert_int_equal(mortar_link_in_horizon(b), 8000);
    assert_int_equal(mortar_link_sync_due(a), 7000 + 1000);
    assert_int_equal(mortar_link_terminate(a, 100), 0);
    assert_int_equal(mortar_link_peek(b, &m), 0);
    assert_true(mortar_link_peer_terminated(b));
    assert_int_equal(mortar_link_in_horizon(b), MORTAR_TIME_MAX);
    mortar_link_close(a);
    mortar_link_close(b);
}

/* A side that ended reads nothing more: once b took in a's terminate, b
 * owes a no null message (none is due, none takes a slot), and b's own
 * terminate does not wait for a slot in the ring a no longer empties. */
static void test_ring_sends_nothing_to_a_peer_that_ended(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b, 128, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(mortar_link_send(b, 0, 0x10, "x", 1, 0, NULL), 0);
    assert_int_equal(mortar_link_send_sync(b, 10), MORTAR_EAGAIN); /* full */
    assert_int_equal(mortar_link_terminate(a, 100), 0);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(b, &m), 0);
    assert_true(mortar_link_peer_terminated(b));
    assert_int_equal(mortar_link_sync_due(b), MORTAR_TIME_MAX);
    assert_int_equal(mortar_link_send_sync(b, 20), 0);
    assert_int_equal(mortar_link_send_promise(b, 20, 30), 0);
    assert_int_equal(mortar_link_terminate(b, 0), 0);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(mortar_link_peek(a, &m), 1); /* only the data */
        mortar_link_pop(a);
    }
    assert_int_equal(mortar_link_peek(a, &m), 0);
    mortar_link_close(a);
    mortar_link_close(b);
}

/* A data message written by hand into a's next slot, as a broken peer
 * would: header fields, then the ownership byte. */
static void publish_data_by_hand(mortar_link *a, uint32_t payload_size, uint64_t stamp)
{
    uint8_t *payload = mortar_link_reserve(a, 0);
    assert_non_null(payload);
    mortar_slot_header *h = (mortar_slot_header *)(void *)(payload - MORTAR_SLOT_HEADER_SIZE);
    h->payload_size = payload_size;
    h->timestamp_ps = stamp;
    __atomic_store_n(&h->own_type, (uint8_t)(MORTAR_SLOT_FULL | 0x10), __ATOMIC_RELEASE);
}

static void test_ring_rejects_a_data_slot_larger_than_the_slot(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b, 128, 4);
    publish_data_by_hand(a, 128 - 64 + 1, 5000);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(b, &m), MORTAR_EPROTO);
    assert_non_null(strstr(mortar_link_errmsg(b), "malformed slot"));
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_ring_rejects_a_stamp_below_the_horizon(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b, 128, 4);
    assert_int_equal(mortar_link_send(a, 5000, 0x10, "x", 1, 0, NULL), 0);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(b, &m), 1);
    mortar_link_pop(b);
    publish_data_by_hand(a, 1, 5999); /* the horizon is 6000 */
    assert_int_equal(mortar_link_peek(b, &m), MORTAR_EPROTO);
    assert_non_null(strstr(mortar_link_errmsg(b), "5999"));
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_ring_rejects_invalid_params(void **state)
{
    (void)state;
    mortar_link_params p;
    mortar_link_params_init(&p);
    p.name = "bad";
    char err[256];
    p.latency_ps = 0;
    assert_int_equal(mortar_link_params_check(&p, err, sizeof err), MORTAR_EINVAL);
    assert_non_null(strstr(err, "latency"));
    p.latency_ps = 500;
    p.sync_interval_ps = 501;
    assert_int_equal(mortar_link_params_check(&p, err, sizeof err), MORTAR_EINVAL);
    assert_non_null(strstr(err, "sync interval"));
    p.sync_interval_ps = 500;
    p.slot_size = 100;
    assert_int_equal(mortar_link_params_check(&p, err, sizeof err), MORTAR_EINVAL);
    p.slot_size = 128;
    assert_int_equal(mortar_link_params_check(&p, err, sizeof err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_keeps_message_order_across_wraparound),
        cmocka_unit_test(test_ring_reports_full_and_empty),
        cmocka_unit_test(test_ring_carries_payloads_up_to_the_slot_limit),
        cmocka_unit_test(test_ring_refuses_oversized_message),
        cmocka_unit_test(test_ring_stamps_send_time_plus_latency),
        cmocka_unit_test(test_ring_consumes_sync_and_terminate_as_promises),
        cmocka_unit_test(test_ring_sends_nothing_to_a_peer_that_ended),
        cmocka_unit_test(test_ring_rejects_a_data_slot_larger_than_the_slot),
        cmocka_unit_test(test_ring_rejects_a_stamp_below_the_horizon),
        cmocka_unit_test(test_ring_rejects_invalid_params),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
