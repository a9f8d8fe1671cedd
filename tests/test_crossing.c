/*
 * test_crossing.c - crossings of two measured curves: one change of the
 * winner estimated on a straight line between grid points, or measured
 * when extra points bracket it; every change reported when the ranking
 * flips more than once; ties; the intervals a refinement still bisects,
 * down to the resolution; the stretches between grid points where a curve
 * rises and falls.
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

static void test_stretches_where_a_curve_rises_and_falls(void **state)
{
    (void)state;
    const curve_point p[] = {{1.0, 100, true},  {1.125, 130, false}, {1.25, 120, false},
                             {1.5, 125, true},  {1.75, 130, false},  {2.0, 140, true},
                             {2.25, 150, false}, {2.5, 150, true}};
    curve_stretch s[8];
    /* 1 to 1.5: up, down, up (inside the range of its ends, still a turn);
     * 1.5 to 2: up, up; 2 to 2.5: up, flat */
    assert_int_equal(curve_turns(p, 8, s), 1);
    assert_int_equal(s[0].lo, 0);
    assert_int_equal(s[0].hi, 3);
    /* an extra point outside the range of its grid neighbours is a turn */
    const curve_point q[] = {{1.0, 100, true}, {1.25, 90, false}, {1.5, 120, true}};
    assert_int_equal(curve_turns(q, 3, s), 1);
    /* an extra point past the last grid point is in no stretch */
    const curve_point r[] = {{1.0, 100, true}, {1.5, 200, false}, {1.75, 150, false}};
    assert_int_equal(curve_turns(r, 3, s), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_crossing_between_grid_points_is_estimated),
        cmocka_unit_test(test_extra_points_make_it_measured),
        cmocka_unit_test(test_every_flip_is_reported),
        cmocka_unit_test(test_a_tie_between_the_signs_is_the_estimate),
        cmocka_unit_test(test_open_intervals_stop_at_the_resolution),
        cmocka_unit_test(test_stretches_where_a_curve_rises_and_falls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
