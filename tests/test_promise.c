/*
 * test_promise.c - lookahead promises on a link (mortar/link.h,
 * docs/protocol.md "Lookahead promises"): the input bound follows the
 * peer's promise, falls back to a latency after our first message the peer
 * had not consumed, comes back when the peer confirms it consumed
 * everything; a data message below the promise, or below an earlier
 * promise that still binds the peer, and malformed promises are protocol
 * errors; a terminated peer's bound is infinite; the promise rides
 * in the slot header, so one-line slots carry it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mortar/error.h"
#include "mortar/link.h"

#define LAT 1000 /* ps */

static void make_pair_of(mortar_link **a, mortar_link **b, uint32_t slot_size)
{
    mortar_link_params p;
    mortar_link_params_init(&p);
    p.name = "promise";
    p.slot_size = slot_size;
    p.slot_count = 16;
    p.latency_ps = LAT;
    assert_int_equal(mortar_link_pair(a, b, &p), 0);
}

static void make_pair(mortar_link **a, mortar_link **b)
{
    make_pair_of(a, b, 128);
}

/* Reads everything b has (null messages only). */
static void drain(mortar_link *b)
{
    mortar_msg m;
    assert_int_equal(mortar_link_peek(b, &m), 0);
}

static void test_promise_raises_the_bound_above_the_horizon(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b);
    assert_int_equal(mortar_link_send_promise(a, 100, 50000), 0);
    drain(b);
    assert_int_equal(mortar_link_in_horizon(b), 100 + LAT);
    assert_int_equal(mortar_link_in_bound(b), 50000 + LAT);
    /* without a promise the bound is the horizon */
    assert_int_equal(mortar_link_send_sync(b, 0), 0);
    drain(a);
    assert_int_equal(mortar_link_in_bound(a), mortar_link_in_horizon(a));
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_promise_yields_to_our_unconsumed_message(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b);
    assert_int_equal(mortar_link_send_promise(a, 0, 90000), 0);
    drain(b);
    uint64_t stamp = 0;
    uint32_t v = 7;
    assert_int_equal(mortar_link_send(b, 2000, 0x10, &v, sizeof v, 0, &stamp), 0);
    assert_int_equal(stamp, 2000 + LAT);
    /* a may answer it: a latency after its stamp */
    assert_int_equal(mortar_link_in_bound(b), stamp + LAT);

    /* a consumes it, then promises again: the bound follows the promise */
    mortar_msg m;
    assert_int_equal(mortar_link_peek(a, &m), 1);
    mortar_link_pop(a);
    assert_int_equal(mortar_link_send_promise(a, 3000, 70000), 0);
    drain(b);
    assert_int_equal(mortar_link_in_bound(b), 70000 + LAT);
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_promise_made_before_consuming_keeps_the_fallback(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b);
    uint32_t v = 1;
    assert_int_equal(mortar_link_send(b, 2000, 0x10, &v, sizeof v, 0, NULL), 0);
    /* a promises without having consumed b's message */
    assert_int_equal(mortar_link_send_promise(a, 0, 90000), 0);
    drain(b);
    assert_int_equal(mortar_link_in_bound(b), 2000 + 2 * LAT);
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_promise_data_below_it_is_a_protocol_error(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b);
    assert_int_equal(mortar_link_send_promise(a, 0, 90000), 0);
    uint32_t v = 1;
    assert_int_equal(mortar_link_send(a, 5000, 0x10, &v, sizeof v, 0, NULL), 0);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(b, &m), MORTAR_EPROTO);
    assert_non_null(strstr(mortar_link_errmsg(b), "promise"));
    mortar_link_close(a);
    mortar_link_close(b);
}

/* a promises b 90000, then less, 20000 (b has sent nothing). */
static void promise_high_then_low(mortar_link *a, mortar_link *b)
{
    assert_int_equal(mortar_link_send_promise(a, 0, 90000), 0);
    drain(b);
    assert_int_equal(mortar_link_send_promise(a, 100, 20000), 0);
    drain(b);
    assert_int_equal(mortar_link_in_bound(b), 20000 + LAT);
}

/* A lower promise does not free the peer from an earlier one: a data
 * message below the earlier is a protocol error, named as such. */
static void test_an_earlier_promise_still_binds(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b);
    promise_high_then_low(a, b);
    uint32_t v = 1;
    assert_int_equal(mortar_link_send(a, 30000, 0x10, &v, sizeof v, 0, NULL), 0);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(b, &m), MORTAR_EPROTO);
    assert_non_null(strstr(mortar_link_errmsg(b), "earlier promise"));
    assert_non_null(strstr(mortar_link_errmsg(b), "91000 ps"));
    mortar_link_close(a);
    mortar_link_close(b);
}

/* What we send after a promise frees the peer from it: its reaction may
 * come a latency after our message, below that earlier promise. */
static void test_our_send_lowers_what_binds_the_peer(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b);
    promise_high_then_low(a, b);
    uint64_t stamp = 0;
    uint32_t v = 1;
    assert_int_equal(mortar_link_send(b, 2000, 0x10, &v, sizeof v, 0, &stamp), 0);
    assert_int_equal(mortar_link_send(a, stamp, 0x10, &v, sizeof v, 0, NULL), 0);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(b, &m), 1);
    assert_int_equal(m.timestamp_ps, stamp + LAT);
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_promise_is_never_below_the_null_message_stamp(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b);
    assert_int_equal(mortar_link_send_promise(a, 8000, 0), 0);
    drain(b);
    assert_int_equal(mortar_link_in_bound(b), 8000 + LAT);
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_promise_after_terminate_is_the_horizon(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b);
    assert_int_equal(mortar_link_send_promise(a, 0, 50000), 0);
    assert_int_equal(mortar_link_terminate(a, 100), 0);
    drain(b);
    assert_int_equal(mortar_link_in_bound(b), MORTAR_TIME_MAX);
    mortar_link_close(a);
    mortar_link_close(b);
}

/* The promise travels in the slot header: a link of 64-byte slots (no
 * payload at all) carries it, and header-only data messages. */
static void test_promise_fits_a_one_line_slot(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair_of(&a, &b, MORTAR_SLOT_HEADER_SIZE);
    assert_int_equal(mortar_link_max_payload(a), 0);
    assert_int_equal(mortar_link_send_promise(a, 100, 50000), 0);
    drain(b);
    assert_int_equal(mortar_link_in_bound(b), 50000 + LAT);
    uint8_t byte = 1;
    assert_int_equal(mortar_link_send(a, 200, 0x10, &byte, 1, 0, NULL), MORTAR_ETOOBIG);
    assert_int_equal(mortar_link_send(a, 60000, 0x10, NULL, 0, 0, NULL), 0);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(b, &m), 1);
    assert_int_equal(m.size, 0);
    assert_int_equal(m.timestamp_ps, 60000 + LAT);
    mortar_link_pop(b);
    mortar_link_close(a);
    mortar_link_close(b);
}

/* A null message written by hand into a's next slot, as a broken peer
 * would: header fields, then the ownership byte. */
static void publish_null_by_hand(mortar_link *a, uint32_t payload_size, uint64_t promise,
                                 uint64_t consumed)
{
    uint8_t *payload = mortar_link_reserve(a, 0);
    assert_non_null(payload);
    mortar_slot_header *h = (mortar_slot_header *)(void *)(payload - MORTAR_SLOT_HEADER_SIZE);
    h->payload_size = payload_size;
    h->promise_ps = promise;
    h->consumed = consumed;
    h->timestamp_ps = 2 * LAT;
    __atomic_store_n(&h->own_type, (uint8_t)(MORTAR_SLOT_FULL | MORTAR_MSG_SYNC),
                     __ATOMIC_RELEASE);
}

static void test_promise_of_more_than_we_sent_is_a_protocol_error(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b);
    publish_null_by_hand(a, 0, 90000, 3); /* b sent nothing */
    mortar_msg m;
    assert_int_equal(mortar_link_peek(b, &m), MORTAR_EPROTO);
    assert_non_null(strstr(mortar_link_errmsg(b), "malformed promise"));
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_null_message_with_a_payload_is_a_protocol_error(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b);
    publish_null_by_hand(a, 16, 0, 0); /* version 1's promise */
    mortar_msg m;
    assert_int_equal(mortar_link_peek(b, &m), MORTAR_EPROTO);
    assert_non_null(strstr(mortar_link_errmsg(b), "malformed null message"));
    mortar_link_close(a);
    mortar_link_close(b);
}

/* A promise carried by a data message (mortar/pcie.h, held reads) counts as
 * one carried by a null message. */
static void test_promise_taken_from_a_data_message(void **state)
{
    (void)state;
    mortar_link *a, *b;
    make_pair(&a, &b);
    uint8_t x = 1;
    assert_int_equal(mortar_link_send(a, 100, 0x10, &x, 1, 0, NULL), 0);
    /* the peer had not consumed it: its reaction bounds the promise */
    assert_int_equal(mortar_link_take_promise(a, 50000, 0), 0);
    assert_int_equal(mortar_link_in_bound(a), 100 + 2 * LAT);
    assert_int_equal(mortar_link_take_promise(a, 50000, 1), 0);
    assert_int_equal(mortar_link_in_bound(a), 50000 + LAT);
    assert_int_equal(mortar_link_take_promise(a, 50000, 2), MORTAR_EPROTO);
    mortar_link_close(a);
    mortar_link_close(b);
}

/* A charged message is stamped as a sent one and moves the wire's state,
 * but the peer heard nothing: the next null message stays due. */
static void test_charge_stamps_as_a_send_without_sending(void **state)
{
    (void)state;
    mortar_link *a, *b, *c, *d;
    make_pair(&a, &b);
    make_pair(&c, &d);
    uint8_t x[8] = {0};
    uint64_t sent, charged;
    assert_int_equal(mortar_link_send(a, 700, 0x10, x, sizeof x, 0, &sent), 0);
    uint64_t due = mortar_link_sync_due(c);
    assert_int_equal(mortar_link_charge(c, 700, 0x10, x, sizeof x, &charged), 0);
    assert_int_equal(charged, sent);
    assert_int_equal(mortar_link_sync_due(c), due);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(d, &m), 0);
    /* a null message after it is not stamped below it */
    assert_int_equal(mortar_link_send_sync(c, 0), 0);
    drain(d);
    assert_true(mortar_link_in_horizon(d) >= charged);
    assert_int_equal(mortar_link_send(c, 800, 0x10, x, sizeof x, 0, NULL), 0);
    assert_int_equal(mortar_link_charge(c, 750, 0x10, x, sizeof x, &charged), MORTAR_EINVAL);
    mortar_link_close(a);
    mortar_link_close(b);
    mortar_link_close(c);
    mortar_link_close(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_promise_raises_the_bound_above_the_horizon),
        cmocka_unit_test(test_promise_yields_to_our_unconsumed_message),
        cmocka_unit_test(test_promise_made_before_consuming_keeps_the_fallback),
        cmocka_unit_test(test_promise_data_below_it_is_a_protocol_error),
        cmocka_unit_test(test_an_earlier_promise_still_binds),
        cmocka_unit_test(test_our_send_lowers_what_binds_the_peer),
        cmocka_unit_test(test_promise_is_never_below_the_null_message_stamp),
        cmocka_unit_test(test_promise_after_terminate_is_the_horizon),
        cmocka_unit_test(test_promise_fits_a_one_line_slot),
        cmocka_unit_test(test_promise_of_more_than_we_sent_is_a_protocol_error),
        cmocka_unit_test(test_null_message_with_a_payload_is_a_protocol_error),
        cmocka_unit_test(test_promise_taken_from_a_data_message),
        cmocka_unit_test(test_charge_stamps_as_a_send_without_sending),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
