/*
 * fuzz_record.c - a libFuzzer target for `mortar import`: a run's
 * result.json read back and written into a database (cli/run/run_record.c).
 *
 * The input is the file. Each input is imported into an in-memory
 * database holding run 1 (the id a valid record names), reset for each:
 * the record is either refused by its checks or written. A record of run 1
 * the checks let through must then be written: a refusal by the database
 * (a constraint failed) means a check is missing, and stops the fuzzer. A
 * record that is read also goes back to JSON (run_record_json) and must
 * read again.
 */
#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>

#include "db.h"
#include "fuzz_files.h"
#include "run_record.h"

/* Whether the record passes its checks, naming run *id; one that does
 * must survive its own round trip. */
static bool passes_checks(json_t *j, int64_t *id)
{
    run_record r;
    db_request *reqs = NULL;
    char err[512];
    bool ok = run_record_parse(j, &r, &reqs, err, sizeof err) == 0;
    if (ok) {
        *id = r.id;
        json_t *again = run_record_json(&r);
        run_record r2;
        db_request *reqs2 = NULL;
        if (run_record_parse(again, &r2, &reqs2, err, sizeof err) != 0) {
            fprintf(stderr, "a record read does not read again: %s\n", err);
            abort();
        }
        free(reqs2);
        json_decref(again);
    }
    free(reqs);
    return ok;
}

/* A database holding run 1, begun and not finished. */
static db_conn *new_database(void)
{
    db_conn *db;
    char err[1024];
    if (db_open(&db, ":memory:", err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
    json_t *spec = json_object();
    db_run_info info = {.name = "fuzz", .run_dir = "/nonexistent", .spec = spec};
    if (db_begin_run(db, &info) != 1)
        abort();
    json_decref(spec);
    return db;
}

/* The database each input is imported into, reset from a pristine copy
 * (SQLite's backup: opening and creating one per input would cost most of
 * the time). */
static db_conn *fresh_database(void)
{
    static db_conn *pristine, *db;
    if (!pristine) {
        pristine = new_database();
        db = new_database();
    }
    sqlite3_backup *b = sqlite3_backup_init(db, "main", pristine, "main");
    if (!b || sqlite3_backup_step(b, -1) != SQLITE_DONE ||
        sqlite3_backup_finish(b) != SQLITE_OK)
        abort();
    return db;
}

/* Imports the file; 0 or -1 with the reason in `err`. */
static int import(const char *path, char *err, size_t size)
{
    int64_t id;
    int rc = run_record_import(fresh_database(), path, &id, err, size);
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "import: %s\n", rc ? err : "ok");
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[128], err[1024];
    fuzz_write("result.json", data, size, path, sizeof path);
    json_t *j = json_loadb((const char *)data, size, 0, NULL);
    int64_t id = 0;
    bool checked = j && passes_checks(j, &id);
    json_decref(j);
    if (import(path, err, sizeof err) != 0 && checked && id == 1) {
        fprintf(stderr, "the database refused a record its checks let through: %s\n",
                err);
        abort();
    }
    return 0;
}
