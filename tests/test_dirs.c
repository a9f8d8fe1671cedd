/*
 * test_dirs.c - the directories a command writes into (cli/base/dirs.h): a new
 * run directory never reuses an existing one, even when an output folder is
 * shared by two databases whose run ids collide.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "dirs.h"

static void test_a_file_is_read_whole_or_named(void **state)
{
    (void)state;
    char path[] = "/tmp/mortar-test-dirs-read-XXXXXX", err[256];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "ab\0cd", 5), 5);
    close(fd);
    size_t len = 0;
    char *data = dirs_read_file(path, &len, err, sizeof err);
    assert_non_null(data);
    assert_int_equal(len, 5);
    assert_memory_equal(data, "ab\0cd", 6); /* and its NUL */
    free(data);
    unlink(path);
    assert_null(dirs_read_file(path, &len, err, sizeof err));
    assert_non_null(strstr(err, path));
}

static void test_a_fresh_directory_takes_the_base_name_when_free(void **state)
{
    (void)state;
    const char *parent = scratch_dir();
    char dir[PATH_MAX], want[PATH_MAX], err[256];
    assert_int_equal(dirs_make_fresh(parent, "000001-matmul-a", dir, sizeof dir, err, sizeof err),
                     0);
    snprintf(want, sizeof want, "%s/000001-matmul-a", parent);
    assert_string_equal(dir, want);
    remove_tree(parent);
}

static void test_a_taken_name_gets_the_first_free_variant(void **state)
{
    (void)state;
    const char *parent = scratch_dir();
    char dir[PATH_MAX], want[PATH_MAX], err[256];
    snprintf(want, sizeof want, "%s/000001-matmul-a", parent);
    write_text(want, "a file from elsewhere\n");
    for (int expected = 2; expected <= 3; expected++) {
        assert_int_equal(
            dirs_make_fresh(parent, "000001-matmul-a", dir, sizeof dir, err, sizeof err), 0);
        snprintf(want, sizeof want, "%s/000001-matmul-a-%d", parent, expected);
        assert_string_equal(dir, want);
        struct stat st;
        assert_int_equal(stat(dir, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
    }
    remove_tree(parent);
}

static void test_a_missing_parent_is_an_error_that_names_it(void **state)
{
    (void)state;
    const char *parent = scratch_dir();
    char missing[PATH_MAX], dir[PATH_MAX], err[PATH_MAX + 64];
    snprintf(missing, sizeof missing, "%s/not-there", parent);
    assert_int_equal(dirs_make_fresh(missing, "x", dir, sizeof dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "not-there"));
    remove_tree(parent);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_file_is_read_whole_or_named),
        cmocka_unit_test(test_a_fresh_directory_takes_the_base_name_when_free),
        cmocka_unit_test(test_a_taken_name_gets_the_first_free_variant),
        cmocka_unit_test(test_a_missing_parent_is_an_error_that_names_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
