/*
 * test_run_record.c - a run's final record cannot be lost (cli/run/run_record.c):
 * with the database busy beyond its timeout the write fails, the record goes
 * to a file, and importing that file later completes the run exactly as the
 * write would have (the profile too); a damaged or repeated import is
 * refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sqlite3.h>

#include "db.h"
#include "proc_util.h"
#include "run_record.h"

typedef struct fixture {
    char dir[64], db_path[96], file[96];
    sqlite3 *db, *other;
    int64_t id;
} fixture;

static int64_t query_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void setup_fixture(fixture *f)
{
    snprintf(f->dir, sizeof f->dir, "/tmp/test_run_record_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->db_path, sizeof f->db_path, "%s/results.db", f->dir);
    snprintf(f->file, sizeof f->file, "%s/%s", f->dir, RUN_RECORD_FILE);
    char err[256];
    assert_int_equal(db_open(&f->db, f->db_path, err, sizeof err), 0);
    assert_int_equal(db_open(&f->other, f->db_path, err, sizeof err), 0);
    json_t *spec = json_object();
    db_run_info info = {.name = "t", .run_dir = f->dir, .spec = spec};
    f->id = db_begin_run(f->db, &info);
    json_decref(spec);
    assert_true(f->id > 0);
}

static void teardown_fixture(fixture *f)
{
    sqlite3_close(f->other);
    sqlite3_close(f->db);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    assert_int_equal(system(cmd), 0);
}

static const db_request reqs[3] = {
    {.idx = 0, .latency_ns = 9000, .start_ns = 0, .verified = 1},
    {.idx = 1, .latency_ns = 10000, .start_ns = 9500, .verified = 1},
    {.idx = 2, .latency_ns = 11000, .start_ns = 20000, .verified = 1}};

static run_record a_record(const fixture *f, json_t *stats, json_t *losses)
{
    return (run_record){.id = f->id, .status = "ok", .wall_s = 42.5, .stats = stats,
                        .losses = losses, .reqs = reqs, .nreqs = 3,
                        .summary = {.requests = 3, .verified = 3, .median_us = 10,
                                    .p99_us = 11, .mean_us = 10, .min_us = 9, .max_us = 11,
                                    .throughput_rps = 96774.19}};
}

static void test_a_busy_database_keeps_the_record_in_a_file_to_import(void **state)
{
    (void)state;
    fixture f;
    setup_fixture(&f);
    json_t *stats = json_pack("{s:{s:i}}", "nic", "rx_missed", 4);
    json_t *losses = json_pack("[{s:s, s:s, s:i}]", "source", "nic", "counter", "rx_missed",
                               "count", 4);
    run_record r = a_record(&f, stats, losses);
    json_t *profile = json_pack("[{s:s, s:s, s:{s:i}}]", "name", "h", "kind", "host", "host",
                                "virtual_time_ps", 5);
    r.profile = profile;
    /* another writer holds the database longer than the busy timeout */
    assert_int_equal(sqlite3_exec(f.other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_busy_timeout(f.db, 20);
    char err[256];
    assert_int_equal(run_record_write(f.db, &r, 2, f.file, err, sizeof err), 1);
    if (!strstr(err, "locked"))
        fail_msg("the error does not say the database is locked: %s", err);
    assert_int_equal(access(f.file, R_OK), 0);
    assert_int_equal(sqlite3_exec(f.other, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(query_int(f.db, "SELECT COUNT(*) FROM runs WHERE status='running'"), 1);
    assert_int_equal(query_int(f.db, "SELECT COUNT(*) FROM requests"), 0);
    /* later: the import completes the run */
    int64_t id = 0;
    if (run_record_import(f.db, f.file, &id, err, sizeof err))
        fail_msg("import: %s", err);
    assert_int_equal(id, f.id);
    assert_int_equal(query_int(f.db, "SELECT COUNT(*) FROM runs WHERE status='ok'"), 1);
    assert_int_equal(query_int(f.db, "SELECT COUNT(*) FROM requests"), 3);
    assert_int_equal(query_int(f.db, "SELECT SUM(start_ns) FROM requests"), 29500);
    assert_int_equal(query_int(f.db, "SELECT lost FROM runs"), 4);
    assert_int_equal(query_int(f.db, "SELECT COUNT(*) FROM stats"), 1);
    assert_int_equal(query_int(f.db, "SELECT sim_time_ps FROM profiles WHERE process='h'"), 5);
    /* twice: refused, nothing doubled */
    assert_int_equal(run_record_import(f.db, f.file, &id, err, sizeof err), -1);
    assert_non_null(strstr(err, "is already recorded (status ok) in"));
    assert_int_equal(query_int(f.db, "SELECT COUNT(*) FROM requests"), 3);
    json_decref(stats);
    json_decref(losses);
    json_decref(profile);
    teardown_fixture(&f);
}

/* A run without requests (one that failed) imported twice: the second is
 * refused naming the run, the file and the database (it failed on
 * "UNIQUE constraint failed: profiles", or without a profile doubled the
 * run's losses and said nothing). */
static void test_a_record_imported_twice_is_refused_by_name(void **state)
{
    (void)state;
    fixture f;
    setup_fixture(&f);
    json_t *losses = json_pack("[{s:s, s:s, s:i}]", "source", "nic", "counter", "rx_missed",
                               "count", 4);
    json_t *profile = json_pack("[{s:s, s:s, s:{s:i}}]", "name", "h", "kind", "host", "host",
                                "virtual_time_ps", 5);
    for (int with_profile = 1; with_profile >= 0; with_profile--) {
        json_t *j = run_record_json(&(run_record){
            .id = f.id, .status = "failed", .error = "sim sim0 exited with status 1",
            .losses = losses, .profile = with_profile ? profile : NULL});
        assert_int_equal(json_dump_file(j, f.file, 0), 0);
        json_decref(j);
        int64_t id = 0;
        char err[1024], expected[512];
        if (with_profile && run_record_import(f.db, f.file, &id, err, sizeof err))
            fail_msg("import: %s", err);
        assert_int_equal(run_record_import(f.db, f.file, &id, err, sizeof err), -1);
        snprintf(expected, sizeof expected,
                 "run %lld from %s is already recorded (status failed) in %s; nothing was"
                 " imported",
                 (long long)f.id, f.file, f.db_path);
        if (strcmp(err, expected))
            fail_msg("'%s' is not '%s'", err, expected);
        assert_int_equal(query_int(f.db, "SELECT COUNT(*) FROM losses"), 1);
        assert_int_equal(query_int(f.db, "SELECT lost FROM runs"), 4);
        assert_int_equal(query_int(f.db, "SELECT COUNT(*) FROM profiles"), 1);
    }
    json_decref(losses);
    json_decref(profile);
    teardown_fixture(&f);
}

/* A run abandoned by a later run (its process gone) still takes its
 * record. */
static void test_an_abandoned_run_takes_its_record(void **state)
{
    (void)state;
    fixture f;
    setup_fixture(&f);
    assert_int_equal(db_abandon_run(f.db, f.id, "abandoned: its mortar process is gone"), 0);
    run_record r = a_record(&f, NULL, NULL);
    json_t *j = run_record_json(&r);
    assert_int_equal(json_dump_file(j, f.file, 0), 0);
    json_decref(j);
    int64_t id = 0;
    char err[1024];
    if (run_record_import(f.db, f.file, &id, err, sizeof err))
        fail_msg("import: %s", err);
    assert_int_equal(query_int(f.db, "SELECT COUNT(*) FROM runs WHERE status='ok'"), 1);
    teardown_fixture(&f);
}

/* The command a run prints when its record could not be written works as
 * printed, from anywhere, whatever the paths hold (it was 'FILE' --db
 * 'DB' as given: a relative database, or a quote in a path, broke it). */
static void test_the_printed_import_command_works_as_printed(void **state)
{
    (void)state;
    char top[64], dir[128], db_path[192], file[192], cmd[2048];
    snprintf(top, sizeof top, "/tmp/test_run_record_XXXXXX");
    assert_non_null(mkdtemp(top));
    snprintf(dir, sizeof dir, "%s/it's a \"dir\" $HOME", top);
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(db_path, sizeof db_path, "%s/results.db", dir);
    snprintf(file, sizeof file, "%s/%s", dir, RUN_RECORD_FILE);
    sqlite3 *db;
    char err[512];
    assert_int_equal(db_open(&db, db_path, err, sizeof err), 0);
    json_t *spec = json_object();
    int64_t id = db_begin_run(db, &(db_run_info){.name = "t", .run_dir = dir, .spec = spec});
    json_decref(spec);
    fixture f = {.id = id};
    run_record r = a_record(&f, NULL, NULL);
    json_t *j = run_record_json(&r);
    assert_int_equal(json_dump_file(j, file, 0), 0);
    json_decref(j);
    /* the database named as `mortar run` was given it: relative to its cwd */
    assert_int_equal(chdir(dir), 0);
    char command[1024];
    run_record_import_command(file, "results.db", command, sizeof command);
    assert_int_equal(chdir("/"), 0);
    snprintf(cmd, sizeof cmd, "cd / && PATH='%s':\"$PATH\" %s >/dev/null", bin_dir(), command);
    if (system(cmd) != 0)
        fail_msg("the printed command failed: %s", command);
    assert_int_equal(query_int(db, "SELECT COUNT(*) FROM runs WHERE status='ok'"), 1);
    sqlite3_close(db);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    assert_int_equal(system(cmd), 0);
}

static void test_a_free_database_takes_the_record_at_once(void **state)
{
    (void)state;
    fixture f;
    setup_fixture(&f);
    run_record r = a_record(&f, NULL, NULL);
    char err[256];
    assert_int_equal(run_record_write(f.db, &r, 1, f.file, err, sizeof err), 0);
    assert_int_not_equal(access(f.file, F_OK), 0);
    assert_int_equal(query_int(f.db, "SELECT COUNT(*) FROM requests"), 3);
    assert_int_equal(query_int(f.db, "SELECT lost FROM runs"), 0);
    teardown_fixture(&f);
}

static void test_a_refused_write_names_the_database_error(void **state)
{
    (void)state;
    fixture f;
    setup_fixture(&f);
    assert_int_equal(sqlite3_exec(f.other,
                                  "CREATE TRIGGER refuse BEFORE UPDATE OF status ON runs"
                                  " BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    run_record r = a_record(&f, NULL, NULL);
    char err[256];
    assert_int_equal(run_record_write(f.db, &r, 1, f.file, err, sizeof err), 1);
    if (!strstr(err, "refused by the test"))
        fail_msg("the error does not name the cause: %s", err);
    assert_int_equal(query_int(f.db, "SELECT COUNT(*) FROM requests"), 0);
    teardown_fixture(&f);
}

static void expect_refused(const fixture *f, const char *text, const char *why)
{
    FILE *out = fopen(f->file, "w");
    assert_non_null(out);
    fputs(text, out);
    fclose(out);
    char err[512];
    int64_t id;
    assert_int_equal(run_record_import(f->db, f->file, &id, err, sizeof err), -1);
    if (!strstr(err, why))
        fail_msg("'%s' does not say '%s'", err, why);
}

static void test_a_damaged_record_is_refused(void **state)
{
    (void)state;
    fixture f;
    setup_fixture(&f);
    json_t *j = run_record_json(&(run_record){.id = f.id, .status = "ok", .reqs = reqs,
                                              .nreqs = 1});
    char *good = json_dumps(j, 0);
    json_decref(j);
    expect_refused(&f, "{", "");
    expect_refused(&f, "{\"mortar_record\": \"other\"}", "not a run record");
    char bad[2048];
    snprintf(bad, sizeof bad, "%s", good);
    char *s = strstr(bad, "\"ok\"");
    memcpy(s, "\"no\"", 4);
    expect_refused(&f, bad, "status");
    snprintf(bad, sizeof bad, "%s", good);
    s = strstr(bad, "\"latency_ns\"");
    memcpy(s, "\"latency_xx\"", 12);
    expect_refused(&f, bad, "request 0");
    snprintf(bad, sizeof bad, "%s", good);
    s = strstr(bad, "\"fields\": {}");
    assert_non_null(s);
    memcpy(s, "\"fields\": []", 12);
    expect_refused(&f, bad, "\"fields\" is not an object");
    json_t *p = json_loads(good, 0, NULL);
    json_object_set_new(p, "profile", json_pack("[{s:s, s:s, s:i}]", "name", "h", "kind",
                                                "host", "host", 3));
    char *bad_profile = json_dumps(p, 0);
    expect_refused(&f, bad_profile, "host h");
    free(bad_profile);
    json_decref(p);
    /* a run the database does not have */
    json_t *other = run_record_json(&(run_record){.id = f.id + 100, .status = "ok"});
    char *text = json_dumps(other, 0);
    expect_refused(&f, text, "is not in");
    free(text);
    json_decref(other);
    free(good);
    assert_int_equal(query_int(f.db, "SELECT COUNT(*) FROM requests"), 0);
    teardown_fixture(&f);
}

/* A request twice in a record (found by fuzz/fuzz_record.c): refused by the
 * record's check, naming it, not by the database ("UNIQUE constraint
 * failed", blamed on the database). */
static void test_a_request_twice_in_a_record_is_refused(void **state)
{
    (void)state;
    fixture f;
    setup_fixture(&f);
    db_request twice[3] = {reqs[0], reqs[1], reqs[0]};
    json_t *j = run_record_json(&(run_record){.id = f.id, .status = "ok", .reqs = twice,
                                              .nreqs = 3});
    char *text = json_dumps(j, 0);
    json_decref(j);
    expect_refused(&f, text, "request 2: request 0 is in the record twice");
    free(text);
    assert_int_equal(query_int(f.db, "SELECT COUNT(*) FROM requests"), 0);
    teardown_fixture(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_busy_database_keeps_the_record_in_a_file_to_import),
        cmocka_unit_test(test_a_record_imported_twice_is_refused_by_name),
        cmocka_unit_test(test_an_abandoned_run_takes_its_record),
        cmocka_unit_test(test_the_printed_import_command_works_as_printed),
        cmocka_unit_test(test_a_free_database_takes_the_record_at_once),
        cmocka_unit_test(test_a_refused_write_names_the_database_error),
        cmocka_unit_test(test_a_damaged_record_is_refused),
        cmocka_unit_test(test_a_request_twice_in_a_record_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
