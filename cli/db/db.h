/*
 * db.h - the results database (SQLite): one row per run, its per-request
 * results and every component's stats. A run's row is written when it
 * starts (status "running") and completed in one transaction when it ends,
 * so an interrupted orchestrator never loses a finished run.
 *
 * The database module owns all of mortar's SQL: db.c opens, identifies and
 * upgrades a database and runs transactions, db_runs.c writes runs and reads
 * them back, db_alone.c the alone runs of study variants, db_query.c
 * (db_query.h) answers what the verdict, sweep, trace and profile commands
 * ask, and db_step.c (db_step.h) holds the one rule they all step, prepare
 * and fail by. No other file includes sqlite3.h or holds SQL
 * (tests/test_cli.c checks it); the rest of mortar holds a db_conn.
 */
#ifndef MORTAR_CLI_DB_H
#define MORTAR_CLI_DB_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The schema's version (PRAGMA user_version) and the mark of a mortar
 * database (PRAGMA application_id, "MORT"). A database made before the
 * version existed has neither and is recognized by its runs table. */
#define DB_VERSION 6
#define DB_APPLICATION_ID 0x4d4f5254
#define DB_BUSY_TIMEOUT_MS 10000

/* A wall-clock time as the database stores it ("2026-12-02T09:51:10Z", UTC):
 * `unix_s` seconds since the epoch, 0 for now. */
#define DB_TIME_SIZE 32
void db_utc_time(int64_t unix_s, char out[DB_TIME_SIZE]);

/* An open database (SQLite's connection, opaque outside the module). */
typedef struct sqlite3 db_conn;

/* Opens the database for writing: creates it if needed, upgrades one made
 * by an older mortar (one migration per version, each a transaction), and
 * refuses (changing nothing) a foreign SQLite file or one made by a newer
 * mortar. For `mortar run` and `mortar sweep`. */
int db_open(db_conn **db, const char *path, char *err, size_t size);

/* Opens an existing database read-only, for the commands that only read:
 * a missing file is an error (nothing is created), a foreign file is
 * refused untouched, and a database this user cannot write is still read.
 * One made by an older mortar is upgraded first (db_open). */
int db_open_read(db_conn **db, const char *path, char *err, size_t size);

/* Closes a database from db_open or db_open_read; NULL is ignored. */
void db_close(db_conn *db);

/* Why the last failed call of this module in this thread failed (SQLite's
 * message when it was SQLite's error: "database disk image is malformed",
 * "database is locked", ...). Every read and write below either does all
 * of its work or fails with it: a damaged file is an error, never fewer
 * rows (db_step.h). */
const char *db_last_error(void);

/* Copies db_last_error into `err` (`size` bytes); returns -1, for
 * `return db_error_into(err, size);` after a failed call. */
int db_error_into(char *err, size_t size);

/* Opens a write transaction at once (BEGIN IMMEDIATE: waits for other
 * writers up to DB_BUSY_TIMEOUT_MS); -1 with the database's message in
 * `err`. db_commit ends it (-1 on a failure, see db_last_error), db_rollback
 * undoes it. */
int db_begin_write(db_conn *db, char *err, size_t size);
int db_commit(db_conn *db);
void db_rollback(db_conn *db);

/* A new run. Its variables (the resolved spec's "vars") go to table
 * run_vars, one row each (db_run_vars reads them back). */
typedef struct db_run_info {
    const char *name, *run_dir;
    json_t *spec; /* the resolved spec */
    int64_t pid;  /* the process that runs it, and its start time (owner.h) */
    uint64_t pid_start;
    int64_t started_unix_s; /* its wall-clock start (started_at); 0: now */
} db_run_info;

/* Inserts a run with status "running"; returns its id, or -1 (see
 * db_last_error). */
int64_t db_begin_run(db_conn *db, const db_run_info *info);

/* A measured request (docs/studies.md, "The per-request contract"). */
typedef struct db_request {
    int64_t idx, latency_ns;
    int64_t start_ns; /* on the client's clock, from the first measured request */
    int verified;
    /* every other numeric field of its lines, {"service_ns": 2190000, ...}
     * (integers; table request_fields); NULL: none. The caller's. */
    json_t *fields;
} db_request;

typedef struct db_summary {
    int64_t requests, verified;
    double median_us, p99_us, mean_us, min_us, max_us;
    double throughput_rps; /* measured requests / first start to last end */
} db_summary;

/* Sets a run's directory and its private directory (sockets, under /tmp);
 * NULL leaves one as it is. 0, or -1 (see db_last_error). */
int db_set_run_dirs(db_conn *db, int64_t id, const char *run_dir, const char *private_dir);

/* The runs still "running" that name their process, as a new array of
 * {"id", "pid", "pid_start", "private_dir" (may be absent)}; NULL on an
 * error (see db_last_error). */
json_t *db_running_runs(db_conn *db);

/* Marks a "running" run "abandoned" (its process is gone) with `error`;
 * 0, or -1 (see db_last_error). */
int db_abandon_run(db_conn *db, int64_t id, const char *error);

/* Completes a running run: status ("ok", "failed" or "interrupted"), error
 * text (may be NULL), wall time, versions and stats (JSON objects, may be
 * NULL), the requests and their summary. One transaction (a savepoint
 * within the caller's transaction, if one is open): -1 (nothing written)
 * when any part fails, e.g. the database stays busy longer than
 * DB_BUSY_TIMEOUT_MS or the run is no longer "running". */
int db_finish_run(db_conn *db, int64_t id, const char *status, const char *error,
                  double wall_s, json_t *versions, json_t *stats, const db_request *reqs,
                  size_t nreqs, const db_summary *summary);

/* Records the losses of run `id` (an array of {"source", "counter",
 * "count"}, see losses.h; may be empty): one row each in the losses table,
 * and their sum in runs.lost (NULL until recorded). One transaction. */
int db_record_losses(db_conn *db, int64_t id, json_t *losses);

/* The recorded losses of run `id`, as a new array of {"source", "counter",
 * "count"} (empty when none); NULL on an error (see db_last_error). */
json_t *db_run_losses(db_conn *db, int64_t id);

/* Records the wall-clock profile of run `id` (an array of processes,
 * profile_data.h, checked by the caller): one row each in the profiles
 * table. One transaction (a savepoint within the caller's). */
int db_record_profile(db_conn *db, int64_t id, json_t *profile);

/* The recorded profile of run `id`, as a new array of processes sorted by
 * name (empty when none); NULL on an error (see db_last_error). */
json_t *db_run_profile(db_conn *db, int64_t id);

/* The variables of run `id` (its resolved spec's "vars", table run_vars),
 * as a new object: strings, numbers, and other values as their JSON text;
 * empty when none; NULL on an error (see db_last_error). */
json_t *db_run_vars(db_conn *db, int64_t id);

/* The mean wall time of the ok runs recorded under `name` (runs.name, the
 * resolved spec's name) into *mean_s; returns how many there are (0: none,
 * *mean_s untouched), -1 on a database error. A sweep's first ETA. */
int db_mean_wall_s(db_conn *db, const char *name, double *mean_s);

/* Whether run `id` can take its final record (`mortar import`): 0 when it
 * is in the database, not finished ("running", or "abandoned" by a later
 * run) and without requests; 1 when not, with the words to put between
 * the run and the database in `why` ("is not in", "is already recorded
 * (status ok) in"); -1 on a database error, its message in `why`. */
int db_run_importable(db_conn *db, int64_t id, char *why, size_t size);

/* Every run as the JSON of `mortar results --json`: {"runs": [{"id",
 * "name", "status", "error", "wall_s", "run_dir", "started_at", "versions",
 * "summary", "lost", "losses", "vars"}]}; NULL on an error (see
 * db_last_error). */
json_t *db_runs_json(db_conn *db);

/* The measured requests of run `id` by index, as a new array of {"idx",
 * "start_ns", "latency_ns" (integers, null where the run did not measure
 * it), "verified" (a boolean), "fields" (an object: each other numeric
 * field of the request, {} when none)}; empty when none; NULL on an error
 * (see db_last_error). */
json_t *db_run_requests(db_conn *db, int64_t id);

/* ---- alone runs (db_alone.c) ---- */

/* One run of a study variant's alone benchmark (docs/studies.md): its
 * command as run (the $knob references replaced), how it ended ("ok" or
 * "failed"), the error text when it failed (NULL otherwise), the result
 * in us (ok runs), its standard output, and its wall time. */
typedef struct db_alone_run {
    const char *variant, *command, *status, *error, *output;
    double result_us, wall_s;
    int64_t started_unix_s; /* 0: now */
} db_alone_run;

/* Records an alone run; its id, or -1 (see db_last_error). */
int64_t db_record_alone_run(db_conn *db, const db_alone_run *run);

/* The result of the newest "ok" alone run of `variant` with `command`:
 * 1 with *us, 0 when there is none, -1 with the database's message in
 * `err`. */
int db_alone_result(db_conn *db, const char *variant, const char *command, double *us,
                    char *err, size_t size);

/* Every alone run, oldest first, as a new array of {"id", "variant",
 * "command", "status", "error", "result_us", "started_at", "wall_s"};
 * NULL on an error (see db_last_error). */
json_t *db_alone_runs_json(db_conn *db);

/* The file of the open database `db` ("" for an in-memory one). */
const char *db_file_name(db_conn *db);

#endif
