/*
 * db.c - the results database's file: opening it (for writing, or only
 * reading), knowing it for ours, upgrading an older one in place (one
 * migration per schema version), and the transactions of its writers.
 * Writing and reading runs is db_runs.c, the commands' questions
 * db_query.c (see db.h).
 */
#include "db.h"

#include <limits.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "db_step.h"

/* The tables as the first releases made them, before the database had a
 * version, but for the run variables that had columns of their own in
 * runs (migration 5 drops them) and the two request figures that had
 * columns of their own in requests (migration 6 moves them); migration 1 creates them, or completes a
 * database made then. */
static const char *const first_tables =
    "CREATE TABLE IF NOT EXISTS runs ("
    " id INTEGER PRIMARY KEY, name TEXT, status TEXT, error TEXT, started_at TEXT,"
    " wall_s REAL, run_dir TEXT, spec TEXT, versions TEXT,"
    " requests INTEGER, verified INTEGER, median_us REAL, p99_us REAL,"
    " mean_us REAL, min_us REAL, max_us REAL);"
    "CREATE TABLE IF NOT EXISTS requests ("
    " run_id INTEGER REFERENCES runs(id), idx INTEGER, latency_ns INTEGER,"
    " verified INTEGER);"
    "CREATE TABLE IF NOT EXISTS stats ("
    " run_id INTEGER REFERENCES runs(id), component TEXT, key TEXT, value REAL);"
    "CREATE TABLE IF NOT EXISTS losses ("
    " run_id INTEGER REFERENCES runs(id), source TEXT, counter TEXT, count INTEGER);"
    "CREATE INDEX IF NOT EXISTS losses_run ON losses(run_id);"
    "CREATE INDEX IF NOT EXISTS stats_run ON stats(run_id);";

/* db_exec with its error in `err`. */
static int exec(sqlite3 *db, const char *sql, char *err, size_t size)
{
    if (db_exec(db, sql) == 0)
        return 0;
    return db_error_into(err, size);
}

/* One integer from `sql` (the first column of its first row); -1 on an
 * error, with the message. */
static int64_t query_int(sqlite3 *db, const char *sql, char *err, size_t size)
{
    sqlite3_stmt *st;
    int64_t v = -1;
    if (db_prepare(db, sql, &st))
        return db_error_into(err, size);
    int rc = db_step(st);
    if (rc == 1)
        v = sqlite3_column_int64(st, 0);
    else
        snprintf(err, size, "%s", rc ? db_last_error() : "no row");
    sqlite3_finalize(st);
    return v;
}

static bool has_column(sqlite3 *db, const char *table, const char *column)
{
    char sql[160], err[256];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM pragma_table_info('%s') WHERE name='%s'",
             table, column);
    return query_int(db, sql, err, sizeof err) > 0;
}

static int add_column(sqlite3 *db, const char *table, const char *column, const char *type,
                      char *err, size_t size)
{
    if (has_column(db, table, column))
        return 0;
    char sql[160];
    snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s %s", table, column, type);
    return exec(db, sql, err, size);
}

/* 1: the unversioned tables, with the columns they gained before the
 * version existed. */
static int migrate_1(sqlite3 *db, char *err, size_t size)
{
    return exec(db, first_tables, err, size) ||
           add_column(db, "runs", "throughput_rps", "REAL", err, size) ||
           add_column(db, "requests", "start_ns", "INTEGER", err, size) ||
           add_column(db, "runs", "lost", "INTEGER", err, size);
}

/* 2: the owning process of a run (its PID, start time and private
 * directory, see db_abandon_run), and one row per request of a run. */
static int migrate_2(sqlite3 *db, char *err, size_t size)
{
    return add_column(db, "runs", "pid", "INTEGER", err, size) ||
           add_column(db, "runs", "pid_start", "INTEGER", err, size) ||
           add_column(db, "runs", "private_dir", "TEXT", err, size) ||
           exec(db,
                "DELETE FROM requests WHERE rowid NOT IN"
                " (SELECT MIN(rowid) FROM requests GROUP BY run_id, idx);"
                "DROP INDEX IF EXISTS requests_run;"
                "CREATE UNIQUE INDEX IF NOT EXISTS requests_key ON requests(run_id, idx);",
                err, size);
}

/* 3: the wall-clock profile of a run, one row per process (docs/profile.md):
 * its figures as columns to query, the whole profile as JSON. */
static int migrate_3(sqlite3 *db, char *err, size_t size)
{
    return exec(db,
                "CREATE TABLE IF NOT EXISTS profiles ("
                " run_id INTEGER REFERENCES runs(id), process TEXT, kind TEXT,"
                " wall_ns INTEGER, busy_ns INTEGER, wait_ns INTEGER, sim_time_ps INTEGER,"
                " profile TEXT);"
                "CREATE UNIQUE INDEX IF NOT EXISTS profiles_key ON profiles(run_id, process);",
                err, size);
}

/* 4: a run's variables (its resolved spec's "vars") one row each, so that
 * results can be selected and grouped by any of them; the runs recorded
 * before get theirs from their stored spec. Strings stay text, numbers
 * numbers (json_each's types). */
static int migrate_4(sqlite3 *db, char *err, size_t size)
{
    return exec(db,
                "CREATE TABLE IF NOT EXISTS run_vars ("
                " run_id INTEGER REFERENCES runs(id), name TEXT, value);"
                "CREATE UNIQUE INDEX IF NOT EXISTS run_vars_key ON run_vars(run_id, name);"
                "INSERT OR IGNORE INTO run_vars(run_id, name, value)"
                " SELECT runs.id, v.key, CASE WHEN v.type IN ('object', 'array')"
                " THEN json(v.value) WHEN v.type = 'true' THEN 1 WHEN v.type = 'false'"
                " THEN 0 ELSE v.value END"
                " FROM runs, json_each(runs.spec, '$.vars') AS v"
                " WHERE json_valid(runs.spec) AND json_type(runs.spec, '$.vars') = 'object';",
                err, size);
}

/* The columns of runs since schema 5. */
static const char *const runs_columns[] = {
    "id",     "name",   "status",   "error",    "started_at",     "wall_s", "run_dir",
    "spec",   "versions", "requests", "verified", "median_us",    "p99_us", "mean_us",
    "min_us", "max_us", "throughput_rps", "lost", "pid",          "pid_start", "private_dir"};

static bool is_runs_column(const char *name)
{
    for (size_t i = 0; i < sizeof runs_columns / sizeof *runs_columns; i++)
        if (!strcmp(runs_columns[i], name))
            return true;
    return false;
}

/* The columns of runs that are not runs_columns (at most `max`, new
 * strings, *n of them), in the table's order; -1 with the error. */
static int other_runs_columns(sqlite3 *db, char **out, size_t max, size_t *n, char *err,
                              size_t size)
{
    sqlite3_stmt *st;
    *n = 0;
    int rc = db_prepare(db, "SELECT name FROM pragma_table_info('runs')", &st);
    while (!rc && *n < max && (rc = db_step(st)) == 1) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        rc = 0;
        if (name && !is_runs_column(name))
            out[(*n)++] = sqlite3_mprintf("%s", name);
    }
    sqlite3_finalize(st);
    return rc < 0 ? db_error_into(err, size) : 0;
}

/* 5: the run variables leave runs: before run_vars (version 4) some had a
 * column of their own there, which mortar filled from the run's spec, so
 * run_vars holds each of them (migration 4 took them from the same stored
 * spec). Every column of runs but runs_columns is dropped; the study, not
 * the schema, says which variables matter. And the alone runs: a study
 * variant's alone benchmark, run as a command (db_record_alone_run). */
static int migrate_5(sqlite3 *db, char *err, size_t size)
{
    char *drop[16];
    size_t n;
    int rc = other_runs_columns(db, drop, sizeof drop / sizeof *drop, &n, err, size);
    for (size_t i = 0; i < n; i++) {
        char *sql = sqlite3_mprintf("ALTER TABLE runs DROP COLUMN \"%w\"", drop[i]);
        if (!rc)
            rc = sql ? exec(db, sql, err, size) : -1;
        sqlite3_free(sql);
        sqlite3_free(drop[i]);
    }
    return rc || exec(db,
                      "CREATE TABLE IF NOT EXISTS alone_runs ("
                      " id INTEGER PRIMARY KEY, variant TEXT, command TEXT, status TEXT,"
                      " error TEXT, result_us REAL, output TEXT, started_at TEXT,"
                      " wall_s REAL);"
                      "CREATE INDEX IF NOT EXISTS alone_runs_key ON"
                      " alone_runs(variant, command);",
                      err, size);
}

/* 6: a request's figures other than its id, latency, start and verified
 * flag, one row each in request_fields under the key its line reported
 * them with (docs/studies.md, "The per-request contract"); the two that
 * had columns of their own in requests move there, under the keys they
 * were read from (compute_ns was the line's device_compute_ns), the
 * unknown ones (NULL, or -1 for "not measured") left out. */
static int migrate_6(sqlite3 *db, char *err, size_t size)
{
    static const char *const moved[][2] = {{"service_ns", "service_ns"},
                                           {"compute_ns", "device_compute_ns"}};
    if (exec(db,
             "CREATE TABLE IF NOT EXISTS request_fields ("
             " run_id INTEGER REFERENCES runs(id), idx INTEGER, field TEXT, value INTEGER);"
             "CREATE UNIQUE INDEX IF NOT EXISTS request_fields_key"
             " ON request_fields(run_id, idx, field);",
             err, size))
        return -1;
    for (size_t i = 0; i < sizeof moved / sizeof *moved; i++) {
        if (!has_column(db, "requests", moved[i][0]))
            continue;
        char sql[512];
        snprintf(sql, sizeof sql,
                 "INSERT OR IGNORE INTO request_fields(run_id, idx, field, value)"
                 " SELECT run_id, idx, '%s', %s FROM requests WHERE %s >= 0;"
                 "ALTER TABLE requests DROP COLUMN %s;",
                 moved[i][1], moved[i][0], moved[i][0], moved[i][0]);
        if (exec(db, sql, err, size))
            return -1;
    }
    return 0;
}

typedef int (*migration)(sqlite3 *db, char *err, size_t size);

/* migrations[i] brings a database from version i to i + 1. */
static const migration migrations[DB_VERSION] = {migrate_1, migrate_2, migrate_3,
                                                  migrate_4, migrate_5, migrate_6};

/* What a file holds: ours (at some version), nothing yet, or something
 * else. */
typedef enum { HOLDS_OURS, HOLDS_NOTHING, HOLDS_FOREIGN, HOLDS_UNREADABLE } holds;

static holds identify(sqlite3 *db, int64_t *version, char *err, size_t size)
{
    int64_t app = query_int(db, "PRAGMA application_id", err, size);
    *version = query_int(db, "PRAGMA user_version", err, size);
    int64_t tables = query_int(db, "SELECT COUNT(*) FROM sqlite_master", err, size);
    if (app < 0 || *version < 0 || tables < 0)
        return HOLDS_UNREADABLE;
    if (app == DB_APPLICATION_ID)
        return HOLDS_OURS;
    if (app != 0 || *version != 0)
        return HOLDS_FOREIGN;
    if (tables == 0)
        return HOLDS_NOTHING;
    /* made before the version: a runs table of ours */
    bool ours = has_column(db, "runs", "status") && has_column(db, "runs", "spec") &&
                has_column(db, "runs", "run_dir");
    return ours ? HOLDS_OURS : HOLDS_FOREIGN;
}

/* Checks that the open `db` is ours and not newer than this mortar. */
static int check_identity(sqlite3 *db, const char *path, int64_t *version, bool empty_ok,
                          char *err, size_t size)
{
    char why[512] = "";
    switch (identify(db, version, why, sizeof why)) {
    case HOLDS_UNREADABLE:
        snprintf(err, size, "%s: %s", path, why);
        return -1;
    case HOLDS_FOREIGN:
        snprintf(err, size,
                 "%s is not a mortar results database (another program's SQLite file?); "
                 "left untouched (name the database with --db FILE)",
                 path);
        return -1;
    case HOLDS_NOTHING:
        if (empty_ok)
            return 0;
        snprintf(err, size, "%s holds no runs (record runs with `mortar run` or "
                            "`mortar sweep`)", path);
        return -1;
    case HOLDS_OURS:
        break;
    }
    if (*version > DB_VERSION) {
        snprintf(err, size,
                 "%s was made by a newer mortar (schema version %lld, this one knows %d);"
                 " left untouched",
                 path, (long long)*version, DB_VERSION);
        return -1;
    }
    return 0;
}

/* Brings the database to DB_VERSION, one migration a transaction. */
static int migrate(sqlite3 *db, const char *path, char *err, size_t size)
{
    char why[512] = "";
    for (;;) {
        if (exec(db, "BEGIN IMMEDIATE", why, sizeof why))
            break;
        int64_t v;
        if (check_identity(db, path, &v, true, err, size)) {
            exec(db, "ROLLBACK", why, sizeof why);
            return -1;
        }
        if (v == DB_VERSION)
            return exec(db, "COMMIT", why, sizeof why) ? -1 : 0;
        char set[96];
        snprintf(set, sizeof set, "PRAGMA user_version=%lld; PRAGMA application_id=%d;",
                 (long long)v + 1, DB_APPLICATION_ID);
        if (migrations[v](db, why, sizeof why) || exec(db, set, why, sizeof why) ||
            exec(db, "COMMIT", why, sizeof why)) {
            exec(db, "ROLLBACK", NULL, 0);
            snprintf(err, size, "%s: upgrading to schema version %lld: %s", path,
                     (long long)v + 1, why);
            return -1;
        }
    }
    snprintf(err, size, "%s: %s", path, why);
    return -1;
}

static int read_only_error(const char *path, char *err, size_t size)
{
    snprintf(err, size, "%s: the database is read-only (its file or folder cannot be"
                        " written by this user, or its file system is read-only)",
             path);
    return -1;
}

/* Whether the existing database `path` cannot be written: its file, or its
 * folder, where SQLite makes its journal and WAL files (without which it
 * only says "unable to open database file"). */
static bool exists_read_only(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0'; /* "/x.db": the root folder */
    else
        *slash = '\0';
    return access(path, F_OK) == 0 && (access(path, W_OK) != 0 || access(dir, W_OK) != 0);
}

/* The first line of quick_check's report that says what is wrong (it
 * begins with "*** in database main ***"). */
static const char *first_problem(const char *report)
{
    if (!report)
        return "no answer";
    const char *nl = strchr(report, '\n');
    return !strncmp(report, "***", 3) && nl ? nl + 1 : report;
}

/* Checks that the open `db` can be written into and is whole (SQLite's
 * quick_check: every page and record well formed, without comparing the
 * indexes with their tables). A writer must not add to a damaged file (it
 * would spread the damage and hide it); readers find damage as they read
 * (db_step). It reads the whole file: 0.3 s for 3,000 runs of 200
 * requests (100 MB), small beside a run. */
static int check_writable_and_whole(sqlite3 *db, const char *path, char *err, size_t size)
{
    if (sqlite3_db_readonly(db, "main") == 1)
        return read_only_error(path, err, size);
    sqlite3_stmt *st;
    int rc = db_prepare(db, "PRAGMA quick_check(1)", &st);
    if (!rc && (rc = db_step(st)) == 1) {
        const char *verdict = (const char *)sqlite3_column_text(st, 0);
        if (verdict && !strcmp(verdict, "ok"))
            rc = 0;
        else
            rc = db_fail_with("%s", first_problem(verdict));
    } else if (!rc) {
        rc = db_fail_with("no answer");
    }
    sqlite3_finalize(st);
    if (rc)
        snprintf(err, size,
                 "%s is damaged (%s; SQLite's quick_check); nothing was written to it"
                 " (docs/experiments.md, \"The database\": restore it from a copy)",
                 path, db_last_error());
    return rc;
}

int db_open(sqlite3 **db, const char *path, char *err, size_t size)
{
    char why[512] = "";
    int64_t v;
    *db = NULL;
    if (exists_read_only(path))
        return read_only_error(path, err, size);
    if (sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
            SQLITE_OK ||
        sqlite3_busy_timeout(*db, DB_BUSY_TIMEOUT_MS) != SQLITE_OK) {
        snprintf(err, size, "%s: %s", path, *db ? sqlite3_errmsg(*db) : "out of memory");
        goto fail;
    }
    /* Nothing is written (not even the journal mode) before the file is
     * known to be ours. */
    if (check_identity(*db, path, &v, true, err, size) ||
        check_writable_and_whole(*db, path, err, size) || migrate(*db, path, err, size))
        goto fail;
    if (exec(*db, "PRAGMA journal_mode=WAL", why, sizeof why)) {
        snprintf(err, size, "%s: %s", path, why);
        goto fail;
    }
    return 0;
fail:
    sqlite3_close(*db);
    *db = NULL;
    return -1;
}

/* "file:" URI of `path` with immutable=1: for a database in a place this
 * user cannot write, where SQLite cannot make the WAL index it reads with. */
static void immutable_uri(char *uri, size_t size, const char *path)
{
    size_t n = (size_t)snprintf(uri, size, "file:");
    for (const char *c = path; *c && n + 4 < size; c++) {
        if (*c == '?' || *c == '#' || *c == '%')
            n += (size_t)snprintf(uri + n, size - n, "%%%02X", (unsigned char)*c);
        else
            uri[n++] = *c;
    }
    snprintf(uri + n, size - n, "?immutable=1");
}

/* Opens `path` read-only and checks what it holds; 1 when it is ours but
 * older than DB_VERSION. */
static int open_read(sqlite3 **db, const char *path, bool immutable, char *err, size_t size)
{
    char uri[PATH_MAX * 3 + 32];
    int flags = SQLITE_OPEN_READONLY;
    if (immutable) {
        immutable_uri(uri, sizeof uri, path);
        flags |= SQLITE_OPEN_URI;
    }
    int64_t v;
    if (sqlite3_open_v2(immutable ? uri : path, db, flags, NULL) != SQLITE_OK ||
        sqlite3_busy_timeout(*db, DB_BUSY_TIMEOUT_MS) != SQLITE_OK) {
        snprintf(err, size, "%s: %s", path, *db ? sqlite3_errmsg(*db) : "out of memory");
        return -1;
    }
    if (check_identity(*db, path, &v, false, err, size))
        return -1;
    return v < DB_VERSION ? 1 : 0;
}

int db_open_read(sqlite3 **db, const char *path, char *err, size_t size)
{
    struct stat st;
    *db = NULL;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, size,
                 "no results database at %s (record runs with `mortar run` or "
                 "`mortar sweep`, or name the database with --db FILE)",
                 path);
        return -1;
    }
    int rc = open_read(db, path, false, err, size);
    if (rc < 0) {
        /* A WAL database this user cannot write: read it as it is. */
        char first[1024];
        snprintf(first, sizeof first, "%s", err);
        sqlite3_close(*db);
        *db = NULL;
        rc = open_read(db, path, true, err, size);
        if (rc < 0)
            snprintf(err, size, "%s", first);
    }
    if (rc == 1) {
        /* made by an older mortar: upgrade it once, then read */
        sqlite3_close(*db);
        char why[1024];
        if (db_open(db, path, why, sizeof why)) {
            snprintf(err, size, "%s was made by an older mortar and cannot be upgraded: %s",
                     path, why);
            return -1;
        }
        sqlite3_close(*db);
        *db = NULL;
        rc = open_read(db, path, false, err, size);
    }
    if (rc != 0) {
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    return 0;
}

void db_close(sqlite3 *db)
{
    sqlite3_close(db);
}

int db_begin_write(sqlite3 *db, char *err, size_t size)
{
    if (db_exec(db, "BEGIN IMMEDIATE") == 0)
        return 0;
    return db_error_into(err, size);
}

int db_commit(sqlite3 *db)
{
    return db_exec(db, "COMMIT");
}

void db_rollback(sqlite3 *db)
{
    /* after a failure: its message stays the last error */
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

void db_utc_time(int64_t unix_s, char out[DB_TIME_SIZE])
{
    time_t t = unix_s > 0 ? (time_t)unix_s : time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, DB_TIME_SIZE, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
