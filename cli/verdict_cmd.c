/*
 * verdict_cmd.c - `mortar verdict [--db FILE] [--json]`: what the case study
 * concludes from the finished runs (verdict.c computes it). It prints the
 * winner map (latency x speed), the cells, the crossovers, how each design
 * moves across the latency range, alone vs in-system ranking, the
 * baselines, the load runs, where the median request's time goes in each
 * traced run, the summary sentences and a warning for every loss counter of
 * a run it used; with --json the
 * verdict's JSON (layout in docs/experiments.md, "The verdict").
 */
#include "verdict_cmd.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "study.h"
#include "usage.h"
#include "verdict.h"

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

/* `v` with `decimals` decimals, or "-" when it is missing. */
static const char *fmt(char *buf, size_t size, double v, int decimals)
{
    if (isnan(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.*f", decimals, v);
    return buf;
}

/* How the text names a design: its variant's label, else its name. */
static const char *upper(const study *st, const char *design)
{
    const study_variant *v = design ? study_variant_named(st, design) : NULL;
    return !design ? "-" : v ? v->label : design;
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

/* The cell at (latency, speed), or NULL. */
static json_t *find_cell(json_t *cells, double latency_us, double speed)
{
    size_t i;
    json_t *cell;
    json_array_foreach(cells, i, cell) {
        if (jnum(cell, "pcie_latency_us") == latency_us && jnum(cell, "speed") == speed)
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

static void print_map(const study *st, json_t *v)
{
    json_t *lats = json_object_get(v, "latencies_us"),
           *speeds = json_object_get(v, "speeds");
    json_t *cells = json_object_get(v, "cells"), *lat, *speed;
    size_t li, si;
    printf("Winner and margin (%% of the winner's median), in flight 1:\n%8s", "L(us)");
    json_array_foreach(speeds, si, speed)
        printf(" %10gx", json_number_value(speed));
    printf("\n");
    json_array_foreach(lats, li, lat) {
        printf("%8.2f", json_number_value(lat));
        json_array_foreach(speeds, si, speed) {
            char entry[32];
            map_entry(st,
                      find_cell(cells, json_number_value(lat), json_number_value(speed)),
                      entry, sizeof entry);
            printf(" %11s", entry);
        }
        printf("\n");
    }
}

static double design_value(json_t *cell, const char *design, const char *key)
{
    return jnum(json_object_get(cell, design), key);
}

static void print_cells(const study *st, json_t *cells)
{
    size_t i;
    json_t *c;
    char b[8][32], h[6][80];
    const char *va = vname(st, 0), *vb = vname(st, 1);
    printf("\nCells (medians in us; service and compute: medians over the requests):\n");
    printf("%6s %6s %9s %9s %9s %9s %9s %9s %6s %9s %7s\n", "speed", "L(us)",
           head(h[0], 80, st, 0, ""), head(h[1], 80, st, 0, " svc"),
           head(h[2], 80, st, 0, " comp"), head(h[3], 80, st, 1, ""),
           head(h[4], 80, st, 1, " svc"), head(h[5], 80, st, 1, " comp"), "winner",
           "margin", "%");
    json_array_foreach(cells, i, c) {
        printf("%6g %6.2f %9s %9s %9s %9s %9s %9s %6s %9s %7s\n", jnum(c, "speed"),
               jnum(c, "pcie_latency_us"),
               fmt(b[0], 32, design_value(c, va, "median_us"), 1),
               fmt(b[1], 32, design_value(c, va, "service_us"), 1),
               fmt(b[2], 32, design_value(c, va, "compute_us"), 1),
               fmt(b[3], 32, design_value(c, vb, "median_us"), 1),
               fmt(b[4], 32, design_value(c, vb, "service_us"), 1),
               fmt(b[5], 32, design_value(c, vb, "compute_us"), 1),
               upper(st, jstr(c, "winner")), fmt(b[6], 32, jnum(c, "margin_us"), 1),
               fmt(b[7], 32, jnum(c, "margin_pct"), 1));
    }
}

static void print_crossovers(json_t *crossovers)
{
    size_t i;
    json_t *x;
    printf("\nWhere the ranking flips (linear interpolation between measured points):\n");
    json_array_foreach(crossovers, i, x)
        printf("  %s\n", jstr(x, "text"));
}

static void print_movement(const study *st, json_t *movement)
{
    size_t i;
    json_t *m;
    char b[32];
    printf("\nMovement across the latency range (median, in flight 1):\n");
    printf("%6s %6s %8s %8s %10s %10s %10s %8s\n", "design", "speed", "from L", "to L",
           "from(us)", "to(us)", "delta(us)", "delta%");
    json_array_foreach(movement, i, m) {
        printf("%6s %6g %8.2f %8.2f %10.1f %10.1f %+10.1f %8s\n",
               upper(st, jstr(m, "design")), jnum(m, "speed"), jnum(m, "from_latency_us"),
               jnum(m, "to_latency_us"), jnum(m, "from_median_us"),
               jnum(m, "to_median_us"), jnum(m, "delta_us"),
               fmt(b, sizeof b, jnum(m, "delta_pct"), 1));
    }
}

static void print_alone(const study *st, json_t *alone, json_t *ranking)
{
    size_t i;
    json_t *a;
    char b[2][32], h[2][80];
    printf("\nAlone (device model, no system) vs in the system:\n");
    printf("%6s %10s %10s %7s  %s\n", "speed", head(h[0], 80, st, 0, "(us)"),
           head(h[1], 80, st, 1, "(us)"), "alone", "system winners");
    json_array_foreach(alone, i, a) {
        json_t *r = json_array_get(ranking, i), *w;
        const char *lat;
        printf("%6g %10s %10s %7s ", jnum(a, "speed"),
               fmt(b[0], 32, vnum(a, vname(st, 0), "_us"), 2),
               fmt(b[1], 32, vnum(a, vname(st, 1), "_us"), 2),
               upper(st, jstr(a, "winner")));
        json_object_foreach(json_object_get(r, "system_winners"), lat, w)
            printf(" %s:%s", lat, upper(st, json_string_value(w)));
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

static void print_baselines(const study *st, json_t *baselines)
{
    size_t i;
    json_t *r;
    char b[32];
    const char **names = calloc(st->nvariants + 2, sizeof *names);
    if (!names)
        return;
    size_t n = baseline_columns(st, names);
    printf("\nBaselines at 1x, in flight 1 (median us):\n");
    printf("%6s", "L(us)");
    for (size_t k = 0; k < n; k++)
        printf(" %10s", upper(st, names[k]));
    printf("\n");
    json_array_foreach(baselines, i, r) {
        printf("%6.2f", jnum(r, "pcie_latency_us"));
        for (size_t k = 0; k < n; k++)
            printf(" %10s", fmt(b, sizeof b, vnum(r, names[k], "_median_us"), 1));
        printf("\n");
    }
    free(names);
}

static void print_load(const study *st, json_t *load)
{
    size_t i;
    json_t *r;
    char b[4][32];
    printf("\nLoad at 1x (next queued: share of requests after which the device's queue "
           "already held the next):\n");
    printf("%6s %6s %9s %10s %10s %10s %12s\n", "design", "L(us)", "in flight",
           "median(us)", "p99(us)", "req/s", "next queued");
    json_array_foreach(load, i, r) {
        printf("%6s %6.2f %9lld %10s %10s %10s %11s%s\n", upper(st, jstr(r, "design")),
               jnum(r, "pcie_latency_us"), (long long)jnum(r, "in_flight"),
               fmt(b[0], 32, jnum(r, "median_us"), 1),
               fmt(b[1], 32, jnum(r, "p99_us"), 1),
               fmt(b[2], 32, jnum(r, "throughput_rps"), 1),
               fmt(b[3], 32, 100 * jnum(r, "next_queued"), 0),
               isnan(jnum(r, "next_queued")) ? " " : "%");
    }
}

/* The part's microseconds in a split's "parts" array, or NAN. */
static double part_us(json_t *split, size_t p)
{
    return jnum(json_array_get(json_object_get(split, "parts"), p), "us");
}

static void print_splits(const study *st, json_t *splits)
{
    if (!json_array_size(splits))
        return;
    size_t i;
    json_t *s;
    char b[6][32];
    printf("\nWhere the median request's time goes (traced runs, us; the parts sum to"
           " its latency):\n");
    printf("%8s %6s %6s %4s %5s %9s %9s %9s %9s %9s %9s\n", "design", "L(us)", "speed",
           "infl", "req", "latency", "client", "network", "server", "iface", "compute");
    json_array_foreach(splits, i, s) {
        if (jstr(s, "error")) {
            printf("%8s %6.2f %6g %4lld  %s\n", upper(st, jstr(s, "design")),
                   jnum(s, "pcie_latency_us"), jnum(s, "speed"),
                   (long long)jnum(s, "in_flight"), jstr(s, "error"));
            continue;
        }
        printf("%8s %6.2f %6g %4lld %5lld %9s %9s %9s %9s %9s %9s\n",
               upper(st, jstr(s, "design")), jnum(s, "pcie_latency_us"), jnum(s, "speed"),
               (long long)jnum(s, "in_flight"), (long long)jnum(s, "request"),
               fmt(b[0], 32, jnum(s, "latency_us"), 1), fmt(b[1], 32, part_us(s, 0), 1),
               fmt(b[2], 32, part_us(s, 1), 1), fmt(b[3], 32, part_us(s, 2), 1),
               fmt(b[4], 32, part_us(s, 3), 1), fmt(b[5], 32, part_us(s, 4), 1));
    }
}

static void print_report(const study *st, json_t *v)
{
    print_map(st, v);
    print_cells(st, json_object_get(v, "cells"));
    print_crossovers(json_object_get(v, "crossovers"));
    print_movement(st, json_object_get(v, "movement"));
    print_alone(st, json_object_get(v, "alone"), json_object_get(v, "ranking"));
    print_baselines(st, json_object_get(v, "baselines"));
    print_load(st, json_object_get(v, "load"));
    print_splits(st, json_object_get(v, "splits"));
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
    json_t *v = NULL;
    int64_t n = verdict_finished_runs(db, err, sizeof err);
    if (n == 0)
        fprintf(stderr, "mortar verdict: no finished runs in %s\n", path);
    else if (n < 0 || !(v = verdict_compute_with_splits(db, st, err, sizeof err)))
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
        json_dumpf(v, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
        putchar('\n');
    } else if (v) {
        print_report(&st, v);
    }
    json_decref(v);
    study_free(&st);
    return v ? 0 : 1;
}
