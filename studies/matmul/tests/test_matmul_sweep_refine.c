/*
 * test_matmul_sweep_refine.c - a sweep plans a series' refinement only once
 * that series' own grid points have run (sweep_refine_next with
 * ready_only): with the case study's grid and runs in the database where A
 * and B swap places at 1x between 1 and 1.5 us, nothing while no point has
 * run; the midpoints of 1x once its points have, though a point of 0.5x is
 * still to run; and a dry run plans from the database whatever has run.
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
#include "case_runs.h"
#include "sweep_plan.h"
#include "sweep_refine.h"
#include "scratch_files.h"

static char tmp_dir[] = "/tmp/mortar-test-sweep-refine-XXXXXX";

/* A wins at 0.5 and 1 us, B from 1.5 us on (speed 1). */
static db_conn *open_runs(void)
{
    char err[256];
    db_conn *db;
    if (db_open(&db, scratch_file(tmp_dir, "mortar.db"), err, sizeof err))
        fail_msg("%s", err);
    const char *lat[] = {"0.5us", "1us", "1.5us", "2us", "2.5us"};
    const double a[] = {900, 1000, 1300, 1400, 1500};
    for (int i = 0; i < 5; i++) {
        case_run_add(db, "a", lat[i], a[i]);
        case_run_add(db, "b", lat[i], 1100);
    }
    return db;
}

/* The series index of speed `speed`. */
static size_t series_of(const sweep_refine *r, double speed)
{
    for (size_t i = 0; i < r->nseries; i++)
        if (fabs(r->series[i] - speed) < 1e-9)
            return i;
    fail_msg("no series at speed %g", speed);
    return 0;
}

/* The labels of the points sweep_refine_next returns, one per line. */
static void next_labels(sweep_refine *r, sweep_plan *plan, db_conn *db, bool ready_only,
                        char *out, size_t size)
{
    size_t *points = NULL, n = 0, left = 0;
    char err[2048];
    if (sweep_refine_next(r, plan, db, ready_only, &points, &n, &left, err, sizeof err))
        fail_msg("%s", err);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        strncat(out, plan->points[points[i]].label, size - strlen(out) - 2);
        strcat(out, "\n");
    }
    free(points);
}

static void status_of(const sweep_refine *r, double speed, char *buf, size_t size)
{
    sweep_refine_status_line(r, series_of(r, speed), buf, size);
}

static void test_a_series_is_refined_once_its_grid_points_have_run(void **state)
{
    (void)state;
    sweep_plan plan;
    sweep_refine r;
    char err[2048] = "", labels[8192], line[512];
    if (sweep_plan_load(&plan, matmul("study.json"), NULL, 0, NULL, 0, err, sizeof err))
        fail_msg("%s", err);
    if (sweep_refine_init(&r, &plan, matmul("study.json"), NULL, err, sizeof err))
        fail_msg("%s", err);
    db_conn *db = open_runs();

    next_labels(&r, &plan, db, true, labels, sizeof labels);
    assert_string_equal(labels, "");
    status_of(&r, 1, line, sizeof line);
    assert_non_null(strstr(line, "speed=1: its grid points have not all run"));

    /* every grid point has run but one of A at 0.5x */
    size_t left_out = plan.npoints;
    for (size_t i = 0; i < r.ngrid; i++) {
        if (left_out == plan.npoints && r.roles[i] == 0 && fabs(r.point_series[i] - 0.5) < 1e-9)
            left_out = i;
        else
            plan.points[i].ended = true;
    }
    assert_true(left_out < plan.npoints);
    next_labels(&r, &plan, db, true, labels, sizeof labels);
    assert_string_equal(labels, "refine design-a pcie.latency=1.25us speed=1\n"
                                "refine design-b pcie.latency=1.25us speed=1\n");
    status_of(&r, 0.5, line, sizeof line);
    assert_non_null(strstr(line, "speed=0.5: its grid points have not all run"));
    status_of(&r, 1, line, sizeof line);
    assert_non_null(strstr(line, "speed=1: 1 crossing(s)"));

    /* a dry run plans from what is in the database, ready or not */
    plan.points[left_out].ended = false;
    next_labels(&r, &plan, db, false, labels, sizeof labels);
    assert_non_null(strstr(labels, "refine design-a pcie.latency=1.25us speed=1\n"));
    status_of(&r, 0.5, line, sizeof line);
    assert_null(strstr(line, "have not all run"));

    db_close(db);
    sweep_refine_free(&r);
    sweep_plan_free(&plan);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmp_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    unlink(scratch_file(tmp_dir, "mortar.db"));
    unlink(scratch_file(tmp_dir, "mortar.db-wal"));
    unlink(scratch_file(tmp_dir, "mortar.db-shm"));
    return rmdir(tmp_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_series_is_refined_once_its_grid_points_have_run),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
