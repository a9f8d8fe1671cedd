/*
 * test_version.c - mortar/version.h and the library agree: the macros a
 * program is compiled with, the string, and what the running libmortar
 * says (mortar_version(), mortar_version_major()).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "mortar/plugin.h"
#include "mortar/version.h"

static void test_string_is_made_of_the_numbers(void **state)
{
    (void)state;
    char text[64];
    snprintf(text, sizeof text, "%d.%d.%d", MORTAR_VERSION_MAJOR, MORTAR_VERSION_MINOR,
             MORTAR_VERSION_PATCH);
    assert_string_equal(text, MORTAR_VERSION_STRING);
    assert_int_equal(MORTAR_VERSION_NUMBER, MORTAR_VERSION_MAJOR * 10000 +
                                                MORTAR_VERSION_MINOR * 100 +
                                                MORTAR_VERSION_PATCH);
}

static void test_running_library_is_the_one_compiled_against(void **state)
{
    (void)state;
    assert_string_equal(mortar_version(), MORTAR_VERSION_STRING);
    assert_int_equal(mortar_version_major(), MORTAR_VERSION_MAJOR);
}

static void test_plugin_abi_is_the_major_version(void **state)
{
    (void)state;
    assert_int_equal(MORTAR_PLUGIN_ABI, MORTAR_VERSION_MAJOR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_string_is_made_of_the_numbers),
        cmocka_unit_test(test_running_library_is_the_one_compiled_against),
        cmocka_unit_test(test_plugin_abi_is_the_major_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
