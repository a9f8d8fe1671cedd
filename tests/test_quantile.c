/*
 * test_quantile.c - the one median and percentile rule (cli/base/quantile.c):
 * the middle value or the mean of the two middle ones, the lower median
 * as the index of a real value, the p99 by nearest rank.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "quantile.h"

static void test_sorting_orders_values_ascending_and_accepts_none(void **state)
{
    (void)state;
    int64_t v[] = {5, -3, 9, 0, 5, INT64_MAX, INT64_MIN};
    quantile_sort_i64(v, 7);
    for (size_t i = 1; i < 7; i++)
        assert_true(v[i - 1] <= v[i]);
    assert_true(v[0] == INT64_MIN && v[6] == INT64_MAX);
    quantile_sort_i64(NULL, 0); /* nothing to sort, no array */
}

static void test_the_lower_median_is_the_middle_or_the_lower_of_two(void **state)
{
    (void)state;
    assert_int_equal(quantile_lower_median_index(0), 0);
    assert_int_equal(quantile_lower_median_index(1), 0);
    assert_int_equal(quantile_lower_median_index(2), 0);
    assert_int_equal(quantile_lower_median_index(3), 1);
    assert_int_equal(quantile_lower_median_index(4), 1);
    assert_int_equal(quantile_lower_median_index(10), 4);
    assert_int_equal(quantile_lower_median_index(11), 5);
}

static void test_the_median_is_the_middle_value_or_the_mean_of_two(void **state)
{
    (void)state;
    const int64_t odd[] = {1, 2, 7}, even[] = {1, 2, 7, 100}, halves[] = {3, 4};
    assert_true(quantile_median_sorted(odd, 3) == 2.0);
    assert_true(quantile_median_sorted(even, 4) == 4.5);
    assert_true(quantile_median_sorted(halves, 2) == 3.5);
    assert_true(quantile_median_sorted(odd, 1) == 1.0);
    assert_true(isnan(quantile_median_sorted(NULL, 0)));
}

/* The mean of two large latencies is the exact double of their sum over two
 * (as SQLite's AVG gave it, which the recorded medians came from). */
static void test_the_mean_of_two_large_values_is_exact(void **state)
{
    (void)state;
    const int64_t v[] = {2641834500001, 2641834500002};
    assert_true(quantile_median_sorted(v, 2) == 2641834500001.5);
}

static void test_the_p99_is_the_nearest_rank(void **state)
{
    (void)state;
    int64_t v[200];
    for (int i = 0; i < 200; i++)
        v[i] = i + 1;
    /* rank ceil(0.99 n): n 10 -> 10th, n 100 -> 99th, n 200 -> 198th */
    assert_int_equal(quantile_nearest_rank_sorted(v, 10, 0.99), 10);
    assert_int_equal(quantile_nearest_rank_sorted(v, 100, 0.99), 99);
    assert_int_equal(quantile_nearest_rank_sorted(v, 200, 0.99), 198);
    assert_int_equal(quantile_nearest_rank_sorted(v, 1, 0.99), 1);
    assert_int_equal(quantile_nearest_rank_sorted(v, 4, 0.5), 2);
    assert_int_equal(quantile_nearest_rank_sorted(v, 4, 1.0), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sorting_orders_values_ascending_and_accepts_none),
        cmocka_unit_test(test_the_lower_median_is_the_middle_or_the_lower_of_two),
        cmocka_unit_test(test_the_median_is_the_middle_value_or_the_mean_of_two),
        cmocka_unit_test(test_the_mean_of_two_large_values_is_exact),
        cmocka_unit_test(test_the_p99_is_the_nearest_rank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
