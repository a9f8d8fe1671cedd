/*
 * run_record.h - the final record of a run, written so that it cannot be
 * lost: into the database (one transaction, retried), or, when the
 * database refuses it (busy beyond its timeout, full, read-only), into a
 * JSON file in the run's directory that `mortar import` writes into the
 * database later.
 */
#ifndef MORTAR_CLI_RUN_RECORD_H
#define MORTAR_CLI_RUN_RECORD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"

/* The name of the file in the run's directory. */
#define RUN_RECORD_FILE "result.json"

typedef struct run_record {
    int64_t id;
    const char *status, *error; /* error may be NULL */
    double wall_s;
    json_t *versions, *stats, *losses; /* may be NULL */
    json_t *profile; /* the processes' profile (profile_data.h); may be NULL */
    const db_request *reqs;
    size_t nreqs;
    db_summary summary;
} run_record;

/* The record as JSON (what the file holds); a new reference. */
json_t *run_record_json(const run_record *r);

/* Writes the record into `db` (db_finish_run, db_record_losses and
 * db_record_profile in one
 * transaction), trying `attempts` times. Returns 0 when it is in the
 * database; else writes it to `fallback` and returns 1 (or -1 when even
 * that failed), with the database's error in `err`. */
int run_record_write(db_conn *db, const run_record *r, int attempts, const char *fallback,
                     char *err, size_t err_size);

/* Reads the record `j` (what run_record_json made, from outside: every
 * field is checked) into *r, which borrows from `j`; its requests go to
 * *reqs (the caller frees it, also after an error). Returns 0, or -1 with
 * the first problem in `err`. */
int run_record_parse(json_t *j, run_record *r, db_request **reqs, char *err, size_t size);

/* The command line that records the kept file `file` into the database
 * `db_path` later: "mortar import 'FILE' --db 'DB'", each path absolute
 * and quoted for a POSIX shell, so it works pasted anywhere. Returns
 * `out` (cut short only if `size` is too small). */
const char *run_record_import_command(const char *file, const char *db_path, char *out,
                                      size_t size);

/* Reads a record file, checks every field and writes it into `db` (the
 * run must be in it and not yet recorded, db_run_importable). Returns 0
 * and the run's id, or -1 with the error; a record imported before is
 * refused, "run N from FILE is already recorded (status ok) in DB", and
 * nothing is written twice. */
int run_record_import(db_conn *db, const char *path, int64_t *id, char *err,
                      size_t err_size);

#endif
