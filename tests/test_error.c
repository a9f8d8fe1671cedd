/*
 * test_error.c - every result code of MORTAR_ERRNO_MAP has its own text and
 * name, and the enum, the texts and the names come from that one list.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mortar/error.h"

#define CODE_OF(name, value, text) MORTAR_##name,
static const int codes[] = {MORTAR_ERRNO_MAP(CODE_OF)};
#undef CODE_OF
#define NCODES (sizeof codes / sizeof codes[0])

static void test_every_code_has_a_distinct_nonempty_text(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCODES; i++) {
        const char *t = mortar_strerror(codes[i]);
        assert_non_null(t);
        assert_true(t[0] != '\0');
        assert_string_not_equal(t, mortar_strerror(1)); /* not the fallback */
        for (size_t k = 0; k < i; k++)
            assert_string_not_equal(t, mortar_strerror(codes[k]));
    }
}

static void test_every_code_has_a_distinct_value_and_name(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCODES; i++) {
        assert_true(codes[i] <= 0);
        assert_int_equal(strncmp(mortar_err_name(codes[i]), "MORTAR_", 7), 0);
        for (size_t k = 0; k < i; k++) {
            assert_int_not_equal(codes[i], codes[k]);
            assert_string_not_equal(mortar_err_name(codes[i]), mortar_err_name(codes[k]));
        }
    }
}

/* The texts are quoted by docs and by processes' failure lines: they stay. */
static void test_texts_and_names_are_the_documented_ones(void **state)
{
    (void)state;
    assert_int_equal(MORTAR_OK, 0);
    assert_int_equal(MORTAR_EPEER, -8);
    assert_string_equal(mortar_strerror(MORTAR_OK), "success");
    assert_string_equal(mortar_strerror(MORTAR_EPEER), "peer died or closed the link");
    assert_string_equal(mortar_strerror(MORTAR_ESTATE), "invalid in the current state");
    assert_string_equal(mortar_err_name(MORTAR_ETIMEDOUT), "MORTAR_ETIMEDOUT");
    assert_string_equal(mortar_err_name(MORTAR_OK), "MORTAR_OK");
}

static void test_a_value_that_is_no_code_is_unknown(void **state)
{
    (void)state;
    assert_string_equal(mortar_strerror(1), "unknown error");
    assert_string_equal(mortar_strerror(-1000), "unknown error");
    assert_string_equal(mortar_err_name(-1000), "MORTAR_UNKNOWN");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_code_has_a_distinct_nonempty_text),
        cmocka_unit_test(test_every_code_has_a_distinct_value_and_name),
        cmocka_unit_test(test_texts_and_names_are_the_documented_ones),
        cmocka_unit_test(test_a_value_that_is_no_code_is_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
