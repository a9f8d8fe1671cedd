/*
 * verdict.c - the case study's conclusions, computed from the finished runs
 * in the results database: the winner and margin in every grid cell, where
 * A and B cross at each speed, how far each design moves across the latency
 * range, the alone ranking next to the in-system one, the baselines, the
 * load runs, and sentences that say it. `mortar verdict` prints it, and the
 * report builds on it. The JSON layout is in docs/experiments.md ("The
 * verdict").
 *
 * Only status "ok" runs count. A run's cell is (design, latency, speed, in
 * flight); when a cell has several runs, the newest (highest id) is used.
 * Latencies and speeds are REALs, so two are the same grid value when they
 * differ by at most 1e-9 relative: 1.5 and 1.4999999999 meet in one cell.
 * The alone times are the study's alone runs (alone_time()).
 * Every run the verdict uses that lost frames or retransmitted TCP segments
 * (its recorded losses, see losses.h) gets a warning.
 * With splits, a run recorded with --trace also gets the split of its median
 * request's time (time_split.h), in its cell and in "splits".
 */
#include "verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alone.h"
#include "study.h"
#include "db_query.h"
#include "time_split.h"
#include "trace_export.h"

/* One finished run, as the verdict sees it; NAN stands for SQL NULL. */
typedef struct vrun {
    int64_t id, in_flight;
    char design[16];
    double latency_us, speed;
    double median_us, p99_us, mean_us, min_us, max_us, throughput_rps;
    double service_us, compute_us; /* medians over the requests; NAN: none known */
    double next_queued;            /* share of requests after which the device's
                                      queue already held the next (B); NAN: unknown */
    char run_dir[1024];
    json_t *split; /* the median request's split (owned), or an {"error"}; NULL
                      when the run has no trace */
} vrun;

/* Sorted distinct values (a grid axis). */
typedef struct dlist {
    double *v;
    size_t n;
} dlist;

typedef struct verdict_ctx {
    db_conn *db;
    const study *st; /* the variants compared, their labels, the baselines */
    vrun *runs; /* the newest ok run of each cell, in id order */
    size_t nruns, cap;
    dlist lats, speeds;        /* the grid: in-flight-1 runs of A and B */
    double *alone_a, *alone_b; /* per speed; NAN where the design has no run */
    bool splits;               /* each traced run's split is wanted */
    char *err;
    size_t err_size;
} verdict_ctx;

/* ---- small helpers ---- */

static bool same_value(double x, double y)
{
    double scale = fabs(x) > 1 ? fabs(x) : 1;
    return fabs(x - y) <= 1e-9 * scale;
}

/* The name of the first (0) or second (1) variant the study compares. */
static const char *vname(const verdict_ctx *c, int i)
{
    return c->st->variants[c->st->compared[i]].name;
}

/* Whether `design` is one of the two compared variants. */
static bool is_ab(const verdict_ctx *c, const char *design)
{
    return !strcmp(design, vname(c, 0)) || !strcmp(design, vname(c, 1));
}

/* Whether `design` is one of the study's baselines. */
static bool is_baseline(const verdict_ctx *c, const char *design)
{
    for (size_t i = 0; i < c->st->nbaselines; i++)
        if (!strcmp(design, c->st->variants[c->st->baselines[i]].name))
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

/* The number under `key`, or NAN when it is null or missing. */
static double jnum(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *jstr(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

/* The design with the lower median; "tie" when they are equal. */
static const char *winner_of(const verdict_ctx *c, double a_us, double b_us)
{
    return a_us < b_us ? vname(c, 0) : b_us < a_us ? vname(c, 1) : "tie";
}

/* How the text names a design: its variant's label, else its name. */
static const char *upper(const verdict_ctx *c, const char *design)
{
    const study_variant *v = study_variant_named(c->st, design);
    return v ? v->label : design;
}

/* How a sentence names a variant: its phrase (study.h). */
static const char *phrase(const verdict_ctx *c, const char *design)
{
    const study_variant *v = study_variant_named(c->st, design);
    return v ? v->phrase : design;
}

/* "<what>: <the database's message>". */
static void set_err(verdict_ctx *c, const char *what, const char *why)
{
    snprintf(c->err, c->err_size, "%s: %s", what, why);
}

/* ---- reading the runs ---- */

static size_t run_index(const verdict_ctx *c, const char *design, double latency_us,
                        double speed, int64_t in_flight)
{
    for (size_t i = 0; i < c->nruns; i++) {
        const vrun *r = &c->runs[i];
        if (!strcmp(r->design, design) && same_value(r->latency_us, latency_us) &&
            same_value(r->speed, speed) && r->in_flight == in_flight)
            return i;
    }
    return c->nruns;
}

/* The run of a cell, or NULL. */
static const vrun *find_run(const verdict_ctx *c, const char *design, double latency_us,
                            double speed, int64_t in_flight)
{
    size_t i = run_index(c, design, latency_us, speed, in_flight);
    return i < c->nruns ? &c->runs[i] : NULL;
}

/* The run of an in-flight-1 cell with a median, or NULL. */
static const vrun *grid_run(const verdict_ctx *c, const char *design, double latency_us,
                            double speed)
{
    const vrun *r = find_run(c, design, latency_us, speed, 1);
    return r && !isnan(r->median_us) ? r : NULL;
}

/* Adds a run, replacing an older one of the same cell (rows come in id order). */
static int keep_run(verdict_ctx *c, const vrun *r)
{
    size_t i = run_index(c, r->design, r->latency_us, r->speed, r->in_flight);
    if (i == c->nruns) {
        if (c->nruns == c->cap) {
            size_t cap = c->cap ? 2 * c->cap : 64;
            vrun *runs = realloc(c->runs, cap * sizeof *runs);
            if (!runs)
                return -1;
            c->runs = runs;
            c->cap = cap;
        }
        c->nruns++;
    }
    c->runs[i] = *r;
    return 0;
}

/* Keeps a finished run from the database (db_each_ok_run). */
static int take_run(void *ctx, const db_ok_run *row)
{
    verdict_ctx *c = ctx;
    vrun r = {.id = row->id,
              .in_flight = row->in_flight,
              .latency_us = row->latency_us,
              .speed = row->speed,
              .median_us = row->median_us,
              .p99_us = row->p99_us,
              .mean_us = row->mean_us,
              .min_us = row->min_us,
              .max_us = row->max_us,
              .throughput_rps = row->throughput_rps};
    snprintf(r.design, sizeof r.design, "%s", row->design);
    snprintf(r.run_dir, sizeof r.run_dir, "%s", row->run_dir);
    if (keep_run(c, &r)) {
        snprintf(c->err, c->err_size, "out of memory reading the runs");
        return -1;
    }
    return 0;
}

static int load_runs(verdict_ctx *c)
{
    char why[512];
    int rc = db_each_ok_run(c->db, take_run, c, why, sizeof why);
    if (rc < 0)
        set_err(c, "reading the runs", why);
    return rc ? -1 : 0;
}

/*
 * The median of a request column over the run's requests where it is known
 * (>= 0), in us; NAN when none is. The middle value, or the mean of the two
 * middle ones, as for the run's own median.
 */
static int request_median_us(verdict_ctx *c, int64_t run_id, const char *column,
                             double *out)
{
    char why[512];
    if (!db_request_median_us(c->db, run_id, column, out, why, sizeof why))
        return 0;
    set_err(c, "reading the requests", why);
    return -1;
}

/*
 * How often the device's queue already held the next request when one
 * finished: its counters queued_on_finish / requests (docs/models/matmul.md;
 * only design B's ring has the first), warm-up requests included as the
 * device cannot tell them apart. NAN when the run has no such counter.
 */
static int next_queued_share(verdict_ctx *c, int64_t run_id, double *out)
{
    char why[512];
    if (!db_queued_on_finish_share(c->db, run_id, out, why, sizeof why))
        return 0;
    set_err(c, "reading the device counters", why);
    return -1;
}

/* The split of the run's median request when the run was traced; an
 * {"error": text} when its trace cannot be split. */
static json_t *run_split(const vrun *r)
{
    if (!r->run_dir[0] || trace_count_files(r->run_dir) <= 0)
        return NULL;
    char err[512];
    json_t *s = time_split_run(r->run_dir, TRACE_REQUEST_MEDIAN, err, sizeof err);
    return s ? s : json_pack("{s:s}", "error", err);
}

static void load_splits(verdict_ctx *c)
{
    for (size_t i = 0; i < c->nruns; i++)
        c->runs[i].split = run_split(&c->runs[i]);
}

static int load_request_medians(verdict_ctx *c)
{
    for (size_t i = 0; i < c->nruns; i++) {
        vrun *r = &c->runs[i];
        if (request_median_us(c, r->id, "service_ns", &r->service_us) ||
            request_median_us(c, r->id, "device_compute_ns", &r->compute_us) ||
            next_queued_share(c, r->id, &r->next_queued))
            return -1;
    }
    return 0;
}

/* ---- the grid's axes and the alone times ---- */

static void add_distinct(dlist *l, double x)
{
    for (size_t i = 0; i < l->n; i++)
        if (same_value(l->v[i], x))
            return;
    l->v[l->n++] = x;
}

static int compare_doubles(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void sort_list(dlist *l)
{
    if (l->n > 1)
        qsort(l->v, l->n, sizeof *l->v, compare_doubles);
}

static int build_axes(verdict_ctx *c)
{
    size_t cap = c->nruns ? c->nruns : 1; /* never more distinct values than runs */
    c->lats.v = calloc(cap, sizeof(double));
    c->speeds.v = calloc(cap, sizeof(double));
    c->alone_a = calloc(cap, sizeof(double));
    c->alone_b = calloc(cap, sizeof(double));
    if (!c->lats.v || !c->speeds.v || !c->alone_a || !c->alone_b) {
        snprintf(c->err, c->err_size, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < c->nruns; i++) {
        const vrun *r = &c->runs[i];
        if (r->in_flight == 1 && is_ab(c, r->design)) {
            add_distinct(&c->lats, r->latency_us);
            add_distinct(&c->speeds, r->speed);
        }
    }
    sort_list(&c->lats);
    sort_list(&c->speeds);
    return 0;
}

static bool design_has_speed(const verdict_ctx *c, const char *design, double speed)
{
    for (size_t li = 0; li < c->lats.n; li++)
        if (find_run(c, design, c->lats.v[li], speed, 1))
            return true;
    return false;
}

/* The alone time of `design` at `speed` when the grid has that pair and
 * the study gives the variant an alone benchmark, else NAN. */
static int alone_for(verdict_ctx *c, const char *design, double speed, double *out)
{
    *out = NAN;
    const study_variant *v = study_variant_named(c->st, design);
    if (!design_has_speed(c, design, speed) || !v || !v->alone.command)
        return 0;
    char why[1024], text[64];
    snprintf(text, sizeof text, "%g", speed);
    json_t *at = json_pack("{s:s}", "speed", text);
    int rc = alone_time(db_file_name(c->db), c->st, v, at, out, why, sizeof why);
    json_decref(at);
    if (rc < 0) {
        snprintf(c->err, c->err_size, "alone benchmark of %s at %gx: %s", design, speed,
                 why);
        return -1;
    }
    if (rc == 1)
        *out = NAN;
    return 0;
}

static int measure_alone(verdict_ctx *c)
{
    for (size_t si = 0; si < c->speeds.n; si++)
        if (alone_for(c, vname(c, 0), c->speeds.v[si], &c->alone_a[si]) ||
            alone_for(c, vname(c, 1), c->speeds.v[si], &c->alone_b[si]))
            return -1;
    return 0;
}

/* ---- cells ---- */

static json_t *split_or_null(const vrun *r)
{
    return r->split ? json_incref(r->split) : json_null();
}

static json_t *design_cell(const verdict_ctx *c, const vrun *r, double alone_us)
{
    if (!r)
        return json_null();
    json_t *cell = json_pack(
        "{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "run_id", (json_int_t)r->id,
        "median_us", num(r->median_us), "p99_us", num(r->p99_us), "mean_us",
        num(r->mean_us), "min_us", num(r->min_us), "max_us", num(r->max_us), "service_us",
        num(r->service_us), "compute_us", num(r->compute_us), "alone_us", num(alone_us));
    if (cell && c->splits)
        json_object_set_new(cell, "split", split_or_null(r));
    return cell;
}

/* The winner of an in-flight-1 cell, or NULL unless both designs ran there. */
static const char *cell_winner(const verdict_ctx *c, double latency_us, double speed)
{
    const vrun *a = grid_run(c, vname(c, 0), latency_us, speed);
    const vrun *b = grid_run(c, vname(c, 1), latency_us, speed);
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

/* The cell at (latency, speed), or NULL when neither design ran there. */
static json_t *cell_json(const verdict_ctx *c, size_t li, size_t si)
{
    double lat = c->lats.v[li], speed = c->speeds.v[si];
    const vrun *a = find_run(c, vname(c, 0), lat, speed, 1);
    const vrun *b = find_run(c, vname(c, 1), lat, speed, 1);
    if (!a && !b)
        return NULL;
    const char *winner = cell_winner(c, lat, speed);
    json_t *cell = json_pack("{s:f, s:f, s:o, s:o, s:o}", "pcie_latency_us", lat, "speed",
                             speed, vname(c, 0), design_cell(c, a, c->alone_a[si]),
                             vname(c, 1), design_cell(c, b, c->alone_b[si]), "winner",
                             winner ? json_string(winner) : json_null());
    set_margin(cell, grid_run(c, vname(c, 0), lat, speed),
               grid_run(c, vname(c, 1), lat, speed));
    return cell;
}

static json_t *cells_json(const verdict_ctx *c)
{
    json_t *cells = json_array();
    for (size_t si = 0; si < c->speeds.n; si++)
        for (size_t li = 0; li < c->lats.n; li++) {
            json_t *cell = cell_json(c, li, si);
            if (cell)
                json_array_append_new(cells, cell);
        }
    return cells;
}

static json_t *list_json(const dlist *l)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < l->n; i++)
        json_array_append_new(arr, json_real(l->v[i]));
    return arr;
}

/* ---- crossovers ---- */

/* A latency where both designs ran, and median A - median B there. */
typedef struct diff_point {
    double latency_us, diff_us;
} diff_point;

static size_t diff_points(const verdict_ctx *c, double speed, diff_point *p)
{
    size_t n = 0;
    for (size_t li = 0; li < c->lats.n; li++) {
        double lat = c->lats.v[li];
        const vrun *a = grid_run(c, vname(c, 0), lat, speed);
        const vrun *b = grid_run(c, vname(c, 1), lat, speed);
        if (a && b)
            p[n++] = (diff_point){lat, a->median_us - b->median_us};
    }
    return n;
}

/* Who wins where the difference has this (nonzero) sign: A when A is lower. */
static const char *side(const verdict_ctx *c, double diff_us)
{
    return diff_us < 0 ? vname(c, 0) : vname(c, 1);
}

static json_t *crossover(double speed, double at_us, const char *below, const char *above,
                         const char *text)
{
    return json_pack("{s:f, s:o, s:o, s:o, s:s}", "speed", speed, "latency_us",
                     num(at_us), "below", below ? json_string(below) : json_null(),
                     "above", above ? json_string(above) : json_null(), "text", text);
}

static json_t *crossing_json(const verdict_ctx *c, double speed, double at_us,
                             const char *below, const char *above)
{
    char text[256];
    snprintf(text, sizeof text, "At %gx, %s wins below %.2f us and %s above.", speed,
             upper(c, below), at_us, upper(c, above));
    return crossover(speed, at_us, below, above, text);
}

/* No sign change: one design wins (or ties) everywhere, or nothing to compare. */
static json_t *no_crossing_json(const verdict_ctx *c, double speed, const diff_point *p,
                                size_t n, int last)
{
    char text[256];
    if (n == 0) {
        snprintf(text, sizeof text, "At %gx, no latency has runs of both %s and %s.",
                 speed, upper(c, vname(c, 0)), upper(c, vname(c, 1)));
        return crossover(speed, NAN, NULL, NULL, text);
    }
    if (last < 0) {
        snprintf(text, sizeof text, "At %gx, %s and %s tie at every latency measured.",
                 speed, upper(c, vname(c, 0)), upper(c, vname(c, 1)));
        return crossover(speed, NAN, NULL, NULL, text);
    }
    bool ties = false;
    for (size_t i = 0; i < n; i++)
        ties |= p[i].diff_us == 0;
    const char *w = side(c, p[last].diff_us);
    snprintf(
        text, sizeof text,
        "At %gx, %s wins%s at every latency from %.2f to %.2f us: no crossing in range.",
        speed, upper(c, w), ties ? " or ties" : "", p[0].latency_us, p[n - 1].latency_us);
    return crossover(speed, NAN, w, w, text);
}

/*
 * The first change of sign of median A - median B across the sorted
 * latencies. Between two measured points the difference is interpolated
 * linearly; when ties sit between the two signs, the crossing is the first
 * tie.
 */
static json_t *crossover_json(const verdict_ctx *c, double speed)
{
    diff_point *p = calloc(c->lats.n ? c->lats.n : 1, sizeof *p);
    if (!p)
        return NULL;
    size_t n = diff_points(c, speed, p);
    int last = -1; /* the last point with a nonzero difference */
    json_t *out = NULL;
    for (size_t j = 0; j < n && !out; j++) {
        if (p[j].diff_us == 0)
            continue;
        if (last >= 0 && (p[j].diff_us < 0) != (p[last].diff_us < 0)) {
            const diff_point *p0 = &p[last], *p1 = &p[j];
            double at = j == (size_t)last + 1
                            ? p0->latency_us + p0->diff_us / (p0->diff_us - p1->diff_us) *
                                                   (p1->latency_us - p0->latency_us)
                            : p[last + 1].latency_us;
            out = crossing_json(c, speed, at, side(c, p0->diff_us), side(c, p1->diff_us));
        }
        last = (int)j;
    }
    if (!out)
        out = no_crossing_json(c, speed, p, n, last);
    free(p);
    return out;
}

static json_t *crossovers_json(const verdict_ctx *c)
{
    json_t *arr = json_array();
    for (size_t si = 0; si < c->speeds.n; si++)
        json_array_append_new(arr, crossover_json(c, c->speeds.v[si]));
    return arr;
}

/* ---- movement, alone, ranking ---- */

/* A design's median at the lowest and the highest latency it ran at. */
static json_t *movement_entry(const verdict_ctx *c, const char *design, double speed)
{
    const vrun *first = NULL, *last = NULL;
    for (size_t li = 0; li < c->lats.n; li++) {
        const vrun *r = grid_run(c, design, c->lats.v[li], speed);
        if (r) {
            first = first ? first : r;
            last = r;
        }
    }
    if (!first || first == last)
        return NULL;
    double delta = last->median_us - first->median_us;
    return json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:o}", "design", design,
                     "speed", speed, "from_latency_us", first->latency_us,
                     "to_latency_us", last->latency_us, "from_median_us",
                     first->median_us, "to_median_us", last->median_us, "delta_us", delta,
                     "delta_pct",
                     num(first->median_us > 0 ? 100 * delta / first->median_us : NAN));
}

static json_t *movement_json(const verdict_ctx *c)
{
    json_t *arr = json_array();
    const char *designs[] = {vname(c, 0), vname(c, 1)};
    for (size_t si = 0; si < c->speeds.n; si++)
        for (int d = 0; d < 2; d++) {
            json_t *m = movement_entry(c, designs[d], c->speeds.v[si]);
            if (m)
                json_array_append_new(arr, m);
        }
    return arr;
}

static const char *alone_winner(const verdict_ctx *c, size_t si)
{
    double a = c->alone_a[si], b = c->alone_b[si];
    return isnan(a) || isnan(b) ? NULL : winner_of(c, a, b);
}

static json_t *alone_json(const verdict_ctx *c)
{
    json_t *arr = json_array();
    for (size_t si = 0; si < c->speeds.n; si++) {
        const char *w = alone_winner(c, si);
        char a_key[TEXT_KEY_MAX], b_key[TEXT_KEY_MAX];
        json_array_append_new(
            arr, json_pack("{s:f, s:o, s:o, s:o}", "speed", c->speeds.v[si],
                           key_of(a_key, vname(c, 0), "_us"), num(c->alone_a[si]),
                           key_of(b_key, vname(c, 1), "_us"), num(c->alone_b[si]),
                           "winner", w ? json_string(w) : json_null()));
    }
    return arr;
}

/* The in-system winners at one speed (keyed by the latency, "%g") and whether
 * the other design than the alone winner wins anywhere. */
static json_t *ranking_entry(const verdict_ctx *c, size_t si)
{
    double speed = c->speeds.v[si];
    const char *alone = alone_winner(c, si);
    json_t *winners = json_object();
    bool flips = false;
    for (size_t li = 0; li < c->lats.n; li++) {
        const char *w = cell_winner(c, c->lats.v[li], speed);
        if (!w)
            continue;
        char key[32];
        snprintf(key, sizeof key, "%g", c->lats.v[li]);
        json_object_set_new(winners, key, json_string(w));
        flips |= alone && strcmp(alone, "tie") && strcmp(w, "tie") && strcmp(w, alone);
    }
    return json_pack("{s:f, s:o, s:o, s:b}", "speed", speed, "alone_winner",
                     alone ? json_string(alone) : json_null(), "system_winners", winners,
                     "flips", flips);
}

static json_t *ranking_json(const verdict_ctx *c)
{
    json_t *arr = json_array();
    for (size_t si = 0; si < c->speeds.n; si++)
        json_array_append_new(arr, ranking_entry(c, si));
    return arr;
}

/* ---- baselines and load (speed 1) ---- */

static double median_or_nan(const vrun *r)
{
    return r ? r->median_us : NAN;
}

/* The variants of the baselines table: the baselines, then the two
 * compared; at most 2 + the study's variants. */
static size_t baseline_designs(const verdict_ctx *c, const char **designs)
{
    size_t n = 0;
    for (size_t i = 0; i < c->st->nbaselines; i++)
        designs[n++] = c->st->variants[c->st->baselines[i]].name;
    designs[n++] = vname(c, 0);
    designs[n++] = vname(c, 1);
    return n;
}

static json_t *baselines_json(const verdict_ctx *c)
{
    const char **designs = calloc(c->st->nvariants + 2, sizeof *designs);
    size_t nd = designs ? baseline_designs(c, designs) : 0;
    dlist lats = {.v = calloc(c->nruns ? c->nruns : 1, sizeof(double))};
    json_t *arr = json_array();
    for (size_t i = 0; lats.v && i < c->nruns; i++) {
        const vrun *r = &c->runs[i];
        bool known = false;
        for (size_t d = 0; d < nd; d++)
            known |= !strcmp(r->design, designs[d]);
        if (known && r->in_flight == 1 && same_value(r->speed, 1))
            add_distinct(&lats, r->latency_us);
    }
    sort_list(&lats);
    for (size_t li = 0; li < lats.n; li++) {
        json_t *row = json_pack("{s:f}", "pcie_latency_us", lats.v[li]);
        for (size_t d = 0; d < nd; d++) {
            char key[TEXT_KEY_MAX];
            json_object_set_new(
                row, key_of(key, designs[d], "_median_us"),
                num(median_or_nan(find_run(c, designs[d], lats.v[li], 1, 1))));
        }
        json_array_append_new(arr, row);
    }
    free(lats.v);
    free(designs);
    return arr;
}

static int compare_load(const void *x, const void *y)
{
    const vrun *a = *(const vrun *const *)x, *b = *(const vrun *const *)y;
    int d = strcmp(a->design, b->design);
    if (d)
        return d;
    if (a->latency_us != b->latency_us)
        return a->latency_us < b->latency_us ? -1 : 1;
    return (a->in_flight > b->in_flight) - (a->in_flight < b->in_flight);
}

static json_t *load_json(const verdict_ctx *c)
{
    const vrun **rows = calloc(c->nruns ? c->nruns : 1, sizeof *rows);
    json_t *arr = json_array();
    size_t n = 0;
    for (size_t i = 0; rows && i < c->nruns; i++)
        if (is_ab(c, c->runs[i].design) && same_value(c->runs[i].speed, 1))
            rows[n++] = &c->runs[i];
    if (n)
        qsort(rows, n, sizeof *rows, compare_load);
    for (size_t i = 0; i < n; i++) {
        const vrun *r = rows[i];
        json_array_append_new(
            arr, json_pack("{s:s, s:f, s:I, s:o, s:o, s:o, s:o}", "design", r->design,
                           "pcie_latency_us", r->latency_us, "in_flight",
                           (json_int_t)r->in_flight, "median_us", num(r->median_us),
                           "p99_us", num(r->p99_us), "throughput_rps",
                           num(r->throughput_rps), "next_queued", num(r->next_queued)));
    }
    free(rows);
    return arr;
}

/* ---- warnings: runs that lost frames ---- */

/* True when a section above uses `r`: a grid cell (A or B, one in flight),
 * a baseline (speed 1, one in flight) or a load row (A or B at speed 1). */
static bool run_is_used(const verdict_ctx *c, const vrun *r)
{
    bool baseline_design = is_ab(c, r->design) || is_baseline(c, r->design);
    bool speed1 = same_value(r->speed, 1);
    return (is_ab(c, r->design) && (r->in_flight == 1 || speed1)) ||
           (baseline_design && r->in_flight == 1 && speed1);
}

static json_t *loss_warning(const verdict_ctx *c, const vrun *r, json_t *loss)
{
    const char *source = jstr(loss, "source"), *counter = jstr(loss, "counter");
    json_int_t count = json_integer_value(json_object_get(loss, "count"));
    char text[512];
    snprintf(text, sizeof text, "run %lld (%s, L %g us, %gx, %lld in flight): %s.%s %lld",
             (long long)r->id, upper(c, r->design), r->latency_us, r->speed,
             (long long)r->in_flight, source ? source : "?", counter ? counter : "?",
             (long long)count);
    return json_pack("{s:I, s:s, s:f, s:f, s:I, s:s, s:s, s:I, s:s}", "run_id",
                     (json_int_t)r->id, "design", r->design, "pcie_latency_us",
                     r->latency_us, "speed", r->speed, "in_flight",
                     (json_int_t)r->in_flight, "source", source ? source : "", "counter",
                     counter ? counter : "", "count", count, "text", text);
}

static json_t *warnings_json(const verdict_ctx *c)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < c->nruns; i++) {
        if (!run_is_used(c, &c->runs[i]))
            continue;
        json_t *losses = db_run_losses(c->db, c->runs[i].id), *l;
        size_t k;
        json_array_foreach(losses, k, l)
            json_array_append_new(arr, loss_warning(c, &c->runs[i], l));
        json_decref(losses);
    }
    return arr;
}

/* ---- the splits: every traced run's median request ---- */

static json_t *splits_json(const verdict_ctx *c)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < c->nruns; i++) {
        const vrun *r = &c->runs[i];
        if (!r->split)
            continue;
        json_t *row = json_pack("{s:I, s:s, s:f, s:f, s:I}", "run_id", (json_int_t)r->id,
                                "design", r->design, "pcie_latency_us", r->latency_us,
                                "speed", r->speed, "in_flight", (json_int_t)r->in_flight);
        json_object_update(row, r->split);
        json_array_append_new(arr, row);
    }
    return arr;
}

/* ---- the summary: sentences built from the sections above ---- */

typedef struct sbuf {
    char s[1024];
    size_t n;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...)
{
    if (b->n >= sizeof b->s - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
    va_end(ap);
    b->n = strlen(b->s);
}

static void add_sentence(json_t *summary, const sbuf *b)
{
    if (b->n)
        json_array_append_new(summary, json_string(b->s));
}

/* ", A's largest margin is 300.0 us (12.0%) at 2.50 us and 1x" */
static void add_best(const verdict_ctx *c, sbuf *b, const char *design, json_t *cell)
{
    if (cell)
        sb_add(b, ", %s's largest margin is %.1f us (%.1f%%) at %.2f us and %gx",
               upper(c, design), jnum(cell, "margin_us"), jnum(cell, "margin_pct"),
               jnum(cell, "pcie_latency_us"), jnum(cell, "speed"));
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
    sbuf b = {.n = 0};
    sb_add(&b, "%s wins %zu and %s %zu of the %zu cells where both ran",
           upper(c, vname(c, 0)), wins[0], upper(c, vname(c, 1)), wins[1], total);
    if (wins[0] + wins[1] < total)
        sb_add(&b, " (%zu tied)", total - wins[0] - wins[1]);
    add_best(c, &b, vname(c, 0), best[0]);
    add_best(c, &b, vname(c, 1), best[1]);
    sb_add(&b, ".");
    add_sentence(summary, &b);
}

static void summarize_crossovers(json_t *summary, json_t *crossovers)
{
    size_t i;
    json_t *x;
    json_array_foreach(crossovers, i, x)
        json_array_append_new(summary, json_string(jstr(x, "text")));
}

/* "Alone, A is faster at every speed (A 1920.00 us, B 2560.00 us at 1x); in
 * the system the ranking flips at 0.5x, 1x." */
static void summarize_alone(const verdict_ctx *c, json_t *summary, json_t *alone,
                            json_t *ranking)
{
    size_t i;
    json_t *row, *ref = NULL; /* the row shown: speed 1 when there is one */
    const char *w = NULL;
    bool same = true, flips = false;
    json_array_foreach(alone, i, row) {
        const char *rw = jstr(row, "winner");
        if (!rw)
            continue;
        same &= !w || !strcmp(w, rw);
        w = w ? w : rw;
        if (!ref || jnum(row, "speed") == 1)
            ref = row;
    }
    if (!w)
        return;
    sbuf b = {.n = 0};
    if (same && strcmp(w, "tie"))
        sb_add(&b, "Alone, %s is faster at every speed", upper(c, w));
    else
        sb_add(&b, "Alone, neither design is faster at every speed");
    char a_key[TEXT_KEY_MAX], b_key[TEXT_KEY_MAX];
    sb_add(&b, " (%s %.2f us, %s %.2f us at %gx)", upper(c, vname(c, 0)),
           jnum(ref, key_of(a_key, vname(c, 0), "_us")), upper(c, vname(c, 1)),
           jnum(ref, key_of(b_key, vname(c, 1), "_us")), jnum(ref, "speed"));
    json_array_foreach(ranking, i, row) {
        if (json_is_true(json_object_get(row, "flips"))) {
            sb_add(&b, "%s%gx", flips ? ", " : "; in the system the ranking flips at ",
                   jnum(row, "speed"));
            flips = true;
        }
    }
    sb_add(&b, flips ? "." : "; in the system the ranking holds at every latency.");
    add_sentence(summary, &b);
}

/* "A's median moves by +1152.0 us (+45.9%)", or "B's by ..." after the first. */
static void add_move(const verdict_ctx *c, sbuf *b, json_t *m, bool first)
{
    sb_add(b, "%s's%s by %+.1f us (%+.1f%%)", upper(c, jstr(m, "design")),
           first ? " median moves" : "", jnum(m, "delta_us"), jnum(m, "delta_pct"));
}

/* One sentence per speed: "At 1x, from 0.50 to 2.50 us A's median moves by ...". */
static void summarize_movement(const verdict_ctx *c, json_t *summary, json_t *movement)
{
    size_t n = json_array_size(movement);
    for (size_t i = 0; i < n; i++) {
        json_t *m = json_array_get(movement, i), *next = json_array_get(movement, i + 1);
        bool pair = next && jnum(next, "speed") == jnum(m, "speed");
        sbuf b = {.n = 0};
        sb_add(&b, "At %gx, from %.2f to %.2f us ", jnum(m, "speed"),
               jnum(m, "from_latency_us"), jnum(m, "to_latency_us"));
        add_move(c, &b, m, true);
        if (pair) {
            sb_add(&b, " and ");
            add_move(c, &b, next, false);
            if (jnum(next, "from_latency_us") != jnum(m, "from_latency_us") ||
                jnum(next, "to_latency_us") != jnum(m, "to_latency_us"))
                sb_add(&b, " (from %.2f to %.2f us)", jnum(next, "from_latency_us"),
                       jnum(next, "to_latency_us"));
            i++;
        }
        sb_add(&b, ".");
        add_sentence(summary, &b);
    }
}

/* ", software 50000.0 to 50010.0 us": the range of one baselines column. */
static void add_range(sbuf *b, json_t *baselines, const char *key, const char *label)
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
        sb_add(b, ", %s %.1f us", label, lo);
    else
        sb_add(b, ", %s %.1f to %.1f us", label, lo, hi);
}

static void summarize_baselines(const verdict_ctx *c, json_t *summary, json_t *baselines)
{
    size_t n = json_array_size(baselines);
    if (!n)
        return;
    sbuf b = {.n = 0};
    sb_add(&b, "At 1x over %.2f to %.2f us, the medians are",
           jnum(json_array_get(baselines, 0), "pcie_latency_us"),
           jnum(json_array_get(baselines, n - 1), "pcie_latency_us"));
    size_t head = b.n;
    const char **designs = calloc(c->st->nvariants + 2, sizeof *designs);
    size_t nd = designs ? baseline_designs(c, designs) : 0;
    for (size_t d = 0; d < nd; d++) {
        char key[TEXT_KEY_MAX];
        add_range(&b, baselines, key_of(key, designs[d], "_median_us"),
                  phrase(c, designs[d]));
    }
    free(designs);
    b.s[head] = ':'; /* the first ", " becomes ": " */
    sb_add(&b, ".");
    add_sentence(summary, &b);
}

/* Per design and latency with several in-flight values: the first and last. */
static void summarize_load(const verdict_ctx *c, json_t *summary, json_t *load)
{
    size_t n = json_array_size(load);
    for (size_t i = 0; i < n;) {
        json_t *first = json_array_get(load, i);
        size_t j = i;
        while (
            j + 1 < n &&
            !strcmp(jstr(json_array_get(load, j + 1), "design"), jstr(first, "design")) &&
            jnum(json_array_get(load, j + 1), "pcie_latency_us") ==
                jnum(first, "pcie_latency_us"))
            j++;
        json_t *last = json_array_get(load, j);
        if (j > i) {
            sbuf b = {.n = 0};
            sb_add(&b,
                   "At %.2f us and 1x, %s goes from %.1f to %.1f requests/s and from a "
                   "median of %.1f to %.1f us as requests in flight go from %lld to %lld",
                   jnum(first, "pcie_latency_us"), upper(c, jstr(first, "design")),
                   jnum(first, "throughput_rps"), jnum(last, "throughput_rps"),
                   jnum(first, "median_us"), jnum(last, "median_us"),
                   (long long)jnum(first, "in_flight"),
                   (long long)jnum(last, "in_flight"));
            if (!isnan(jnum(first, "next_queued")) && !isnan(jnum(last, "next_queued")))
                sb_add(&b,
                       "; the next request was already queued in the device when one "
                       "finished for %.0f%% of requests, then %.0f%%",
                       100 * jnum(first, "next_queued"), 100 * jnum(last, "next_queued"));
            sb_add(&b, ".");
            add_sentence(summary, &b);
        }
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

static json_t *build_verdict(const verdict_ctx *c)
{
    json_t *v =
        json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "cells", cells_json(c),
                  "latencies_us", list_json(&c->lats), "speeds", list_json(&c->speeds),
                  "crossovers", crossovers_json(c), "movement", movement_json(c), "alone",
                  alone_json(c), "ranking", ranking_json(c), "baselines",
                  baselines_json(c), "load", load_json(c));
    if (v && c->splits)
        json_object_set_new(v, "splits", splits_json(c));
    if (v) {
        json_object_set_new(v, "summary", summary_json(c, v));
        json_object_set_new(v, "warnings", warnings_json(c));
    }
    return v;
}

static void ctx_free(verdict_ctx *c)
{
    for (size_t i = 0; i < c->nruns; i++)
        json_decref(c->runs[i].split);
    free(c->runs);
    free(c->lats.v);
    free(c->speeds.v);
    free(c->alone_a);
    free(c->alone_b);
}

static json_t *compute(db_conn *db, const study *st, bool splits, char *err,
                       size_t err_size)
{
    verdict_ctx c = {
        .db = db, .st = st, .splits = splits, .err = err, .err_size = err_size};
    json_t *v = NULL;
    if (!load_runs(&c) && !load_request_medians(&c) && !build_axes(&c) &&
        !measure_alone(&c)) {
        if (splits)
            load_splits(&c);
        v = build_verdict(&c);
        if (!v)
            snprintf(err, err_size, "out of memory building the verdict");
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
