/*
 * test_matmul_sweep_cmd.c - `mortar sweep`'s command line: a spec without --grid
 * is not a sweep (usage, nothing runs), and --dry-run neither creates nor
 * changes the database; a refinement's next runs listed from the runs in a
 * database, for a study and for a sweep file, and its options checked.
 * Nothing here reaches QEMU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>

#include "cli_util.h"
#include "db.h"
#include "case_runs.h"

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
    snprintf(args, sizeof args, "sweep '%s/studies/matmul/experiments/design-b.json' --out runs",
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
             "sweep '%s/studies/matmul/experiments/design-b.json' --grid pcie.latency=1us,2us "
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

/* A sweep run again keeps the logs of the attempts before: point-001.log
 * is the latest, point-001.1.log the first (it was overwritten). The runs
 * fail at once, their QEMU not found (MORTAR_SOURCE names no source). */
static void test_a_resumed_sweep_keeps_the_earlier_logs(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char cmd[2048], log[256], kept[256], marked[256];
    snprintf(cmd, sizeof cmd,
             "MORTAR_SOURCE=/nonexistent '%s/mortar' sweep '%s/experiments/examples/pcitest.json'"
             " --grid reads=1,2 --out runs",
             bin_dir(), source_dir());
    snprintf(log, sizeof log, "%s/runs/sweep-pcitest/point-001.log", dir);
    snprintf(kept, sizeof kept, "%s/runs/sweep-pcitest/point-001.1.log", dir);
    cli_result r = run_command(dir, cmd);
    assert_int_equal(r.status, 1); /* its points failed */
    cli_result_free(&r);
    assert_true(exists(log));
    assert_false(exists(kept));
    char *first = read_text(log);
    snprintf(marked, sizeof marked, "%s# the first attempt\n", first);
    write_text(log, marked);
    r = run_command(dir, cmd);
    assert_int_equal(r.status, 1);
    cli_result_free(&r);
    char *now = read_text(log), *before = read_text(kept);
    assert_non_null(before);
    assert_string_equal(before, marked);
    assert_null(strstr(now, "# the first attempt"));
    assert_non_null(strstr(now, "# mortar sweep point: pcitest reads=1"));
    free(first);
    free(now);
    free(before);
    remove_tree(dir);
}

static void test_sweep_file_needs_no_grid(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char args[1024], err[4096];
    snprintf(args, sizeof args,
             "sweep '%s/studies/matmul/experiments/sweep-quick.json' --dry-run", source_dir());
    int rc = run_mortar(dir, args, err, sizeof err);
    if (rc != 0)
        fail_msg("status %d, stderr: %s", rc, err);
    remove_tree(dir);
}

/* dir/mortar.db where A wins at 1 us and B at 1.5 and 2 us (speed 1). */
static void write_runs(const char *dir)
{
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/mortar.db", dir);
    db_conn *db;
    if (db_open(&db, path, err, sizeof err))
        fail_msg("%s", err);
    const char *lat[] = {"1us", "1.5us", "2us"};
    const double a[] = {1000, 1300, 1400};
    for (int i = 0; i < 3; i++) {
        case_run_add(db, "a", lat[i], a[i]);
        case_run_add(db, "b", lat[i], 1100);
    }
    db_close(db);
}

static void test_a_refining_dry_run_lists_the_next_midpoints(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    write_runs(dir);
    char args[1024];
    snprintf(args, sizeof args, "sweep '%s/studies/matmul/experiments/study.json' --refine --dry-run",
             source_dir());
    cli_result r = run_program(dir, "mortar", args);
    if (r.status != 0)
        fail_msg("status %d, stderr: %s", r.status, r.err);
    assert_non_null(strstr(r.out, "      refine design-a pcie.latency=1.25us speed=1\n"));
    assert_non_null(strstr(r.out, "      refine design-b pcie.latency=1.25us speed=1\n"));
    assert_non_null(strstr(r.out, "speed=0.5: 0 pcie.latency value(s) with runs of both "
                                  "variants: nothing to bisect"));
    assert_non_null(strstr(r.out, "speed=1: 1 crossing(s), the widest bracket 0.5 \u00b5s, at "
                                  "most 8 runs left"));
    assert_non_null(strstr(r.err, "then refining the crossings of a and b along "
                                  "pcie.latency to 0.05us"));
    cli_result_free(&r);
    /* a sweep file refines for the default study, keeping its points' values */
    snprintf(args, sizeof args,
             "sweep '%s/studies/matmul/experiments/sweep-quick.json' --resolution 0.1us --dry-run",
             source_dir());
    r = run_program(dir, "mortar", args);
    if (r.status != 0)
        fail_msg("status %d, stderr: %s", r.status, r.err);
    assert_non_null(strstr(r.out, "      refine design-b pcie.latency=1.25us\n"));
    assert_non_null(strstr(r.out, "at most 6 runs left"));
    cli_result_free(&r);
    remove_tree(dir);
}

/* Each refinement option's mistake is a usage error naming it; nothing runs. */
static void test_refine_options_are_checked(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    static const struct {
        const char *operand, *options, *says;
    } bad[] = {
        {"study.json", "--resolution 0.05", "--resolution 0.05: expected a duration"},
        {"study.json", "--resolution -1us", "--resolution -1us: expected a duration"},
        {"study.json", "--refine --no-refine", "--refine and --no-refine together"},
        {"study.json", "--no-refine --resolution 1us", "--resolution 1us with --no-refine"},
        {"study.json", "--refine --study x.json", "is a study, and the one refined for"},
        {"sweep-quick.json", "--study x.json", "a sweep names a study only to --refine"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char args[2048], err[4096];
        snprintf(args, sizeof args, "sweep --dry-run --db none.db '%s/studies/matmul/experiments/%s' %s",
                 source_dir(), bad[i].operand, bad[i].options);
        int rc = run_mortar(dir, args, err, sizeof err);
        if (rc != 2 || !strstr(err, bad[i].says))
            fail_msg("%s: status %d, stderr: %s", args, rc, err);
    }
    remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_spec_without_grid_prints_usage_and_runs_nothing),
        cmocka_unit_test(test_dry_run_creates_no_database),
        cmocka_unit_test(test_a_resumed_sweep_keeps_the_earlier_logs),
        cmocka_unit_test(test_sweep_file_needs_no_grid),
        cmocka_unit_test(test_a_refining_dry_run_lists_the_next_midpoints),
        cmocka_unit_test(test_refine_options_are_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
