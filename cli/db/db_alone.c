/*
 * db_alone.c - the alone runs in the results database (table alone_runs,
 * schema 5): each run of a study variant's alone benchmark, keyed by the
 * variant and the command as it was run, so the verdict and the explorer
 * read an alone time instead of measuring it again (alone.h). And the
 * database's file name, which the alone times are recorded in. See db.h.
 */
#include "db.h"

#include <stdio.h>

#include "db_step.h"

int64_t db_record_alone_run(sqlite3 *db, const db_alone_run *r)
{
    sqlite3_stmt *st;
    const char *sql = "INSERT INTO alone_runs(variant, command, status, error, result_us,"
                      " output, started_at, wall_s) VALUES(?,?,?,?,?,?,?,?)";
    if (db_prepare(db, sql, &st))
        return -1;
    char when[DB_TIME_SIZE];
    db_utc_time(r->started_unix_s, when);
    sqlite3_bind_text(st, 1, r->variant, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, r->command, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, r->status, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, r->error, -1, SQLITE_TRANSIENT);
    if (r->error)
        sqlite3_bind_null(st, 5);
    else
        sqlite3_bind_double(st, 5, r->result_us);
    sqlite3_bind_text(st, 6, r->output, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 7, when, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 8, r->wall_s);
    int rc = db_step(st);
    sqlite3_finalize(st);
    return rc == 0 ? sqlite3_last_insert_rowid(db) : -1;
}

int db_alone_result(sqlite3 *db, const char *variant, const char *command, double *us,
                    char *err, size_t size)
{
    sqlite3_stmt *st;
    const char *sql =
        "SELECT result_us FROM alone_runs WHERE variant = ? AND command = ?"
        " AND status = 'ok' AND result_us IS NOT NULL ORDER BY id DESC LIMIT 1";
    if (db_prepare(db, sql, &st))
        return db_error_into(err, size);
    sqlite3_bind_text(st, 1, variant, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, command, -1, SQLITE_TRANSIENT);
    int found = db_step(st);
    if (found == 1)
        *us = sqlite3_column_double(st, 0);
    else if (found < 0)
        db_error_into(err, size);
    sqlite3_finalize(st);
    return found;
}

static json_t *alone_row(sqlite3_stmt *st)
{
    static const char *const keys[] = {"id",    "variant",   "command",    "status",
                                       "error", "result_us", "started_at", "wall_s"};
    json_t *r = json_object();
    for (int i = 0; i < 8; i++)
        json_object_set_new(r, keys[i], db_column_json(st, i));
    return r;
}

json_t *db_alone_runs_json(sqlite3 *db)
{
    sqlite3_stmt *st;
    const char *sql = "SELECT id, variant, command, status, error, result_us, started_at,"
                      " wall_s FROM alone_runs ORDER BY id";
    if (db_prepare(db, sql, &st))
        return NULL;
    return db_collect_rows(st, json_array(), alone_row);
}

const char *db_file_name(sqlite3 *db)
{
    const char *name = sqlite3_db_filename(db, "main");
    return name ? name : "";
}
