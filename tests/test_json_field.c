/*
 * test_json_field.c - a JSON object's field as a number (NAN where the
 * verdict writes null or nothing) or as a string (cli/base/json_field.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "json_field.h"

static void test_numbers_are_read_and_null_or_missing_is_nan(void **state)
{
    (void)state;
    json_t *o = json_loads("{\"a\": 2.5, \"n\": 3, \"z\": null, \"s\": \"x\"}", 0, NULL);
    assert_true(jnum(o, "a") == 2.5);
    assert_true(jnum(o, "n") == 3.0);
    assert_true(isnan(jnum(o, "z")));
    assert_true(isnan(jnum(o, "missing")));
    assert_true(isnan(jnum(o, "s"))); /* not a number */
    assert_true(isnan(jnum(NULL, "a")));
    json_decref(o);
}

static void test_strings_are_read_and_anything_else_is_null(void **state)
{
    (void)state;
    json_t *o = json_loads("{\"s\": \"tie\", \"n\": 1, \"z\": null}", 0, NULL);
    assert_string_equal(jstr(o, "s"), "tie");
    assert_null(jstr(o, "n"));
    assert_null(jstr(o, "z"));
    assert_null(jstr(o, "missing"));
    assert_null(jstr(NULL, "s"));
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_are_read_and_null_or_missing_is_nan),
        cmocka_unit_test(test_strings_are_read_and_anything_else_is_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
