/*
 * test_units.c - durations and bandwidths with units, exact serialization
 * times, and time formatting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mortar/error.h"
#include "mortar/time.h"

static void test_time_parse_is_exact_for_decimals(void **state)
{
    (void)state;
    uint64_t t;
    assert_int_equal(mortar_time_parse("2.5us", &t), 0);
    assert_int_equal(t, 2500000);
    assert_int_equal(mortar_time_parse("500ns", &t), 0);
    assert_int_equal(t, 500000);
    assert_int_equal(mortar_time_parse("1ms", &t), 0);
    assert_int_equal(t, 1000000000ull);
    assert_int_equal(mortar_time_parse("0.001ns", &t), 0);
    assert_int_equal(t, 1);
    assert_int_equal(mortar_time_parse("3s", &t), 0);
    assert_int_equal(t, 3000000000000ull);
}

static void test_time_parse_rejects_bad_text(void **state)
{
    (void)state;
    uint64_t t;
    assert_int_equal(mortar_time_parse("500", &t), MORTAR_EINVAL);
    assert_int_equal(mortar_time_parse("us", &t), MORTAR_EINVAL);
    assert_int_equal(mortar_time_parse("1.5furlongs", &t), MORTAR_EINVAL);
    assert_int_equal(mortar_time_parse("0.0001ns", &t), MORTAR_EINVAL);
    assert_int_equal(mortar_time_parse("-1us", &t), MORTAR_EINVAL);
    assert_int_equal(mortar_time_parse("99999999999999999999s", &t), MORTAR_EINVAL);
    assert_int_equal(mortar_time_parse(NULL, &t), MORTAR_EINVAL);
}

static void test_bandwidth_parse_and_serialization(void **state)
{
    (void)state;
    uint64_t bw;
    assert_int_equal(mortar_bandwidth_parse("10Gbps", &bw), 0);
    assert_int_equal(bw, 10000000000ull);
    assert_int_equal(mortar_bandwidth_parse("10", &bw), MORTAR_EINVAL);
    /* one byte at 10 Gbit/s is exactly 800 ps */
    assert_int_equal(mortar_serialization_ps(1, bw), 800);
    assert_int_equal(mortar_serialization_ps(9000, bw), 7200000);
    assert_int_equal(mortar_serialization_ps(1, 3), 2666666666667ull); /* rounded up */
    assert_int_equal(mortar_serialization_ps(100, 0), 0);
}

static void test_time_format_drops_trailing_zeros(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(mortar_time_format(2500000, buf, sizeof buf), "2.5us");
    assert_string_equal(mortar_time_format(500000, buf, sizeof buf), "500ns");
    assert_string_equal(mortar_time_format(12, buf, sizeof buf), "12ps");
    assert_string_equal(mortar_time_format(1000000000001ull, buf, sizeof buf), "1.000000000001s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_parse_is_exact_for_decimals),
        cmocka_unit_test(test_time_parse_rejects_bad_text),
        cmocka_unit_test(test_bandwidth_parse_and_serialization),
        cmocka_unit_test(test_time_format_drops_trailing_zeros),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
