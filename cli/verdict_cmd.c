/*
 * verdict_cmd.c - `mortar verdict [--db FILE] [--study FILE] [--json]`: what
 * a study concludes from the finished runs (verdict.c computes it). It
 * prints the winner map (x knob by series knob), the cells, the crossovers,
 * how each compared variant moves across the x range, alone vs in-system
 * ranking, the baselines, the load runs, where the median request's time
 * goes in each traced run, the summary sentences and a warning for every
 * loss counter of a run it used, every name, label and unit from the study;
 * with --json the verdict's JSON (layout in docs/studies.md, "The
 * verdict's JSON").
 */
#include "verdict_cmd.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "json_field.h"
#include "study.h"
#include "time_split.h"
#include "usage.h"
#include "verdict.h"
#include "verdict_axes.h"

/* `v` with `decimals` decimals, or "-" when it is missing. */
static const char *fmt(char *buf, size_t size, double v, int decimals)
{
    if (isnan(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.*f", decimals, v);
    return buf;
}

/* `v` in its shortest form ("%g"), "-" for none (a study without that knob). */
static const char *gfmt(char *buf, size_t size, double v)
{
    if (isnan(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%g", v);
    return buf;
}

/* How the text names a variant: its label, else its name. */
static const char *upper(const study *st, const char *variant)
{
    const study_variant *v = variant ? study_variant_named(st, variant) : NULL;
    return !variant ? "-" : v ? v->label : variant;
}

/* The name of the first (0) or second (1) variant the study compares. */
static const char *vname(const study *st, int i)
{
    return st->variants[st->compared[i]].name;
}

/* "<label><suffix>" ("A svc") into buf. */
static const char *head(char *buf, size_t size, const study *st, int i,
                        const char *suffix)
{
    snprintf(buf, size, "%s%s", upper(st, vname(st, i)), suffix);
    return buf;
}

/* The value under "<name><suffix>" ("a_us") of a row. */
static double vnum(const json_t *row, const char *name, const char *suffix)
{
    char key[160];
    snprintf(key, sizeof key, "%s%s", name, suffix);
    return jnum(row, key);
}

/* The verdict's knobs and reference values, as the text needs them. */
typedef struct axes_text {
    verdict_axes ax;
    double series_at, load_at;
    char su[16];    /* what follows a series value ("×") */
    char xhead[96]; /* "L(µs)" */
} axes_text;

static axes_text axes_text_of(const study *st, json_t *v)
{
    axes_text t = {.ax = verdict_axes_of(st)};
    json_t *axes = json_object_get(v, "axes");
    t.series_at = jnum(axes, "series_at");
    t.load_at = jnum(axes, "load_at");
    verdict_unit_words(t.ax.series, t.su, sizeof t.su);
    verdict_knob_head(t.ax.x, t.xhead, sizeof t.xhead);
    return t;
}

/* The series knob's label for a column's head ("-" without one). */
static const char *series_head(const axes_text *t)
{
    return t->ax.series ? t->ax.series->label : "-";
}

/* ", in flight 1": the unloaded value, after a heading; "" without a load. */
static const char *load_note(const axes_text *t, char *buf, size_t size)
{
    if (t->ax.load)
        snprintf(buf, size, ", %s %g", t->ax.load->label, t->load_at);
    else
        buf[0] = '\0';
    return buf;
}

/* " at 1x": the series' reference value, in a heading; "" without one. */
static const char *series_note(const axes_text *t, char *buf, size_t size)
{
    if (t->ax.series)
        snprintf(buf, size, " at %g%s", t->series_at, t->su);
    else
        buf[0] = '\0';
    return buf;
}

/* Whether two numbers of the JSON (null: no such knob) are the same. */
static bool same_number(double x, double y)
{
    return (isnan(x) && isnan(y)) || x == y;
}

/* The cell at (x, series), or NULL. */
static json_t *find_cell(json_t *cells, double x, double series)
{
    size_t i;
    json_t *cell;
    json_array_foreach(cells, i, cell) {
        if (same_number(jnum(cell, "x"), x) && same_number(jnum(cell, "series"), series))
            return cell;
    }
    return NULL;
}

/* "A 12.3%", "B only", "tie" or "-". */
static void map_entry(const study *st, json_t *cell, char *buf, size_t size)
{
    const char *w = cell ? jstr(cell, "winner") : NULL;
    if (w && !strcmp(w, "tie"))
        snprintf(buf, size, "tie");
    else if (w)
        snprintf(buf, size, "%s %.1f%%", upper(st, w), jnum(cell, "margin_pct"));
    else if (cell)
        snprintf(buf, size, "%s only",
                 upper(st, vname(st, json_is_null(json_object_get(cell, vname(st, 0))))));
    else
        snprintf(buf, size, "-");
}

/* The number of a JSON array's element, NAN for null. */
static double element(json_t *arr, size_t i)
{
    json_t *v = json_array_get(arr, i);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void print_map(const study *st, const axes_text *t, json_t *v)
{
    json_t *xs = json_object_get(v, "x_values"), *series = json_object_get(v, "series_values");
    json_t *cells = json_object_get(v, "cells");
    char note[128];
    printf("Winner and margin (%% of the winner's median)%s:\n%*s",
           load_note(t, note, sizeof note), verdict_pad(t->xhead, 8), t->xhead);
    for (size_t si = 0; si < json_array_size(series); si++) {
        char head[64] = "";
        if (t->ax.series)
            snprintf(head, sizeof head, "%g%s", element(series, si), t->su);
        printf(" %*s", verdict_pad(head, 11), head);
    }
    printf("\n");
    for (size_t xi = 0; xi < json_array_size(xs); xi++) {
        printf("%8.2f", element(xs, xi));
        for (size_t si = 0; si < json_array_size(series); si++) {
            char entry[192];
            map_entry(st, find_cell(cells, element(xs, xi), element(series, si)), entry,
                      sizeof entry);
            printf(" %11s", entry);
        }
        printf("\n");
    }
}

static double variant_value(json_t *cell, const char *variant, const char *key)
{
    return jnum(json_object_get(cell, variant), key);
}

/* "service and compute", the metric's parts by name. */
static void parts_phrase(const study *st, char *buf, size_t size)
{
    size_t n = 0, np = st->metric.nparts;
    buf[0] = '\0';
    for (size_t p = 0; p < np && n < size; p++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s",
                              p == 0 ? "" : p + 1 == np ? " and " : ", ",
                              st->metric.parts[p].name);
}

static void print_cells(const study *st, const axes_text *t, json_t *cells)
{
    size_t i, np = st->metric.nparts;
    json_t *c;
    char b[32], h[160], parts[512];
    parts_phrase(st, parts, sizeof parts);
    if (np)
        printf("\nCells (medians in " VERDICT_US "; %s: medians over the requests):\n", parts);
    else
        printf("\nCells (medians in " VERDICT_US "):\n");
    printf("%6s %*s", series_head(t), verdict_pad(t->xhead, 6), t->xhead);
    for (int d = 0; d < 2; d++) {
        printf(" %9s", head(h, sizeof h, st, d, ""));
        for (size_t p = 0; p < np; p++) {
            char suffix[96];
            snprintf(suffix, sizeof suffix, " %s", st->metric.parts[p].short_label);
            printf(" %9s", head(h, sizeof h, st, d, suffix));
        }
    }
    printf(" %6s %9s %7s\n", "winner", "margin", "%");
    json_array_foreach(cells, i, c) {
        printf("%6g %6.2f", jnum(c, "series"), jnum(c, "x"));
        for (int d = 0; d < 2; d++) {
            printf(" %9s", fmt(b, sizeof b, variant_value(c, vname(st, d), "median_us"), 1));
            for (size_t p = 0; p < np; p++) {
                char key[160];
                snprintf(key, sizeof key, "%s_us", st->metric.parts[p].name);
                printf(" %9s", fmt(b, sizeof b, variant_value(c, vname(st, d), key), 1));
            }
        }
        printf(" %6s", upper(st, jstr(c, "winner")));
        printf(" %9s", fmt(b, sizeof b, jnum(c, "margin_us"), 1));
        printf(" %7s\n", fmt(b, sizeof b, jnum(c, "margin_pct"), 1));
    }
}

/* The runs between the grid's x values (a refinement's), when there are
 * any: where each crossing was measured. */
static void print_extra_cells(const study *st, const axes_text *t, json_t *cells)
{
    if (!json_array_size(cells))
        return;
    size_t i;
    json_t *c;
    char b[2][32], h[2][80];
    printf("\nRuns between the grid's %s values (medians in " VERDICT_US "):\n", t->xhead);
    printf("%6s %*s %9s %9s %6s\n", series_head(t), verdict_pad(t->xhead, 10), t->xhead,
           head(h[0], 80, st, 0, ""),
           head(h[1], 80, st, 1, ""), "winner");
    json_array_foreach(cells, i, c) {
        printf("%6g %10.10g %9s %9s %6s\n", jnum(c, "series"), jnum(c, "x"),
               fmt(b[0], 32, variant_value(c, vname(st, 0), "median_us"), 1),
               fmt(b[1], 32, variant_value(c, vname(st, 1), "median_us"), 1),
               upper(st, jstr(c, "winner")));
    }
}

static void print_crossovers(json_t *crossovers)
{
    size_t i, k;
    json_t *x, *note;
    printf("\nWhere the ranking flips (measured between runs, or estimated on a straight"
           " line between grid points):\n");
    json_array_foreach(crossovers, i, x) {
        printf("  %s\n", jstr(x, "text"));
        json_array_foreach(json_object_get(x, "notes"), k, note)
            printf("    %s\n", json_string_value(note));
    }
}

static void print_movement(const study *st, const axes_text *t, json_t *movement)
{
    size_t i;
    json_t *m;
    char b[32], from[96], to[96], note[128];
    const char *xl = t->ax.x ? t->ax.x->label : "-";
    snprintf(from, sizeof from, "from %s", xl);
    snprintf(to, sizeof to, "to %s", xl);
    printf("\nMovement across the %s range (median%s):\n",
           t->ax.x ? t->ax.x->phrase : "value", load_note(t, note, sizeof note));
    printf("%6s %6s %8s %8s %*s %*s %*s %8s\n", st->axis, series_head(t), from, to,
           verdict_pad(VERDICT_US, 10), "from(" VERDICT_US ")", verdict_pad(VERDICT_US, 10),
           "to(" VERDICT_US ")", verdict_pad(VERDICT_US, 10), "delta(" VERDICT_US ")", "delta%");
    json_array_foreach(movement, i, m) {
        printf("%6s %6g %8.2f %8.2f %10.1f %10.1f %+10.1f %8s\n",
               upper(st, jstr(m, "variant")), jnum(m, "series"), jnum(m, "from_x"),
               jnum(m, "to_x"), jnum(m, "from_median_us"), jnum(m, "to_median_us"),
               jnum(m, "delta_us"), fmt(b, sizeof b, jnum(m, "delta_pct"), 1));
    }
}

static void print_alone(const study *st, const axes_text *t, json_t *alone, json_t *ranking)
{
    size_t i;
    json_t *a;
    char b[2][32], h[2][80];
    printf("\nAlone (device model, no system) vs in the system:\n");
    head(h[0], 80, st, 0, "(" VERDICT_US ")");
    head(h[1], 80, st, 1, "(" VERDICT_US ")");
    printf("%6s %*s %*s %7s  %s\n", series_head(t), verdict_pad(h[0], 10), h[0], verdict_pad(h[1], 10),
           h[1], "alone", "system winners");
    json_array_foreach(alone, i, a) {
        json_t *r = json_array_get(ranking, i), *w;
        const char *x;
        printf("%6g %10s %10s %7s ", jnum(a, "series"),
               fmt(b[0], 32, vnum(a, vname(st, 0), "_us"), 2),
               fmt(b[1], 32, vnum(a, vname(st, 1), "_us"), 2),
               upper(st, jstr(a, "winner")));
        json_object_foreach(json_object_get(r, "system_winners"), x, w)
            printf(" %s:%s", x, upper(st, json_string_value(w)));
        printf("%s\n", json_is_true(json_object_get(r, "flips")) ? "  (flips)" : "");
    }
}

/* The baselines, then the two compared: the columns of the baselines table. */
static size_t baseline_columns(const study *st, const char **names)
{
    size_t n = 0;
    for (size_t i = 0; i < st->nbaselines; i++)
        names[n++] = st->variants[st->baselines[i]].name;
    names[n++] = vname(st, 0);
    names[n++] = vname(st, 1);
    return n;
}

static void print_baselines(const study *st, const axes_text *t, json_t *baselines)
{
    size_t i;
    json_t *r;
    char b[32], at[128], note[128];
    const char **names = calloc(st->nvariants + 2, sizeof *names);
    if (!names)
        return;
    size_t n = baseline_columns(st, names);
    printf("\nBaselines%s%s (median " VERDICT_US "):\n", series_note(t, at, sizeof at),
           load_note(t, note, sizeof note));
    printf("%*s", verdict_pad(t->xhead, 6), t->xhead);
    for (size_t k = 0; k < n; k++)
        printf(" %10s", upper(st, names[k]));
    printf("\n");
    json_array_foreach(baselines, i, r) {
        printf("%6.2f", jnum(r, "x"));
        for (size_t k = 0; k < n; k++)
            printf(" %10s", fmt(b, sizeof b, vnum(r, names[k], "_median_us"), 1));
        printf("\n");
    }
    free(names);
}

static void print_load(const study *st, const axes_text *t, json_t *load)
{
    if (!t->ax.load)
        return;
    const study_load_share *share = &st->load_share;
    size_t i;
    json_t *r;
    char b[4][32], at[128];
    printf("\nLoad%s", series_note(t, at, sizeof at));
    if (share->label)
        printf(" (%s: %s)", share->label, share->description);
    printf(":\n%6s %*s %9s %*s %*s %10s", st->axis, verdict_pad(t->xhead, 6), t->xhead,
           t->ax.load->label, verdict_pad(VERDICT_US, 10), "median(" VERDICT_US ")",
           verdict_pad(VERDICT_US, 10), "p99(" VERDICT_US ")", "req/s");
    if (share->label)
        printf(" %12s", share->label);
    printf("\n");
    json_array_foreach(load, i, r) {
        printf("%6s %6.2f %9lld %10s %10s %10s", upper(st, jstr(r, "variant")),
               jnum(r, "x"), (long long)jnum(r, "load"),
               fmt(b[0], 32, jnum(r, "median_us"), 1), fmt(b[1], 32, jnum(r, "p99_us"), 1),
               fmt(b[2], 32, jnum(r, "throughput_rps"), 1));
        if (share->label)
            printf(" %11s%s", fmt(b[3], 32, 100 * jnum(r, "share"), 0),
                   isnan(jnum(r, "share")) ? " " : "%");
        printf("\n");
    }
}

/* The part's microseconds in a split's "parts" array, or NAN. */
static double part_us(json_t *split, size_t p)
{
    return jnum(json_array_get(json_object_get(split, "parts"), p), "us");
}

static void print_splits(const study *st, const axes_text *t, json_t *splits)
{
    if (!json_array_size(splits))
        return;
    size_t i;
    json_t *s;
    char b[4][32];
    /* The load's column is 4 wide: its name, cut there. */
    const char *load = t->ax.load ? t->ax.load->name : "-";
    printf("\nWhere the median request's time goes (traced runs, " VERDICT_US "; the parts"
           " sum to its latency):\n");
    printf("%8s %*s %6s %4.4s %5s %9s", st->axis, verdict_pad(t->xhead, 6), t->xhead, series_head(t),
           load, "req", "latency");
    const split_parts *parts = &st->metric.split;
    for (size_t p = 0; p < parts->nparts; p++)
        printf(" %9s", parts->part[p].short_label);
    printf("\n");
    json_array_foreach(splits, i, s) {
        printf("%8s %6.2f %6s %4s", upper(st, jstr(s, "variant")), jnum(s, "x"),
               gfmt(b[0], 32, jnum(s, "series")), fmt(b[1], 32, jnum(s, "load"), 0));
        if (jstr(s, "error")) {
            printf("  %s\n", jstr(s, "error"));
            continue;
        }
        printf(" %5lld %9s", (long long)jnum(s, "request"),
               fmt(b[2], 32, jnum(s, "latency_us"), 1));
        for (size_t p = 0; p < parts->nparts; p++)
            printf(" %9s", fmt(b[3], 32, part_us(s, p), 1));
        printf("\n");
    }
}

static void print_report(const study *st, json_t *v)
{
    axes_text t = axes_text_of(st, v);
    print_map(st, &t, v);
    print_cells(st, &t, json_object_get(v, "cells"));
    print_extra_cells(st, &t, json_object_get(v, "extra_cells"));
    print_crossovers(json_object_get(v, "crossovers"));
    print_movement(st, &t, json_object_get(v, "movement"));
    print_alone(st, &t, json_object_get(v, "alone"), json_object_get(v, "ranking"));
    print_baselines(st, &t, json_object_get(v, "baselines"));
    print_load(st, &t, json_object_get(v, "load"));
    print_splits(st, &t, json_object_get(v, "splits"));
    printf("\nSummary:\n");
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(v, "summary"), i, s)
        printf("- %s\n", json_string_value(s));
    json_t *warnings = json_object_get(v, "warnings");
    if (json_array_size(warnings))
        printf("\nWarnings: %zu lost-frame or TCP retransmission counters in the runs used"
               " (their latencies may include recovery):\n",
               json_array_size(warnings));
    json_array_foreach(warnings, i, s)
        printf("warning: %s\n", jstr(s, "text"));
}

/* Opens the database (refusing to create one) and computes the verdict; NULL
 * with the message printed. */
static json_t *load_verdict(const char *path, const study *st)
{
    if (access(path, F_OK)) {
        fprintf(stderr, "mortar verdict: no finished runs in %s (no such file)\n", path);
        return NULL;
    }
    db_conn *db;
    char err[512];
    if (db_open_read(&db, path, err, sizeof err)) {
        fprintf(stderr, "mortar verdict: %s\n", err);
        return NULL;
    }
    json_t *v;
    int rc = verdict_of_database(db, st, &v, err, sizeof err);
    if (rc > 0)
        fprintf(stderr, "mortar verdict: no finished runs in %s\n", path);
    else if (rc < 0)
        fprintf(stderr, "mortar verdict: %s: %s\n", path, err);
    db_close(db);
    return v;
}

int mortar_verdict_main(int argc, char **argv)
{
    const char *path = "mortar.db", *study_path = NULL;
    bool as_json = false;
    cli_parser p;
    cli_parser_init(&p, &mortar_cmd_verdict, argc, argv);
    for (int key; (key = cli_next(&p)) != CLI_DONE;) {
        if (key == CLI_KEY_DB)
            path = p.value;
        else if (key == CLI_KEY_JSON)
            as_json = true;
        else if (key == CLI_KEY_STUDY)
            study_path = p.value;
        else
            return cli_stop_status(key);
    }
    if (p.first_operand < argc)
        return cli_usage_error(&mortar_cmd_verdict, "unexpected '%s'", argv[p.first_operand]);
    study st;
    char err[1024];
    if (study_load_default(&st, study_path, err, sizeof err)) {
        fprintf(stderr, "mortar verdict: %s\n", err);
        study_free(&st);
        return 1;
    }
    json_t *v = load_verdict(path, &st);
    if (v && as_json) {
        json_dumpf(v, stdout, VERDICT_JSON_FLAGS);
        putchar('\n');
    } else if (v) {
        print_report(&st, v);
    }
    json_decref(v);
    study_free(&st);
    return v ? 0 : 1;
}
