/*
 * test_matmul_alone.c - `mortar alone` on the case study (cli/run/alone*.c
 * with studies/matmul/experiments/study.json): it prints what the study's bench,
 * mortar-matmul-alone, prints, records the run, and refuses what it cannot
 * run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "db.h"

static int setup(void **state)
{
    *state = strdup(scratch_dir());
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    remove_tree(*state);
    free(*state);
    return 0;
}

/* `mortar alone` on the matmul study prints what the study's bench
 * prints, records the run, and refuses what it cannot run. */
static void test_mortar_alone_runs_the_studys_command_and_records_it(void **state)
{
    const char *dir = *state;
    char db_path[128];
    snprintf(db_path, sizeof db_path, "%s/results.db", dir);
    char args[1024];
    snprintf(
        args, sizeof args,
        "alone '%s/studies/matmul/experiments/study.json' --set design=b --set speed=2 --db '%s'",
        source_dir(), db_path);
    cli_result r = run_program(dir, "mortar", args);
    assert_int_equal(r.status, 0);
    cli_result bench = run_program(dir, "mortar-matmul-alone", "--design b --speed 2");
    assert_int_equal(bench.status, 0);
    assert_string_equal(r.out, bench.out);
    assert_non_null(strstr(r.out, "alone_us=1280.00\n"));
    assert_non_null(strstr(r.err, "alone run 1 recorded"));
    cli_result_free(&r);
    cli_result_free(&bench);
    db_conn *db;
    char err[512];
    double us = 0;
    assert_int_equal(db_open_read(&db, db_path, err, sizeof err), 0);
    assert_int_equal(db_alone_result(db, "b", "mortar-matmul-alone --design b --speed 2",
                                     &us, err, sizeof err),
                     1);
    assert_true(us == 1280);
    db_close(db);
    const char *refused[][2] = {
        {"--set speed=2", "2"},                        /* no variant */
        {"--set design=b --set speeed=2", "2"},        /* not a knob */
        {"--set design=c", "2"},                       /* not a variant */
        {"--set design=b", "1"},                       /* the command needs speed */
        {"--set design=software --set speed=1", "1"}}; /* no alone benchmark */
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        snprintf(args, sizeof args,
                 "alone '%s/studies/matmul/experiments/study.json' %s --db '%s'", source_dir(),
                 refused[i][0], db_path);
        r = run_program(dir, "mortar", args);
        if (r.status != atoi(refused[i][1]))
            fail_msg("mortar %s: exit %d, stderr %s", args, r.status, r.err);
        cli_result_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_mortar_alone_runs_the_studys_command_and_records_it, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
