/*
 * results.c - `mortar results [--db FILE] [--study FILE] [--json|--csv]
 * [--requests]`: the runs in the database with their variables and
 * summaries, as a table, as JSON or as CSV (results_format.h); --requests
 * gives each run's measured requests too (in JSON) or instead (in CSV).
 * The table's variable columns are the study's: its variant axis, its
 * knobs (label and unit) and its load axis.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "losses.h"
#include "results.h"
#include "results_format.h"
#include "spec.h"
#include "study.h"
#include "usage.h"
#include "verdict_axes.h"

/* A column of the table that shows a run variable: the study's variant
 * axis, a knob or the load axis. */
typedef struct var_column {
    const char *var;  /* the variable's name */
    const char *unit; /* stripped from a value that ends with it; "" */
    char head[64];
    bool left; /* the axis: left-aligned text */
    int width; /* in columns of the terminal */
} var_column;

/* A cell of `width` columns, right- or left-aligned; `text` may hold a
 * unit's symbol (the heads: "L(µs)"). */
static void print_cell(const char *text, int width, bool left)
{
    printf(left ? " %-*s" : " %*s", verdict_pad(text, width), text);
}

#define MAX_VAR_COLUMNS 16

/* The study's columns: the axis, the knobs ("L(µs)": label and unit, as
 * the verdict's tables head them), the load axis; none without a study. */
static size_t var_columns(const study *st, var_column *cols)
{
    size_t n = 0;
    if (!st)
        return 0;
    cols[n++] = (var_column){.var = st->axis, .unit = "", .left = true};
    snprintf(cols[0].head, sizeof cols[0].head, "%s", st->axis);
    for (size_t k = 0; k <= st->nknobs && n < MAX_VAR_COLUMNS; k++) {
        const study_knob *kn = k < st->nknobs ? &st->knobs[k] : &st->load;
        if (!kn->name)
            continue;
        var_column *c = &cols[n++];
        *c = (var_column){.var = kn->name, .unit = kn->unit ? kn->unit : ""};
        verdict_knob_head(kn, c->head, sizeof c->head);
    }
    return n;
}

/* A run's value of column `c`: its variable as --set text (a real rounded
 * as results_format_real does), without the
 * column's unit when it ends with it ("0.5us" under L(µs): "0.5"); "-"
 * when the run has no such variable. */
static const char *var_cell(json_t *run, const var_column *c, char *buf, size_t size)
{
    json_t *v = json_object_get(json_object_get(run, "vars"), c->var);
    if (json_is_real(v))
        results_format_real(json_real_value(v), buf, size);
    else if (!v || spec_value_text(v, buf, size))
        return "-";
    size_t n = strlen(buf), u = strlen(c->unit);
    if (u && n > u && !strcmp(buf + n - u, c->unit))
        buf[n - u] = '\0';
    return buf;
}

static void print_table(json_t *runs, const study *st)
{
    var_column cols[MAX_VAR_COLUMNS];
    size_t ncols = var_columns(st, cols), i;
    json_t *r;
    char text[1024], lost[32];
    for (size_t c = 0; c < ncols; c++) {
        /* the variant axis as wide as the status column, as it was */
        int least = cols[c].left ? 8 : 0, head = verdict_columns(cols[c].head);
        cols[c].width = head > least ? head : least;
        json_array_foreach(json_object_get(runs, "runs"), i, r) {
            int w = verdict_columns(var_cell(r, &cols[c], text, sizeof text));
            cols[c].width = w > cols[c].width ? w : cols[c].width;
        }
    }
    printf("%4s  %-8s %-16s", "id", "status", "name");
    for (size_t c = 0; c < ncols; c++)
        print_cell(cols[c].head, cols[c].width, cols[c].left);
    printf(" %9s", "requests");
    print_cell("median(" VERDICT_US ")", 10, false);
    print_cell("p99(" VERDICT_US ")", 10, false);
    printf(" %7s %6s\n", "wall(s)", "lost");
    json_array_foreach(json_object_get(runs, "runs"), i, r) {
        json_t *s = json_object_get(r, "summary");
        printf("%4lld  %-8s %-16.16s", (long long)json_integer_value(json_object_get(r, "id")),
               json_string_value(json_object_get(r, "status")) ?: "?",
               json_string_value(json_object_get(r, "name")) ?: "?");
        for (size_t c = 0; c < ncols; c++)
            print_cell(var_cell(r, &cols[c], text, sizeof text), cols[c].width, cols[c].left);
        printf(" %9lld %10.1f %10.1f %7.1f %6s\n",
               (long long)json_integer_value(json_object_get(s, "requests")),
               json_number_value(json_object_get(s, "median_us")),
               json_number_value(json_object_get(s, "p99_us")),
               json_number_value(json_object_get(r, "wall_s")),
               losses_cell(r, lost, sizeof lost));
        const char *e = json_string_value(json_object_get(r, "error"));
        if (e)
            printf("      error: %s\n", e);
        if (json_array_size(json_object_get(r, "losses")))
            printf("      lost: %s\n",
                   losses_text(json_object_get(r, "losses"), text, sizeof text));
    }
}

/* The study whose axis and knobs are the table's columns: --study FILE (an
 * error when it cannot be read), else the default one, else none. */
static int table_study(const char *path, study *st, bool *have)
{
    char err[2048];
    *have = study_load_default(st, path, err, sizeof err) == 0;
    if (!*have && path) {
        fprintf(stderr, "mortar: %s\n", err);
        return -1;
    }
    return 0;
}

/* Writes what was read (`doc`: results_json's document for JSON and CSV,
 * db_runs_json's for the table) to stdout; -1 after saying why. */
static int write_results(json_t *doc, bool as_json, bool as_csv, bool with_requests,
                         const study *st)
{
    int rc = 0;
    if (as_json)
        rc = results_write_json(stdout, doc);
    else if (as_csv && with_requests)
        rc = results_write_requests_csv(stdout, doc);
    else if (as_csv)
        rc = results_write_runs_csv(stdout, doc);
    else
        print_table(doc, st);
    if (rc)
        fprintf(stderr, "mortar results: cannot write the output\n");
    return rc;
}

int mortar_results_main(int argc, char **argv)
{
    const char *path = "mortar.db", *study_path = NULL;
    int as_json = 0, as_csv = 0, with_requests = 0;
    cli_parser p;
    cli_parser_init(&p, &mortar_cmd_results, argc, argv);
    for (int key; (key = cli_next(&p)) != CLI_DONE;) {
        if (key == CLI_KEY_DB)
            path = p.value;
        else if (key == CLI_KEY_JSON)
            as_json = 1;
        else if (key == CLI_KEY_CSV)
            as_csv = 1;
        else if (key == CLI_KEY_REQUESTS)
            with_requests = 1;
        else if (key == CLI_KEY_STUDY)
            study_path = p.value;
        else
            return cli_stop_status(key);
    }
    if (p.first_operand < argc)
        return cli_usage_error(&mortar_cmd_results, "unexpected '%s'", argv[p.first_operand]);
    if (as_json && as_csv)
        return cli_usage_error(&mortar_cmd_results, "--json or --csv, not both");
    if (with_requests && !as_json && !as_csv)
        return cli_usage_error(&mortar_cmd_results, "--requests goes with --json or --csv");
    db_conn *db;
    char err[512];
    if (db_open_read(&db, path, err, sizeof err)) {
        fprintf(stderr, "mortar: %s\n", err);
        return 1;
    }
    /* Everything is read before anything is written: a database that
     * fails halfway prints no partial table. */
    study st = {0};
    bool have = false, table = !as_json && !as_csv;
    json_t *doc = NULL;
    if (!table || table_study(study_path, &st, &have) == 0) {
        doc = table ? db_runs_json(db) : results_json(db, with_requests);
        if (!doc)
            fprintf(stderr, "mortar results: %s: %s\n", path, db_last_error());
    }
    db_close(db);
    int rc = doc ? write_results(doc, as_json, as_csv, with_requests, have ? &st : NULL) : -1;
    json_decref(doc);
    study_free(&st);
    return rc ? 1 : 0;
}
