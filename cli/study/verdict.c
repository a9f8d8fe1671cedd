/*
 * verdict.c - a study's conclusions, computed from the finished runs in the
 * results database: the winner and margin in every grid cell of the two
 * compared variants, where they cross along the x knob for each value of
 * the series knob, how far each moves across the x range, the alone
 * ranking next to the in-system one, the baselines, the load runs, and
 * sentences that say it. `mortar verdict` prints it, and the report builds
 * on it. Everything it names comes from the study (study.h): the variants
 * and their labels and phrases, the knobs' roles (verdict_axes.h), labels,
 * phrases and units, the load axis and its share, the metric's parts. The
 * JSON layout is in docs/studies.md ("The verdict's JSON").
 *
 * Only status "ok" runs count. A run's variant and knob values are its
 * variables (run_vars), the knob values as numbers in the knob's unit
 * (study_knob_number); its cell is (variant, x, series, load); when a cell
 * has several runs, the newest (highest id) is used. Two values are the
 * same grid value when they differ by at most 1e-9 relative: 1.5 and
 * 1.4999999999 meet in one cell. A run is unloaded at the load axis' lowest
 * value (or without one); the baselines and the load table are read at the
 * series knob's reference value (the value the study's parts fix it at,
 * else its first). The alone times are the study's alone runs
 * (alone_time(), through verdict_alone_us). Every run the verdict uses that
 * lost frames or retransmitted TCP segments (its recorded losses, see
 * losses.h) gets a warning. With splits, a run recorded with --trace also gets the split of
 * its median request's time (time_split.h), in its cell and in "splits".
 */
#include "verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alone.h"
#include "crossing.h"
#include "crossing_text.h"
#include "db_query.h"
#include "json_field.h"
#include "spec.h"
#include "sentence.h"
#include "study.h"
#include "study_runs.h"
#include "time_split.h"
#include "trace_export.h"
#include "verdict_axes.h"

/* The metric's parts the verdict reads per run (the study's first ones). */
#define VERDICT_MAX_PARTS STUDY_RUN_MAX_PARTS

/* One finished run, as the verdict sees it (study_runs.h). */
typedef study_run vrun;

/* Sorted distinct values (a grid axis). */
typedef struct dlist {
    double *v;
    size_t n;
} dlist;

typedef struct verdict_ctx {
    db_conn *db;
    const study *st; /* the variants compared, their labels, the baselines */
    verdict_axes ax;
    double series_at, load_at; /* the reference values; NAN: no such knob */
    size_t nparts;             /* the metric parts read */
    char xu[16], su[16];       /* the x and series units as text follows a value */
    study_runs rs;             /* the newest ok run of each cell, in id order */
    dlist xs, series;   /* the grid: unloaded runs of the compared variants */
    double *alone[2];   /* per series value; NAN where the variant has no run */
    bool splits;        /* each traced run's split is wanted */
    char *err;
    size_t err_size;
} verdict_ctx;

/* ---- small helpers ---- */

/* The name of the first (0) or second (1) variant the study compares. */
static const char *vname(const verdict_ctx *c, int i)
{
    return c->st->variants[c->st->compared[i]].name;
}

/* Whether `variant` is one of the two compared variants. */
static bool is_ab(const verdict_ctx *c, const char *variant)
{
    return !strcmp(variant, vname(c, 0)) || !strcmp(variant, vname(c, 1));
}

/* Whether `variant` is one of the study's baselines. */
static bool is_baseline(const verdict_ctx *c, const char *variant)
{
    for (size_t i = 0; i < c->st->nbaselines; i++)
        if (!strcmp(variant, c->st->variants[c->st->baselines[i]].name))
            return true;
    return false;
}

/* Room for a key made of a variant's name and a suffix ("a_median_us"). */
#define TEXT_KEY_MAX 160

/* "<name><suffix>" into buf (TEXT_KEY_MAX bytes): the key of a variant's
 * figure ("a_us", "software_median_us"). */
static const char *key_of(char *buf, const char *name, const char *suffix)
{
    snprintf(buf, TEXT_KEY_MAX, "%s%s", name, suffix);
    return buf;
}

/* A JSON number, or null for NAN (jansson refuses NAN). */
static json_t *num(double x)
{
    return isnan(x) ? json_null() : json_real(x);
}

/* The variant with the better median; "tie" when they are equal. */
static const char *winner_of(const verdict_ctx *c, double a_us, double b_us)
{
    return a_us < b_us ? vname(c, 0) : b_us < a_us ? vname(c, 1) : "tie";
}

/* How the text names a variant: its label, else its name. */
static const char *upper(const verdict_ctx *c, const char *variant)
{
    const study_variant *v = study_variant_named(c->st, variant);
    return v ? v->label : variant;
}

/* How a sentence names a variant: its phrase (study.h). */
static const char *phrase(const verdict_ctx *c, const char *variant)
{
    const study_variant *v = study_variant_named(c->st, variant);
    return v ? v->phrase : variant;
}

/* "<what>: <the database's message>". */
static void set_err(verdict_ctx *c, const char *what, const char *why)
{
    snprintf(c->err, c->err_size, "%s: %s", what, why);
}

/* ---- the study's axes ---- */

static void init_axes(verdict_ctx *c)
{
    c->ax = verdict_axes_of(c->st);
    c->series_at = c->ax.series_at;
    c->load_at = c->ax.load_at;
    c->nparts = c->st->metric.nparts < VERDICT_MAX_PARTS ? c->st->metric.nparts
                                                         : VERDICT_MAX_PARTS;
    verdict_unit_words(c->ax.x, c->xu, sizeof c->xu);
    verdict_unit_words(c->ax.series, c->su, sizeof c->su);
}

/* Whether the run is at the load axis' lowest value (always, without one). */
static bool unloaded(const verdict_ctx *c, const vrun *r)
{
    return study_runs_unloaded(&c->rs, r);
}

/* Whether the run is at the series knob's reference value (always, without one). */
static bool at_series(const verdict_ctx *c, const vrun *r)
{
    return !c->ax.series || study_same_value(r->series, c->series_at);
}

/* ---- reading the runs ---- */

/* The unloaded run of a cell, or NULL. */
static const vrun *find_run(const verdict_ctx *c, const char *variant, double x,
                            double series)
{
    return study_runs_find(&c->rs, variant, x, series);
}

/* The unloaded run of a cell with a median, or NULL. */
static const vrun *grid_run(const verdict_ctx *c, const char *variant, double x,
                            double series)
{
    return study_runs_cell(&c->rs, variant, x, series);
}

static int load_runs(verdict_ctx *c)
{
    return study_runs_load(&c->rs, c->db, c->st, c->err, c->err_size);
}

/*
 * The median of a per-request field over the run's requests where it is
 * known (>= 0), in us; NAN when none is (db_request_median_us: the rule
 * of the run's own median, quantile.h).
 */
static int request_median_us(verdict_ctx *c, int64_t run_id, const char *field,
                             double *out)
{
    char why[512];
    if (!db_request_median_us(c->db, run_id, field, out, why, sizeof why))
        return 0;
    set_err(c, "reading the requests", why);
    return -1;
}

/*
 * The study's load share of a run (study_load_share: e.g. how often a
 * device's queue already held the next request when one finished), from
 * the device counters it names. NAN when the study has none or the run no
 * such counter.
 */
static int load_share(verdict_ctx *c, int64_t run_id, double *out)
{
    const study_load_share *s = &c->st->load_share;
    char why[512];
    *out = NAN;
    if (!s->label || !db_counter_share(c->db, run_id, s->of, s->per, out, why, sizeof why))
        return 0;
    set_err(c, "reading the device counters", why);
    return -1;
}

/* The split of the run's median request into `parts` when the run was
 * traced; an {"error": text} when its trace cannot be split. */
static json_t *run_split(const vrun *r, const split_parts *parts)
{
    if (!r->run_dir[0] || trace_count_files(r->run_dir) <= 0)
        return NULL;
    char err[512];
    json_t *s = time_split_run(r->run_dir, TRACE_REQUEST_MEDIAN, parts, err, sizeof err);
    return s ? s : json_pack("{s:s}", "error", err);
}

static void load_splits(verdict_ctx *c)
{
    for (size_t i = 0; i < c->rs.n; i++)
        c->rs.runs[i].split = run_split(&c->rs.runs[i], &c->st->metric.split);
}

static int load_request_medians(verdict_ctx *c)
{
    for (size_t i = 0; i < c->rs.n; i++) {
        vrun *r = &c->rs.runs[i];
        for (size_t p = 0; p < c->nparts; p++)
            if (request_median_us(c, r->id, c->st->metric.parts[p].field, &r->part_us[p]))
                return -1;
        if (load_share(c, r->id, &r->share))
            return -1;
    }
    return 0;
}

/* ---- the grid's axes and the alone times ---- */

static void add_distinct(dlist *l, double x)
{
    for (size_t i = 0; i < l->n; i++)
        if (study_same_value(l->v[i], x))
            return;
    l->v[l->n++] = x;
}

/* Ascending, NAN (no such knob) last. */
static int compare_doubles(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}

static void sort_list(dlist *l)
{
    if (l->n > 1)
        qsort(l->v, l->n, sizeof *l->v, compare_doubles);
}

/* Whether the run is at an x value of the knob's grid, not between (an
 * extra run of a refinement). */
static bool on_grid(const verdict_ctx *c, const vrun *r)
{
    return study_runs_on_grid(&c->rs, r->x);
}

/* Whether the run is one of the grid's: a compared variant's, unloaded, at
 * a grid value of x. */
static bool is_grid_run(const verdict_ctx *c, const vrun *r)
{
    return unloaded(c, r) && is_ab(c, r->variant) && !isnan(r->x) && on_grid(c, r);
}

static int build_axes(verdict_ctx *c)
{
    size_t cap = c->rs.n ? c->rs.n : 1; /* never more distinct values than runs */
    c->xs.v = calloc(cap, sizeof(double));
    c->series.v = calloc(cap, sizeof(double));
    c->alone[0] = calloc(cap, sizeof(double));
    c->alone[1] = calloc(cap, sizeof(double));
    if (!c->xs.v || !c->series.v || !c->alone[0] || !c->alone[1]) {
        snprintf(c->err, c->err_size, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < c->rs.n; i++) {
        const vrun *r = &c->rs.runs[i];
        if (is_grid_run(c, r)) {
            add_distinct(&c->xs, r->x);
            add_distinct(&c->series, r->series);
        }
    }
    sort_list(&c->xs);
    sort_list(&c->series);
    return 0;
}

static bool variant_has_series(const verdict_ctx *c, const char *variant, double series)
{
    for (size_t xi = 0; xi < c->xs.n; xi++)
        if (find_run(c, variant, c->xs.v[xi], series))
            return true;
    return false;
}

/* The series value as its knob's --set text: the declared value it is, or
 * its shortest form. */
static void series_text(const verdict_ctx *c, double series, char *buf, size_t size)
{
    const study_knob *k = c->ax.series;
    for (size_t i = 0; k && i < k->nvalues; i++) {
        json_t *v = json_string(k->values[i]);
        double x;
        bool same = !study_knob_number(k, v, &x) && study_same_value(x, series);
        json_decref(v);
        if (same) {
            snprintf(buf, size, "%s", k->values[i]);
            return;
        }
    }
    snprintf(buf, size, "%g", series);
}

/*
 * The alone time of variant `v` at the series value `series` (its knob's
 * values `at`: knob name -> --set text), in us: the study's alone run of
 * that command (alone_time(): recorded in the database, or measured and
 * recorded now). Every alone time of the verdict comes from here. 0, 1 when
 * the variant has no alone benchmark, -1 with the reason in err.
 */
static int verdict_alone_us(const verdict_ctx *c, const study_variant *v, json_t *at,
                            double *us, char *err, size_t size)
{
    return alone_time(db_file_name(c->db), c->st, v, at, us, err, size);
}

/* The alone time of the compared variant `d` at series value `si` when the
 * grid has that pair and the study gives the variant an alone benchmark,
 * else NAN. */
static int alone_for(verdict_ctx *c, int d, size_t si)
{
    double series = c->series.v[si], *out = &c->alone[d][si];
    *out = NAN;
    const study_variant *v = &c->st->variants[c->st->compared[d]];
    if (!variant_has_series(c, v->name, series) || !v->alone.command)
        return 0;
    char text[128], why[256];
    json_t *at = json_object();
    if (c->ax.series) {
        series_text(c, series, text, sizeof text);
        json_object_set_new(at, c->ax.series->name, json_string(text));
    }
    int rc = verdict_alone_us(c, v, at, out, why, sizeof why);
    json_decref(at);
    if (rc < 0) {
        if (c->ax.series)
            snprintf(c->err, c->err_size, "alone benchmark of %s at %g%s: %s", v->name,
                     series, c->su, why);
        else
            snprintf(c->err, c->err_size, "alone benchmark of %s: %s", v->name, why);
        return -1;
    }
    if (rc == 1)
        *out = NAN;
    return 0;
}

static int measure_alone(verdict_ctx *c)
{
    for (size_t si = 0; si < c->series.n; si++)
        if (alone_for(c, 0, si) || alone_for(c, 1, si))
            return -1;
    return 0;
}

/* ---- cells ---- */

static json_t *split_or_null(const vrun *r)
{
    return r->split ? json_incref(r->split) : json_null();
}

static json_t *variant_cell(const verdict_ctx *c, const vrun *r, double alone_us)
{
    if (!r)
        return json_null();
    json_t *cell = json_pack("{s:I, s:o, s:o, s:o, s:o, s:o}", "run_id", (json_int_t)r->id,
                             "median_us", num(r->median_us), "p99_us", num(r->p99_us),
                             "mean_us", num(r->mean_us), "min_us", num(r->min_us),
                             "max_us", num(r->max_us));
    for (size_t p = 0; cell && p < c->nparts; p++) {
        char key[TEXT_KEY_MAX];
        json_object_set_new(cell, key_of(key, c->st->metric.parts[p].name, "_us"),
                            num(r->part_us[p]));
    }
    if (cell)
        json_object_set_new(cell, "alone_us", num(alone_us));
    if (cell && c->splits)
        json_object_set_new(cell, "split", split_or_null(r));
    return cell;
}

/* The winner of an unloaded cell, or NULL unless both variants ran there. */
static const char *cell_winner(const verdict_ctx *c, double x, double series)
{
    const vrun *a = grid_run(c, vname(c, 0), x, series);
    const vrun *b = grid_run(c, vname(c, 1), x, series);
    return a && b ? winner_of(c, a->median_us, b->median_us) : NULL;
}

static void set_margin(json_t *cell, const vrun *a, const vrun *b)
{
    double margin = NAN, pct = NAN;
    if (a && b) {
        double lo = a->median_us < b->median_us ? a->median_us : b->median_us;
        margin = fabs(a->median_us - b->median_us);
        pct = lo > 0 ? 100 * margin / lo : NAN;
    }
    json_object_set_new(cell, "margin_us", num(margin));
    json_object_set_new(cell, "margin_pct", num(pct));
}

/* The cell at (x, series), or NULL when neither variant ran there. */
/* The cell at (x, the series' value si), or NULL when neither variant ran
 * there. */
static json_t *cell_json(const verdict_ctx *c, double x, size_t si)
{
    double series = c->series.v[si];
    const vrun *a = find_run(c, vname(c, 0), x, series);
    const vrun *b = find_run(c, vname(c, 1), x, series);
    if (!a && !b)
        return NULL;
    const char *winner = cell_winner(c, x, series);
    json_t *cell = json_pack("{s:f, s:o, s:o, s:o, s:o}", "x", x, "series", num(series),
                             vname(c, 0), variant_cell(c, a, c->alone[0][si]), vname(c, 1),
                             variant_cell(c, b, c->alone[1][si]), "winner",
                             winner ? json_string(winner) : json_null());
    set_margin(cell, grid_run(c, vname(c, 0), x, series),
               grid_run(c, vname(c, 1), x, series));
    return cell;
}

static json_t *cells_json(const verdict_ctx *c)
{
    json_t *cells = json_array();
    for (size_t si = 0; si < c->series.n; si++)
        for (size_t xi = 0; xi < c->xs.n; xi++) {
            json_t *cell = cell_json(c, c->xs.v[xi], si);
            if (cell)
                json_array_append_new(cells, cell);
        }
    return cells;
}

/* The distinct x values of the series' value si between the grid's (a
 * compared variant's unloaded runs there), sorted, into xs (room for the
 * runs). */
static void extra_xs(const verdict_ctx *c, size_t si, dlist *xs)
{
    for (size_t i = 0; i < c->rs.n; i++) {
        const vrun *r = &c->rs.runs[i];
        if (unloaded(c, r) && is_ab(c, r->variant) && !isnan(r->x) && !on_grid(c, r) &&
            study_same_value(r->series, c->series.v[si]))
            add_distinct(xs, r->x);
    }
    sort_list(xs);
}

/* The cells between the grid's x values (the extra runs of a refinement),
 * by series, then x: the layout of "cells". */
static json_t *extra_cells_json(const verdict_ctx *c)
{
    json_t *cells = json_array();
    dlist xs = {.v = calloc(c->rs.n ? c->rs.n : 1, sizeof(double))};
    for (size_t si = 0; xs.v && si < c->series.n; si++) {
        xs.n = 0;
        extra_xs(c, si, &xs);
        for (size_t xi = 0; xi < xs.n; xi++)
            json_array_append_new(cells, cell_json(c, xs.v[xi], si));
    }
    free(xs.v);
    return cells;
}

static json_t *list_json(const dlist *l)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < l->n; i++)
        json_array_append_new(arr, num(l->v[i]));
    return arr;
}

/* ---- crossovers ---- */

/* The compared variant that wins on `side` (cross_side), or null for a tie. */
static json_t *side_name(const verdict_ctx *c, int side)
{
    return side ? json_string(vname(c, side > 0)) : json_null();
}

static json_t *crossing_entry(const verdict_ctx *c, const cross_point *p, const crossing *k)
{
    return json_pack("{s:f, s:f, s:f, s:o, s:o, s:b, s:b, s:o, s:o}", "x", k->x, "from_x",
                     p[k->lo].x, "to_x", p[k->hi].x, "below", side_name(c, k->below),
                     "above", side_name(c, k->above), "measured", k->measured, "tied",
                     k->hi > k->lo + 1, "grid_from_x", num(k->grid_lo), "grid_to_x",
                     num(k->grid_hi));
}

/* The stretches between grid points along which compared variant `d`'s
 * curve in the series is not monotonic (crossing.h), each with its points. */
static void add_turns(const verdict_ctx *c, int d, double series, json_t *arr)
{
    size_t room = c->rs.n ? c->rs.n : 1;
    curve_point *p = calloc(room, sizeof *p);
    curve_stretch *t = calloc(room, sizeof *t);
    size_t np = p && t ? study_runs_curve(&c->rs, d, series, p, NULL) : 0;
    size_t nt = curve_turns(p, np, t);
    for (size_t i = 0; i < nt; i++) {
        json_t *points = json_array();
        for (size_t k = t[i].lo; k <= t[i].hi; k++)
            json_array_append_new(points, json_pack("{s:f, s:f}", "x", p[k].x, "median_us",
                                                    p[k].y));
        json_array_append_new(arr, json_pack("{s:s, s:f, s:f, s:o}", "variant", vname(c, d),
                                             "from_x", p[t[i].lo].x, "to_x", p[t[i].hi].x,
                                             "points", points));
    }
    free(p);
    free(t);
}

/* Every change of the winner along x in one series (crossing.h), with the
 * first one's place and bracket at the top; "below" is who wins below the
 * first crossing and "above" who wins above the last (without a crossing:
 * who wins everywhere, or null). The sentences come from crossing_text.c. */
static json_t *crossover_of(const verdict_ctx *c, double series, const cross_point *p,
                            size_t n, crossing *k)
{
    size_t nk = crossings_find(p, n, k);
    json_t *list = json_array(), *turns = json_array();
    for (size_t i = 0; i < nk; i++)
        json_array_append_new(list, crossing_entry(c, p, &k[i]));
    int wins = 0;
    bool ties = false;
    for (size_t i = 0; i < n; i++) {
        ties |= cross_side(p[i].diff) == 0;
        wins = cross_side(p[i].diff) ? cross_side(p[i].diff) : wins;
    }
    json_t *first = json_array_get(list, 0);
    json_t *x = json_pack(
        "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b}", "series", num(series), "x",
        num(first ? k[0].x : NAN), "below", side_name(c, nk ? k[0].below : wins), "above",
        side_name(c, nk ? k[nk - 1].above : wins), "from_x",
        num(first ? p[k[0].lo].x : NAN), "to_x", num(first ? p[k[0].hi].x : NAN),
        "measured", first ? json_boolean(k[0].measured) : json_null(), "first_x",
        num(n ? p[0].x : NAN), "last_x", num(n ? p[n - 1].x : NAN), "with_ties", ties);
    json_object_set_new(x, "crossings", list);
    add_turns(c, 0, series, turns);
    add_turns(c, 1, series, turns);
    json_object_set_new(x, "non_monotonic", turns);
    crossing_text_set(c->st, &c->ax, x);
    return x;
}

static json_t *crossover_json(const verdict_ctx *c, double series)
{
    size_t room = c->rs.n ? c->rs.n : 1;
    cross_point *p = calloc(room, sizeof *p);
    crossing *k = calloc(room, sizeof *k);
    json_t *x = NULL;
    if (p && k)
        x = crossover_of(c, series, p, study_runs_cross_points(&c->rs, series, p), k);
    free(p);
    free(k);
    return x;
}

static json_t *crossovers_json(const verdict_ctx *c)
{
    json_t *arr = json_array();
    for (size_t si = 0; si < c->series.n; si++)
        json_array_append_new(arr, crossover_json(c, c->series.v[si]));
    return arr;
}

/* ---- movement, alone, ranking ---- */

/* A variant's median at the lowest and the highest x it ran at. */
static json_t *movement_entry(const verdict_ctx *c, const char *variant, double series)
{
    const vrun *first = NULL, *last = NULL;
    for (size_t xi = 0; xi < c->xs.n; xi++) {
        const vrun *r = grid_run(c, variant, c->xs.v[xi], series);
        if (r) {
            first = first ? first : r;
            last = r;
        }
    }
    if (!first || first == last)
        return NULL;
    double delta = last->median_us - first->median_us;
    return json_pack("{s:s, s:o, s:f, s:f, s:f, s:f, s:f, s:o}", "variant", variant,
                     "series", num(series), "from_x", first->x, "to_x", last->x,
                     "from_median_us", first->median_us, "to_median_us", last->median_us,
                     "delta_us", delta, "delta_pct",
                     num(first->median_us > 0 ? 100 * delta / first->median_us : NAN));
}

static json_t *movement_json(const verdict_ctx *c)
{
    json_t *arr = json_array();
    for (size_t si = 0; si < c->series.n; si++)
        for (int d = 0; d < 2; d++) {
            json_t *m = movement_entry(c, vname(c, d), c->series.v[si]);
            if (m)
                json_array_append_new(arr, m);
        }
    return arr;
}

static const char *alone_winner(const verdict_ctx *c, size_t si)
{
    double a = c->alone[0][si], b = c->alone[1][si];
    return isnan(a) || isnan(b) ? NULL : winner_of(c, a, b);
}

static json_t *alone_json(const verdict_ctx *c)
{
    json_t *arr = json_array();
    for (size_t si = 0; si < c->series.n; si++) {
        const char *w = alone_winner(c, si);
        char a_key[TEXT_KEY_MAX], b_key[TEXT_KEY_MAX];
        json_array_append_new(
            arr, json_pack("{s:o, s:o, s:o, s:o}", "series", num(c->series.v[si]),
                           key_of(a_key, vname(c, 0), "_us"), num(c->alone[0][si]),
                           key_of(b_key, vname(c, 1), "_us"), num(c->alone[1][si]),
                           "winner", w ? json_string(w) : json_null()));
    }
    return arr;
}

/* The in-system winners at one series value (keyed by the x value, "%g")
 * and whether the other variant than the alone winner wins anywhere. */
static json_t *ranking_entry(const verdict_ctx *c, size_t si)
{
    double series = c->series.v[si];
    const char *alone = alone_winner(c, si);
    json_t *winners = json_object();
    bool flips = false;
    for (size_t xi = 0; xi < c->xs.n; xi++) {
        const char *w = cell_winner(c, c->xs.v[xi], series);
        if (!w)
            continue;
        char key[32];
        snprintf(key, sizeof key, "%g", c->xs.v[xi]);
        json_object_set_new(winners, key, json_string(w));
        flips |= alone && strcmp(alone, "tie") && strcmp(w, "tie") && strcmp(w, alone);
    }
    return json_pack("{s:o, s:o, s:o, s:b}", "series", num(series), "alone_winner",
                     alone ? json_string(alone) : json_null(), "system_winners", winners,
                     "flips", flips);
}

static json_t *ranking_json(const verdict_ctx *c)
{
    json_t *arr = json_array();
    for (size_t si = 0; si < c->series.n; si++)
        json_array_append_new(arr, ranking_entry(c, si));
    return arr;
}

/* ---- baselines and load (at the series' reference value) ---- */

static double median_or_nan(const vrun *r)
{
    return r ? r->median_us : NAN;
}

/* The variants of the baselines table: the baselines, then the two
 * compared; at most 2 + the study's variants. */
static size_t baseline_variants(const verdict_ctx *c, const char **variants)
{
    size_t n = 0;
    for (size_t i = 0; i < c->st->nbaselines; i++)
        variants[n++] = c->st->variants[c->st->baselines[i]].name;
    variants[n++] = vname(c, 0);
    variants[n++] = vname(c, 1);
    return n;
}

static json_t *baselines_json(const verdict_ctx *c)
{
    const char **variants = calloc(c->st->nvariants + 2, sizeof *variants);
    size_t nv = variants ? baseline_variants(c, variants) : 0;
    dlist xs = {.v = calloc(c->rs.n ? c->rs.n : 1, sizeof(double))};
    json_t *arr = json_array();
    for (size_t i = 0; xs.v && i < c->rs.n; i++) {
        const vrun *r = &c->rs.runs[i];
        bool known = false;
        for (size_t d = 0; d < nv; d++)
            known |= !strcmp(r->variant, variants[d]);
        if (known && unloaded(c, r) && at_series(c, r) && !isnan(r->x) &&
            (on_grid(c, r) || !is_ab(c, r->variant)))
            add_distinct(&xs, r->x);
    }
    sort_list(&xs);
    for (size_t xi = 0; xi < xs.n; xi++) {
        json_t *row = json_pack("{s:f}", "x", xs.v[xi]);
        for (size_t d = 0; d < nv; d++) {
            char key[TEXT_KEY_MAX];
            json_object_set_new(
                row, key_of(key, variants[d], "_median_us"),
                num(median_or_nan(find_run(c, variants[d], xs.v[xi], c->series_at))));
        }
        json_array_append_new(arr, row);
    }
    free(xs.v);
    free(variants);
    return arr;
}

static int compare_numbers(double a, double b)
{
    return compare_doubles(&a, &b);
}

static int compare_load(const void *x, const void *y)
{
    const vrun *a = *(const vrun *const *)x, *b = *(const vrun *const *)y;
    int d = strcmp(a->variant, b->variant);
    if (d)
        return d;
    if (a->x != b->x)
        return compare_numbers(a->x, b->x);
    return compare_numbers(a->load, b->load);
}

static json_t *load_json(const verdict_ctx *c)
{
    const vrun **rows = calloc(c->rs.n ? c->rs.n : 1, sizeof *rows);
    json_t *arr = json_array();
    size_t n = 0;
    for (size_t i = 0; c->ax.load && rows && i < c->rs.n; i++)
        if (is_ab(c, c->rs.runs[i].variant) && at_series(c, &c->rs.runs[i]) &&
            (on_grid(c, &c->rs.runs[i]) || !unloaded(c, &c->rs.runs[i])))
            rows[n++] = &c->rs.runs[i];
    if (n)
        qsort(rows, n, sizeof *rows, compare_load);
    for (size_t i = 0; i < n; i++) {
        const vrun *r = rows[i];
        json_array_append_new(
            arr, json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "variant", r->variant,
                           "x", num(r->x), "load", num(isnan(r->load) ? c->load_at : r->load),
                           "median_us", num(r->median_us), "p99_us", num(r->p99_us),
                           "throughput_rps", num(r->throughput_rps), "share",
                           num(r->share)));
    }
    free(rows);
    return arr;
}

/* ---- warnings: runs that lost frames ---- */

/* True when a section above uses `r`: a grid cell (a compared variant,
 * unloaded), a baseline (unloaded, at the series' reference) or a load row
 * (a compared variant at the series' reference). */
static bool run_is_used(const verdict_ctx *c, const vrun *r)
{
    bool baseline_variant = is_ab(c, r->variant) || is_baseline(c, r->variant);
    return (is_ab(c, r->variant) && (unloaded(c, r) || at_series(c, r))) ||
           (baseline_variant && unloaded(c, r) && at_series(c, r));
}

/* "A, L 0.5 us, 2x, 1 in flight": the run's variant and knob values. */
static void run_place(const verdict_ctx *c, const vrun *r, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "%s", upper(c, r->variant));
    if (c->ax.x && n < size)
        n += (size_t)snprintf(buf + n, size - n, ", %s %g%s", c->ax.x->label, r->x, c->xu);
    if (c->ax.series && n < size)
        n += (size_t)snprintf(buf + n, size - n, ", %g%s", r->series, c->su);
    if (c->ax.load && n < size)
        snprintf(buf + n, size - n, ", %g %s", isnan(r->load) ? c->load_at : r->load,
                 c->ax.load->label);
}

static json_t *loss_warning(const verdict_ctx *c, const vrun *r, json_t *loss)
{
    const char *source = jstr(loss, "source"), *counter = jstr(loss, "counter");
    json_int_t count = json_integer_value(json_object_get(loss, "count"));
    char text[768], place[256];
    run_place(c, r, place, sizeof place);
    snprintf(text, sizeof text, "run %lld (%s): %s.%s %lld", (long long)r->id, place,
             source ? source : "?", counter ? counter : "?", (long long)count);
    return json_pack("{s:I, s:s, s:o, s:o, s:o, s:s, s:s, s:I, s:s}", "run_id",
                     (json_int_t)r->id, "variant", r->variant, "x", num(r->x), "series",
                     num(r->series), "load", num(r->load), "source", source ? source : "",
                     "counter", counter ? counter : "", "count", count, "text", text);
}

/* The losses of the runs used; NULL when they cannot be read. */
static json_t *warnings_json(const verdict_ctx *c)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < c->rs.n; i++) {
        if (!run_is_used(c, &c->rs.runs[i]))
            continue;
        json_t *losses = db_run_losses(c->db, c->rs.runs[i].id), *l;
        if (!losses) {
            json_decref(arr);
            return NULL;
        }
        size_t k;
        json_array_foreach(losses, k, l)
            json_array_append_new(arr, loss_warning(c, &c->rs.runs[i], l));
        json_decref(losses);
    }
    return arr;
}

/* ---- the splits: every traced run's median request ---- */

/* Splits in the order of their cells (variant, x, series, load), not of
 * the runs' ids: a sweep's parallel runs are recorded in the order they
 * end, which the machine decides. */
static int compare_split(const void *x, const void *y)
{
    const vrun *a = *(const vrun *const *)x, *b = *(const vrun *const *)y;
    int d = strcmp(a->variant, b->variant);
    if (!d)
        d = compare_numbers(a->x, b->x);
    if (!d)
        d = compare_numbers(a->series, b->series);
    if (!d)
        d = compare_numbers(a->load, b->load);
    return d ? d : (a->id > b->id) - (a->id < b->id);
}

static json_t *splits_json(const verdict_ctx *c)
{
    const vrun **rows = calloc(c->rs.n ? c->rs.n : 1, sizeof *rows);
    json_t *arr = json_array();
    size_t n = 0;
    for (size_t i = 0; rows && i < c->rs.n; i++)
        if (c->rs.runs[i].split)
            rows[n++] = &c->rs.runs[i];
    if (n)
        qsort(rows, n, sizeof *rows, compare_split);
    for (size_t i = 0; i < n; i++) {
        const vrun *r = rows[i];
        json_t *row = json_pack("{s:I, s:s, s:o, s:o, s:o}", "run_id", (json_int_t)r->id,
                                "variant", r->variant, "x", num(r->x), "series",
                                num(r->series), "load",
                                num(isnan(r->load) ? c->load_at : r->load));
        json_object_update(row, r->split);
        json_array_append_new(arr, row);
    }
    free(rows);
    return arr;
}

/* ---- the summary: sentences built from the sections above ---- */

/* Whether two numbers of the JSON (null: no such knob) are the same. */
static bool same_json(const json_t *a, const json_t *b, const char *key)
{
    double x = jnum(a, key), y = jnum(b, key);
    return (isnan(x) && isnan(y)) || x == y;
}

/* " at 0.50 us and 2x": where a cell is. */
static void add_at(const verdict_ctx *c, sentence *b, json_t *cell)
{
    sentence_add(b, " at %.2f%s", jnum(cell, "x"), c->xu);
    if (c->ax.series)
        sentence_add(b, " and %g%s", jnum(cell, "series"), c->su);
}

/* ", A's largest margin is 300.0 us (12.0%) at 2.50 us and 1x" */
static void add_best(const verdict_ctx *c, sentence *b, const char *variant, json_t *cell)
{
    if (!cell)
        return;
    sentence_add(b, ", %s's largest margin is %.1f " VERDICT_US " (%.1f%%)", upper(c, variant),
           jnum(cell, "margin_us"), jnum(cell, "margin_pct"));
    add_at(c, b, cell);
}

/* "A wins 12 and B 8 of the 20 cells where both ran, A's largest margin is..." */
static void summarize_wins(const verdict_ctx *c, json_t *summary, json_t *cells)
{
    size_t total = 0, wins[2] = {0, 0}, i;
    json_t *best[2] = {NULL, NULL}, *cell;
    json_array_foreach(cells, i, cell) {
        const char *w = jstr(cell, "winner");
        if (!w)
            continue;
        total++;
        if (!strcmp(w, "tie"))
            continue;
        int d = !strcmp(w, vname(c, 1));
        wins[d]++;
        if (!best[d] || jnum(cell, "margin_us") > jnum(best[d], "margin_us"))
            best[d] = cell;
    }
    if (!total)
        return;
    sentence b = {.n = 0};
    sentence_add(&b, "%s wins %zu and %s %zu of the %zu cells where both ran",
           upper(c, vname(c, 0)), wins[0], upper(c, vname(c, 1)), wins[1], total);
    if (wins[0] + wins[1] < total)
        sentence_add(&b, " (%zu tied)", total - wins[0] - wins[1]);
    add_best(c, &b, vname(c, 0), best[0]);
    add_best(c, &b, vname(c, 1), best[1]);
    sentence_add(&b, ".");
    sentence_append_to(summary, &b);
}

/* Each series' crossing sentence, then its notes on the curves' shape. */
static void summarize_crossovers(json_t *summary, json_t *crossovers)
{
    size_t i, k;
    json_t *x, *note;
    json_array_foreach(crossovers, i, x) {
        json_array_append_new(summary, json_string(jstr(x, "text")));
        json_array_foreach(json_object_get(x, "notes"), k, note)
            json_array_append(summary, note);
    }
}

/* "Alone, A is faster at every <series phrase> (A 1920.00 us, B 2560.00 us at 1x); in
 * the system the ranking flips at 0.5x, 1x." */
static void summarize_alone(const verdict_ctx *c, json_t *summary, json_t *alone,
                            json_t *ranking)
{
    size_t i;
    json_t *row, *ref = NULL; /* the row shown: the series' reference when there is one */
    const char *w = NULL;
    bool same = true, flips = false;
    json_array_foreach(alone, i, row) {
        const char *rw = jstr(row, "winner");
        if (!rw)
            continue;
        same &= !w || !strcmp(w, rw);
        w = w ? w : rw;
        if (!ref || jnum(row, "series") == c->series_at)
            ref = row;
    }
    if (!w)
        return;
    const study_knob *sk = c->ax.series;
    sentence b = {.n = 0};
    if (same && strcmp(w, "tie"))
        sentence_add(&b, "Alone, %s is faster", upper(c, w));
    else
        sentence_add(&b, "Alone, neither %s is faster", c->st->axis);
    if (sk)
        sentence_add(&b, " at every %s", sk->phrase);
    char a_key[TEXT_KEY_MAX], b_key[TEXT_KEY_MAX];
    sentence_add(&b, " (%s %.2f " VERDICT_US ", %s %.2f " VERDICT_US, upper(c, vname(c, 0)),
           jnum(ref, key_of(a_key, vname(c, 0), "_us")), upper(c, vname(c, 1)),
           jnum(ref, key_of(b_key, vname(c, 1), "_us")));
    if (sk)
        sentence_add(&b, " at %g%s", jnum(ref, "series"), c->su);
    sentence_add(&b, ")");
    json_array_foreach(ranking, i, row) {
        if (json_is_true(json_object_get(row, "flips"))) {
            if (sk)
                sentence_add(&b, "%s%g%s", flips ? ", " : "; in the system the ranking flips at ",
                       jnum(row, "series"), c->su);
            else
                sentence_add(&b, "; in the system the ranking flips");
            flips = true;
        }
    }
    if (flips)
        sentence_add(&b, ".");
    else
        sentence_add(&b, "; in the system the ranking holds at every %s.",
               c->ax.x ? c->ax.x->phrase : "value");
    sentence_append_to(summary, &b);
}

/* "A's median moves by +1152.0 us (+45.9%)", or "B's by ..." after the first. */
static void add_move(const verdict_ctx *c, sentence *b, json_t *m, bool first)
{
    sentence_add(b, "%s's%s by %+.1f " VERDICT_US " (%+.1f%%)", upper(c, jstr(m, "variant")),
           first ? " median moves" : "", jnum(m, "delta_us"), jnum(m, "delta_pct"));
}

/* One sentence per series value: "At 1x, from 0.50 to 2.50 us A's median
 * moves by ...". */
static void summarize_movement(const verdict_ctx *c, json_t *summary, json_t *movement)
{
    size_t n = json_array_size(movement);
    for (size_t i = 0; i < n; i++) {
        json_t *m = json_array_get(movement, i), *next = json_array_get(movement, i + 1);
        bool pair = next && same_json(next, m, "series");
        sentence b = {.n = 0};
        if (c->ax.series)
            sentence_add(&b, "At %g%s, from", jnum(m, "series"), c->su);
        else
            sentence_add(&b, "From");
        sentence_add(&b, " %.2f to %.2f%s ", jnum(m, "from_x"), jnum(m, "to_x"), c->xu);
        add_move(c, &b, m, true);
        if (pair) {
            sentence_add(&b, " and ");
            add_move(c, &b, next, false);
            if (jnum(next, "from_x") != jnum(m, "from_x") ||
                jnum(next, "to_x") != jnum(m, "to_x"))
                sentence_add(&b, " (from %.2f to %.2f%s)", jnum(next, "from_x"),
                       jnum(next, "to_x"), c->xu);
            i++;
        }
        sentence_add(&b, ".");
        sentence_append_to(summary, &b);
    }
}

/* ", software 50000.0 to 50010.0 us": the range of one baselines column. */
static void add_range(sentence *b, json_t *baselines, const char *key, const char *label)
{
    double lo = NAN, hi = NAN;
    size_t i;
    json_t *row;
    json_array_foreach(baselines, i, row) {
        double v = jnum(row, key);
        if (isnan(v))
            continue;
        lo = isnan(lo) || v < lo ? v : lo;
        hi = isnan(hi) || v > hi ? v : hi;
    }
    if (isnan(lo))
        return;
    if (lo == hi)
        sentence_add(b, ", %s %.1f " VERDICT_US, label, lo);
    else
        sentence_add(b, ", %s %.1f to %.1f " VERDICT_US, label, lo, hi);
}

static void summarize_baselines(const verdict_ctx *c, json_t *summary, json_t *baselines)
{
    size_t n = json_array_size(baselines);
    if (!n)
        return;
    sentence b = {.n = 0};
    if (c->ax.series)
        sentence_add(&b, "At %g%s over", c->series_at, c->su);
    else
        sentence_add(&b, "Over");
    sentence_add(&b, " %.2f to %.2f%s, the medians are", jnum(json_array_get(baselines, 0), "x"),
           jnum(json_array_get(baselines, n - 1), "x"), c->xu);
    size_t head = b.n;
    const char **variants = calloc(c->st->nvariants + 2, sizeof *variants);
    size_t nv = variants ? baseline_variants(c, variants) : 0;
    for (size_t d = 0; d < nv; d++) {
        char key[TEXT_KEY_MAX];
        add_range(&b, baselines, key_of(key, variants[d], "_median_us"),
                  phrase(c, variants[d]));
    }
    free(variants);
    b.s[head] = ':'; /* the first ", " becomes ": " */
    sentence_add(&b, ".");
    sentence_append_to(summary, &b);
}

/* "At 0.50 us and 1x, A goes from ... as requests in flight go from 1 to 4". */
static void load_sentence(const verdict_ctx *c, json_t *summary, json_t *first,
                          json_t *last)
{
    sentence b = {.n = 0};
    sentence_add(&b, "At %.2f%s", jnum(first, "x"), c->xu);
    if (c->ax.series)
        sentence_add(&b, " and %g%s", c->series_at, c->su);
    sentence_add(&b,
           ", %s goes from %.1f to %.1f requests/s and from a median of %.1f to %.1f "
           VERDICT_US " as %s go from %g to %g",
           upper(c, jstr(first, "variant")), jnum(first, "throughput_rps"),
           jnum(last, "throughput_rps"), jnum(first, "median_us"), jnum(last, "median_us"),
           c->ax.load->phrase, jnum(first, "load"), jnum(last, "load"));
    if (!isnan(jnum(first, "share")) && !isnan(jnum(last, "share")))
        sentence_add(&b, "; %s for %.0f%% of requests, then %.0f%%", c->st->load_share.phrase,
               100 * jnum(first, "share"), 100 * jnum(last, "share"));
    sentence_add(&b, ".");
    sentence_append_to(summary, &b);
}

/* Per variant and x value with several loads: the first and last. */
static void summarize_load(const verdict_ctx *c, json_t *summary, json_t *load)
{
    size_t n = json_array_size(load);
    for (size_t i = 0; i < n;) {
        json_t *first = json_array_get(load, i);
        size_t j = i;
        while (j + 1 < n &&
               !strcmp(jstr(json_array_get(load, j + 1), "variant"),
                       jstr(first, "variant")) &&
               same_json(json_array_get(load, j + 1), first, "x"))
            j++;
        if (j > i)
            load_sentence(c, summary, first, json_array_get(load, j));
        i = j + 1;
    }
}

static json_t *summary_json(const verdict_ctx *c, json_t *v)
{
    json_t *summary = json_array();
    summarize_wins(c, summary, json_object_get(v, "cells"));
    summarize_crossovers(summary, json_object_get(v, "crossovers"));
    summarize_alone(c, summary, json_object_get(v, "alone"),
                    json_object_get(v, "ranking"));
    summarize_movement(c, summary, json_object_get(v, "movement"));
    summarize_baselines(c, summary, json_object_get(v, "baselines"));
    summarize_load(c, summary, json_object_get(v, "load"));
    return summary;
}

/* ---- putting it together ---- */

/* Which knob plays which role, and the reference values. */
static json_t *axes_json(const verdict_ctx *c)
{
    const study_knob *k[] = {c->ax.x, c->ax.series, c->ax.load};
    return json_pack("{s:o, s:o, s:o, s:o, s:o}", "x",
                     k[0] ? json_string(k[0]->name) : json_null(), "series",
                     k[1] ? json_string(k[1]->name) : json_null(), "load",
                     k[2] ? json_string(k[2]->name) : json_null(), "series_at",
                     num(c->series_at), "load_at", num(c->load_at));
}

static json_t *build_verdict(const verdict_ctx *c)
{
    json_t *v = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                          "axes", axes_json(c), "cells", cells_json(c), "extra_cells",
                          extra_cells_json(c), "x_values",
                          list_json(&c->xs), "series_values", list_json(&c->series),
                          "crossovers", crossovers_json(c), "movement", movement_json(c),
                          "alone", alone_json(c), "ranking", ranking_json(c), "baselines",
                          baselines_json(c), "load", load_json(c));
    if (!v) {
        snprintf(c->err, c->err_size, "out of memory building the verdict");
        return NULL;
    }
    if (c->splits)
        json_object_set_new(v, "splits", splits_json(c));
    json_object_set_new(v, "summary", summary_json(c, v));
    json_t *warnings = warnings_json(c);
    if (!warnings) {
        snprintf(c->err, c->err_size, "reading the runs' losses: %s", db_last_error());
        json_decref(v);
        return NULL;
    }
    json_object_set_new(v, "warnings", warnings);
    return v;
}

static void ctx_free(verdict_ctx *c)
{
    study_runs_free(&c->rs);
    free(c->xs.v);
    free(c->series.v);
    free(c->alone[0]);
    free(c->alone[1]);
}

static json_t *compute(db_conn *db, const study *st, bool splits, char *err,
                       size_t err_size)
{
    verdict_ctx c = {
        .db = db, .st = st, .splits = splits, .err = err, .err_size = err_size};
    init_axes(&c);
    json_t *v = NULL;
    if (!load_runs(&c) && !load_request_medians(&c) && !build_axes(&c) &&
        !measure_alone(&c)) {
        if (splits)
            load_splits(&c);
        v = build_verdict(&c);
    }
    ctx_free(&c);
    return v;
}

json_t *verdict_compute(db_conn *db, const study *st, char *err, size_t err_size)
{
    return compute(db, st, false, err, err_size);
}

json_t *verdict_compute_with_splits(db_conn *db, const study *st, char *err,
                                    size_t err_size)
{
    return compute(db, st, true, err, err_size);
}

int64_t verdict_finished_runs(db_conn *db, char *err, size_t err_size)
{
    char why[512];
    int64_t n = db_count_ok_runs(db, why, sizeof why);
    if (n < 0)
        snprintf(err, err_size, "counting the runs: %s", why);
    return n;
}

int verdict_of_database(db_conn *db, const study *st, json_t **verdict, char *err,
                        size_t err_size)
{
    *verdict = NULL;
    int64_t n = verdict_finished_runs(db, err, err_size);
    if (n <= 0)
        return n == 0 ? 1 : -1;
    *verdict = verdict_compute_with_splits(db, st, err, err_size);
    return *verdict ? 0 : -1;
}
