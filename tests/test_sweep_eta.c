/*
 * test_sweep_eta.c - the sweep's ETA (cli/sweep/sweep_progress.c): known
 * before the first run of the invocation ends, from past runs of the same
 * spec in the database (sweep_plan_expected_wall_s), and counting down
 * while runs are running.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "db.h"
#include "sweep_plan.h"
#include "sweep_progress.h"

static void test_the_eta_counts_down_while_runs_run(void **state)
{
    (void)state;
    /* 10 points, 2 at a time, none finished here: unknown without a past */
    progress p = {.total = 10, .jobs = 2};
    assert_true(progress_eta_s(&p, 100) < 0);
    progress_expect(&p, 60);
    assert_float_equal(progress_eta_s(&p, 100), 10 * 60 / 2.0, 1e-9);
    /* two runs started at 100: 8 not started and 2 x 60 s */
    p.running = 2;
    p.started_sum_s = 200;
    assert_float_equal(progress_eta_s(&p, 100), (8 * 60 + 120) / 2.0, 1e-9);
    /* 20 s later each has 40 s left: it went down by 20 s */
    assert_float_equal(progress_eta_s(&p, 120), (8 * 60 + 80) / 2.0, 1e-9);
    /* running longer than expected leaves them at 0, not below */
    assert_float_equal(progress_eta_s(&p, 500), 8 * 60 / 2.0, 1e-9);
    /* once runs ended here, their mean replaces the past's */
    p.finished_here = 2;
    p.wall_sum_s = 60;
    p.done = 2;
    p.running = 0;
    p.started_sum_s = 0;
    assert_float_equal(progress_eta_s(&p, 500), 8 * 30 / 2.0, 1e-9);
}

static void add_run(db_conn *db, const char *name, const char *status, double wall_s)
{
    json_t *spec = json_pack("{s:s}", "name", name);
    db_run_info info = {.name = name, .spec = spec, .run_dir = "/tmp/x"};
    int64_t id = db_begin_run(db, &info);
    assert_true(id > 0);
    assert_int_equal(db_finish_run(db, id, status, NULL, wall_s, NULL, NULL, NULL, 0,
                                   &(db_summary){0}),
                     0);
    json_decref(spec);
}

static void test_the_first_estimate_is_the_past_runs_of_the_same_spec(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_sweep_eta_XXXXXX", path[96], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/results.db", dir);
    db_conn *db;
    assert_int_equal(db_open(&db, path, err, sizeof err), 0);
    add_run(db, "a", "ok", 40);
    add_run(db, "a", "ok", 60);
    add_run(db, "a", "failed", 1000); /* not ok: left out */
    add_run(db, "b", "ok", 100);
    add_run(db, "other", "ok", 5); /* no point of the sweep */
    sweep_point points[] = {
        {.canonical = "{\"name\":\"a\",\"vars\":{\"x\":1}}"},
        {.canonical = "{\"name\":\"b\",\"vars\":{\"x\":1}}"},
        {.canonical = "{\"name\":\"b\",\"vars\":{\"x\":2}}", .done_run_id = 4},
        {.canonical = "{\"name\":\"new\"}"}, /* no past: left out */
    };
    sweep_plan plan = {.points = points, .npoints = 4};
    /* a's mean 50 and b's 100 */
    assert_float_equal(sweep_plan_expected_wall_s(&plan, db), 75, 1e-9);
    plan.npoints = 1;
    assert_float_equal(sweep_plan_expected_wall_s(&plan, db), 50, 1e-9);
    sweep_plan unknown = {.points = points + 3, .npoints = 1};
    assert_float_equal(sweep_plan_expected_wall_s(&unknown, db), 0, 1e-9);
    db_close(db);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_eta_counts_down_while_runs_run),
        cmocka_unit_test(test_the_first_estimate_is_the_past_runs_of_the_same_spec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
