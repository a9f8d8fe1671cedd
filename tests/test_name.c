/*
 * test_name.c - the one rule for names (mortar/name.h): what a run turns
 * into file names and QEMU options cannot leave its directory or add an
 * option.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "mortar/error.h"
#include "mortar/name.h"

static void test_accepts_the_case_study_names(void **state)
{
    (void)state;
    const char *ok[] = {"client", "nic_server", "pcie_server_accel", "sim0", "matmul-b",
                        "A9",     "x"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        assert_int_equal(mortar_name_check(ok[i], NULL, 0), 0);
}

static void test_refuses_paths_and_dots(void **state)
{
    (void)state;
    char why[200];
    const char *bad[] = {"../../somewhere/victim",
                         "a/b",
                         "..",
                         ".",
                         ".hidden",
                         "/abs",
                         "a.host",
                         "accel.0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(mortar_name_check(bad[i], why, sizeof why), MORTAR_EINVAL);
        assert_non_null(strstr(why, "is not a valid name"));
    }
}

static void test_refuses_option_and_shell_characters(void **state)
{
    (void)state;
    const char *bad[] = {"a,b", "a=b", "a b", "a;b", "a$b", "a\nb", "a\"b", "\xc3\xa9"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(mortar_name_check(bad[i], NULL, 0), MORTAR_EINVAL);
}

static void test_refuses_empty_null_and_too_long(void **state)
{
    (void)state;
    char name[MORTAR_NAME_MAX + 2];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    assert_int_equal(mortar_name_check(name, NULL, 0), MORTAR_EINVAL);
    name[MORTAR_NAME_MAX] = '\0';
    assert_int_equal(mortar_name_check(name, NULL, 0), 0);
    assert_int_equal(mortar_name_check("", NULL, 0), MORTAR_EINVAL);
    assert_int_equal(mortar_name_check(NULL, NULL, 0), MORTAR_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepts_the_case_study_names),
        cmocka_unit_test(test_refuses_paths_and_dots),
        cmocka_unit_test(test_refuses_option_and_shell_characters),
        cmocka_unit_test(test_refuses_empty_null_and_too_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
