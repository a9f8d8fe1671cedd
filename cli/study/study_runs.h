/*
 * study_runs.h - a study's finished runs as read from the results database:
 * each run's variant (its variable of the study's variant axis) and knob
 * values (x, series, load: verdict_axes.h) as numbers in the knobs' units,
 * the newest "ok" run of each cell (variant, x, series, load) kept. The
 * verdict reads its cells from here and a sweep's refinement its next
 * runs, so both see the same runs the same way.
 *
 * Two values are the same when they differ by at most 1e-9 relative (1.5
 * and 1.4999999999 meet in one cell). A run is unloaded at the load axis'
 * lowest value (or without a load axis). An x value the study's x knob
 * declares is a grid value; any other is an extra point (a refinement's).
 */
#ifndef MORTAR_CLI_STUDY_RUNS_H
#define MORTAR_CLI_STUDY_RUNS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crossing.h"
#include "db.h"
#include "study.h"
#include "verdict_axes.h"

/* The metric's parts a run's figures hold (the study's first ones). */
#define STUDY_RUN_MAX_PARTS 8

/* One finished run; NAN stands for SQL NULL and for a knob value the run
 * does not have. */
typedef struct study_run {
    int64_t id;
    char variant[64];
    double x, series, load; /* the knob values, in the knobs' units */
    double median_us, p99_us, mean_us, min_us, max_us, throughput_rps;
    char run_dir[1024];
    /* The verdict's, after loading (NAN and NULL until it fills them): */
    double part_us[STUDY_RUN_MAX_PARTS]; /* medians over the requests */
    double share;                        /* the study's load share */
    json_t *split; /* the median request's split (owned), or NULL */
} study_run;

typedef struct study_runs {
    const study *st;
    verdict_axes ax;
    study_run *runs; /* the newest ok run of each cell, in id order */
    size_t n, cap;
    double *grid_x; /* the x knob's declared values, as numbers */
    size_t ngrid_x;
} study_runs;

/* Reads the finished runs of `db` as study `st` sees them. Returns 0, or -1
 * with "reading the runs: <why>" in `err`. `rs` is the caller's to free
 * (study_runs_free), also after an error. */
int study_runs_load(study_runs *rs, db_conn *db, const study *st, char *err, size_t size);

void study_runs_free(study_runs *rs);

/* Whether x and y are the same knob value (NAN is the same as NAN). */
bool study_same_value(double x, double y);

/* Whether x is a grid value: one the study's x knob declares. */
bool study_runs_on_grid(const study_runs *rs, double x);

/* Whether the run is unloaded (at the load axis' lowest value, or without
 * one). */
bool study_runs_unloaded(const study_runs *rs, const study_run *r);

/* The unloaded run of `variant` at (x, series), or NULL. */
const study_run *study_runs_find(const study_runs *rs, const char *variant, double x,
                                 double series);

/* The same, only when it has a median: a point of the variant's curve. */
const study_run *study_runs_cell(const study_runs *rs, const char *variant, double x,
                                 double series);

/* The points of `series` where both compared variants have a cell, sorted
 * by x: the first's median minus the second's, and whether x is a grid
 * value. Into out (room for rs->n); returns how many. */
size_t study_runs_cross_points(const study_runs *rs, double series, cross_point *out);

/* The cells of compared variant `d` (0 or 1) in `series`, sorted by x,
 * with their runs (room for rs->n in each; runs may be NULL). Returns how
 * many. */
size_t study_runs_curve(const study_runs *rs, int d, double series, curve_point *out,
                        const study_run **runs);

#endif
