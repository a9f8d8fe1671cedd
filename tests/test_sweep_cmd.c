/*
 * test_sweep_cmd.c - `mortar sweep`'s command line: a spec without --grid
 * is not a sweep (usage, nothing runs), and --dry-run neither creates nor
 * changes the database. Nothing here reaches QEMU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>

#include "cli_util.h"

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static void test_a_spec_without_grid_prints_usage_and_runs_nothing(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char args[1024], err[4096], path[128];
    snprintf(args, sizeof args, "sweep '%s/experiments/matmul/design-b.json' --out runs",
             source_dir());
    int rc = run_mortar(dir, args, err, sizeof err);
    if (rc != 2 || !strstr(err, "Usage: mortar sweep"))
        fail_msg("status %d, stderr: %s", rc, err);
    snprintf(path, sizeof path, "%s/mortar.db", dir);
    assert_false(exists(path));
    snprintf(path, sizeof path, "%s/runs", dir);
    assert_false(exists(path));
    remove_tree(dir);
}

static void test_dry_run_creates_no_database(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char args[1024], err[4096], path[128];
    snprintf(args, sizeof args,
             "sweep '%s/experiments/matmul/design-b.json' --grid pcie.latency=1us,2us "
             "--dry-run --out runs",
             source_dir());
    int rc = run_mortar(dir, args, err, sizeof err);
    if (rc != 0)
        fail_msg("status %d, stderr: %s", rc, err);
    snprintf(path, sizeof path, "%s/mortar.db", dir);
    assert_false(exists(path));
    snprintf(path, sizeof path, "%s/runs", dir);
    assert_false(exists(path));
    remove_tree(dir);
}

static void test_sweep_file_needs_no_grid(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char args[1024], err[4096];
    snprintf(args, sizeof args,
             "sweep '%s/experiments/matmul/sweep-quick.json' --dry-run", source_dir());
    int rc = run_mortar(dir, args, err, sizeof err);
    if (rc != 0)
        fail_msg("status %d, stderr: %s", rc, err);
    remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_spec_without_grid_prints_usage_and_runs_nothing),
        cmocka_unit_test(test_dry_run_creates_no_database),
        cmocka_unit_test(test_sweep_file_needs_no_grid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
