/*
 * test_crossing.c - crossings of two measured curves: one change of the
 * winner estimated on a straight line between grid points, or measured
 * when extra points bracket it; every change reported when the ranking
 * flips more than once; ties; the intervals a refinement still bisects,
 * down to the resolution; extra points outside their grid neighbours'
 * range.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "crossing.h"

#define N(a) (sizeof(a) / sizeof *(a))

static void test_one_crossing_between_grid_points_is_estimated(void **state)
{
    (void)state;
    /* -200 at 0.5, +100 at 1: zero at 5/6 */
    const cross_point p[] = {{0.5, -200, true}, {1.0, 100, true}, {1.5, 400, true}};
    crossing c[N(p)];
    assert_int_equal(crossings_find(p, N(p), c), 1);
    assert_int_equal(c[0].lo, 0);
    assert_int_equal(c[0].hi, 1);
    assert_int_equal(c[0].below, -1);
    assert_int_equal(c[0].above, 1);
    assert_true(fabs(c[0].x - 5.0 / 6.0) < 1e-12);
    assert_false(c[0].measured);
    assert_true(c[0].grid_lo == 0.5 && c[0].grid_hi == 1.0);
}

static void test_extra_points_make_it_measured(void **state)
{
    (void)state;
    const cross_point p[] = {{1.0, -50, true}, {1.25, -5, false}, {1.28125, 3, false},
                             {1.3125, 10, false}, {1.5, 80, true}};
    crossing c[N(p)];
    assert_int_equal(crossings_find(p, N(p), c), 1);
    assert_int_equal(c[0].lo, 1);
    assert_int_equal(c[0].hi, 2);
    assert_true(c[0].measured);
    assert_true(c[0].x > 1.25 && c[0].x < 1.28125);
    assert_true(c[0].grid_lo == 1.0 && c[0].grid_hi == 1.5);
}

static void test_every_flip_is_reported(void **state)
{
    (void)state;
    const cross_point p[] = {{1.0, -1, true}, {1.25, 1, false}, {1.375, -1, false},
                             {1.5, 1, true}, {2.0, 2, true}};
    crossing c[N(p)];
    assert_int_equal(crossings_find(p, N(p), c), 3);
    assert_int_equal(c[0].above, 1);
    assert_int_equal(c[1].below, 1);
    assert_int_equal(c[1].above, -1);
    assert_int_equal(c[2].hi, 3);
    for (size_t i = 0; i < 3; i++)
        assert_true(c[i].grid_lo == 1.0 && c[i].grid_hi == 1.5);
}

static void test_a_tie_between_the_signs_is_the_estimate(void **state)
{
    (void)state;
    const cross_point p[] = {{1, -100, true}, {2, 0, true}, {3, 100, true}};
    crossing c[N(p)];
    assert_int_equal(crossings_find(p, N(p), c), 1);
    assert_true(c[0].x == 2);
    assert_int_equal(c[0].lo, 0);
    assert_int_equal(c[0].hi, 2);
    /* a touch (one side, a tie, the same side) is no crossing */
    const cross_point q[] = {{1, -100, true}, {2, 0, true}, {3, -100, true}};
    assert_int_equal(crossings_find(q, N(q), c), 0);
}

static void test_open_intervals_stop_at_the_resolution(void **state)
{
    (void)state;
    size_t open[8];
    const cross_point wide[] = {{0.5, -3, true}, {1.0, -1, true}, {1.5, 2, true}};
    assert_int_equal(crossings_open(wide, N(wide), 0.05, open), 1);
    assert_int_equal(open[0], 1);
    /* 0.03125 apart: done; the wider interval of the same crossing is not
     * open, its ends having the same winner */
    const cross_point narrow[] = {{1.0, -1, true}, {1.21875, -1, false},
                                  {1.25, 2, false}, {1.5, 3, true}};
    assert_int_equal(crossings_open(narrow, N(narrow), 0.05, open), 0);
    /* a tie is a winner of its own: both sides of it are bisected */
    const cross_point tie[] = {{1.0, -1, true}, {1.5, 0, true}, {2.0, 1, true}};
    assert_int_equal(crossings_open(tie, N(tie), 0.05, open), 2);
}

static void test_extra_points_outside_their_grid_neighbours(void **state)
{
    (void)state;
    const curve_point p[] = {{1.0, 100, true},  {1.125, 130, false}, {1.25, 120, false},
                             {1.375, 99, false}, {1.5, 120, true},   {2.0, 140, true}};
    curve_outlier o[N(p)];
    assert_int_equal(curve_outliers(p, N(p), o), 2);
    assert_int_equal(o[0].at, 1);
    assert_int_equal(o[0].lo, 0);
    assert_int_equal(o[0].hi, 4);
    assert_int_equal(o[1].at, 3);
    /* an extra point past the last grid point has no range to leave */
    const curve_point q[] = {{1.0, 100, true}, {1.5, 200, false}};
    assert_int_equal(curve_outliers(q, N(q), o), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_crossing_between_grid_points_is_estimated),
        cmocka_unit_test(test_extra_points_make_it_measured),
        cmocka_unit_test(test_every_flip_is_reported),
        cmocka_unit_test(test_a_tie_between_the_signs_is_the_estimate),
        cmocka_unit_test(test_open_intervals_stop_at_the_resolution),
        cmocka_unit_test(test_extra_points_outside_their_grid_neighbours),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
