/*
 * test_db_damage.c - a damaged results database is an error, never a
 * database with fewer runs (issue 33, case 6): with a block of 512 bytes
 * overwritten in the runs, their variables, their requests or the
 * requests' fields, every command that reads it (`results`, `results
 * --json --requests`, `report`, `verdict`) exits 1 naming the file and
 * SQLite's complaint, the module's reads return NULL with it, and `mortar
 * run` and `mortar import` refuse to write into it before anything starts.
 * The database is made with the db.h calls `mortar run` uses; no QEMU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cli_util.h"
#include "db.h"

#define RUNS 40
#define REQUESTS 200
#define BLOCK_BYTES 512

typedef struct fixture {
    char dir[64], db[128];
} fixture;

/* RUNS finished runs of REQUESTS requests each, with variables and
 * request fields, like `mortar run` records them. */
static void make_db(fixture *fx)
{
    snprintf(fx->dir, sizeof fx->dir, "%s", scratch_dir());
    snprintf(fx->db, sizeof fx->db, "%s/results.db", fx->dir);
    db_conn *db;
    char err[512];
    if (db_open(&db, fx->db, err, sizeof err))
        fail_msg("%s", err);
    db_request reqs[REQUESTS];
    json_t *fields = json_pack("{s:i, s:i}", "service_ns", 2000, "device_compute_ns", 900);
    for (int r = 0; r < RUNS; r++) {
        json_t *spec = json_pack("{s:s, s:{s:s, s:i}}", "name", "damage", "vars", "design",
                                 r % 2 ? "a" : "b", "speed", r);
        db_run_info info = {.name = "damage", .run_dir = "/tmp/damage", .spec = spec};
        int64_t id = db_begin_run(db, &info);
        json_decref(spec);
        assert_true(id > 0);
        for (int i = 0; i < REQUESTS; i++)
            reqs[i] = (db_request){.idx = i, .latency_ns = 3000 + i, .start_ns = i * 10000,
                                   .verified = 1, .fields = fields};
        db_summary sum = {.requests = REQUESTS, .verified = REQUESTS, .median_us = 3.1};
        assert_int_equal(
            db_finish_run(db, id, "ok", NULL, 1.0, NULL, NULL, reqs, REQUESTS, &sum), 0);
    }
    json_decref(fields);
    db_close(db); /* the last connection: the WAL goes into the file */
}

/* The file offset of a leaf page in the middle of table `table`. */
static off_t middle_leaf_page(const char *path, const char *table)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT pageno FROM dbstat WHERE name = ?1 AND"
                                        " pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET"
                                        " (SELECT COUNT(*) FROM dbstat WHERE name = ?1 AND"
                                        " pagetype = 'leaf') / 2",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t page = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t page_bytes = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    assert_true(page > 1); /* past the header and the schema */
    return (off_t)((page - 1) * page_bytes);
}

/* Overwrites the first BLOCK_BYTES of a leaf page in the middle of table
 * `table` (its header and cell pointers: SQLite finds it malformed when it
 * gets there) with bytes of a fixed generator, so every run damages the
 * same. The probes of issue 33 overwrote 40 blocks at random; one block
 * where each reader looks shows each reader's loop. */
static void damage(const char *path, const char *table)
{
    off_t at = middle_leaf_page(path, table);
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    uint64_t x = 0x2545F4914F6CDD1Dull;
    unsigned char junk[BLOCK_BYTES];
    for (size_t i = 0; i < sizeof junk; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        junk[i] = (unsigned char)x;
    }
    assert_int_equal(pwrite(fd, junk, sizeof junk, at), (ssize_t)sizeof junk);
    close(fd);
}

/* A fixture whose table `table` is damaged; `fx` is freed by done(). */
static fixture *damaged(const char *table)
{
    fixture *fx = calloc(1, sizeof *fx);
    make_db(fx);
    damage(fx->db, table);
    return fx;
}

static void done(fixture *fx)
{
    remove_tree(fx->dir);
    free(fx);
}

/* The command failed, and said which file and what SQLite found. */
static void expect_damage_named(const fixture *fx, const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --db '%s'", args, fx->db);
    cli_result r = run_program(fx->dir, "mortar", cmd);
    if (r.status != 1 || !strstr(r.err, fx->db) ||
        !(strstr(r.err, "malformed") || strstr(r.err, "damaged")))
        fail_msg("mortar %s: status %d (expected 1 naming %s and the damage)\nstdout: %.300s"
                 "\nstderr: %s",
                 cmd, r.status, fx->db, r.out, r.err);
    cli_result_free(&r);
}

static void test_results_fail_when_the_runs_are_damaged(void **state)
{
    (void)state;
    fixture *fx = damaged("runs");
    expect_damage_named(fx, "results");
    expect_damage_named(fx, "results --json");
    expect_damage_named(fx, "results --csv");
    done(fx);
}

/* The probes' case: every run listed, some without their variables. */
static void test_results_fail_when_the_variables_are_damaged(void **state)
{
    (void)state;
    fixture *fx = damaged("run_vars");
    expect_damage_named(fx, "results");
    expect_damage_named(fx, "results --json");
    done(fx);
}

static void test_results_fail_when_the_requests_are_damaged(void **state)
{
    (void)state;
    fixture *fx = damaged("requests");
    expect_damage_named(fx, "results --json --requests");
    expect_damage_named(fx, "results --csv --requests");
    done(fx);
    fx = damaged("request_fields");
    expect_damage_named(fx, "results --json --requests");
    done(fx);
}

static void test_report_and_verdict_fail_on_a_damaged_database(void **state)
{
    (void)state;
    if (!have_default_study())
        skip(); /* both read the study: none in the platform without studies/ */
    fixture *fx = damaged("run_vars");
    expect_damage_named(fx, "report --out page");
    expect_damage_named(fx, "verdict");
    char page[160];
    snprintf(page, sizeof page, "%s/page/index.html", fx->dir);
    assert_int_not_equal(access(page, F_OK), 0);
    done(fx);
}

/* The module's reads: NULL with SQLite's message, never a shorter list. */
static void test_reads_return_null_with_the_reason(void **state)
{
    (void)state;
    fixture *fx = damaged("requests");
    db_conn *db;
    char err[512];
    if (db_open_read(&db, fx->db, err, sizeof err))
        fail_msg("the damage is past the first page, yet: %s", err);
    json_t *all = db_runs_json(db);
    assert_int_equal(json_array_size(json_object_get(all, "runs")), RUNS);
    json_decref(all);
    int failed = 0;
    for (int id = 1; id <= RUNS; id++) {
        json_t *reqs = db_run_requests(db, id);
        if (!reqs) {
            failed++;
            assert_non_null(strstr(db_last_error(), "malformed"));
            continue;
        }
        /* what is read is whole: every request of the run */
        assert_int_equal(json_array_size(reqs), REQUESTS);
        json_decref(reqs);
    }
    assert_true(failed > 0);
    db_close(db);
    done(fx);
}

/* `mortar run` looks before it writes: refused before QEMU is looked for,
 * and the file is left as it was. */
static void test_run_refuses_to_write_into_a_damaged_database(void **state)
{
    (void)state;
    fixture *fx = damaged("requests");
    struct stat before, after;
    assert_int_equal(stat(fx->db, &before), 0);
    char args[1024];
    snprintf(args, sizeof args, "run '%s/experiments/examples/pcitest.json' --out runs",
             source_dir());
    expect_damage_named(fx, args);
    assert_int_equal(stat(fx->db, &after), 0);
    assert_int_equal(before.st_mtime, after.st_mtime);
    assert_int_equal(before.st_size, after.st_size);
    char runs[128];
    snprintf(runs, sizeof runs, "%s/runs", fx->dir);
    assert_int_not_equal(access(runs, F_OK), 0);
    done(fx);
}

static void test_import_refuses_a_damaged_database(void **state)
{
    (void)state;
    fixture *fx = damaged("request_fields");
    char record[160];
    snprintf(record, sizeof record, "%s/result.json", fx->dir);
    write_text(record, "{}");
    char args[256];
    snprintf(args, sizeof args, "import '%s'", record);
    expect_damage_named(fx, args);
    done(fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_results_fail_when_the_runs_are_damaged),
        cmocka_unit_test(test_results_fail_when_the_variables_are_damaged),
        cmocka_unit_test(test_results_fail_when_the_requests_are_damaged),
        cmocka_unit_test(test_report_and_verdict_fail_on_a_damaged_database),
        cmocka_unit_test(test_reads_return_null_with_the_reason),
        cmocka_unit_test(test_run_refuses_to_write_into_a_damaged_database),
        cmocka_unit_test(test_import_refuses_a_damaged_database),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
