/*
 * study_runs.c - a study's finished runs, the newest of each cell, and the
 * compared variants' curves along x (study_runs.h). Lookups are linear
 * scans: a study's database holds hundreds of runs, not millions.
 */
#include "study_runs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_query.h"
#include "grow.h"
#include "spec.h"

bool study_same_value(double x, double y)
{
    if (isnan(x) || isnan(y))
        return isnan(x) && isnan(y);
    double scale = fabs(x) > 1 ? fabs(x) : 1;
    return fabs(x - y) <= 1e-9 * scale;
}

/* The knob's value in the run's variables, NAN when it has none (or no
 * such knob). */
static double knob_value(const study_knob *k, json_t *vars)
{
    double x;
    return k && !study_knob_number(k, json_object_get(vars, k->name), &x) ? x : NAN;
}

bool study_runs_on_grid(const study_runs *rs, double x)
{
    for (size_t i = 0; i < rs->ngrid_x; i++)
        if (study_same_value(rs->grid_x[i], x))
            return true;
    return false;
}

bool study_runs_unloaded(const study_runs *rs, const study_run *r)
{
    return !rs->ax.load || isnan(r->load) || study_same_value(r->load, rs->ax.load_at);
}

static size_t run_index(const study_runs *rs, const study_run *key)
{
    for (size_t i = 0; i < rs->n; i++) {
        const study_run *r = &rs->runs[i];
        if (!strcmp(r->variant, key->variant) && study_same_value(r->x, key->x) &&
            study_same_value(r->series, key->series) && study_same_value(r->load, key->load))
            return i;
    }
    return rs->n;
}

const study_run *study_runs_find(const study_runs *rs, const char *variant, double x,
                                 double series)
{
    for (size_t i = 0; i < rs->n; i++) {
        const study_run *r = &rs->runs[i];
        if (!strcmp(r->variant, variant) && study_same_value(r->x, x) &&
            study_same_value(r->series, series) && study_runs_unloaded(rs, r))
            return r;
    }
    return NULL;
}

const study_run *study_runs_cell(const study_runs *rs, const char *variant, double x,
                                 double series)
{
    const study_run *r = study_runs_find(rs, variant, x, series);
    return r && !isnan(r->median_us) ? r : NULL;
}

/* Adds a run, replacing an older one of the same cell (rows come in id order). */
static int keep_run(study_runs *rs, const study_run *r)
{
    size_t i = run_index(rs, r);
    if (i == rs->n) {
        if (grow(&rs->runs, &rs->cap, rs->n + 1, sizeof *rs->runs))
            return -1;
        rs->n++;
    }
    rs->runs[i] = *r;
    return 0;
}

/* Keeps a finished run from the database (db_each_ok_run). */
static int take_run(void *ctx, const db_ok_run *row)
{
    study_runs *rs = ctx;
    study_run r = {.id = row->id,
                   .x = knob_value(rs->ax.x, row->vars),
                   .series = knob_value(rs->ax.series, row->vars),
                   .load = knob_value(rs->ax.load, row->vars),
                   .median_us = row->median_us,
                   .p99_us = row->p99_us,
                   .mean_us = row->mean_us,
                   .min_us = row->min_us,
                   .max_us = row->max_us,
                   .throughput_rps = row->throughput_rps,
                   .share = NAN};
    for (size_t p = 0; p < STUDY_RUN_MAX_PARTS; p++)
        r.part_us[p] = NAN;
    json_t *v = json_object_get(row->vars, rs->st->axis);
    if (spec_value_text(v, r.variant, sizeof r.variant))
        r.variant[0] = '\0';
    snprintf(r.run_dir, sizeof r.run_dir, "%s", row->run_dir);
    return keep_run(rs, &r);
}

static int read_grid(study_runs *rs)
{
    const study_knob *k = rs->ax.x;
    rs->grid_x = calloc(k && k->nvalues ? k->nvalues : 1, sizeof *rs->grid_x);
    if (!rs->grid_x)
        return -1;
    for (size_t i = 0; k && i < k->nvalues; i++) {
        json_t *text = json_string(k->values[i]);
        if (!study_knob_number(k, text, &rs->grid_x[rs->ngrid_x]))
            rs->ngrid_x++;
        json_decref(text);
    }
    return 0;
}

int study_runs_load(study_runs *rs, db_conn *db, const study *st, char *err, size_t size)
{
    *rs = (study_runs){.st = st, .ax = verdict_axes_of(st)};
    char why[512];
    if (read_grid(rs)) {
        snprintf(err, size, "reading the runs: out of memory");
        return -1;
    }
    int rc = db_each_ok_run(db, take_run, rs, why, sizeof why);
    if (rc == 1)
        snprintf(err, size, "reading the runs: out of memory");
    else if (rc < 0)
        snprintf(err, size, "reading the runs: %s", why);
    return rc ? -1 : 0;
}

void study_runs_free(study_runs *rs)
{
    for (size_t i = 0; i < rs->n; i++)
        json_decref(rs->runs[i].split);
    free(rs->runs);
    free(rs->grid_x);
    *rs = (study_runs){0};
}

/* ---- the compared variants' curves ---- */

static const char *compared(const study_runs *rs, int d)
{
    return rs->st->variants[rs->st->compared[d]].name;
}

static int by_x(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The distinct x values of `series` where compared variant `d` (or either,
 * d < 0) has a cell, sorted, into xs (room for rs->n). */
static size_t curve_xs(const study_runs *rs, int d, double series, double *xs)
{
    size_t n = 0;
    for (size_t i = 0; i < rs->n; i++) {
        const study_run *r = &rs->runs[i];
        bool wanted = d >= 0 ? !strcmp(r->variant, compared(rs, d))
                             : !strcmp(r->variant, compared(rs, 0)) ||
                                   !strcmp(r->variant, compared(rs, 1));
        if (!wanted || isnan(r->x) || isnan(r->median_us) ||
            !study_same_value(r->series, series) || !study_runs_unloaded(rs, r))
            continue;
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++)
            seen = study_same_value(xs[k], r->x);
        if (!seen)
            xs[n++] = r->x;
    }
    qsort(xs, n, sizeof *xs, by_x);
    return n;
}

size_t study_runs_cross_points(const study_runs *rs, double series, cross_point *out)
{
    double *xs = calloc(rs->n ? rs->n : 1, sizeof *xs);
    size_t n = 0, nx = xs ? curve_xs(rs, -1, series, xs) : 0;
    for (size_t i = 0; i < nx; i++) {
        const study_run *a = study_runs_cell(rs, compared(rs, 0), xs[i], series);
        const study_run *b = study_runs_cell(rs, compared(rs, 1), xs[i], series);
        if (a && b)
            out[n++] = (cross_point){.x = xs[i],
                                     .diff = a->median_us - b->median_us,
                                     .grid = study_runs_on_grid(rs, xs[i])};
    }
    free(xs);
    return n;
}

size_t study_runs_curve(const study_runs *rs, int d, double series, curve_point *out,
                        const study_run **runs)
{
    double *xs = calloc(rs->n ? rs->n : 1, sizeof *xs);
    size_t n = xs ? curve_xs(rs, d, series, xs) : 0;
    for (size_t i = 0; i < n; i++) {
        const study_run *r = study_runs_cell(rs, compared(rs, d), xs[i], series);
        out[i] = (curve_point){.x = xs[i], .y = r->median_us,
                               .grid = study_runs_on_grid(rs, xs[i])};
        if (runs)
            runs[i] = r;
    }
    free(xs);
    return n;
}
