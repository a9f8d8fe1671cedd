/*
 * test_grow.c - the command's growing arrays (cli/base/grow.c): room for at
 * least what is asked, the contents kept, the capacity doubling, and a
 * size that cannot be had refused with the array untouched.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "grow.h"

static void test_an_empty_array_gets_room_for_what_is_asked(void **state)
{
    (void)state;
    int *v = NULL;
    size_t cap = 0;
    assert_int_equal(grow(&v, &cap, 1, sizeof *v), 0);
    assert_non_null(v);
    assert_true(cap >= 1);
    assert_int_equal(grow(&v, &cap, 1000, sizeof *v), 0);
    assert_true(cap >= 1000);
    v[999] = 7; /* the room is there (ASan would tell) */
    free(v);
}

static void test_growing_keeps_the_contents_and_doubles(void **state)
{
    (void)state;
    int *v = NULL;
    size_t cap = 0, n = 0;
    for (int i = 0; i < 5000; i++) {
        size_t before = cap;
        assert_int_equal(grow(&v, &cap, n + 1, sizeof *v), 0);
        if (cap != before && before)
            assert_int_equal(cap, 2 * before);
        v[n++] = i;
    }
    for (int i = 0; i < 5000; i++)
        assert_int_equal(v[i], i);
    free(v);
}

static void test_enough_room_changes_nothing(void **state)
{
    (void)state;
    int *v = NULL;
    size_t cap = 0;
    assert_int_equal(grow(&v, &cap, 10, sizeof *v), 0);
    int *same = v;
    size_t same_cap = cap;
    assert_int_equal(grow(&v, &cap, cap, sizeof *v), 0);
    assert_ptr_equal(v, same);
    assert_int_equal(cap, same_cap);
    assert_int_equal(grow(&v, &cap, 0, sizeof *v), 0);
    assert_int_equal(cap, same_cap);
    free(v);
}

static void test_a_size_that_would_wrap_is_refused_untouched(void **state)
{
    (void)state;
    int *v = NULL;
    size_t cap = 0;
    assert_int_equal(grow(&v, &cap, 4, sizeof *v), 0);
    int *same = v;
    size_t same_cap = cap;
    assert_int_equal(grow(&v, &cap, SIZE_MAX / 2, sizeof *v), -1);
    assert_ptr_equal(v, same);
    assert_int_equal(cap, same_cap);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_an_empty_array_gets_room_for_what_is_asked),
        cmocka_unit_test(test_growing_keeps_the_contents_and_doubles),
        cmocka_unit_test(test_enough_room_changes_nothing),
        cmocka_unit_test(test_a_size_that_would_wrap_is_refused_untouched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
