/*
 * db_query.c - the commands' questions to the results database (see
 * db_query.h): what `mortar verdict`, `mortar sweep`, `mortar trace` and
 * `mortar profile` read. Each is one statement; errors carry SQLite's
 * message.
 */
#include "db_query.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_step.h"
#include "grow.h"
#include "quantile.h"

#include "mortar/time.h"

static double column_or_nan(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* Steps `st` to the one row its statement always has (an aggregate); 0,
 * or -1 with the error. */
static int one_row(sqlite3_stmt *st, char *err, size_t size)
{
    int rc = db_step(st);
    if (rc == 1)
        return 0;
    if (rc == 0)
        db_fail_with("no row where one was expected");
    return db_error_into(err, size);
}

/* ---- mortar verdict ---- */

/* The row's variables: column `i` holds run_vars as a JSON object. */
static json_t *vars_of(sqlite3_stmt *st, int i)
{
    const char *text = (const char *)sqlite3_column_text(st, i);
    json_t *vars = text ? json_loads(text, 0, NULL) : NULL;
    if (!json_is_object(vars)) {
        json_decref(vars);
        vars = json_object();
    }
    return vars;
}

static void read_ok_run(sqlite3_stmt *st, db_ok_run *r)
{
    *r = (db_ok_run){.id = sqlite3_column_int64(st, 0), .vars = vars_of(st, 8)};
    const char *dir = (const char *)sqlite3_column_text(st, 7);
    snprintf(r->run_dir, sizeof r->run_dir, "%s", dir ? dir : "");
    double *vals[] = {&r->median_us, &r->p99_us, &r->mean_us,
                      &r->min_us,    &r->max_us, &r->throughput_rps};
    for (int i = 0; i < 6; i++)
        *vals[i] = column_or_nan(st, 1 + i);
}

int db_each_ok_run(sqlite3 *db, int (*each)(void *ctx, const db_ok_run *run), void *ctx,
                   char *err, size_t size)
{
    sqlite3_stmt *st;
    const char *sql =
        "SELECT id, median_us, p99_us, mean_us, min_us, max_us, throughput_rps, run_dir,"
        " (SELECT json_group_object(name, value) FROM run_vars WHERE run_id = runs.id)"
        " FROM runs WHERE status = 'ok' ORDER BY id";
    if (db_prepare(db, sql, &st))
        return db_error_into(err, size);
    int rc = 0, step;
    while (!rc && (step = db_step(st)) == 1) {
        db_ok_run r;
        read_ok_run(st, &r);
        if (each(ctx, &r))
            rc = 1;
        json_decref(r.vars);
    }
    if (!rc && step < 0)
        rc = db_error_into(err, size);
    sqlite3_finalize(st);
    return rc;
}

/* Reads the sorted values of `st`'s one integer column into *v (*n of them,
 * malloc'ed); 0, or -1 with the error. */
static int sorted_column(sqlite3_stmt *st, int64_t **v, size_t *n, char *err, size_t size)
{
    size_t cap = 0;
    int rc;
    *v = NULL;
    *n = 0;
    while ((rc = db_step(st)) == 1) {
        if (grow(v, &cap, *n + 1, sizeof **v)) {
            rc = db_fail_with("out of memory");
            break;
        }
        (*v)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    if (rc != 0) {
        free(*v);
        *v = NULL;
        return db_error_into(err, size);
    }
    quantile_sort_i64(*v, *n);
    return 0;
}

int db_request_median_us(sqlite3 *db, int64_t run_id, const char *field, double *out,
                         char *err, size_t size)
{
    /* the known (>= 0) values: a request's own columns, and every other
     * field in request_fields */
    const char *sql =
        !strcmp(field, "latency_ns")
            ? "SELECT latency_ns FROM requests WHERE run_id = ?1 AND latency_ns >= 0"
        : !strcmp(field, "start_ns")
            ? "SELECT start_ns FROM requests WHERE run_id = ?1 AND start_ns >= 0"
            : "SELECT value FROM request_fields WHERE run_id = ?1 AND field = ?2"
              " AND value >= 0";
    sqlite3_stmt *st;
    if (db_prepare(db, sql, &st))
        return db_error_into(err, size);
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_bind_parameter_count(st) == 2)
        sqlite3_bind_text(st, 2, field, -1, SQLITE_TRANSIENT);
    int64_t *v;
    size_t n;
    int rc = sorted_column(st, &v, &n, err, size);
    if (!rc)
        *out = quantile_median_sorted(v, n) / 1000.0;
    free(v);
    sqlite3_finalize(st);
    return rc;
}

int db_counter_share(sqlite3 *db, int64_t run_id, const char *of, const char *per,
                     double *out, char *err, size_t size)
{
    sqlite3_stmt *st;
    const char *sql =
        "SELECT SUM(q.value) / SUM(n.value) FROM stats q JOIN stats n"
        " ON n.run_id = q.run_id AND n.component = q.component AND n.key = ?3"
        " WHERE q.run_id = ?1 AND q.key = ?2 AND n.value > 0";
    if (db_prepare(db, sql, &st))
        return db_error_into(err, size);
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, of, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, per, -1, SQLITE_TRANSIENT);
    int rc = one_row(st, err, size);
    if (!rc)
        *out = column_or_nan(st, 0);
    sqlite3_finalize(st);
    return rc;
}

int64_t db_count_ok_runs(sqlite3 *db, char *err, size_t size)
{
    sqlite3_stmt *st;
    if (db_prepare(db, "SELECT COUNT(*) FROM runs WHERE status = 'ok'", &st))
        return db_error_into(err, size);
    int64_t n = one_row(st, err, size) ? -1 : sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* ---- mortar sweep ---- */

int db_first_ok_run_of_spec(sqlite3 *db, const char *canonical, int64_t *id, char *err,
                            size_t size)
{
    sqlite3_stmt *st;
    const char *sql =
        "SELECT id FROM runs WHERE status='ok' AND spec=? ORDER BY id LIMIT 1";
    *id = 0;
    if (db_prepare(db, sql, &st))
        return db_error_into(err, size);
    sqlite3_bind_text(st, 1, canonical, -1, SQLITE_STATIC);
    int rc = db_step(st);
    if (rc == 1)
        *id = sqlite3_column_int64(st, 0);
    else if (rc < 0)
        db_error_into(err, size);
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

int64_t db_max_run_id(sqlite3 *db)
{
    sqlite3_stmt *st;
    if (db_prepare(db, "SELECT COALESCE(MAX(id), 0) FROM runs", &st))
        return -1;
    int64_t id = db_step(st) == 1 ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    return id;
}

int db_newest_run_of_spec(sqlite3 *db, const char *canonical, int64_t after_id,
                          db_run_outcome *out)
{
    *out = (db_run_outcome){0};
    sqlite3_stmt *st;
    const char *sql = "SELECT id, status, error FROM runs WHERE spec=? AND id>?"
                      " ORDER BY id DESC LIMIT 1";
    if (db_prepare(db, sql, &st))
        return -1;
    sqlite3_bind_text(st, 1, canonical, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, after_id);
    int rc = db_step(st);
    if (rc == 1) {
        out->id = sqlite3_column_int64(st, 0);
        const unsigned char *status = sqlite3_column_text(st, 1);
        const unsigned char *error = sqlite3_column_text(st, 2);
        snprintf(out->status, sizeof out->status, "%s",
                 status ? (const char *)status : "");
        snprintf(out->error, sizeof out->error, "%s", error ? (const char *)error : "");
    }
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 0;
}

/* ---- mortar trace and mortar profile ---- */

static void copy_text(sqlite3_stmt *st, int i, bool *has, char *out, size_t size)
{
    *has = sqlite3_column_type(st, i) != SQLITE_NULL;
    const char *text = (const char *)sqlite3_column_text(st, i);
    snprintf(out, size, "%s", text ? text : "");
}

int db_run_place_of(sqlite3 *db, int64_t id, db_run_place *out, char *err, size_t size)
{
    sqlite3_stmt *st;
    *out = (db_run_place){0};
    if (db_prepare(db, "SELECT run_dir, started_at FROM runs WHERE id = ?", &st))
        return db_error_into(err, size);
    sqlite3_bind_int64(st, 1, id);
    int found = db_step(st);
    if (found < 0)
        db_error_into(err, size);
    else if (found) {
        copy_text(st, 0, &out->has_run_dir, out->run_dir, sizeof out->run_dir);
        copy_text(st, 1, &out->has_started_at, out->started_at, sizeof out->started_at);
    }
    sqlite3_finalize(st);
    return found;
}
