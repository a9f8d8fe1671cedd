/*
 * test_plugins.c - models by kind (sims/plugins.h): built in first, then
 * mortar-model-<kind>.so from MORTAR_PLUGIN_PATH and the installed plugin
 * directory, checked before use (mortar/plugin.h). The plugins are
 * tests/plugins/, built into TEST_PLUGIN_DIR.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mortar/runtime.h"
#include "sims/plugins.h"
#include "sims/registry.h"

static char err[2048];

static const mortar_component_ops *find_in_path(const char *path, const char *kind)
{
    setenv("MORTAR_PLUGIN_PATH", path, 1);
    err[0] = '\0';
    return mortar_model_find(kind, NULL, err, sizeof err);
}

static void assert_err_says(const char *want)
{
    if (!strstr(err, want))
        fail_msg("error '%s' does not say '%s'", err, want);
}

static void test_builtin_kinds_need_no_plugin(void **state)
{
    (void)state;
    assert_ptr_equal(find_in_path("/nonexistent", "switch"), &mortar_switch_ops);
}

/* testgen sends 5 messages to the plugin, which sends them back; testgen
 * stops after its 5th answer. */
static void test_plugin_in_the_path_is_found_and_runs(void **state)
{
    (void)state;
    const mortar_component_ops *ops =
        find_in_path("/nonexistent::" TEST_PLUGIN_DIR, "test-echo");
    if (!ops)
        fail_msg("%s", err);
    assert_string_equal(ops->kind, "test-echo");

    mortar_loop *loop;
    assert_int_equal(mortar_loop_create(&loop), 0);
    char perr[256];
    mortar_params *gp = mortar_params_parse("{\"messages\": 5, \"stop_after\": 5}", "gen",
                                            perr, sizeof perr);
    mortar_component *gen, *echo;
    assert_int_equal(mortar_loop_add(loop, &mortar_testgen_ops, "gen", gp, &gen), 0);
    assert_int_equal(mortar_loop_add(loop, ops, "echo", NULL, &echo), 0);
    mortar_params_free(gp);
    mortar_link_params lp;
    mortar_link_params_init(&lp);
    lp.protocol = MORTAR_PROTO_TEST;
    assert_int_equal(mortar_loop_connect(loop, gen, 0, echo, 0, &lp), 0);
    assert_int_equal(mortar_loop_run(loop, MORTAR_TIME_MAX), 0);
    char *stats = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&stats, &len);
    mortar_loop_write_stats(loop, f);
    fclose(f);
    mortar_loop_destroy(loop);
    if (!strstr(stats, "\"echoed\": 5") || !strstr(stats, "\"received\": 5"))
        fail_msg("stats: %s", stats);
    free(stats);
}

static void test_installed_dir_is_searched_after_the_path(void **state)
{
    (void)state;
    unsetenv("MORTAR_PLUGIN_PATH");
    const mortar_component_ops *ops =
        mortar_model_find("test-echo", TEST_PLUGIN_DIR, err, sizeof err);
    if (!ops)
        fail_msg("%s", err);
    assert_string_equal(ops->kind, "test-echo");
}

static void test_missing_plugin_names_the_kind_and_every_directory(void **state)
{
    (void)state;
    setenv("MORTAR_PLUGIN_PATH", "/nowhere/a:/nowhere/b", 1);
    assert_null(mortar_model_find("test-absent", "/nowhere/installed", err, sizeof err));
    assert_err_says("unknown component kind 'test-absent'");
    assert_err_says("mortar-model-test-absent.so");
    assert_err_says("/nowhere/a, /nowhere/b, /nowhere/installed");
}

/* A kind that is a path would load <tmp>/echo.so through
 * <tmp>/mortar-model-x/../echo.so if it reached the file system. */
static void test_kind_that_is_a_path_is_refused(void **state)
{
    (void)state;
    char dir[] = "/tmp/mortar-plugins.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[128], link[128];
    snprintf(sub, sizeof sub, "%s/mortar-model-x", dir);
    snprintf(link, sizeof link, "%s/echo.so", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    assert_int_equal(symlink(TEST_PLUGIN_DIR "/mortar-model-test-echo.so", link), 0);

    const char *bad[] = {"x/../echo", "../echo", "", "a.b", "a b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_null(find_in_path(dir, bad[i]));
        assert_err_says("component kind:");
        assert_err_says("not a valid name");
    }
    assert_null(find_in_path(dir, NULL));
    unlink(link);
    rmdir(sub);
    rmdir(dir);
}

static void test_plugin_built_for_another_abi_is_refused(void **state)
{
    (void)state;
    assert_null(find_in_path(TEST_PLUGIN_DIR, "test-other-abi"));
    assert_err_says(TEST_PLUGIN_DIR "/mortar-model-test-other-abi.so");
    assert_err_says("plugin ABI");
    assert_err_says("rebuild the plugin");
}

static void test_plugin_of_another_kind_is_refused(void **state)
{
    (void)state;
    assert_null(find_in_path(TEST_PLUGIN_DIR, "test-misnamed"));
    assert_err_says("kind is 'test-something-else', not 'test-misnamed'");
}

static void test_shared_object_without_the_entry_point_is_refused(void **state)
{
    (void)state;
    assert_null(find_in_path(TEST_PLUGIN_DIR, "test-no-entry"));
    assert_err_says("has no mortar_plugin_component()");
}

/* A refused plugin early in the path is an error, not a reason to look on. */
static void test_refused_plugin_is_not_skipped_for_a_later_one(void **state)
{
    (void)state;
    char dir[] = "/tmp/mortar-plugins.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char file[128];
    snprintf(file, sizeof file, "%s/mortar-model-test-echo.so", dir);
    FILE *f = fopen(file, "w");
    fputs("not an ELF file\n", f);
    fclose(f);
    char path[256];
    snprintf(path, sizeof path, "%s:%s", dir, TEST_PLUGIN_DIR);
    assert_null(find_in_path(path, "test-echo"));
    assert_err_says("cannot be loaded");
    assert_err_says(file);
    unlink(file);
    rmdir(dir);
}

typedef struct listing {
    char text[4096];
} listing;

static void note(const char *file, const mortar_component_ops *ops, const char *why,
                 void *arg)
{
    listing *l = arg;
    size_t used = strlen(l->text);
    const char *base = strrchr(file, '/');
    snprintf(l->text + used, sizeof l->text - used, "%s %s\n", base ? base + 1 : file,
             ops ? ops->kind : "refused");
}

/* The usable plugin of each kind once, the refused ones with a reason, in
 * name order; a kind shadowed by an earlier directory is left out. */
static void test_listing_shows_what_the_search_would_use(void **state)
{
    (void)state;
    listing l = {{0}};
    setenv("MORTAR_PLUGIN_PATH", TEST_PLUGIN_DIR, 1);
    mortar_model_list_plugins(TEST_PLUGIN_DIR, note, &l);
    assert_string_equal(l.text, "mortar-model-test-echo.so test-echo\n"
                                "mortar-model-test-misnamed.so refused\n"
                                "mortar-model-test-no-entry.so refused\n"
                                "mortar-model-test-other-abi.so refused\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_kinds_need_no_plugin),
        cmocka_unit_test(test_plugin_in_the_path_is_found_and_runs),
        cmocka_unit_test(test_installed_dir_is_searched_after_the_path),
        cmocka_unit_test(test_missing_plugin_names_the_kind_and_every_directory),
        cmocka_unit_test(test_kind_that_is_a_path_is_refused),
        cmocka_unit_test(test_plugin_built_for_another_abi_is_refused),
        cmocka_unit_test(test_plugin_of_another_kind_is_refused),
        cmocka_unit_test(test_shared_object_without_the_entry_point_is_refused),
        cmocka_unit_test(test_refused_plugin_is_not_skipped_for_a_later_one),
        cmocka_unit_test(test_listing_shows_what_the_search_would_use),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
