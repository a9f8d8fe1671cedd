/*
 * test_paths.c - where the mortar command finds its parts (cli/base/paths.h):
 * environment variables first, then the layout around the running binary
 * (here the test binary in <build>/bin, a build tree), then the source tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "paths.h"

static void test_the_cache_is_mortar_cache_then_xdg_then_home(void **state)
{
    (void)state;
    char dir[PATH_MAX], err[256];
    setenv("MORTAR_CACHE", "/c/mortar-cache", 1);
    setenv("XDG_CACHE_HOME", "/c/xdg", 1);
    setenv("HOME", "/c/home", 1);
    assert_int_equal(paths_cache_dir(dir, sizeof dir, err, sizeof err), 0);
    assert_string_equal(dir, "/c/mortar-cache");
    setenv("MORTAR_CACHE", "", 1); /* empty counts as unset, as in the scripts */
    assert_int_equal(paths_cache_dir(dir, sizeof dir, err, sizeof err), 0);
    assert_string_equal(dir, "/c/xdg/mortar");
    unsetenv("XDG_CACHE_HOME");
    assert_int_equal(paths_cache_dir(dir, sizeof dir, err, sizeof err), 0);
    assert_string_equal(dir, "/c/home/.cache/mortar");
    unsetenv("MORTAR_CACHE");
}

static void test_no_cache_without_home_is_an_error(void **state)
{
    (void)state;
    char dir[PATH_MAX], err[256];
    const char *home = getenv("HOME");
    char saved[PATH_MAX];
    snprintf(saved, sizeof saved, "%s", home ? home : "");
    unsetenv("MORTAR_CACHE");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    assert_int_equal(paths_cache_dir(dir, sizeof dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "HOME"));
    setenv("HOME", saved, 1);
}

static void test_mortar_bin_without_mortar_sim_is_an_error_naming_it(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char path[PATH_MAX], err[PATH_MAX + 64];
    setenv("MORTAR_BIN", dir, 1);
    assert_int_equal(paths_sim_bin(path, sizeof path, err, sizeof err), -1);
    assert_non_null(strstr(err, dir));
    assert_non_null(strstr(err, "MORTAR_BIN"));
    remove_tree(dir);
}

static void test_mortar_sim_beside_the_binary_is_found_without_mortar_bin(void **state)
{
    (void)state;
    char path[PATH_MAX], exe_dir[PATH_MAX], want[PATH_MAX + 16], err[PATH_MAX + 64];
    unsetenv("MORTAR_BIN");
    assert_int_equal(paths_exe_dir(exe_dir, sizeof exe_dir, err, sizeof err), 0);
    assert_int_equal(paths_sim_bin(path, sizeof path, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/mortar-sim", exe_dir);
    assert_string_equal(path, want);
}

static void test_mortar_data_wins_and_must_be_a_directory(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char path[PATH_MAX], file[PATH_MAX + 8], err[PATH_MAX + 64];
    setenv("MORTAR_DATA", dir, 1);
    assert_int_equal(paths_data_dir(path, sizeof path, err, sizeof err), 0);
    assert_string_equal(path, dir);
    snprintf(file, sizeof file, "%s/file", dir);
    write_text(file, "not a directory\n");
    setenv("MORTAR_DATA", file, 1);
    assert_int_equal(paths_data_dir(path, sizeof path, err, sizeof err), -1);
    assert_non_null(strstr(err, "MORTAR_DATA"));
    unsetenv("MORTAR_DATA");
    remove_tree(dir);
}

static void test_the_web_dir_is_mortar_web_dir_else_web_in_the_data_dir(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char path[PATH_MAX], want[PATH_MAX + 8], err[PATH_MAX + 64];
    setenv("MORTAR_DATA", dir, 1);
    setenv("MORTAR_WEB_DIR", "/somewhere/web", 1);
    assert_int_equal(paths_web_dir(path, sizeof path, err, sizeof err), 0);
    assert_string_equal(path, "/somewhere/web");
    unsetenv("MORTAR_WEB_DIR");
    assert_int_equal(paths_web_dir(path, sizeof path, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/web", dir);
    assert_string_equal(path, want);
    unsetenv("MORTAR_DATA");
    remove_tree(dir);
}

static void test_the_source_tree_is_found_above_a_build_tree_binary(void **state)
{
    (void)state;
    char path[PATH_MAX], want[PATH_MAX], err[PATH_MAX + 64];
    assert_non_null(realpath(source_dir(), want));
    unsetenv("MORTAR_SOURCE");
    assert_int_equal(paths_source_dir(path, sizeof path, err, sizeof err), 0);
    assert_string_equal(path, want);
    setenv("MORTAR_SOURCE", "/elsewhere/mortar", 1);
    assert_int_equal(paths_source_dir(path, sizeof path, err, sizeof err), 0);
    assert_string_equal(path, "/elsewhere/mortar");
    setenv("MORTAR_SOURCE", want, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_cache_is_mortar_cache_then_xdg_then_home),
        cmocka_unit_test(test_no_cache_without_home_is_an_error),
        cmocka_unit_test(test_mortar_bin_without_mortar_sim_is_an_error_naming_it),
        cmocka_unit_test(test_mortar_sim_beside_the_binary_is_found_without_mortar_bin),
        cmocka_unit_test(test_mortar_data_wins_and_must_be_a_directory),
        cmocka_unit_test(test_the_web_dir_is_mortar_web_dir_else_web_in_the_data_dir),
        cmocka_unit_test(test_the_source_tree_is_found_above_a_build_tree_binary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
