/*
 * test_params.c - a parameter's error, whether the library finds it (a
 * wrong type, an unknown key) or the component does (mortar_params_error),
 * is kept in one form: "<path>.<key>: <text>", with MORTAR_EINVAL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mortar/error.h"
#include "mortar/params.h"

static void test_the_librarys_and_a_components_errors_have_one_form(void **state)
{
    (void)state;
    mortar_params *p =
        mortar_params_parse("{\"ports\": \"two\", \"speed\": 1}", "sw.params", NULL, 0);
    assert_non_null(p);
    uint64_t n;
    assert_int_equal(mortar_params_u64(p, "ports", 2, &n), MORTAR_EINVAL);
    assert_string_equal(mortar_params_errmsg(p),
                        "sw.params.ports: expected a non-negative integer");
    assert_int_equal(mortar_params_error(p, "speed", "must be %d to %d", 2, 8),
                     MORTAR_EINVAL);
    assert_string_equal(mortar_params_errmsg(p), "sw.params.speed: must be 2 to 8");
    const char *const known[] = {"ports", NULL};
    assert_int_equal(mortar_params_check_known(p, known), MORTAR_EINVAL);
    assert_string_equal(mortar_params_errmsg(p), "sw.params.speed: unknown parameter");
    mortar_params_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_librarys_and_a_components_errors_have_one_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
