/*
 * test_matmul_refine_plan.c - a refinement's next runs from the runs in a
 * database: both variants at the midpoint where the ranking changes
 * between neighbouring points of a series, nothing where it does not;
 * only the missing variant when one already ran there (an interrupted
 * refinement resumes); bisection down to the resolution and no further,
 * converging on a known crossing; every interval of a ranking that flips
 * more than once; and series kept apart.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "refine_plan.h"
#include "study.h"

static study case_study;

typedef struct fixture {
    char path[64];
    db_conn *db;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->path, sizeof f->path, "/tmp/test_refine_plan_XXXXXX");
    int fd = mkstemp(f->path);
    assert_true(fd >= 0);
    close(fd);
    char err[256];
    if (db_open(&f->db, f->path, err, sizeof err))
        fail_msg("db_open: %s", err);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    db_close(f->db);
    char side[96];
    unlink(f->path);
    snprintf(side, sizeof side, "%s-wal", f->path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", f->path);
    unlink(side);
    free(f);
    return 0;
}

/* An ok run of `design` at x = `latency` (--set text) and series `s`. */
static void add_run(fixture *f, const char *design, const char *latency, double s,
                    double median_us)
{
    json_t *spec = json_pack("{s:{s:s, s:s, s:f, s:i}}", "vars", "design", design,
                             "pcie.latency", latency, "speed", s, "inflight", 1);
    db_run_info info = {.name = "t", .run_dir = "", .spec = spec};
    int64_t id = db_begin_run(f->db, &info);
    json_decref(spec);
    assert_true(id > 0);
    db_request one = {.latency_ns = (int64_t)(median_us * 1000), .verified = 1};
    db_summary sum = {.requests = 1, .verified = 1, .median_us = median_us};
    assert_int_equal(db_finish_run(f->db, id, "ok", NULL, 1, NULL, NULL, &one, 1, &sum), 0);
}

/* The plan of series `s` now, into needs (room for 64). */
static size_t plan(fixture *f, double s, refine_need *needs, refine_status *st)
{
    study_runs rs;
    char err[256];
    if (study_runs_load(&rs, f->db, &case_study, err, sizeof err))
        fail_msg("%s", err);
    knob_scale scale = knob_scale_of(&case_study.knobs[0]);
    assert_true(2 * rs.n <= 64);
    size_t n = refine_plan_series(&rs, &scale, 0.05, s, needs, st);
    study_runs_free(&rs);
    return n;
}

/* A wins at 1 us, B at 1.5 us and 2 us, in series 1. */
static void add_grid(fixture *f)
{
    add_run(f, "a", "1us", 1, 1000);
    add_run(f, "b", "1us", 1, 1100);
    add_run(f, "a", "1.5us", 1, 1300);
    add_run(f, "b", "1.5us", 1, 1100);
    add_run(f, "a", "2us", 1, 1400);
    add_run(f, "b", "2us", 1, 1100);
}

static void test_both_variants_run_at_the_midpoint_of_a_change(void **state)
{
    fixture *f = *state;
    add_grid(f);
    refine_need needs[64];
    refine_status st;
    assert_int_equal(plan(f, 1, needs, &st), 2);
    assert_int_equal(needs[0].variant, 0);
    assert_int_equal(needs[1].variant, 1);
    assert_string_equal(needs[0].x_text, "1.25us");
    assert_true(needs[0].x == 1.25 && needs[0].lo == 1.0 && needs[0].hi == 1.5);
    assert_int_equal(st.points, 3);
    assert_int_equal(st.crossings, 1);
    assert_int_equal(st.open, 1);
    assert_int_equal(st.runs_left, 8); /* 0.5 us to 0.03125 us: 4 halvings */
    /* another series has no runs: nothing to do there */
    assert_int_equal(plan(f, 2, needs, &st), 0);
    assert_int_equal(st.points, 0);
}

static void test_an_interrupted_midpoint_needs_only_the_missing_variant(void **state)
{
    fixture *f = *state;
    add_grid(f);
    add_run(f, "b", "1.25us", 1, 1100);
    refine_need needs[64];
    refine_status st;
    assert_int_equal(plan(f, 1, needs, &st), 1);
    assert_int_equal(needs[0].variant, 0);
    assert_string_equal(needs[0].x_text, "1.25us");
    assert_int_equal(st.runs_left, 7);
}

/* A(x) = 1000 + 400 x against B = 1490: they cross at 1.225 us. */
static double truth(int d, double x)
{
    return d == 0 ? 1000 + 400 * x : 1490;
}

static void test_bisection_converges_to_the_resolution_and_stops(void **state)
{
    fixture *f = *state;
    add_grid(f);
    refine_need needs[64];
    refine_status st;
    size_t runs = 0, n;
    while ((n = plan(f, 1, needs, &st)) > 0) {
        assert_true(runs < 40); /* it ends */
        for (size_t i = 0; i < n; i++)
            add_run(f, needs[i].variant ? "b" : "a", needs[i].x_text, 1,
                    truth(needs[i].variant, needs[i].x));
        runs += n;
    }
    assert_int_equal(runs, 8);
    assert_int_equal(st.open, 0);
    assert_int_equal(st.crossings, 1);
    assert_true(st.widest <= 0.05 && st.widest > 0.025);
    /* the bracket, as the verdict reads the runs, holds the crossing */
    study_runs rs;
    char err[256];
    assert_int_equal(study_runs_load(&rs, f->db, &case_study, err, sizeof err), 0);
    cross_point p[32];
    crossing k[32];
    size_t np = study_runs_cross_points(&rs, 1, p);
    assert_int_equal(crossings_find(p, np, k), 1);
    assert_true(p[k[0].lo].x < 1.225 && p[k[0].hi].x > 1.225);
    assert_true(k[0].measured);
    study_runs_free(&rs);
}

static void test_every_interval_of_a_ranking_that_flips_is_bisected(void **state)
{
    fixture *f = *state;
    add_grid(f);
    /* at 1.25 us B wins, at 1.375 us A again: three changes in 1 to 1.5 */
    add_run(f, "a", "1.25us", 1, 1150);
    add_run(f, "b", "1.25us", 1, 1100);
    add_run(f, "a", "1.375us", 1, 1050);
    add_run(f, "b", "1.375us", 1, 1100);
    refine_need needs[64];
    refine_status st;
    assert_int_equal(plan(f, 1, needs, &st), 6);
    assert_int_equal(st.crossings, 3);
    assert_int_equal(st.open, 3);
    assert_string_equal(needs[0].x_text, "1.125us");
    assert_string_equal(needs[2].x_text, "1.3125us");
    assert_string_equal(needs[4].x_text, "1.4375us");
}

static void test_no_change_no_runs(void **state)
{
    fixture *f = *state;
    add_run(f, "a", "1us", 0.5, 900);
    add_run(f, "b", "1us", 0.5, 1000);
    add_run(f, "a", "2us", 0.5, 950);
    add_run(f, "b", "2us", 0.5, 1000);
    refine_need needs[64];
    refine_status st;
    assert_int_equal(plan(f, 0.5, needs, &st), 0);
    assert_int_equal(st.crossings, 0);
    assert_true(isnan(st.widest));
}

int main(void)
{
    const char *src = getenv("MORTAR_SOURCE");
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/studies/matmul/experiments/study.json", src ? src : ".");
    if (study_load(&case_study, path, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_both_variants_run_at_the_midpoint_of_a_change,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_an_interrupted_midpoint_needs_only_the_missing_variant, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bisection_converges_to_the_resolution_and_stops,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_every_interval_of_a_ranking_that_flips_is_bisected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_change_no_runs, setup, teardown),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    study_free(&case_study);
    return failed;
}
