/*
 * db.c - the results database: schema, writing a run, reading them back.
 */
#include "db.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *const schema =
    "PRAGMA journal_mode=WAL;"
    "CREATE TABLE IF NOT EXISTS runs ("
    " id INTEGER PRIMARY KEY, name TEXT, status TEXT, error TEXT,"
    " design TEXT, pcie_latency_us REAL, speed REAL, in_flight INTEGER,"
    " started_at TEXT, wall_s REAL, run_dir TEXT, spec TEXT, versions TEXT,"
    " requests INTEGER, verified INTEGER, median_us REAL, p99_us REAL,"
    " mean_us REAL, min_us REAL, max_us REAL, throughput_rps REAL);"
    "CREATE TABLE IF NOT EXISTS requests ("
    " run_id INTEGER REFERENCES runs(id), idx INTEGER, latency_ns INTEGER,"
    " verified INTEGER, service_ns INTEGER, compute_ns INTEGER, start_ns INTEGER);"
    "CREATE TABLE IF NOT EXISTS stats ("
    " run_id INTEGER REFERENCES runs(id), component TEXT, key TEXT, value REAL);"
    "CREATE TABLE IF NOT EXISTS losses ("
    " run_id INTEGER REFERENCES runs(id), source TEXT, counter TEXT, count INTEGER);"
    "CREATE INDEX IF NOT EXISTS requests_run ON requests(run_id);"
    "CREATE INDEX IF NOT EXISTS losses_run ON losses(run_id);"
    "CREATE INDEX IF NOT EXISTS stats_run ON stats(run_id);";

/* Columns added after the first release: a database made before gets them
 * (SQLite refuses a column that is there; that error is the expected one). */
static void add_new_columns(sqlite3 *db)
{
    sqlite3_exec(db, "ALTER TABLE runs ADD COLUMN throughput_rps REAL", NULL, NULL, NULL);
    sqlite3_exec(db, "ALTER TABLE requests ADD COLUMN start_ns INTEGER", NULL, NULL, NULL);
    sqlite3_exec(db, "ALTER TABLE runs ADD COLUMN lost INTEGER", NULL, NULL, NULL);
}

int db_open(sqlite3 **db, const char *path, char *err, size_t size)
{
    char *msg = NULL;
    if (sqlite3_open(path, db) != SQLITE_OK ||
        sqlite3_busy_timeout(*db, 10000) != SQLITE_OK ||
        sqlite3_exec(*db, schema, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, size, "%s: %s", path, msg ? msg : sqlite3_errmsg(*db));
        sqlite3_free(msg);
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    add_new_columns(*db);
    return 0;
}

int64_t db_begin_run(sqlite3 *db, const db_run_info *in)
{
    sqlite3_stmt *st;
    const char *sql = "INSERT INTO runs(name, status, design, pcie_latency_us, speed,"
                      " in_flight, started_at, run_dir, spec) VALUES(?,?,?,?,?,?,?,?,?)";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    char now[32];
    time_t t = time(NULL);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    char *spec = json_dumps(in->spec, JSON_COMPACT | JSON_SORT_KEYS);
    sqlite3_bind_text(st, 1, in->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, "running", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, in->design, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 4, in->pcie_latency_us);
    sqlite3_bind_double(st, 5, in->speed);
    sqlite3_bind_int64(st, 6, in->in_flight);
    sqlite3_bind_text(st, 7, now, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 8, in->run_dir, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 9, spec, -1, SQLITE_TRANSIENT);
    free(spec);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? sqlite3_last_insert_rowid(db) : -1;
}

static int insert_requests(sqlite3 *db, int64_t id, const db_request *r, size_t n)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT INTO requests VALUES(?,?,?,?,?,?,?)", -1, &st, NULL))
        return -1;
    for (size_t i = 0; i < n; i++) {
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, r[i].idx);
        sqlite3_bind_int64(st, 3, r[i].latency_ns);
        sqlite3_bind_int(st, 4, r[i].verified);
        sqlite3_bind_int64(st, 5, r[i].service_ns);
        sqlite3_bind_int64(st, 6, r[i].compute_ns);
        sqlite3_bind_int64(st, 7, r[i].start_ns);
        if (sqlite3_step(st) != SQLITE_DONE)
            break;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return 0;
}

/* stats: {"component": {"key": number, ...}, ...} */
static int insert_stats(sqlite3 *db, int64_t id, json_t *stats)
{
    sqlite3_stmt *st;
    if (!stats || sqlite3_prepare_v2(db, "INSERT INTO stats VALUES(?,?,?,?)", -1, &st, NULL))
        return 0;
    const char *comp, *key;
    json_t *obj, *v;
    json_object_foreach(stats, comp, obj) {
        json_object_foreach(obj, key, v) {
            if (!json_is_number(v))
                continue;
            sqlite3_bind_int64(st, 1, id);
            sqlite3_bind_text(st, 2, comp, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st, 3, key, -1, SQLITE_TRANSIENT);
            sqlite3_bind_double(st, 4, json_number_value(v));
            sqlite3_step(st);
            sqlite3_reset(st);
        }
    }
    sqlite3_finalize(st);
    return 0;
}

int db_finish_run(sqlite3 *db, int64_t id, const char *status, const char *error,
                  double wall_s, json_t *versions, json_t *stats, const db_request *reqs,
                  size_t nreqs, const db_summary *s)
{
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    insert_requests(db, id, reqs, nreqs);
    insert_stats(db, id, stats);
    sqlite3_stmt *st;
    const char *sql = "UPDATE runs SET status=?, error=?, wall_s=?, versions=?, requests=?,"
                      " verified=?, median_us=?, p99_us=?, mean_us=?, min_us=?, max_us=?,"
                      " throughput_rps=? WHERE id=?";
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        char *v = versions ? json_dumps(versions, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        sqlite3_bind_text(st, 1, status, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, error, -1, SQLITE_TRANSIENT);
        sqlite3_bind_double(st, 3, wall_s);
        sqlite3_bind_text(st, 4, v, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 5, s->requests);
        sqlite3_bind_int64(st, 6, s->verified);
        double vals[] = {s->median_us, s->p99_us, s->mean_us, s->min_us, s->max_us};
        for (int i = 0; i < 5; i++) {
            if (s->requests)
                sqlite3_bind_double(st, 7 + i, vals[i]);
            else
                sqlite3_bind_null(st, 7 + i);
        }
        if (s->requests && s->throughput_rps > 0)
            sqlite3_bind_double(st, 12, s->throughput_rps);
        else
            sqlite3_bind_null(st, 12);
        sqlite3_bind_int64(st, 13, id);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_finalize(st);
        free(v);
    }
    sqlite3_exec(db, rc == SQLITE_OK ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : -1;
}

int db_record_losses(sqlite3 *db, int64_t id, json_t *losses)
{
    sqlite3_stmt *ins, *upd;
    if (sqlite3_prepare_v2(db, "INSERT INTO losses VALUES(?,?,?,?)", -1, &ins, NULL))
        return -1;
    if (sqlite3_prepare_v2(db, "UPDATE runs SET lost=? WHERE id=?", -1, &upd, NULL)) {
        sqlite3_finalize(ins);
        return -1;
    }
    int rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    int64_t total = 0;
    size_t i;
    json_t *l;
    json_array_foreach(losses, i, l) {
        int64_t count = json_integer_value(json_object_get(l, "count"));
        sqlite3_bind_int64(ins, 1, id);
        sqlite3_bind_text(ins, 2, json_string_value(json_object_get(l, "source")), -1,
                          SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 3, json_string_value(json_object_get(l, "counter")), -1,
                          SQLITE_TRANSIENT);
        sqlite3_bind_int64(ins, 4, count);
        if (sqlite3_step(ins) != SQLITE_DONE)
            rc = -1;
        sqlite3_reset(ins);
        total += count;
    }
    sqlite3_bind_int64(upd, 1, total);
    sqlite3_bind_int64(upd, 2, id);
    if (sqlite3_step(upd) != SQLITE_DONE)
        rc = -1;
    sqlite3_finalize(ins);
    sqlite3_finalize(upd);
    sqlite3_exec(db, rc == SQLITE_OK ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : -1;
}

json_t *db_run_losses(sqlite3 *db, int64_t id)
{
    json_t *out = json_array();
    sqlite3_stmt *st;
    const char *sql = "SELECT source, counter, count FROM losses WHERE run_id = ?"
                      " ORDER BY rowid";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return out;
    sqlite3_bind_int64(st, 1, id);
    while (sqlite3_step(st) == SQLITE_ROW)
        json_array_append_new(
            out, json_pack("{s:s, s:s, s:I}", "source",
                           (const char *)sqlite3_column_text(st, 0) ?: "",
                           "counter", (const char *)sqlite3_column_text(st, 1) ?: "",
                           "count", (json_int_t)sqlite3_column_int64(st, 2)));
    sqlite3_finalize(st);
    return out;
}

static json_t *column_json(sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER: return json_integer(sqlite3_column_int64(st, i));
    case SQLITE_FLOAT: return json_real(sqlite3_column_double(st, i));
    case SQLITE_TEXT: return json_string((const char *)sqlite3_column_text(st, i));
    default: return json_null();
    }
}

json_t *db_runs_json(sqlite3 *db)
{
    json_t *runs = json_array();
    sqlite3_stmt *st;
    const char *sql = "SELECT id, name, status, error, design, pcie_latency_us, speed, in_flight,"
                      " wall_s, run_dir, started_at, versions, requests, verified, median_us,"
                      " p99_us, mean_us, min_us, max_us, throughput_rps, lost FROM runs"
                      " ORDER BY id";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return runs;
    while (sqlite3_step(st) == SQLITE_ROW) {
        json_t *r = json_object();
        const char *keys[] = {"id", "name", "status", "error", "design", "pcie_latency_us",
                              "speed", "in_flight", "wall_s", "run_dir", "started_at"};
        for (int i = 0; i < 11; i++)
            json_object_set_new(r, keys[i], column_json(st, i));
        json_t *versions = json_loads((const char *)sqlite3_column_text(st, 11) ?: "null",
                                      JSON_DECODE_ANY, NULL);
        json_object_set_new(r, "versions", versions ? versions : json_null());
        json_t *sum = json_object();
        const char *skeys[] = {"requests", "verified", "median_us", "p99_us", "mean_us",
                               "min_us", "max_us", "throughput_rps"};
        for (int i = 0; i < 8; i++)
            json_object_set_new(sum, skeys[i], column_json(st, 12 + i));
        json_object_set_new(r, "summary", sum);
        json_object_set_new(r, "lost", column_json(st, 20));
        json_object_set_new(r, "losses", db_run_losses(db, sqlite3_column_int64(st, 0)));
        json_array_append_new(runs, r);
    }
    sqlite3_finalize(st);
    return json_pack("{s:o}", "runs", runs);
}
