/*
 * db_step.h - the database module's one rule for talking to SQLite (inside
 * cli/db/db*.c only): a statement's step is a row, the end, or an
 * error, and an error is never taken for the end. A damaged file makes a
 * query stop early with SQLITE_CORRUPT; a loop that stopped at "not a row"
 * read a corrupt database as one with fewer runs (issue 33, case 6). Every
 * failure keeps SQLite's message for db_last_error (db.h), taken at once,
 * before a reset or a rollback replaces it.
 */
#ifndef MORTAR_CLI_DB_STEP_H
#define MORTAR_CLI_DB_STEP_H

#include <jansson.h>
#include <sqlite3.h>

/* Steps `st`: 1 with a row to read, 0 when the statement is done, -1 on
 * an error (its message kept, see db_last_error). */
int db_step(sqlite3_stmt *st);

/* Prepares `sql` into *st; 0, or -1 with the message kept. */
int db_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st);

/* Runs `sql` (statements without rows); 0, or -1 with the message kept. */
int db_exec(sqlite3 *db, const char *sql);

/* Column `i` of the current row as JSON: an integer, a real, a string, or
 * null (NULL and blobs). A new reference. */
json_t *db_column_json(sqlite3_stmt *st, int i);

/* Appends each row of `st` (bound) to `out` as `row` makes it (a row it
 * makes nothing of, NULL, is left out); `out`, or NULL (and `out` freed)
 * when a step fails. Finalizes `st`. */
json_t *db_collect_rows(sqlite3_stmt *st, json_t *out, json_t *(*row)(sqlite3_stmt *st));

/* Keeps the database's current message as the last error; returns -1. */
int db_fail(sqlite3 *db);

/* Keeps `fmt`'s text as the last error; returns -1. */
int db_fail_with(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
