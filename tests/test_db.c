/*
 * test_db.c - the results database's safety (cli/db*.c): its schema version
 * and the upgrade of a database made before it, a foreign SQLite file
 * refused untouched, read-only opening (no database made by a typo, a
 * database this user cannot write still read), one row per request, and a
 * final write that reports a busy database instead of losing the run. And
 * the module's rule: no other file of cli/ includes sqlite3.h, calls SQLite
 * or holds an SQL statement.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <sqlite3.h>

#include "db.h"
#include "db_query.h"
#include "db_step.h"
#include "request_summary.h"

typedef struct tmp {
    char dir[64], db[96];
} tmp;

static void make_tmp(tmp *t)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/test_db_XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    snprintf(t->db, sizeof t->db, "%s/results.db", t->dir);
}

static void remove_tmp(tmp *t)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
    assert_int_equal(system(cmd), 0);
}

/* Runs `sql` on `path` with a plain SQLite connection. */
static void raw_exec(const char *path, const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg);
    sqlite3_close(db);
}

static int64_t raw_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* The file's bytes, to compare before and after. */
static char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    rewind(f);
    char *b = malloc((size_t)*len + 1);
    assert_int_equal(fread(b, 1, (size_t)*len, f), (size_t)*len);
    fclose(f);
    return b;
}

/* The tables of the first releases, before losses, runs.lost,
 * runs.throughput_rps and requests.start_ns, with one finished run. */
static const char *const old_schema =
    "CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT, status TEXT, error TEXT,"
    " design TEXT, pcie_latency_us REAL, speed REAL, in_flight INTEGER, started_at TEXT,"
    " wall_s REAL, run_dir TEXT, spec TEXT, versions TEXT, requests INTEGER,"
    " verified INTEGER, median_us REAL, p99_us REAL, mean_us REAL, min_us REAL,"
    " max_us REAL);"
    "CREATE TABLE requests (run_id INTEGER REFERENCES runs(id), idx INTEGER,"
    " latency_ns INTEGER, verified INTEGER, service_ns INTEGER, compute_ns INTEGER);"
    "CREATE TABLE stats (run_id INTEGER REFERENCES runs(id), component TEXT, key TEXT,"
    " value REAL);"
    "CREATE INDEX requests_run ON requests(run_id);"
    "INSERT INTO runs(id, name, status, design, spec, run_dir, requests, verified,"
    " median_us) VALUES(1, 'old', 'ok', 'a', '{}', '/tmp/x', 2, 2, 12.5);"
    "INSERT INTO requests VALUES(1, 0, 12000, 1, 5000, 4000);"
    "INSERT INTO requests VALUES(1, 1, 13000, 1, 5000, 4000);";

static bool has_column(sqlite3 *db, const char *table, const char *column)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM pragma_table_info('%s') WHERE name='%s'",
             table, column);
    return raw_int(db, sql) == 1;
}

static void test_a_database_made_before_the_version_is_upgraded_in_place(void **state)
{
    (void)state;
    tmp t;
    make_tmp(&t);
    raw_exec(t.db, old_schema);
    /* a request whose service and compute were not measured */
    raw_exec(t.db, "INSERT INTO requests VALUES(1, 2, 14000, 1, -1, NULL)");
    sqlite3 *db;
    char err[512];
    if (db_open(&db, t.db, err, sizeof err))
        fail_msg("db_open: %s", err);
    assert_int_equal(raw_int(db, "PRAGMA user_version"), DB_VERSION);
    assert_int_equal(raw_int(db, "PRAGMA application_id"), DB_APPLICATION_ID);
    assert_true(has_column(db, "runs", "lost"));
    assert_true(has_column(db, "runs", "throughput_rps"));
    assert_true(has_column(db, "runs", "pid"));
    assert_true(has_column(db, "runs", "pid_start"));
    assert_true(has_column(db, "requests", "start_ns"));
    assert_true(has_column(db, "profiles", "wait_ns"));
    assert_false(has_column(db, "runs", "design")); /* run variables: run_vars */
    assert_false(has_column(db, "runs", "in_flight"));
    assert_true(has_column(db, "alone_runs", "result_us"));
    assert_int_equal(raw_int(db, "SELECT COUNT(*) FROM losses"), 0);
    /* the old run and its requests are kept, and read as before */
    json_t *all = db_runs_json(db);
    json_t *r = json_array_get(json_object_get(all, "runs"), 0);
    assert_string_equal(json_string_value(json_object_get(r, "name")), "old");
    assert_true(json_is_null(json_object_get(r, "lost")));
    json_decref(all);
    assert_int_equal(raw_int(db, "SELECT COUNT(*) FROM requests WHERE run_id=1"), 3);
    /* service_ns and compute_ns are request fields now, under the keys the
     * lines reported them with; the unknown ones are absent */
    assert_false(has_column(db, "requests", "service_ns"));
    assert_false(has_column(db, "requests", "compute_ns"));
    json_t *reqs = db_run_requests(db, 1);
    json_t *want = json_loads("{\"service_ns\": 5000, \"device_compute_ns\": 4000}", 0, NULL);
    assert_true(json_equal(json_object_get(json_array_get(reqs, 0), "fields"), want));
    assert_int_equal(json_object_size(json_object_get(json_array_get(reqs, 2), "fields")), 0);
    json_decref(want);
    json_decref(reqs);
    double median = 0;
    assert_int_equal(db_request_median_us(db, 1, "device_compute_ns", &median, err, sizeof err),
                     0);
    assert_true(median == 4.0);
    assert_int_equal(db_request_median_us(db, 1, "latency_ns", &median, err, sizeof err), 0);
    assert_true(median == 13.0);
    assert_int_equal(db_request_median_us(db, 1, "no_such_ns", &median, err, sizeof err), 0);
    assert_true(isnan(median));
    /* one row per request of a run */
    assert_int_not_equal(
        sqlite3_exec(db, "INSERT INTO requests(run_id, idx) VALUES(1, 1)", NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(db);
    /* opened again: nothing left to do */
    assert_int_equal(db_open(&db, t.db, err, sizeof err), 0);
    assert_int_equal(raw_int(db, "PRAGMA user_version"), DB_VERSION);
    sqlite3_close(db);
    remove_tmp(&t);
}

/* A run's recorded median (its summary) and the median the verdict and the
 * report read over its requests are the same rule (quantile.h): an even
 * count, recorded out of order, gives the mean of the two middle ones in
 * both; a field's median skips the requests that did not measure it. */
static void test_the_recorded_median_and_the_requests_median_agree(void **state)
{
    (void)state;
    tmp t;
    make_tmp(&t);
    sqlite3 *db;
    char err[512];
    assert_int_equal(db_open(&db, t.db, err, sizeof err), 0);
    json_t *spec = json_object();
    db_run_info info = {.name = "t", .run_dir = t.dir, .spec = spec};
    int64_t id = db_begin_run(db, &info);
    assert_true(id > 0);
    json_t *f[4] = {json_pack("{s:I}", "service_ns", (json_int_t)3000),
                    json_pack("{s:I}", "service_ns", (json_int_t)-1),
                    json_pack("{s:I}", "service_ns", (json_int_t)1000),
                    json_pack("{s:I}", "service_ns", (json_int_t)2000)};
    db_request reqs[4] = {{0, 9000, 0, 1, f[0]},
                          {1, 1001, 9000, 1, f[1]},
                          {2, 4000, 10001, 1, f[2]},
                          {3, 2500, 14001, 1, f[3]}};
    db_summary sum = request_summary(reqs, 4);
    assert_int_equal(db_finish_run(db, id, "ok", NULL, 1.0, NULL, NULL, reqs, 4, &sum), 0);
    json_t *all = db_runs_json(db);
    json_t *r = json_object_get(json_array_get(json_object_get(all, "runs"), 0), "summary");
    double recorded = json_number_value(json_object_get(r, "median_us"));
    assert_true(recorded == 3.25); /* (2500 + 4000) / 2 ns */
    assert_true(json_number_value(json_object_get(r, "p99_us")) == 9.0);
    double median = 0;
    assert_int_equal(db_request_median_us(db, id, "latency_ns", &median, err, sizeof err), 0);
    assert_true(median == recorded);
    assert_int_equal(db_request_median_us(db, id, "service_ns", &median, err, sizeof err), 0);
    assert_true(median == 2.0); /* of 1000, 2000, 3000: the unknown one left out */
    json_decref(all);
    for (int i = 0; i < 4; i++)
        json_decref(f[i]);
    json_decref(spec);
    sqlite3_close(db);
    remove_tmp(&t);
}

/* db_error_into: the last failure's message into a caller's buffer, cut
 * to fit, and -1 (the one copy of what db_query.c's fail() and seven
 * snprintf calls did). */
static void test_the_last_error_is_copied_into_the_callers_buffer(void **state)
{
    (void)state;
    char err[64] = "", small[8];
    db_fail_with("no such table: %s", "runz");
    assert_int_equal(db_error_into(err, sizeof err), -1);
    assert_string_equal(err, "no such table: runz");
    assert_int_equal(db_error_into(small, sizeof small), -1);
    assert_string_equal(small, "no such");
}

static json_t *first_two_columns(sqlite3_stmt *st)
{
    if (sqlite3_column_type(st, 0) == SQLITE_NULL)
        return NULL; /* left out */
    return json_pack("[o, o]", db_column_json(st, 0), db_column_json(st, 1));
}

/* db_column_json and db_collect_rows: one reading of a row as JSON for
 * db_runs.c and db_alone.c (each had its own column_json, and db_alone.c
 * its own copy of the row loop). */
static void test_rows_are_collected_as_json_with_their_types(void **state)
{
    (void)state;
    sqlite3 *db;
    assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
    sqlite3_stmt *st;
    const char *sql = "SELECT 7, 2.5 UNION ALL SELECT 'a', NULL UNION ALL SELECT NULL, 1"
                      " UNION ALL SELECT x'00', -1";
    assert_int_equal(db_prepare(db, sql, &st), 0);
    json_t *rows = db_collect_rows(st, json_array(), first_two_columns);
    json_t *want = json_loads("[[7, 2.5], [\"a\", null], [null, -1]]", 0, NULL);
    assert_non_null(rows);
    assert_true(json_equal(rows, want)); /* the NULL row left out, a blob null */
    json_decref(want);
    json_decref(rows);
    /* a step that fails: NULL, the array freed (ASan would tell) */
    assert_int_equal(db_prepare(db, "SELECT abs(-9223372036854775807 - 1)", &st), 0);
    assert_null(db_collect_rows(st, json_array(), first_two_columns));
    assert_string_equal(db_last_error(), "integer overflow");
    sqlite3_close(db);
}

static void test_a_version_2_database_gains_the_profiles_table(void **state)
{
    (void)state;
    tmp t;
    make_tmp(&t);
    sqlite3 *db;
    char err[512];
    assert_int_equal(db_open(&db, t.db, err, sizeof err), 0);
    json_t *spec = json_object();
    db_run_info info = {.name = "before", .spec = spec, .run_dir = "/tmp/x"};
    int64_t id = db_begin_run(db, &info);
    assert_true(id > 0);
    json_decref(spec);
    sqlite3_close(db);
    /* as mortar left it at version 2: no profiles table */
    raw_exec(t.db, "DROP TABLE profiles; PRAGMA user_version=2");
    if (db_open(&db, t.db, err, sizeof err))
        fail_msg("db_open: %s", err);
    assert_int_equal(raw_int(db, "PRAGMA user_version"), DB_VERSION);
    assert_true(has_column(db, "profiles", "profile"));
    assert_int_equal(raw_int(db, "SELECT COUNT(*) FROM runs WHERE name='before'"), 1);
    /* the old run has no profile; a profile recorded now reads back */
    json_t *none = db_run_profile(db, id);
    assert_int_equal(json_array_size(none), 0);
    json_decref(none);
    json_t *p = json_loads("[{\"name\":\"h\",\"kind\":\"host\",\"host\":"
                           "{\"virtual_time_ps\":5}},{\"name\":\"s\",\"kind\":\"sim\","
                           "\"enabled\":true,\"wall_ns\":9,\"busy_ns\":4,\"wait_ns\":5,"
                           "\"sim_time_ps\":7,\"links\":[],\"components\":[]}]",
                           0, NULL);
    assert_int_equal(db_record_profile(db, id, p), 0);
    json_t *back = db_run_profile(db, id);
    assert_true(json_equal(back, p));
    assert_int_equal(raw_int(db, "SELECT busy_ns FROM profiles WHERE process='s'"), 4);
    assert_int_equal(raw_int(db, "SELECT sim_time_ps FROM profiles WHERE process='h'"), 5);
    assert_int_equal(raw_int(db, "SELECT wall_ns IS NULL FROM profiles WHERE process='h'"), 1);
    json_decref(back);
    json_decref(p);
    sqlite3_close(db);
    remove_tmp(&t);
}

static void test_a_version_3_database_gains_every_runs_variables(void **state)
{
    (void)state;
    tmp t;
    make_tmp(&t);
    sqlite3 *db;
    char err[512];
    assert_int_equal(db_open(&db, t.db, err, sizeof err), 0);
    json_t *spec = json_loads("{\"vars\": {\"design\": \"b\", \"speed\": 0.5, "
                              "\"inflight\": 4, \"trace\": true, \"list\": [1, 2]}}",
                              0, NULL);
    db_run_info info = {.name = "before", .spec = spec, .run_dir = "/tmp/x"};
    int64_t id = db_begin_run(db, &info);
    assert_true(id > 0);
    sqlite3_close(db);
    /* as mortar left it at version 3: no run_vars; plus a run whose stored
     * spec is not JSON and one without vars */
    raw_exec(t.db, "DROP TABLE run_vars; PRAGMA user_version=3;"
                   "INSERT INTO runs(name, status, spec) VALUES('broken', 'ok', 'not json');"
                   "INSERT INTO runs(name, status, spec) VALUES('plain', 'ok', '{}');");
    if (db_open(&db, t.db, err, sizeof err))
        fail_msg("db_open: %s", err);
    assert_int_equal(raw_int(db, "PRAGMA user_version"), DB_VERSION);
    /* the old run's variables, from its stored spec, with their types */
    json_t *vars = db_run_vars(db, id);
    json_t *want = json_loads("{\"design\": \"b\", \"speed\": 0.5, \"inflight\": 4, "
                              "\"trace\": 1, \"list\": \"[1,2]\"}",
                              0, NULL);
    assert_true(json_equal(vars, want));
    json_decref(vars);
    assert_int_equal(raw_int(db, "SELECT COUNT(*) FROM run_vars"), 5);
    /* a run recorded now stores the same */
    id = db_begin_run(db, &info);
    assert_true(id > 0);
    vars = db_run_vars(db, id);
    assert_true(json_equal(vars, want));
    json_decref(vars);
    /* and runs can be selected by any variable */
    assert_int_equal(raw_int(db, "SELECT COUNT(*) FROM run_vars WHERE name='speed'"
                                 " AND value=0.5"),
                     2);
    json_t *all = db_runs_json(db);
    json_t *last = json_array_get(json_object_get(all, "runs"), 3);
    assert_true(json_equal(json_object_get(last, "vars"), want));
    json_decref(all);
    json_decref(want);
    json_decref(spec);
    sqlite3_close(db);
    remove_tmp(&t);
}

/* Version 4 kept four run variables as columns of runs too (design,
 * pcie_latency_us, speed, in_flight): version 5 drops them, run_vars keeps
 * every variable, and the runs read as before but for those keys. */
static void test_a_version_4_database_loses_the_variable_columns_of_runs(void **state)
{
    (void)state;
    tmp t;
    make_tmp(&t);
    sqlite3 *db;
    char err[512];
    assert_int_equal(db_open(&db, t.db, err, sizeof err), 0);
    json_t *spec = json_loads("{\"vars\": {\"design\": \"b\", \"pcie.latency\": \"1.5us\","
                              " \"speed\": 0.5, \"inflight\": 4}}",
                              0, NULL);
    db_run_info info = {.name = "before", .spec = spec, .run_dir = "/tmp/x"};
    int64_t id = db_begin_run(db, &info);
    assert_true(id > 0);
    sqlite3_close(db);
    /* as mortar left it at version 4: the columns, filled; no alone_runs */
    raw_exec(t.db, "ALTER TABLE runs ADD COLUMN design TEXT;"
                   "ALTER TABLE runs ADD COLUMN pcie_latency_us REAL;"
                   "ALTER TABLE runs ADD COLUMN speed REAL;"
                   "ALTER TABLE runs ADD COLUMN in_flight INTEGER;"
                   "UPDATE runs SET design='b', pcie_latency_us=1.5, speed=0.5, in_flight=4;"
                   "DROP TABLE alone_runs; PRAGMA user_version=4;");
    if (db_open(&db, t.db, err, sizeof err))
        fail_msg("db_open: %s", err);
    assert_int_equal(raw_int(db, "PRAGMA user_version"), DB_VERSION);
    const char *gone[] = {"design", "pcie_latency_us", "speed", "in_flight"};
    for (int i = 0; i < 4; i++)
        assert_false(has_column(db, "runs", gone[i]));
    assert_true(has_column(db, "runs", "private_dir"));
    json_t *vars = db_run_vars(db, id);
    assert_true(json_equal(vars, json_object_get(spec, "vars")));
    json_decref(vars);
    json_t *all = db_runs_json(db);
    json_t *r = json_array_get(json_object_get(all, "runs"), 0);
    assert_string_equal(json_string_value(json_object_get(r, "name")), "before");
    assert_null(json_object_get(r, "design"));
    assert_true(json_equal(json_object_get(r, "vars"), json_object_get(spec, "vars")));
    json_decref(all);
    /* a run recorded now, and an alone run */
    assert_true(db_begin_run(db, &info) > id);
    db_alone_run alone = {.variant = "b", .command = "bench --speed 0.5", .status = "ok",
                          .output = "alone_us=5120.00\n", .result_us = 5120, .wall_s = 1};
    assert_true(db_record_alone_run(db, &alone) > 0);
    double us = 0;
    assert_int_equal(db_alone_result(db, "b", "bench --speed 0.5", &us, err, sizeof err), 1);
    assert_true(us == 5120);
    assert_int_equal(db_alone_result(db, "b", "bench --speed 1", &us, err, sizeof err), 0);
    json_decref(spec);
    sqlite3_close(db);
    remove_tmp(&t);
}

/* The newest ok alone run of a command is its result; failed ones are
 * kept but never read as a result. */
static void test_the_newest_ok_alone_run_is_the_result(void **state)
{
    (void)state;
    tmp t;
    make_tmp(&t);
    sqlite3 *db;
    char err[512];
    assert_int_equal(db_open(&db, t.db, err, sizeof err), 0);
    db_alone_run run = {.variant = "a", .command = "x", .status = "ok", .result_us = 1};
    assert_true(db_record_alone_run(db, &run) > 0);
    run.result_us = 2;
    assert_true(db_record_alone_run(db, &run) > 0);
    run = (db_alone_run){.variant = "a", .command = "x", .status = "failed", .error = "boom"};
    assert_true(db_record_alone_run(db, &run) > 0);
    double us = 0;
    assert_int_equal(db_alone_result(db, "a", "x", &us, err, sizeof err), 1);
    assert_true(us == 2);
    assert_int_equal(db_alone_result(db, "b", "x", &us, err, sizeof err), 0);
    json_t *all = db_alone_runs_json(db);
    assert_int_equal(json_array_size(all), 3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(all, 2), "error")),
                        "boom");
    assert_true(json_is_null(json_object_get(json_array_get(all, 2), "result_us")));
    json_decref(all);
    assert_string_equal(db_file_name(db), t.db);
    sqlite3_close(db);
    remove_tmp(&t);
}

static void test_a_read_only_command_upgrades_an_old_database_and_reads_it(void **state)
{
    (void)state;
    tmp t;
    make_tmp(&t);
    raw_exec(t.db, old_schema);
    sqlite3 *db;
    char err[512];
    if (db_open_read(&db, t.db, err, sizeof err))
        fail_msg("db_open_read: %s", err);
    assert_int_equal(raw_int(db, "PRAGMA user_version"), DB_VERSION);
    assert_int_equal(raw_int(db, "SELECT COUNT(*) FROM runs"), 1);
    /* and it is read-only */
    assert_int_not_equal(sqlite3_exec(db, "DELETE FROM runs", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    remove_tmp(&t);
}

static void test_a_foreign_sqlite_file_is_refused_untouched(void **state)
{
    (void)state;
    tmp t;
    make_tmp(&t);
    raw_exec(t.db, "CREATE TABLE runs (x INTEGER); CREATE TABLE notes (text TEXT);"
                   "INSERT INTO notes VALUES('mine');");
    long len0, len1;
    char *before = slurp(t.db, &len0);
    sqlite3 *db;
    char err[512], wal[128];
    assert_int_equal(db_open(&db, t.db, err, sizeof err), -1);
    assert_null(db);
    assert_non_null(strstr(err, "not a mortar results database"));
    assert_int_equal(db_open_read(&db, t.db, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a mortar results database"));
    char *after = slurp(t.db, &len1);
    assert_int_equal(len0, len1);
    assert_memory_equal(before, after, (size_t)len0);
    snprintf(wal, sizeof wal, "%s-wal", t.db);
    assert_int_not_equal(access(wal, F_OK), 0); /* no switch to WAL */
    free(before);
    free(after);
    /* one with a version of its own (another program's user_version) too */
    raw_exec(t.db, "PRAGMA user_version=7");
    assert_int_equal(db_open(&db, t.db, err, sizeof err), -1);
    remove_tmp(&t);
}

static void test_a_database_of_a_newer_mortar_is_refused(void **state)
{
    (void)state;
    tmp t;
    make_tmp(&t);
    sqlite3 *db;
    char err[512], sql[128];
    assert_int_equal(db_open(&db, t.db, err, sizeof err), 0);
    sqlite3_close(db);
    snprintf(sql, sizeof sql, "PRAGMA user_version=%d", DB_VERSION + 1);
    raw_exec(t.db, sql);
    assert_int_equal(db_open(&db, t.db, err, sizeof err), -1);
    assert_non_null(strstr(err, "newer mortar"));
    assert_int_equal(db_open_read(&db, t.db, err, sizeof err), -1);
    remove_tmp(&t);
}

static void test_reading_a_missing_database_is_an_error_and_creates_nothing(void **state)
{
    (void)state;
    tmp t;
    make_tmp(&t);
    sqlite3 *db;
    char err[512];
    assert_int_equal(db_open_read(&db, t.db, err, sizeof err), -1);
    assert_non_null(strstr(err, "no results database"));
    assert_int_not_equal(access(t.db, F_OK), 0);
    remove_tmp(&t);
}

static int64_t add_run(sqlite3 *db)
{
    json_t *spec = json_object();
    db_run_info info = {.name = "t", .run_dir = "/tmp", .spec = spec};
    int64_t id = db_begin_run(db, &info);
    json_decref(spec);
    assert_true(id > 0);
    return id;
}

/* In a child that cannot write the database (as nobody when root, else with
 * the directory and file read-only): reads it. Returns the child's status. */
static int read_as_reader(const char *dir, const char *path)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (geteuid() == 0) {
            if (setgid(65534) || setuid(65534))
                _exit(90);
        } else {
            chmod(path, 0444);
            chmod(dir, 0555);
        }
        if (access(path, W_OK) == 0)
            _exit(91); /* the test would prove nothing */
        sqlite3 *db;
        char err[512];
        if (db_open_read(&db, path, err, sizeof err)) {
            fprintf(stderr, "db_open_read: %s\n", err);
            _exit(1);
        }
        json_t *all = db_runs_json(db);
        size_t n = json_array_size(json_object_get(all, "runs"));
        json_decref(all);
        sqlite3_close(db);
        _exit(n == 2 ? 0 : 2);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    chmod(dir, 0700);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void test_a_database_this_user_cannot_write_is_still_read(void **state)
{
    (void)state;
    tmp t;
    make_tmp(&t);
    sqlite3 *db;
    char err[512];
    assert_int_equal(db_open(&db, t.db, err, sizeof err), 0);
    add_run(db);
    add_run(db);
    sqlite3_close(db);
    chmod(t.dir, 0755);
    chmod(t.db, 0644);
    assert_int_equal(read_as_reader(t.dir, t.db), 0);
    remove_tmp(&t);
}

static void test_a_final_write_into_a_busy_database_fails_and_changes_nothing(void **state)
{
    (void)state;
    tmp t;
    make_tmp(&t);
    sqlite3 *db, *other;
    char err[512];
    assert_int_equal(db_open(&db, t.db, err, sizeof err), 0);
    int64_t id = add_run(db);
    assert_int_equal(db_open(&other, t.db, err, sizeof err), 0);
    assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, 50);
    db_request reqs[2] = {{.idx = 0, .latency_ns = 1000, .verified = 1},
                          {.idx = 1, .latency_ns = 2000, .verified = 1}};
    db_summary sum = {.requests = 2, .verified = 2, .median_us = 1.5};
    assert_int_equal(db_finish_run(db, id, "ok", NULL, 1.0, NULL, NULL, reqs, 2, &sum), -1);
    sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL);
    assert_int_equal(raw_int(db, "SELECT COUNT(*) FROM runs WHERE status='running'"), 1);
    assert_int_equal(raw_int(db, "SELECT COUNT(*) FROM requests"), 0);
    /* free again: it goes in, once */
    assert_int_equal(db_finish_run(db, id, "ok", NULL, 1.0, NULL, NULL, reqs, 2, &sum), 0);
    assert_int_equal(raw_int(db, "SELECT COUNT(*) FROM requests"), 2);
    assert_int_equal(db_finish_run(db, id, "ok", NULL, 1.0, NULL, NULL, reqs, 2, &sum), -1);
    assert_int_equal(raw_int(db, "SELECT COUNT(*) FROM requests"), 2);
    sqlite3_close(other);
    sqlite3_close(db);
    remove_tmp(&t);
}

/* The database module: db.c, db.h and the db_*.c and db_*.h files. */
static bool in_database_module(const char *name)
{
    return !strcmp(name, "db.c") || !strcmp(name, "db.h") || !strncmp(name, "db_", 3);
}

static bool is_source(const char *name)
{
    size_t n = strlen(name);
    return n > 2 && name[n - 2] == '.' && (name[n - 1] == 'c' || name[n - 1] == 'h');
}

/* The first sign of SQLite or SQL in `text`, or NULL. */
static const char *sql_sign_in(const char *text)
{
    static const char *const signs[] = {
        "sqlite3.h",       "sqlite3_",    "SQLITE_",  "SELECT ",     "INSERT ",
        "UPDATE ",         "DELETE FROM", "CREATE ",  "ALTER TABLE", "DROP ",
        "BEGIN IMMEDIATE", "SAVEPOINT",   "RELEASE ", "ROLLBACK",    "PRAGMA "};
    for (size_t i = 0; i < sizeof signs / sizeof *signs; i++)
        if (strstr(text, signs[i]))
            return signs[i];
    return NULL;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = 0;
    fclose(f);
    return text;
}

/* Checks every source file under `dir` (its folders too), counting them
 * in *checked and those holding SQL outside the database module in
 * *offenders. */
static void check_sources_in(const char *dir, int *checked, int *offenders)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (e->d_name[0] != '.' && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            check_sources_in(path, checked, offenders);
            continue;
        }
        if (!is_source(e->d_name) || in_database_module(e->d_name))
            continue;
        char *text = read_text(path);
        const char *sign = sql_sign_in(text);
        if (sign) {
            print_error("%s holds \"%s\": SQL belongs in the database module"
                        " (cli/db/db*.c)\n",
                        path, sign);
            (*offenders)++;
        }
        free(text);
        (*checked)++;
    }
    closedir(d);
}

static void test_only_the_database_module_holds_sql(void **state)
{
    const char *src = getenv("MORTAR_SOURCE");
    assert_non_null(src);
    char dir_path[4096];
    snprintf(dir_path, sizeof dir_path, "%s/cli", src);
    int checked = 0, offenders = 0;
    check_sources_in(dir_path, &checked, &offenders);
    assert_true(checked > 10);
    assert_int_equal(offenders, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_database_made_before_the_version_is_upgraded_in_place),
        cmocka_unit_test(test_the_recorded_median_and_the_requests_median_agree),
        cmocka_unit_test(test_the_last_error_is_copied_into_the_callers_buffer),
        cmocka_unit_test(test_rows_are_collected_as_json_with_their_types),
        cmocka_unit_test(test_a_version_2_database_gains_the_profiles_table),
        cmocka_unit_test(test_a_version_3_database_gains_every_runs_variables),
        cmocka_unit_test(test_a_version_4_database_loses_the_variable_columns_of_runs),
        cmocka_unit_test(test_the_newest_ok_alone_run_is_the_result),
        cmocka_unit_test(test_a_read_only_command_upgrades_an_old_database_and_reads_it),
        cmocka_unit_test(test_a_foreign_sqlite_file_is_refused_untouched),
        cmocka_unit_test(test_a_database_of_a_newer_mortar_is_refused),
        cmocka_unit_test(test_reading_a_missing_database_is_an_error_and_creates_nothing),
        cmocka_unit_test(test_a_database_this_user_cannot_write_is_still_read),
        cmocka_unit_test(
            test_a_final_write_into_a_busy_database_fails_and_changes_nothing),
        cmocka_unit_test(test_only_the_database_module_holds_sql),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
