/*
 * test_promise.c - lookahead promises on a link (mortar/link.h,
 * docs/protocol.md "Lookahead promises"): the input bound follows the
 * peer's promise, falls back to a latency after our first message the peer
 * had not consumed, comes back when the peer confirms it consumed
 * everything; a data message below the promise and malformed promises are
 * protocol errors; a terminated peer's bound is infinite.
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

static void make_pair(mortar_link **a, mortar_link **b)
{
    mortar_link_params p;
    mortar_link_params_init(&p);
    p.name = "promise";
    p.slot_size = 128;
    p.slot_count = 16;
    p.latency_ps = LAT;
    assert_int_equal(mortar_link_pair(a, b, &p), 0);
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
    uint64_t stamp;
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_promise_raises_the_bound_above_the_horizon),
        cmocka_unit_test(test_promise_yields_to_our_unconsumed_message),
        cmocka_unit_test(test_promise_made_before_consuming_keeps_the_fallback),
        cmocka_unit_test(test_promise_data_below_it_is_a_protocol_error),
        cmocka_unit_test(test_promise_is_never_below_the_null_message_stamp),
        cmocka_unit_test(test_promise_after_terminate_is_the_horizon),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
