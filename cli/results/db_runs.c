/*
 * db_runs.c - the runs in the results database: a run's row when it
 * starts, its requests, stats, losses, profile and variables when it ends
 * (each write a savepoint, so it joins the caller's transaction), the runs
 * still running and abandoned, and each of these read back as JSON
 * (`mortar results`, the report). Opening the database is db.c (see db.h).
 */
#include "db.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"

/* Binds a variable's value as migrate_4 stores it. */
static void bind_var(sqlite3_stmt *st, int i, json_t *v)
{
    if (json_is_string(v)) {
        sqlite3_bind_text(st, i, json_string_value(v), -1, SQLITE_TRANSIENT);
    } else if (json_is_integer(v)) {
        sqlite3_bind_int64(st, i, json_integer_value(v));
    } else if (json_is_real(v)) {
        sqlite3_bind_double(st, i, json_real_value(v));
    } else if (json_is_boolean(v)) {
        sqlite3_bind_int(st, i, json_is_true(v));
    } else if (json_is_null(v)) {
        sqlite3_bind_null(st, i);
    } else {
        char *text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
        sqlite3_bind_text(st, i, text ? text : "null", -1, SQLITE_TRANSIENT);
        free(text);
    }
}

/* The run's variables, one row each (migrate_4). */
static int insert_vars(sqlite3 *db, int64_t id, json_t *spec)
{
    json_t *vars = json_object_get(spec, "vars");
    if (!json_is_object(vars))
        return SQLITE_OK;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, "INSERT INTO run_vars(run_id, name, value) VALUES(?,?,?)",
                                -1, &st, NULL);
    const char *name;
    json_t *v;
    json_object_foreach(vars, name, v) {
        if (rc != SQLITE_OK)
            break;
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
        bind_var(st, 3, v);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

static int end_savepoint(sqlite3 *db, const char *name, int rc);

/* The row of a new run; its id, or -1. */
static int64_t insert_run(sqlite3 *db, const db_run_info *in)
{
    sqlite3_stmt *st;
    const char *sql = "INSERT INTO runs(name, status, started_at, run_dir, spec, pid,"
                      " pid_start) VALUES(?,?,?,?,?,?,?)";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    char now[DB_TIME_SIZE];
    db_utc_time(in->started_unix_s, now);
    char *spec = json_dumps(in->spec, JSON_COMPACT | JSON_SORT_KEYS);
    sqlite3_bind_text(st, 1, in->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, "running", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, now, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, in->run_dir, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, spec, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 6, in->pid);
    sqlite3_bind_int64(st, 7, (sqlite3_int64)in->pid_start);
    free(spec);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? sqlite3_last_insert_rowid(db) : -1;
}

int64_t db_begin_run(sqlite3 *db, const db_run_info *in)
{
    if (sqlite3_exec(db, "SAVEPOINT begin_run", NULL, NULL, NULL) != SQLITE_OK)
        return -1;
    int64_t id = insert_run(db, in);
    int rc = id > 0 ? insert_vars(db, id, in->spec) : SQLITE_ERROR;
    return end_savepoint(db, "begin_run", rc) == 0 ? id : -1;
}

/* The message of the last failed write (end_savepoint), kept past the
 * rollback that resets SQLite's own. */
static _Thread_local char last_error[512];

const char *db_last_error(void)
{
    return last_error[0] ? last_error : "unknown error";
}

/* Releases savepoint `name` (its own transaction when none is open
 * around it) when `rc` is SQLITE_OK, else undoes it; 0 when released. */
static int end_savepoint(sqlite3 *db, const char *name, int rc)
{
    char sql[96];
    if (rc == SQLITE_OK) {
        snprintf(sql, sizeof sql, "RELEASE %s", name);
        if (sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK)
            return 0;
    }
    snprintf(last_error, sizeof last_error, "%s", sqlite3_errmsg(db));
    snprintf(sql, sizeof sql, "ROLLBACK TO %s; RELEASE %s", name, name);
    sqlite3_exec(db, sql, NULL, NULL, NULL);
    return -1;
}

/* The request's other fields, one row each (migrate_6); integers only. */
static int insert_fields(sqlite3_stmt *st, int64_t id, const db_request *r)
{
    const char *key;
    json_t *v;
    json_object_foreach(r->fields, key, v) {
        if (!json_is_integer(v))
            continue;
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, r->idx);
        sqlite3_bind_text(st, 3, key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 4, json_integer_value(v));
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE)
            return -1;
    }
    return 0;
}

static int insert_requests(sqlite3 *db, int64_t id, const db_request *r, size_t n)
{
    sqlite3_stmt *st, *fst;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO requests(run_id, idx, latency_ns, verified, start_ns)"
                           " VALUES(?,?,?,?,?)",
                           -1, &st, NULL))
        return -1;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO request_fields(run_id, idx, field, value)"
                           " VALUES(?,?,?,?)",
                           -1, &fst, NULL)) {
        sqlite3_finalize(st);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, r[i].idx);
        sqlite3_bind_int64(st, 3, r[i].latency_ns);
        sqlite3_bind_int(st, 4, r[i].verified);
        sqlite3_bind_int64(st, 5, r[i].start_ns);
        if (sqlite3_step(st) != SQLITE_DONE || insert_fields(fst, id, &r[i]))
            rc = -1;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(fst);
    return rc;
}

/* stats: {"component": {"key": number, ...}, ...} */
static int insert_stats(sqlite3 *db, int64_t id, json_t *stats)
{
    sqlite3_stmt *st;
    if (!stats)
        return 0;
    if (sqlite3_prepare_v2(db, "INSERT INTO stats VALUES(?,?,?,?)", -1, &st, NULL))
        return -1;
    int rc = 0;
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
            if (sqlite3_step(st) != SQLITE_DONE)
                rc = -1;
            sqlite3_reset(st);
        }
    }
    sqlite3_finalize(st);
    return rc;
}

int db_finish_run(sqlite3 *db, int64_t id, const char *status, const char *error,
                  double wall_s, json_t *versions, json_t *stats, const db_request *reqs,
                  size_t nreqs, const db_summary *s)
{
    if (sqlite3_exec(db, "SAVEPOINT finish_run", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(last_error, sizeof last_error, "%s", sqlite3_errmsg(db));
        return -1;
    }
    if (insert_requests(db, id, reqs, nreqs) || insert_stats(db, id, stats))
        return end_savepoint(db, "finish_run", SQLITE_ERROR);
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
        rc = sqlite3_step(st) == SQLITE_DONE && sqlite3_changes(db) == 1 ? SQLITE_OK
                                                                          : SQLITE_ERROR;
        sqlite3_finalize(st);
        free(v);
    }
    return end_savepoint(db, "finish_run", rc);
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
    int rc = sqlite3_exec(db, "SAVEPOINT record_losses", NULL, NULL, NULL);
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
    return end_savepoint(db, "record_losses", rc);
}

/* A process's figure `key` (a host's simulated time is its virtual time;
 * its wall times are not measured: NULL). */
static void bind_figure(sqlite3_stmt *st, int col, json_t *p, const char *key)
{
    bool host = !strcmp(json_string_value(json_object_get(p, "kind")) ?: "", "host");
    json_t *v = host ? !strcmp(key, "sim_time_ps")
                           ? json_object_get(json_object_get(p, "host"), "virtual_time_ps")
                           : NULL
                     : json_object_get(p, key);
    bool measured = host || !json_is_false(json_object_get(p, "enabled"));
    if (json_is_integer(v) && (measured || !strcmp(key, "sim_time_ps")))
        sqlite3_bind_int64(st, col, json_integer_value(v));
    else
        sqlite3_bind_null(st, col);
}

int db_record_profile(sqlite3 *db, int64_t id, json_t *profile)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT INTO profiles VALUES(?,?,?,?,?,?,?,?)", -1, &st, NULL)) {
        snprintf(last_error, sizeof last_error, "%s", sqlite3_errmsg(db));
        return -1;
    }
    int rc = sqlite3_exec(db, "SAVEPOINT record_profile", NULL, NULL, NULL);
    size_t i;
    json_t *p;
    json_array_foreach(profile, i, p) {
        char *text = json_dumps(p, JSON_COMPACT);
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, json_string_value(json_object_get(p, "name")), -1,
                          SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, json_string_value(json_object_get(p, "kind")), -1,
                          SQLITE_TRANSIENT);
        bind_figure(st, 4, p, "wall_ns");
        bind_figure(st, 5, p, "busy_ns");
        bind_figure(st, 6, p, "wait_ns");
        bind_figure(st, 7, p, "sim_time_ps");
        sqlite3_bind_text(st, 8, text, -1, SQLITE_TRANSIENT);
        if (!text || sqlite3_step(st) != SQLITE_DONE)
            rc = -1;
        free(text);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return end_savepoint(db, "record_profile", rc);
}

json_t *db_run_profile(sqlite3 *db, int64_t id)
{
    json_t *out = json_array();
    sqlite3_stmt *st;
    const char *sql = "SELECT profile FROM profiles WHERE run_id = ? ORDER BY process";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return out;
    sqlite3_bind_int64(st, 1, id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 0);
        json_t *p = text ? json_loads(text, 0, NULL) : NULL;
        if (json_is_object(p))
            json_array_append_new(out, p);
        else
            json_decref(p);
    }
    sqlite3_finalize(st);
    return out;
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

json_t *db_run_vars(sqlite3 *db, int64_t id)
{
    json_t *out = json_object();
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT name, value FROM run_vars WHERE run_id = ? ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK)
        return out;
    sqlite3_bind_int64(st, 1, id);
    while (sqlite3_step(st) == SQLITE_ROW)
        json_object_set_new(out, (const char *)sqlite3_column_text(st, 0) ?: "",
                            column_json(st, 1));
    sqlite3_finalize(st);
    return out;
}

json_t *db_runs_json(sqlite3 *db)
{
    json_t *runs = json_array();
    sqlite3_stmt *st;
    const char *sql = "SELECT id, name, status, error, wall_s, run_dir, started_at, versions,"
                      " requests, verified, median_us, p99_us, mean_us, min_us, max_us,"
                      " throughput_rps, lost FROM runs ORDER BY id";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return runs;
    while (sqlite3_step(st) == SQLITE_ROW) {
        json_t *r = json_object();
        const char *keys[] = {"id", "name", "status", "error", "wall_s", "run_dir",
                              "started_at"};
        for (int i = 0; i < 7; i++)
            json_object_set_new(r, keys[i], column_json(st, i));
        json_t *versions = json_loads((const char *)sqlite3_column_text(st, 7) ?: "null",
                                      JSON_DECODE_ANY, NULL);
        json_object_set_new(r, "versions", versions ? versions : json_null());
        json_t *sum = json_object();
        const char *skeys[] = {"requests", "verified", "median_us", "p99_us", "mean_us",
                               "min_us", "max_us", "throughput_rps"};
        for (int i = 0; i < 8; i++)
            json_object_set_new(sum, skeys[i], column_json(st, 8 + i));
        json_object_set_new(r, "summary", sum);
        json_object_set_new(r, "lost", column_json(st, 16));
        json_object_set_new(r, "losses", db_run_losses(db, sqlite3_column_int64(st, 0)));
        json_object_set_new(r, "vars", db_run_vars(db, sqlite3_column_int64(st, 0)));
        json_array_append_new(runs, r);
    }
    sqlite3_finalize(st);
    return json_pack("{s:o}", "runs", runs);
}

/* A measured time of a request: negative (db_request's "not measured") or
 * NULL is null. */
static json_t *measured_json(sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) == SQLITE_NULL || sqlite3_column_int64(st, i) < 0)
        return json_null();
    return json_integer(sqlite3_column_int64(st, i));
}

/* The fields of request `idx` of run `id` (statement `st`, bound anew). */
static json_t *request_fields(sqlite3_stmt *st, int64_t id, int64_t idx)
{
    json_t *out = json_object();
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, idx);
    while (sqlite3_step(st) == SQLITE_ROW)
        json_object_set_new(out, (const char *)sqlite3_column_text(st, 0) ?: "",
                            json_integer(sqlite3_column_int64(st, 1)));
    return out;
}

json_t *db_run_requests(sqlite3 *db, int64_t id)
{
    json_t *out = json_array();
    sqlite3_stmt *st, *fst;
    const char *sql = "SELECT idx, start_ns, latency_ns, verified FROM requests"
                      " WHERE run_id = ? ORDER BY idx";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return out;
    if (sqlite3_prepare_v2(db,
                           "SELECT field, value FROM request_fields WHERE run_id = ?"
                           " AND idx = ? ORDER BY field",
                           -1, &fst, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return out;
    }
    sqlite3_bind_int64(st, 1, id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t idx = sqlite3_column_int64(st, 0);
        json_t *r = json_pack("{s:I}", "idx", (json_int_t)idx);
        json_object_set_new(r, "start_ns", measured_json(st, 1));
        json_object_set_new(r, "latency_ns", measured_json(st, 2));
        json_object_set_new(r, "verified",
                            sqlite3_column_type(st, 3) == SQLITE_NULL
                                ? json_null()
                                : json_boolean(sqlite3_column_int(st, 3) != 0));
        json_object_set_new(r, "fields", request_fields(fst, id, idx));
        json_array_append_new(out, r);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(fst);
    return out;
}

int db_set_run_dirs(sqlite3 *db, int64_t id, const char *run_dir, const char *private_dir)
{
    sqlite3_stmt *st;
    const char *sql = "UPDATE runs SET run_dir=COALESCE(?, run_dir),"
                      " private_dir=COALESCE(?, private_dir) WHERE id=?";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, run_dir, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, private_dir, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

json_t *db_running_runs(sqlite3 *db)
{
    json_t *out = json_array();
    sqlite3_stmt *st;
    const char *sql = "SELECT id, pid, pid_start, private_dir FROM runs"
                      " WHERE status='running' AND pid IS NOT NULL ORDER BY id";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return out;
    while (sqlite3_step(st) == SQLITE_ROW)
        json_array_append_new(
            out, json_pack("{s:I, s:I, s:I, s:s?}", "id", (json_int_t)sqlite3_column_int64(st, 0),
                           "pid", (json_int_t)sqlite3_column_int64(st, 1), "pid_start",
                           (json_int_t)sqlite3_column_int64(st, 2), "private_dir",
                           (const char *)sqlite3_column_text(st, 3)));
    sqlite3_finalize(st);
    return out;
}

int db_abandon_run(sqlite3 *db, int64_t id, const char *error)
{
    sqlite3_stmt *st;
    const char *sql = "UPDATE runs SET status='abandoned', error=? WHERE id=?";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, error, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int db_check_run_unrecorded(sqlite3 *db, int64_t id, char *err, size_t size)
{
    sqlite3_stmt *st;
    const char *sql = "SELECT (SELECT COUNT(*) FROM runs WHERE id=?1),"
                      " (SELECT COUNT(*) FROM requests WHERE run_id=?1)";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return errbuf_fail(err, size, "%s", sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : -1;
    if (rc)
        errbuf_fail(err, size, "%s", sqlite3_errmsg(db));
    else if (sqlite3_column_int64(st, 0) != 1)
        rc = errbuf_fail(err, size, "the database has no run %lld", (long long)id);
    else if (sqlite3_column_int64(st, 1) != 0)
        rc = errbuf_fail(err, size, "run %lld already has its requests recorded",
                         (long long)id);
    sqlite3_finalize(st);
    return rc;
}
