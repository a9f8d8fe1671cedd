/*
 * test_results_format.c - `mortar results --json` and `--csv`
 * (cli/db/results_format.c): reals printed without binary noise, CSV that
 * parses back with its header and one row per run (or per request), JSON
 * with its schema version and the requests on request, and the flags'
 * usage errors. The database is made with the db.h calls `mortar run`
 * uses; no QEMU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "cli_util.h"
#include "db.h"
#include "results_format.h"

#define RUN_COLUMNS                                                                    \
    "id,name,status,requests,verified,median_us,p99_us,mean_us,min_us,max_us,"         \
    "throughput_rps,wall_s,lost,started_at,run_dir,error,vars.design,vars.inflight," \
    "vars.link_gbps,vars.pcie.latency_us,vars.speed"
#define REQUEST_COLUMNS \
    "run_id,idx,start_ns,latency_ns,verified,fields.device_compute_ns,fields.service_ns"

/* ---- a database with three runs ------------------------------------------------- */

typedef struct fixture {
    char dir[64], db[128];
} fixture;

/* Run 1: ok, three requests whose summary has binary noise in every
 * double; run 2: failed, with a name that needs quoting; run 3: running. */
static void make_db(fixture *fx)
{
    snprintf(fx->dir, sizeof fx->dir, "%s", scratch_dir());
    snprintf(fx->db, sizeof fx->db, "%s/results.db", fx->dir);
    sqlite3 *db;
    char err[512];
    if (db_open(&db, fx->db, err, sizeof err))
        fail_msg("%s", err);
    /* run 2 lacks a variable the others have */
    json_t *spec_a = json_pack("{s:{s:s, s:s, s:f, s:i, s:s}}", "vars", "design", "a",
                               "pcie.latency", "500ns", "speed", 0.1 + 0.2, "inflight", 1,
                               "link", "25Gbps");
    json_t *spec_b = json_pack("{s:{s:s, s:s, s:i}}", "vars", "design", "b", "pcie.latency",
                               "2.5us", "speed", 1);
    json_t *spec_c = json_pack("{s:{s:s, s:s, s:i, s:i, s:s}}", "vars", "design", "a",
                               "pcie.latency", "1us", "speed", 2, "inflight", 8, "link",
                               "2500Mbps");
    db_run_info a = {.name = "design-a", .run_dir = "/tmp/r1", .spec = spec_a};
    db_run_info b = {.name = "odd, \"quoted\" name", .run_dir = "/tmp/r2", .spec = spec_b};
    db_run_info c = {.name = "still-running", .run_dir = "/tmp/r3", .spec = spec_c};
    int64_t ids[3] = {db_begin_run(db, &a), db_begin_run(db, &b), db_begin_run(db, &c)};
    assert_true(ids[0] == 1 && ids[1] == 2 && ids[2] == 3);
    /* request 1's fields unknown */
    json_t *f0 = json_pack("{s:i, s:i}", "service_ns", 2000000, "device_compute_ns", 1920000);
    json_t *f2 = json_pack("{s:i, s:i}", "service_ns", 2000100, "device_compute_ns", 1920000);
    db_request reqs[3] = {
        {.idx = 0, .latency_ns = 2431800, .start_ns = 0, .verified = 1, .fields = f0},
        {.idx = 1, .latency_ns = 2431900, .start_ns = 2500000, .verified = 1},
        {.idx = 2, .latency_ns = 2431701, .start_ns = 5000000, .verified = 0, .fields = f2}};
    db_summary sum = {.requests = 3,
                      .verified = 2,
                      .median_us = 2431800 / 1000.0, /* 2431.7999999999997 */
                      .p99_us = 2431900 / 1000.0,
                      .mean_us = (2431800.0 + 2431900 + 2431701) / 3 / 1000,
                      .min_us = 2431701 / 1000.0,
                      .max_us = 2431900 / 1000.0,
                      .throughput_rps = 3 / 0.0074317};
    json_t *versions = json_pack("{s:s}", "mortar", "test");
    assert_int_equal(db_finish_run(db, ids[0], "ok", NULL, 0.1 + 0.2 + 0.4, versions,
                                   NULL, reqs, 3, &sum),
                     0);
    assert_int_equal(db_finish_run(db, ids[1], "failed", "the server, said \"no\"\nbye",
                                   1.1, versions, NULL, NULL, 0, &(db_summary){0}),
                     0);
    json_decref(versions);
    json_decref(f0);
    json_decref(f2);
    json_decref(spec_a);
    json_decref(spec_b);
    json_decref(spec_c);
    sqlite3_close(db);
}

/* `mortar results ARGS` on the fixture's database: its exit status, and
 * its stdout in *out (free it). */
static int results_cli(const fixture *fx, const char *args, char **out)
{
    char cmd[1024], path[160];
    snprintf(path, sizeof path, "%s/stdout.txt", fx->dir);
    snprintf(cmd, sizeof cmd, "'%s/mortar' results --db '%s' %s >'%s' 2>/dev/null",
             bin_dir(), fx->db, args, path);
    int st = system(cmd);
    *out = read_text(path);
    assert_non_null(*out);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* ---- parsing CSV back (RFC 4180) ------------------------------------------------ */

#define MAX_FIELDS 32
#define MAX_ROWS   16

typedef struct csv_table {
    char *cell[MAX_ROWS][MAX_FIELDS];
    size_t ncols[MAX_ROWS], nrows;
} csv_table;

/* Parses `text` into `t` (cells are malloc'd); fails the test on a
 * malformed quote. */
static void parse_csv(const char *text, csv_table *t)
{
    memset(t, 0, sizeof *t);
    const char *p = text;
    while (*p) {
        assert_true(t->nrows < MAX_ROWS);
        size_t r = t->nrows++;
        for (;;) {
            char buf[512];
            size_t n = 0;
            if (*p == '"') {
                for (p++;; p++) {
                    if (!*p)
                        fail_msg("unterminated quoted field");
                    if (*p == '"' && p[1] == '"')
                        p++;
                    else if (*p == '"') {
                        p++;
                        break;
                    }
                    assert_true(n + 1 < sizeof buf);
                    buf[n++] = *p;
                }
            } else {
                while (*p && *p != ',' && *p != '\n') {
                    assert_true(n + 1 < sizeof buf);
                    buf[n++] = *p++;
                }
            }
            buf[n] = '\0';
            assert_true(t->ncols[r] < MAX_FIELDS);
            t->cell[r][t->ncols[r]++] = strdup(buf);
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p == '\n')
                p++;
            else if (*p)
                fail_msg("junk after a quoted field: %.20s", p);
            break;
        }
    }
}

static void free_csv(csv_table *t)
{
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols[r]; c++)
            free(t->cell[r][c]);
}

/* The cell of row `r` under the header `name`. */
static const char *cell(const csv_table *t, size_t r, const char *name)
{
    for (size_t c = 0; c < t->ncols[0]; c++)
        if (!strcmp(t->cell[0][c], name))
            return t->cell[r][c];
    fail_msg("no column %s", name);
    return NULL;
}

static void join_header(const csv_table *t, char *out, size_t size)
{
    out[0] = '\0';
    for (size_t c = 0; c < t->ncols[0]; c++) {
        if (c)
            strncat(out, ",", size - strlen(out) - 1);
        strncat(out, t->cell[0][c], size - strlen(out) - 1);
    }
}

/* ---- binary noise --------------------------------------------------------------- */

/* Fails when a number in `text` (outside strings) has 10 or more
 * significant digits: the output's numbers are at most microseconds with
 * three decimals below 10^6, so more digits can only be binary noise. */
static void expect_no_noisy_number(const char *text)
{
    bool in_string = false;
    for (const char *p = text; *p; p++) {
        if (*p == '"' && (p == text || p[-1] != '\\'))
            in_string = !in_string;
        if (in_string || !(isdigit((unsigned char)*p) || *p == '.'))
            continue;
        if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '/'))
            continue; /* part of a word or a path */
        const char *start = p;
        int digits = 0;
        bool leading = true;
        for (; isdigit((unsigned char)*p) || *p == '.'; p++) {
            if (*p == '.')
                continue;
            if (leading && *p == '0')
                continue;
            leading = false;
            digits++;
        }
        if (digits >= 10)
            fail_msg("a number with binary noise: %.*s", (int)(p - start), start);
        p--;
    }
}

/* ---- tests ---------------------------------------------------------------------- */

static void test_reals_print_as_their_shortest_rounded_decimal(void **state)
{
    (void)state;
    char s[64];
    results_format_real(2431800 / 1000.0, s, sizeof s);
    assert_string_equal(s, "2431.8");
    results_format_real(0.1 + 0.2, s, sizeof s);
    assert_string_equal(s, "0.3");
    results_format_real((2431800.0 + 2431900 + 2431701) / 3 / 1000, s, sizeof s);
    assert_string_equal(s, "2431.8");
    results_format_real(1920.0, s, sizeof s);
    assert_string_equal(s, "1920");
    results_format_real(0.25, s, sizeof s);
    assert_string_equal(s, "0.25");
    results_format_real(2431.8337, s, sizeof s);
    assert_string_equal(s, "2431.834");
    results_format_real(-0.0001, s, sizeof s);
    assert_string_equal(s, "0");
    results_format_real(-12.5, s, sizeof s);
    assert_string_equal(s, "-12.5");
    results_format_real(0.0 / 0.0, s, sizeof s);
    assert_string_equal(s, "");
}

static void test_csv_parses_back_with_its_header_and_a_row_per_run(void **state)
{
    (void)state;
    fixture fx;
    make_db(&fx);
    char *out;
    assert_int_equal(results_cli(&fx, "--csv", &out), 0);
    csv_table t;
    parse_csv(out, &t);
    char header[1024];
    join_header(&t, header, sizeof header);
    assert_string_equal(header, RUN_COLUMNS);
    assert_int_equal(t.nrows, 1 + 3);
    for (size_t r = 1; r < t.nrows; r++)
        assert_int_equal(t.ncols[r], t.ncols[0]);
    assert_string_equal(cell(&t, 1, "id"), "1");
    assert_string_equal(cell(&t, 1, "status"), "ok");
    assert_string_equal(cell(&t, 1, "median_us"), "2431.8");
    /* a duration in microseconds and a bandwidth in Gbps whatever unit the
     * run gave, as numbers, the unit in the header; a plain real rounded */
    assert_string_equal(cell(&t, 1, "vars.pcie.latency_us"), "0.5");
    assert_string_equal(cell(&t, 2, "vars.pcie.latency_us"), "2.5");
    assert_string_equal(cell(&t, 3, "vars.pcie.latency_us"), "1");
    assert_string_equal(cell(&t, 1, "vars.link_gbps"), "25");
    assert_string_equal(cell(&t, 2, "vars.link_gbps"), "");
    assert_string_equal(cell(&t, 3, "vars.link_gbps"), "2.5");
    assert_string_equal(cell(&t, 1, "vars.speed"), "0.3");
    assert_string_equal(cell(&t, 2, "vars.inflight"), ""); /* run 2 has none */
    assert_string_equal(cell(&t, 1, "requests"), "3");
    assert_string_equal(cell(&t, 1, "verified"), "2");
    assert_string_equal(cell(&t, 1, "wall_s"), "0.7");
    assert_string_equal(cell(&t, 2, "name"), "odd, \"quoted\" name");
    assert_string_equal(cell(&t, 2, "error"), "the server, said \"no\"\nbye");
    assert_string_equal(cell(&t, 3, "status"), "running");
    assert_string_equal(cell(&t, 3, "median_us"), ""); /* nothing measured yet */
    assert_string_equal(cell(&t, 3, "vars.inflight"), "8");
    expect_no_noisy_number(out);
    free_csv(&t);
    free(out);
    remove_tree(fx.dir);
}

/* The columns a line takes on a terminal: its characters, not its bytes
 * (µs and × take two bytes each). */
static int columns_of(const char *line, size_t bytes)
{
    int n = 0;
    for (size_t i = 0; i < bytes && line[i]; i++)
        n += ((unsigned char)line[i] & 0xC0) != 0x80;
    return n;
}

/* Every run's line of the table (not the error and lost lines under it,
 * which begin with spaces) takes as many columns as its header: the
 * columns stay aligned however many bytes a unit's symbol takes. */
static void assert_table_aligned(const char *out)
{
    const char *end = strchr(out, '\n');
    assert_non_null(end);
    int width = columns_of(out, (size_t)(end - out)), rows = 0;
    for (const char *line = end + 1; *line; line = end + 1) {
        end = strchr(line, '\n');
        assert_non_null(end);
        if (isdigit((unsigned char)line[3]) && !strncmp(line + 4, "  ", 2)) {
            if (columns_of(line, (size_t)(end - line)) != width)
                fail_msg("'%.*s' takes %d columns, its header %d", (int)(end - line), line,
                         columns_of(line, (size_t)(end - line)), width);
            rows++;
        }
    }
    assert_int_equal(rows, 3);
}

static void test_csv_with_requests_has_a_row_per_request(void **state)
{
    (void)state;
    fixture fx;
    make_db(&fx);
    char *out;
    assert_int_equal(results_cli(&fx, "--csv --requests", &out), 0);
    csv_table t;
    parse_csv(out, &t);
    char header[256];
    join_header(&t, header, sizeof header);
    assert_string_equal(header, REQUEST_COLUMNS);
    assert_int_equal(t.nrows, 1 + 3); /* run 1's requests; the others have none */
    assert_string_equal(cell(&t, 1, "run_id"), "1");
    assert_string_equal(cell(&t, 2, "idx"), "1");
    assert_string_equal(cell(&t, 2, "latency_ns"), "2431900");
    assert_string_equal(cell(&t, 2, "fields.service_ns"), ""); /* not measured */
    assert_string_equal(cell(&t, 3, "fields.device_compute_ns"), "1920000");
    assert_string_equal(cell(&t, 3, "verified"), "0");
    assert_string_equal(cell(&t, 3, "start_ns"), "5000000");
    free_csv(&t);
    free(out);
    /* --requests needs a format, and there is one format at a time */
    assert_int_equal(results_cli(&fx, "--requests", &out), 2);
    free(out);
    assert_int_equal(results_cli(&fx, "--json --csv", &out), 2);
    free(out);
    assert_int_equal(results_cli(&fx, "", &out), 0); /* the table is unchanged */
    assert_non_null(strstr(out, "design-a"));
    assert_table_aligned(out);
    free(out);
    remove_tree(fx.dir);
}

static void test_json_has_its_schema_version_and_requests_on_request(void **state)
{
    (void)state;
    fixture fx;
    make_db(&fx);
    char *out;
    assert_int_equal(results_cli(&fx, "--json", &out), 0);
    json_error_t jerr;
    json_t *doc = json_loads(out, 0, &jerr);
    if (!doc)
        fail_msg("not JSON: %s", jerr.text);
    assert_int_equal(json_integer_value(json_object_get(doc, "schema_version")),
                     RESULTS_SCHEMA_VERSION);
    json_t *runs = json_object_get(doc, "runs");
    assert_int_equal(json_array_size(runs), 3);
    json_t *first = json_array_get(runs, 0);
    assert_null(json_object_get(first, "requests")); /* only with --requests */
    assert_true(json_real_value(json_object_get(json_object_get(first, "summary"),
                                                "median_us")) == 2431.8);
    expect_no_noisy_number(out);
    json_decref(doc);
    free(out);

    assert_int_equal(results_cli(&fx, "--json --requests", &out), 0);
    doc = json_loads(out, 0, &jerr);
    assert_non_null(doc);
    runs = json_object_get(doc, "runs");
    json_t *reqs = json_object_get(json_array_get(runs, 0), "requests");
    assert_int_equal(json_array_size(reqs), 3);
    json_t *second = json_array_get(reqs, 1);
    assert_int_equal(json_integer_value(json_object_get(second, "idx")), 1);
    assert_int_equal(json_integer_value(json_object_get(second, "latency_ns")), 2431900);
    assert_int_equal(json_object_size(json_object_get(second, "fields")), 0);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(json_array_get(reqs, 2), "fields"), "service_ns")),
                     2000100);
    assert_true(json_is_true(json_object_get(second, "verified")));
    assert_true(json_is_false(json_object_get(json_array_get(reqs, 2), "verified")));
    assert_int_equal(
        json_array_size(json_object_get(json_array_get(runs, 1), "requests")), 0);
    expect_no_noisy_number(out);
    json_decref(doc);
    free(out);
    remove_tree(fx.dir);
}

static void test_json_prints_no_binary_noise(void **state)
{
    (void)state;
    fixture fx;
    make_db(&fx);
    char *out;
    assert_int_equal(results_cli(&fx, "--json", &out), 0);
    expect_no_noisy_number(out);
    assert_non_null(strstr(out, "2431.8,")); /* the median, shortest */
    free(out);
    remove_tree(fx.dir);
}

/* A study over the runs of make_db in `dir` (its variants' specs are
 * read only for being there): design a or b, knobs L in µs and speed in ×,
 * requests in flight as its load. Returns its path. */
static const char *grid_study(const char *dir)
{
    static char path[256];
    char spec[256];
    for (const char *v = "ab"; *v; v++) {
        snprintf(spec, sizeof spec, "%s/%c.json", dir, *v);
        write_text(spec, "{}\n");
    }
    snprintf(path, sizeof path, "%s/grid.json", dir);
    write_text(
        path,
        "{\"name\": \"grid\",\n"
        " \"variants\": {\"axis\": \"design\", \"compare\": [\"a\", \"b\"],\n"
        "              \"values\": {\"a\": {\"spec\": \"a.json\"}, \"b\": {\"spec\": \"b.json\"}}},\n"
        " \"knobs\": {\"pcie.latency\": {\"label\": \"L\", \"unit\": \"us\", \"values\": [\"1us\", \"2.5us\"]},\n"
        "           \"speed\": {\"label\": \"speed\", \"unit\": \"x\", \"values\": [1, 2]}},\n"
        " \"load\": {\"knob\": \"inflight\", \"label\": \"in flight\", \"values\": [1, 8]},\n"
        " \"metric\": {\"name\": \"latency\", \"unit\": \"ns\", \"better\": \"lower\",\n"
        "            \"report\": {\"id\": \"req\", \"value\": \"latency_ns\", \"start\": \"start_ns\",\n"
        "                       \"verified\": \"verified\"}},\n"
        " \"parts\": [{\"description\": \"the grid\", \"variants\": [\"a\", \"b\"],\n"
        "            \"grid\": {\"pcie.latency\": [\"1us\", \"2.5us\"], \"speed\": [1, 2]}}]}\n");
    return path;
}

/* The table's variable columns are the study's: its axis (left-aligned,
 * at least 8 wide), each knob as
 * "label(unit)" with the unit's symbol as the verdict's tables write it
 * and values shown without that unit, the load axis; "-" where a run has
 * no such variable. */
static void test_the_tables_columns_are_the_studys_axis_and_knobs(void **state)
{
    (void)state;
    fixture fx;
    make_db(&fx);
    char *out, study_arg[512];
    snprintf(study_arg, sizeof study_arg, "--study '%s'", grid_study(fx.dir));
    assert_int_equal(results_cli(&fx, study_arg, &out), 0);
    assert_table_aligned(out);
    char *row2 = strstr(out, "\n   2  failed"), *row3 = strstr(out, "\n   3  running");
    assert_non_null(row2);
    assert_non_null(row3);
    *strchr(row2 + 1, '\n') = *strchr(row3 + 1, '\n') = '\0';
    const char *header = strtok(out, "\n");
    assert_non_null(strstr(header, " design "));
    assert_non_null(strstr(header, " L(\u00b5s) "));
    assert_non_null(strstr(header, " speed(\u00d7) "));
    assert_non_null(strstr(header, " in flight "));
    /* the measurements carry their unit as the knobs do */
    assert_non_null(strstr(header, " median(\u00b5s) "));
    assert_non_null(strstr(header, " p99(\u00b5s) "));
    /* run 2: 2.5us under L(µs), speed 1, no inflight variable */
    char want[256];
    snprintf(want, sizeof want, " %-8s %*s %*s %*s ", "b", (int)strlen("L(us)") /* as many columns as L(µs) */, "2.5",
             (int)strlen("speed(x)"), "1", (int)strlen("in flight"), "-");
    if (!strstr(row2, want))
        fail_msg("row 2 '%s' lacks '%s'", row2, want);
    snprintf(want, sizeof want, " %-8s %*s %*s %*s ", "a", (int)strlen("L(us)"), "1",
             (int)strlen("speed(x)"), "2", (int)strlen("in flight"), "8");
    if (!strstr(row3, want))
        fail_msg("row 3 '%s' lacks '%s'", row3, want);
    free(out);
    /* a study that cannot be read is an error */
    assert_int_equal(results_cli(&fx, "--study /nonexistent/study.json", &out), 1);
    free(out);
    remove_tree(fx.dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reals_print_as_their_shortest_rounded_decimal),
        cmocka_unit_test(test_csv_parses_back_with_its_header_and_a_row_per_run),
        cmocka_unit_test(test_csv_with_requests_has_a_row_per_request),
        cmocka_unit_test(test_json_has_its_schema_version_and_requests_on_request),
        cmocka_unit_test(test_json_prints_no_binary_noise),
        cmocka_unit_test(test_the_tables_columns_are_the_studys_axis_and_knobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
