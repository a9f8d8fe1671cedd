/*
 * test_matmul_result.c - the requantize rule of studies/matmul/model/result.h (an
 * arithmetic right shift by 12 after adding 2^11, saturated to int8) and
 * the result format's name, parser and sizes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "model/result.h"

static void test_requantize_rounds_ties_up(void **state)
{
    (void)state;
    assert_int_equal(matmul_requantize(0), 0);
    assert_int_equal(matmul_requantize(2047), 0);  /* 0.4998 */
    assert_int_equal(matmul_requantize(2048), 1);  /* 0.5 */
    assert_int_equal(matmul_requantize(4096), 1);  /* 1.0 */
    assert_int_equal(matmul_requantize(6143), 1);  /* 1.4998 */
    assert_int_equal(matmul_requantize(6144), 2);  /* 1.5 */
    assert_int_equal(matmul_requantize(10239), 2); /* 2.4998 */
    assert_int_equal(matmul_requantize(10240), 3); /* 2.5: up, not to even */
}

static void test_requantize_shifts_negative_values_arithmetically(void **state)
{
    (void)state;
    assert_int_equal(matmul_requantize(-1), 0);
    assert_int_equal(matmul_requantize(-2048), 0);  /* -0.5 rounds up to 0 */
    assert_int_equal(matmul_requantize(-2049), -1); /* -0.5002 */
    assert_int_equal(matmul_requantize(-4096), -1);
    assert_int_equal(matmul_requantize(-6144), -1); /* -1.5 rounds up to -1 */
    assert_int_equal(matmul_requantize(-6145), -2);
    assert_int_equal(matmul_requantize(-100 * 4096), -100);
    assert_int_equal(matmul_requantize(-100 * 4096 - 2049), -101);
}

static void test_requantize_saturates_at_both_ends(void **state)
{
    (void)state;
    assert_int_equal(matmul_requantize(127 * 4096 + 2047), 127); /* 127.4998 */
    assert_int_equal(matmul_requantize(127 * 4096 + 2048), 127); /* 127.5 -> 128 */
    assert_int_equal(matmul_requantize(1 << 20), 127);
    assert_int_equal(matmul_requantize(INT32_MAX), 127); /* no overflow on the add */
    assert_int_equal(matmul_requantize(-128 * 4096), -128);
    assert_int_equal(matmul_requantize(-128 * 4096 - 2048), -128); /* -128.5 -> -128 */
    assert_int_equal(matmul_requantize(-128 * 4096 - 2049), -128); /* -129, saturated */
    assert_int_equal(matmul_requantize(-(1 << 20)), -128);
    assert_int_equal(matmul_requantize(INT32_MIN), -128);
}

static void test_requantize_all_maps_every_element(void **state)
{
    (void)state;
    const int32_t in[] = {2048, -2049, INT32_MAX, INT32_MIN, 12345};
    int8_t out[5] = {0};
    matmul_requantize_all(in, out, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(out[i], matmul_requantize(in[i]));
    assert_int_equal(out[4], 3); /* 12345 / 4096 = 3.01 */
}

static void test_result_formats_have_names_and_sizes(void **state)
{
    (void)state;
    matmul_result r = MATMUL_RESULT_I32;
    assert_true(matmul_result_parse("int8", &r));
    assert_int_equal(r, MATMUL_RESULT_I8);
    assert_int_equal(MATMUL_RESULT_I8, 0); /* the zero value is the default */
    assert_true(matmul_result_parse("int32", &r));
    assert_int_equal(r, MATMUL_RESULT_I32);
    assert_false(matmul_result_parse("int16", &r));
    assert_false(matmul_result_parse("", &r));
    assert_int_equal(r, MATMUL_RESULT_I32); /* unchanged by a failed parse */
    assert_string_equal(matmul_result_name(MATMUL_RESULT_I8), "int8");
    assert_string_equal(matmul_result_name(MATMUL_RESULT_I32), "int32");
    assert_int_equal(matmul_result_bytes(MATMUL_RESULT_I8), 1);
    assert_int_equal(matmul_result_bytes(MATMUL_RESULT_I32), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_requantize_rounds_ties_up),
        cmocka_unit_test(test_requantize_shifts_negative_values_arithmetically),
        cmocka_unit_test(test_requantize_saturates_at_both_ends),
        cmocka_unit_test(test_requantize_all_maps_every_element),
        cmocka_unit_test(test_result_formats_have_names_and_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
