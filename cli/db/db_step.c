/*
 * db_step.c - stepping, preparing and running statements with their
 * errors kept (see db_step.h), and the last error's text (db_last_error).
 */
#include "db_step.h"

#include <stdarg.h>
#include <stdio.h>

#include "db.h"

/* The message of the last failure in this thread, kept past the reset or
 * rollback that clears SQLite's own. */
static _Thread_local char last_error[512];

const char *db_last_error(void)
{
    return last_error[0] ? last_error : "unknown error";
}

int db_error_into(char *err, size_t size)
{
    snprintf(err, size, "%s", db_last_error());
    return -1;
}

int db_fail(sqlite3 *db)
{
    snprintf(last_error, sizeof last_error, "%s", db ? sqlite3_errmsg(db) : "out of memory");
    return -1;
}

int db_fail_with(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return -1;
}

int db_step(sqlite3_stmt *st)
{
    switch (sqlite3_step(st)) {
    case SQLITE_ROW:
        return 1;
    case SQLITE_DONE:
        return 0;
    default:
        return db_fail(sqlite3_db_handle(st));
    }
}

int db_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK)
        return 0;
    *st = NULL;
    return db_fail(db);
}

int db_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    db_fail_with("%s", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return -1;
}

json_t *db_column_json(sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER:
        return json_integer(sqlite3_column_int64(st, i));
    case SQLITE_FLOAT:
        return json_real(sqlite3_column_double(st, i));
    case SQLITE_TEXT:
        return json_string((const char *)sqlite3_column_text(st, i));
    default:
        return json_null();
    }
}

json_t *db_collect_rows(sqlite3_stmt *st, json_t *out, json_t *(*row)(sqlite3_stmt *st))
{
    int rc;
    json_t *r;
    while ((rc = db_step(st)) == 1)
        if ((r = row(st)))
            json_array_append_new(out, r);
    sqlite3_finalize(st);
    if (rc == 0)
        return out;
    json_decref(out);
    return NULL;
}
