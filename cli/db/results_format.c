/*
 * results_format.c - `mortar results --json` and `--csv` (see
 * results_format.h): the versioned JSON document, the two CSV tables, and
 * the rounding of real numbers they share.
 *
 * The summaries are computed in doubles from whole nanoseconds (a median
 * of 2431800 ns is 2431.8 us, which a double holds as 2431.79999...), so
 * printing every bit would show binary noise. Every real is rounded to
 * RESULTS_DECIMALS decimals instead: a nanosecond is the finest step the
 * measurements have. The JSON is written with 15 significant digits,
 * which a double reproduces exactly (DBL_DIG), so a rounded real prints
 * as its shortest decimal there too.
 */
#include "results_format.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "mortar/time.h"

int results_format_real(double x, char *out, size_t size)
{
    if (!isfinite(x))
        return snprintf(out, size, "%s", "");
    char text[400];
    snprintf(text, sizeof text, "%.*f", RESULTS_DECIMALS, x);
    char *dot = strchr(text, '.');
    if (dot) {
        char *end = text + strlen(text);
        while (end > dot + 1 && end[-1] == '0')
            *--end = '\0';
        if (end == dot + 1)
            *dot = '\0';
    }
    if (!strcmp(text, "-0"))
        strcpy(text, "0");
    return snprintf(out, size, "%s", text);
}

/* Replaces every real inside `v` by its rounded value. */
static void round_reals(json_t *v)
{
    if (json_is_real(v)) {
        char text[400];
        results_format_real(json_real_value(v), text, sizeof text);
        json_real_set(v, *text ? strtod(text, NULL) : 0.0);
        return;
    }
    size_t i;
    const char *key;
    json_t *item;
    if (json_is_array(v)) {
        json_array_foreach(v, i, item)
            round_reals(item);
    } else if (json_is_object(v)) {
        json_object_foreach(v, key, item)
            round_reals(item);
    }
}

json_t *results_json(db_conn *db, bool with_requests)
{
    json_t *all = db_runs_json(db);
    json_t *runs = json_incref(json_object_get(all, "runs"));
    json_decref(all);
    if (!runs)
        return NULL;
    size_t i;
    json_t *r;
    if (with_requests) {
        json_array_foreach(runs, i, r) {
            json_t *reqs = db_run_requests(db, json_integer_value(json_object_get(r, "id")));
            if (!reqs) {
                json_decref(runs);
                return NULL;
            }
            json_object_set_new(r, "requests", reqs);
        }
    }
    round_reals(runs);
    return json_pack("{s:i, s:o}", "schema_version", RESULTS_SCHEMA_VERSION, "runs",
                     runs);
}

int results_write_json(FILE *f, const json_t *doc)
{
    if (json_dumpf(doc, f, RESULTS_JSON_FLAGS) != 0 ||
        fputc('\n', f) == EOF)
        return -1;
    return ferror(f) ? -1 : 0;
}

/* ---- CSV ------------------------------------------------------------------------ */

/* A text cell, quoted when it holds a comma, a quote or a line end. */
static void put_text(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* One cell: null and absent are empty, booleans 1 or 0. */
static void put_cell(FILE *f, const json_t *v)
{
    char text[400];
    switch (json_typeof(v ? v : json_null())) {
    case JSON_INTEGER:
        fprintf(f, "%" PRId64, (int64_t)json_integer_value(v));
        break;
    case JSON_REAL:
        results_format_real(json_real_value(v), text, sizeof text);
        fputs(text, f);
        break;
    case JSON_STRING:
        put_text(f, json_string_value(v));
        break;
    case JSON_TRUE:
        fputc('1', f);
        break;
    case JSON_FALSE:
        fputc('0', f);
        break;
    default: /* null, or an object or array that has no cell */
        break;
    }
}

/* A column: its header, and where its value is (a run's key, or a key of
 * the run's "summary"). */
typedef struct csv_column {
    const char *name;
    bool in_summary;
} csv_column;

static const csv_column run_columns[] = {{"id", false},
                                         {"name", false},
                                         {"status", false},
                                         {"requests", true},
                                         {"verified", true},
                                         {"median_us", true},
                                         {"p99_us", true},
                                         {"mean_us", true},
                                         {"min_us", true},
                                         {"max_us", true},
                                         {"throughput_rps", true},
                                         {"wall_s", false},
                                         {"lost", false},
                                         {"started_at", false},
                                         {"run_dir", false},
                                         {"error", false}};
#define N_RUN_COLUMNS (sizeof run_columns / sizeof run_columns[0])

static const char *const request_columns[] = {"run_id", "idx", "start_ns", "latency_ns",
                                              "verified"};
#define N_REQUEST_COLUMNS (sizeof request_columns / sizeof request_columns[0])

static int finish(FILE *f)
{
    return fflush(f) != 0 || ferror(f) ? -1 : 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The keys of the `member` objects of every item of `items` (an array),
 * sorted, each once: the CSV's "vars.<name>" and "fields.<name>" columns.
 * A new array of *n pointers into the items. */
static const char **member_keys(json_t *items, const char *member, size_t *n)
{
    size_t cap = 0, i;
    json_t *item, *v;
    const char *key;
    json_array_foreach(items, i, item)
        cap += json_object_size(json_object_get(item, member));
    const char **keys = malloc((cap ? cap : 1) * sizeof *keys);
    *n = 0;
    if (!keys)
        return NULL;
    json_array_foreach(items, i, item) {
        json_object_foreach(json_object_get(item, member), key, v)
            keys[(*n)++] = key;
    }
    qsort(keys, *n, sizeof *keys, compare_names);
    size_t kept = 0;
    for (size_t k = 0; k < *n; k++)
        if (!kept || strcmp(keys[kept - 1], keys[k]))
            keys[kept++] = keys[k];
    *n = kept;
    return keys;
}

/* A quantity a variable's text can carry a unit of, and the one unit its
 * CSV column is written in: a number in the cell, the unit in the header
 * ("vars.pcie.latency_us" with 0.5, not "vars.pcie.latency" with "0.5us"),
 * so that a spreadsheet sorts the column as numbers. Durations in
 * microseconds and bandwidths in gigabits per second: the units the
 * studies' knobs are usually written in, whatever a single value used. */
typedef struct var_unit {
    const char *suffix;                         /* appended to the header */
    int (*parse)(const char *, uint64_t *);     /* into the base unit */
    uint64_t per_unit;                          /* base units in one column unit */
} var_unit;

static const var_unit var_units[] = {{"_us", mortar_time_parse, 1000000ull},
                                     {"_gbps", mortar_bandwidth_parse, 1000000000ull}};
#define N_VAR_UNITS (sizeof var_units / sizeof var_units[0])

/* The unit of column `key` of the `member` objects of `items`: the first
 * quantity every present value parses as (at least one present); NULL
 * when the column holds plain numbers, text, or a mix, which stay as they
 * are. */
static const var_unit *column_unit(json_t *items, const char *member, const char *key)
{
    for (size_t u = 0; u < N_VAR_UNITS; u++) {
        size_t i, present = 0;
        json_t *item;
        bool all = true;
        json_array_foreach(items, i, item) {
            json_t *v = json_object_get(json_object_get(item, member), key);
            uint64_t base;
            if (!v || json_is_null(v))
                continue;
            present++;
            if (!json_is_string(v) || var_units[u].parse(json_string_value(v), &base)) {
                all = false;
                break;
            }
        }
        if (all && present)
            return &var_units[u];
    }
    return NULL;
}

/* `text` (which parses as `unit`'s quantity) in the column's unit, as an
 * exact decimal without trailing zeros ("2500000" ps: "2.5"). */
static void put_in_unit(FILE *f, const char *text, const var_unit *unit)
{
    uint64_t base;
    unit->parse(text, &base);
    fprintf(f, "%" PRIu64, base / unit->per_unit);
    uint64_t rest = base % unit->per_unit;
    if (!rest)
        return;
    fputc('.', f);
    for (uint64_t step = unit->per_unit / 10; rest; step /= 10) {
        fputc((int)('0' + rest / step), f);
        rest %= step;
    }
}

/* The header cells "<member>.<key>[<unit suffix>]" of member_keys. */
static void put_member_heads(FILE *f, const char *member, const char **keys,
                             const var_unit *const units[], size_t n)
{
    for (size_t k = 0; k < n; k++) {
        char head[512];
        snprintf(head, sizeof head, "%s.%s%s", member, keys[k],
                 units[k] ? units[k]->suffix : "");
        fputc(',', f);
        put_text(f, head);
    }
}

/* The cells of `item`'s `member` object under member_keys. */
static void put_member_cells(FILE *f, json_t *item, const char *member, const char **keys,
                             const var_unit *const units[], size_t n)
{
    for (size_t k = 0; k < n; k++) {
        json_t *v = json_object_get(json_object_get(item, member), keys[k]);
        fputc(',', f);
        if (units[k] && json_is_string(v))
            put_in_unit(f, json_string_value(v), units[k]);
        else
            put_cell(f, v);
    }
}

/* The columns' units (column_unit) of member_keys; a new array. */
static const var_unit **member_units(json_t *items, const char *member, const char **keys,
                                     size_t n)
{
    const var_unit **units = malloc((n ? n : 1) * sizeof *units);
    for (size_t k = 0; units && k < n; k++)
        units[k] = column_unit(items, member, keys[k]);
    return units;
}

int results_write_runs_csv(FILE *f, const json_t *doc)
{
    json_t *runs = json_object_get(doc, "runs"), *r;
    size_t nvars, i;
    const char **vars = member_keys(runs, "vars", &nvars);
    const var_unit **units = vars ? member_units(runs, "vars", vars, nvars) : NULL;
    if (!units) {
        free(vars);
        return -1;
    }
    for (size_t c = 0; c < N_RUN_COLUMNS; c++)
        fprintf(f, "%s%s", c ? "," : "", run_columns[c].name);
    put_member_heads(f, "vars", vars, units, nvars);
    fputc('\n', f);
    json_array_foreach(runs, i, r) {
        json_t *summary = json_object_get(r, "summary");
        for (size_t c = 0; c < N_RUN_COLUMNS; c++) {
            if (c)
                fputc(',', f);
            put_cell(f, json_object_get(run_columns[c].in_summary ? summary : r,
                                        run_columns[c].name));
        }
        put_member_cells(f, r, "vars", vars, units, nvars);
        fputc('\n', f);
    }
    free(units);
    free(vars);
    return finish(f);
}

int results_write_requests_csv(FILE *f, const json_t *doc)
{
    /* every request of every run, for the field columns */
    json_t *all = json_array(), *r, *q;
    size_t i, k, nfields;
    json_array_foreach(json_object_get(doc, "runs"), i, r)
        json_array_extend(all, json_object_get(r, "requests"));
    const char **fields = member_keys(all, "fields", &nfields);
    const var_unit **units = fields ? member_units(all, "fields", fields, nfields) : NULL;
    if (!units) {
        free(fields);
        json_decref(all);
        return -1;
    }
    for (size_t c = 0; c < N_REQUEST_COLUMNS; c++)
        fprintf(f, "%s%s", c ? "," : "", request_columns[c]);
    put_member_heads(f, "fields", fields, units, nfields);
    fputc('\n', f);
    json_array_foreach(json_object_get(doc, "runs"), i, r) {
        json_t *id = json_object_get(r, "id");
        json_array_foreach(json_object_get(r, "requests"), k, q) {
            put_cell(f, id);
            for (size_t c = 1; c < N_REQUEST_COLUMNS; c++) {
                fputc(',', f);
                put_cell(f, json_object_get(q, request_columns[c]));
            }
            put_member_cells(f, q, "fields", fields, units, nfields);
            fputc('\n', f);
        }
    }
    free(units);
    free(fields);
    json_decref(all);
    return finish(f);
}
