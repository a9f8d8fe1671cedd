/*
 * test_knob_scale.c - the points of a knob between two of its values:
 * a time knob's midpoints are whole picoseconds written exactly, an
 * integer knob's integers, another's decimals; no point when none lies
 * strictly between; resolutions read and checked; the default resolution
 * 0.05 us for a time knob only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "knob_scale.h"
#include "mortar/time.h"

static study_knob knob(const char *unit, char **values, size_t n)
{
    return (study_knob){.name = "k", .label = "k", .unit = (char *)unit, .phrase = "k",
                        .title = "k", .values = values, .nvalues = n};
}

static void test_a_time_knob_bisects_in_exact_picoseconds(void **state)
{
    (void)state;
    char *values[] = {"0.5us", "1us", "1.5us"};
    study_knob k = knob("us", values, 3);
    knob_scale s = knob_scale_of(&k);
    assert_true(s.unit_ps == 1e6);
    double mid;
    char text[KNOB_TEXT_MAX];
    assert_int_equal(knob_scale_midpoint(&s, 1.0, 1.5, &mid, text, sizeof text), 0);
    assert_string_equal(text, "1.25us");
    assert_true(mid == 1.25);
    assert_int_equal(knob_scale_midpoint(&s, 1.0, 1.03125, &mid, text, sizeof text), 0);
    assert_string_equal(text, "1.015625us");
    /* the text is what it says: parsed back, the same picoseconds */
    uint64_t ps;
    assert_int_equal(mortar_time_parse(text, &ps), 0);
    assert_int_equal(ps, 1015625);
    /* below a microsecond the text changes unit, not value */
    assert_int_equal(knob_scale_midpoint(&s, 0.5, 0.75, &mid, text, sizeof text), 0);
    assert_string_equal(text, "625ns");
    /* 3 ps apart: 1 ps up from the lower end; 1 ps apart: nothing between */
    assert_int_equal(knob_scale_midpoint(&s, 1.0, 1.000003, &mid, text, sizeof text), 0);
    assert_string_equal(text, "1.000001us");
    assert_int_equal(knob_scale_midpoint(&s, 1.0, 1.000001, &mid, text, sizeof text), -1);
    assert_int_equal(knob_scale_midpoint(&s, 1.5, 1.0, &mid, text, sizeof text), -1);
}

static void test_integer_and_decimal_knobs(void **state)
{
    (void)state;
    char *ints[] = {"1500", "9000"}, *decimals[] = {"0.25", "1"};
    study_knob ki = knob("", ints, 2), kd = knob("x", decimals, 2);
    knob_scale si = knob_scale_of(&ki), sd = knob_scale_of(&kd);
    assert_true(si.integers && si.unit_ps == 0);
    assert_false(sd.integers);
    double mid;
    char text[KNOB_TEXT_MAX];
    assert_int_equal(knob_scale_midpoint(&si, 1500, 9000, &mid, text, sizeof text), 0);
    assert_string_equal(text, "5250");
    assert_int_equal(knob_scale_midpoint(&si, 7, 8, &mid, text, sizeof text), -1);
    assert_int_equal(knob_scale_midpoint(&sd, 0.25, 0.5, &mid, text, sizeof text), 0);
    assert_string_equal(text, "0.375");
    assert_true(mid == 0.375);
}

static void test_resolutions_are_read_and_checked(void **state)
{
    (void)state;
    char *times[] = {"500ns"}, *plain[] = {"1", "2"};
    study_knob kt = knob("ns", times, 1), kp = knob("", plain, 2);
    knob_scale st = knob_scale_of(&kt), sp = knob_scale_of(&kp);
    double r;
    char err[256];
    json_t *v = json_string("0.05us");
    assert_int_equal(knob_scale_resolution(&st, v, &r, err, sizeof err), 0);
    assert_true(fabs(r - 50) < 1e-12); /* in the knob's unit, ns */
    json_decref(v);
    v = json_real(0.05);
    assert_int_equal(knob_scale_resolution(&st, v, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "duration"));
    assert_int_equal(knob_scale_resolution(&sp, v, &r, err, sizeof err), 0);
    assert_true(r == 0.05);
    json_decref(v);
    v = json_string("-1");
    assert_int_equal(knob_scale_resolution(&sp, v, &r, err, sizeof err), -1);
    json_decref(v);
    v = json_string("0ns");
    assert_int_equal(knob_scale_resolution(&st, v, &r, err, sizeof err), -1);
    json_decref(v);
    assert_true(fabs(knob_scale_default_resolution(&st) - 50) < 1e-12);
    assert_true(isnan(knob_scale_default_resolution(&sp)));
}

static void test_halvings_to_a_resolution(void **state)
{
    (void)state;
    assert_int_equal(knob_scale_halvings(0.5, 0.05), 4); /* 0.03125 */
    assert_int_equal(knob_scale_halvings(2.0, 0.05), 6); /* 0.03125 */
    assert_int_equal(knob_scale_halvings(0.05, 0.05), 0);
    assert_true(knob_scale_resolved(0.05 + 1e-12, 0.05));
    assert_false(knob_scale_resolved(0.0625, 0.05));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_time_knob_bisects_in_exact_picoseconds),
        cmocka_unit_test(test_integer_and_decimal_knobs),
        cmocka_unit_test(test_resolutions_are_read_and_checked),
        cmocka_unit_test(test_halvings_to_a_resolution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
