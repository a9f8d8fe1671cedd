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

#include "db_step.h"

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
    int rc = db_prepare(db, "INSERT INTO run_vars(run_id, name, value) VALUES(?,?,?)", &st);
    const char *name;
    json_t *v;
    json_object_foreach(vars, name, v) {
        if (rc)
            break;
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
        bind_var(st, 3, v);
        rc = db_step(st);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc ? SQLITE_ERROR : SQLITE_OK;
}

static int end_savepoint(sqlite3 *db, const char *name, int rc);

/* The row of a new run; its id, or -1. */
static int64_t insert_run(sqlite3 *db, const db_run_info *in)
{
    sqlite3_stmt *st;
    const char *sql = "INSERT INTO runs(name, status, started_at, run_dir, spec, pid,"
                      " pid_start) VALUES(?,?,?,?,?,?,?)";
    if (db_prepare(db, sql, &st))
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
    int rc = db_step(st);
    sqlite3_finalize(st);
    return rc == 0 ? sqlite3_last_insert_rowid(db) : -1;
}

int64_t db_begin_run(sqlite3 *db, const db_run_info *in)
{
    if (db_exec(db, "SAVEPOINT begin_run"))
        return -1;
    int64_t id = insert_run(db, in);
    int rc = id > 0 ? insert_vars(db, id, in->spec) : SQLITE_ERROR;
    return end_savepoint(db, "begin_run", rc) == 0 ? id : -1;
}

/* Releases savepoint `name` (its own transaction when none is open
 * around it) when `rc` is SQLITE_OK, else undoes it (the failure's message
 * was kept when it happened, db_step.h); 0 when released. */
static int end_savepoint(sqlite3 *db, const char *name, int rc)
{
    char sql[96];
    if (rc == SQLITE_OK) {
        snprintf(sql, sizeof sql, "RELEASE %s", name);
        if (db_exec(db, sql) == 0)
            return 0;
    }
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
        int rc = db_step(st);
        sqlite3_reset(st);
        if (rc)
            return -1;
    }
    return 0;
}

static int insert_requests(sqlite3 *db, int64_t id, const db_request *r, size_t n)
{
    sqlite3_stmt *st, *fst;
    if (db_prepare(db,
                   "INSERT INTO requests(run_id, idx, latency_ns, verified, start_ns)"
                   " VALUES(?,?,?,?,?)",
                   &st))
        return -1;
    if (db_prepare(db, "INSERT INTO request_fields(run_id, idx, field, value) VALUES(?,?,?,?)",
                   &fst)) {
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
        if (db_step(st) || insert_fields(fst, id, &r[i]))
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
    if (db_prepare(db, "INSERT INTO stats VALUES(?,?,?,?)", &st))
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
            if (!rc && db_step(st))
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
    if (db_exec(db, "SAVEPOINT finish_run"))
        return -1;
    if (insert_requests(db, id, reqs, nreqs) || insert_stats(db, id, stats))
        return end_savepoint(db, "finish_run", SQLITE_ERROR);
    sqlite3_stmt *st;
    const char *sql = "UPDATE runs SET status=?, error=?, wall_s=?, versions=?, requests=?,"
                      " verified=?, median_us=?, p99_us=?, mean_us=?, min_us=?, max_us=?,"
                      " throughput_rps=? WHERE id=?";
    int rc = db_prepare(db, sql, &st) ? SQLITE_ERROR : SQLITE_OK;
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
        if (db_step(st)) {
            rc = SQLITE_ERROR;
        } else if (sqlite3_changes(db) != 1) {
            db_fail_with("the database has no run %lld", (long long)id);
            rc = SQLITE_ERROR;
        }
        sqlite3_finalize(st);
        free(v);
    }
    return end_savepoint(db, "finish_run", rc);
}

int db_record_losses(sqlite3 *db, int64_t id, json_t *losses)
{
    sqlite3_stmt *ins, *upd;
    if (db_prepare(db, "INSERT INTO losses VALUES(?,?,?,?)", &ins))
        return -1;
    if (db_prepare(db, "UPDATE runs SET lost=? WHERE id=?", &upd)) {
        sqlite3_finalize(ins);
        return -1;
    }
    int rc = db_exec(db, "SAVEPOINT record_losses");
    if (rc) {
        sqlite3_finalize(ins);
        sqlite3_finalize(upd);
        return -1;
    }
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
        if (!rc && db_step(ins))
            rc = -1;
        sqlite3_reset(ins);
        total += count;
    }
    sqlite3_bind_int64(upd, 1, total);
    sqlite3_bind_int64(upd, 2, id);
    if (!rc && db_step(upd))
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
    if (db_prepare(db, "INSERT INTO profiles VALUES(?,?,?,?,?,?,?,?)", &st))
        return -1;
    if (db_exec(db, "SAVEPOINT record_profile")) {
        sqlite3_finalize(st);
        return -1;
    }
    int rc = 0;
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
        if (!rc && (!text ? db_fail_with("out of memory") : db_step(st)))
            rc = -1;
        free(text);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return end_savepoint(db, "record_profile", rc);
}

static json_t *profile_row(sqlite3_stmt *st)
{
    const char *text = (const char *)sqlite3_column_text(st, 0);
    json_t *p = text ? json_loads(text, 0, NULL) : NULL;
    if (json_is_object(p))
        return p;
    json_decref(p);
    return NULL;
}

json_t *db_run_profile(sqlite3 *db, int64_t id)
{
    sqlite3_stmt *st;
    if (db_prepare(db, "SELECT profile FROM profiles WHERE run_id = ? ORDER BY process", &st))
        return NULL;
    sqlite3_bind_int64(st, 1, id);
    return db_collect_rows(st, json_array(), profile_row);
}

static json_t *loss_row(sqlite3_stmt *st)
{
    return json_pack("{s:s, s:s, s:I}", "source", (const char *)sqlite3_column_text(st, 0) ?: "",
                     "counter", (const char *)sqlite3_column_text(st, 1) ?: "", "count",
                     (json_int_t)sqlite3_column_int64(st, 2));
}

json_t *db_run_losses(sqlite3 *db, int64_t id)
{
    sqlite3_stmt *st;
    if (db_prepare(db, "SELECT source, counter, count FROM losses WHERE run_id = ? ORDER BY rowid",
                   &st))
        return NULL;
    sqlite3_bind_int64(st, 1, id);
    return db_collect_rows(st, json_array(), loss_row);
}

json_t *db_run_vars(sqlite3 *db, int64_t id)
{
    sqlite3_stmt *st;
    if (db_prepare(db, "SELECT name, value FROM run_vars WHERE run_id = ? ORDER BY name", &st))
        return NULL;
    sqlite3_bind_int64(st, 1, id);
    json_t *out = json_object();
    int rc;
    while ((rc = db_step(st)) == 1)
        json_object_set_new(out, (const char *)sqlite3_column_text(st, 0) ?: "",
                            db_column_json(st, 1));
    sqlite3_finalize(st);
    if (rc == 0)
        return out;
    json_decref(out);
    return NULL;
}

int db_mean_wall_s(sqlite3 *db, const char *name, double *mean_s)
{
    sqlite3_stmt *st;
    if (db_prepare(db,
                   "SELECT count(*), avg(wall_s) FROM runs"
                   " WHERE name = ? AND status = 'ok' AND wall_s > 0",
                   &st))
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    int rc = db_step(st), n = 0;
    if (rc == 1) {
        n = sqlite3_column_int(st, 0);
        if (n > 0)
            *mean_s = sqlite3_column_double(st, 1);
    }
    sqlite3_finalize(st);
    return rc == 1 ? n : -1;
}

/* One row of db_runs_json's statement, its losses and variables; NULL
 * when reading those fails. */
static json_t *run_json(sqlite3 *db, sqlite3_stmt *st)
{
    int64_t id = sqlite3_column_int64(st, 0);
    json_t *losses = db_run_losses(db, id), *vars = losses ? db_run_vars(db, id) : NULL;
    if (!vars) {
        json_decref(losses);
        return NULL;
    }
    json_t *r = json_object();
    const char *keys[] = {"id", "name", "status", "error", "wall_s", "run_dir", "started_at"};
    for (int i = 0; i < 7; i++)
        json_object_set_new(r, keys[i], db_column_json(st, i));
    json_t *versions = json_loads((const char *)sqlite3_column_text(st, 7) ?: "null",
                                  JSON_DECODE_ANY, NULL);
    json_object_set_new(r, "versions", versions ? versions : json_null());
    json_t *sum = json_object();
    const char *skeys[] = {"requests", "verified", "median_us", "p99_us", "mean_us",
                           "min_us",   "max_us",   "throughput_rps"};
    for (int i = 0; i < 8; i++)
        json_object_set_new(sum, skeys[i], db_column_json(st, 8 + i));
    json_object_set_new(r, "summary", sum);
    json_object_set_new(r, "lost", db_column_json(st, 16));
    json_object_set_new(r, "losses", losses);
    json_object_set_new(r, "vars", vars);
    return r;
}

json_t *db_runs_json(sqlite3 *db)
{
    sqlite3_stmt *st;
    const char *sql = "SELECT id, name, status, error, wall_s, run_dir, started_at, versions,"
                      " requests, verified, median_us, p99_us, mean_us, min_us, max_us,"
                      " throughput_rps, lost FROM runs ORDER BY id";
    if (db_prepare(db, sql, &st))
        return NULL;
    json_t *runs = json_array(), *r;
    int rc;
    while ((rc = db_step(st)) == 1 && (r = run_json(db, st)))
        json_array_append_new(runs, r);
    sqlite3_finalize(st);
    if (rc == 0)
        return json_pack("{s:o}", "runs", runs);
    json_decref(runs);
    return NULL;
}

/* A measured time of a request: negative (db_request's "not measured") or
 * NULL is null. */
static json_t *measured_json(sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) == SQLITE_NULL || sqlite3_column_int64(st, i) < 0)
        return json_null();
    return json_integer(sqlite3_column_int64(st, i));
}

/* The fields of request `idx` of run `id` (statement `st`, bound anew);
 * NULL when reading them fails. */
static json_t *request_fields(sqlite3_stmt *st, int64_t id, int64_t idx)
{
    json_t *out = json_object();
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, idx);
    int rc;
    while ((rc = db_step(st)) == 1)
        json_object_set_new(out, (const char *)sqlite3_column_text(st, 0) ?: "",
                            json_integer(sqlite3_column_int64(st, 1)));
    if (rc == 0)
        return out;
    json_decref(out);
    return NULL;
}

/* One row of db_run_requests' statement `st`, with its fields (`fst`). */
static json_t *request_json(sqlite3_stmt *st, sqlite3_stmt *fst, int64_t id)
{
    int64_t idx = sqlite3_column_int64(st, 0);
    json_t *fields = request_fields(fst, id, idx);
    if (!fields)
        return NULL;
    json_t *r = json_pack("{s:I}", "idx", (json_int_t)idx);
    json_object_set_new(r, "start_ns", measured_json(st, 1));
    json_object_set_new(r, "latency_ns", measured_json(st, 2));
    json_object_set_new(r, "verified", sqlite3_column_type(st, 3) == SQLITE_NULL
                                           ? json_null()
                                           : json_boolean(sqlite3_column_int(st, 3) != 0));
    json_object_set_new(r, "fields", fields);
    return r;
}

json_t *db_run_requests(sqlite3 *db, int64_t id)
{
    sqlite3_stmt *st, *fst;
    const char *sql = "SELECT idx, start_ns, latency_ns, verified FROM requests"
                      " WHERE run_id = ? ORDER BY idx";
    if (db_prepare(db, sql, &st))
        return NULL;
    if (db_prepare(db,
                   "SELECT field, value FROM request_fields WHERE run_id = ? AND idx = ?"
                   " ORDER BY field",
                   &fst)) {
        sqlite3_finalize(st);
        return NULL;
    }
    sqlite3_bind_int64(st, 1, id);
    json_t *out = json_array(), *r;
    int rc;
    while ((rc = db_step(st)) == 1 && (r = request_json(st, fst, id)))
        json_array_append_new(out, r);
    sqlite3_finalize(st);
    sqlite3_finalize(fst);
    if (rc == 0)
        return out;
    json_decref(out);
    return NULL;
}

int db_set_run_dirs(sqlite3 *db, int64_t id, const char *run_dir, const char *private_dir)
{
    sqlite3_stmt *st;
    const char *sql = "UPDATE runs SET run_dir=COALESCE(?, run_dir),"
                      " private_dir=COALESCE(?, private_dir) WHERE id=?";
    if (db_prepare(db, sql, &st))
        return -1;
    sqlite3_bind_text(st, 1, run_dir, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, private_dir, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, id);
    int rc = db_step(st);
    sqlite3_finalize(st);
    return rc;
}

static json_t *running_row(sqlite3_stmt *st)
{
    return json_pack("{s:I, s:I, s:I, s:s?}", "id", (json_int_t)sqlite3_column_int64(st, 0),
                     "pid", (json_int_t)sqlite3_column_int64(st, 1), "pid_start",
                     (json_int_t)sqlite3_column_int64(st, 2), "private_dir",
                     (const char *)sqlite3_column_text(st, 3));
}

json_t *db_running_runs(sqlite3 *db)
{
    sqlite3_stmt *st;
    const char *sql = "SELECT id, pid, pid_start, private_dir FROM runs"
                      " WHERE status='running' AND pid IS NOT NULL ORDER BY id";
    if (db_prepare(db, sql, &st))
        return NULL;
    return db_collect_rows(st, json_array(), running_row);
}

int db_abandon_run(sqlite3 *db, int64_t id, const char *error)
{
    sqlite3_stmt *st;
    const char *sql = "UPDATE runs SET status='abandoned', error=? WHERE id=?";
    if (db_prepare(db, sql, &st))
        return -1;
    sqlite3_bind_text(st, 1, error, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, id);
    int rc = db_step(st);
    sqlite3_finalize(st);
    return rc;
}

int db_run_importable(sqlite3 *db, int64_t id, char *why, size_t size)
{
    sqlite3_stmt *st;
    const char *sql = "SELECT status, (SELECT COUNT(*) FROM requests WHERE run_id=?1)"
                      " FROM runs WHERE id=?1";
    if (db_prepare(db, sql, &st))
        return db_error_into(why, size);
    sqlite3_bind_int64(st, 1, id);
    int found = db_step(st), rc = 0;
    const char *status = found == 1 ? (const char *)sqlite3_column_text(st, 0) : NULL;
    if (found < 0)
        rc = db_error_into(why, size);
    else if (!found)
        rc = 1, snprintf(why, size, "is not in");
    else if (!status || (strcmp(status, "running") && strcmp(status, "abandoned")) ||
             sqlite3_column_int64(st, 1) != 0)
        rc = 1, snprintf(why, size, "is already recorded (status %s) in", status ?: "NULL");
    sqlite3_finalize(st);
    return rc;
}
