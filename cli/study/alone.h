/*
 * alone.h - alone times as runs of their own: a study variant's alone
 * benchmark (docs/studies.md, "Alone benchmarks") is a command, run as a
 * child process; its key=value output gives the alone time, and each run
 * is recorded in the results database (table alone_runs, db.h). The
 * verdict reads an alone time through alone_time(), which measures it only
 * when the database has none; `mortar alone` runs one on request.
 *
 * A command is words separated by spaces (no shell, no quoting); `$knob`
 * and `${knob}` in a word take the knob's value as `--set` text. Its first
 * word is the program: a bare name is found by paths_program() (MORTAR_BIN,
 * next to mortar, PATH). The library part is alone_run.c, the command
 * alone_cmd.c.
 */
#ifndef MORTAR_CLI_ALONE_H
#define MORTAR_CLI_ALONE_H

#include <jansson.h>
#include <stddef.h>

#include "study.h"

/* The alone time of variant `v` of study `s` at the knob values
 * `at` (JSON object: knob name -> value as --set text; the knobs the
 * command does not name are ignored), in us: the alone run recorded
 * in the database at `db_path` for that command, or measured now by
 * running the command, and recorded. 0 with *us; 1 when the variant
 * has no alone benchmark; -1 with the reason in err. */
int alone_time(const char *db_path, const study *s, const study_variant *v, json_t *at,
               double *us, char *err, size_t size);

/* Variant `v`'s alone command with the knob values of `at` (as alone_time
 * takes them) in place of its references, words joined by one space:
 * what an alone run is recorded under. 0, or -1 with `err` naming the
 * knob without a value (or the command that does not fit `size`). */
int alone_command(const study_variant *v, json_t *at, char *out, size_t size, char *err,
                  size_t err_size);

/* What one run of an alone command gave. */
typedef struct alone_outcome {
    int ok;          /* 1: it exited 0 and printed the result key with a number */
    double result;   /* the result key's value (us), when ok */
    char *output;    /* its standard output (new string; "" when none) */
    char *errors;    /* its standard error (new string; "" when none) */
    double wall_s;   /* how long it ran */
    char error[512]; /* why it is not ok */
} alone_outcome;

/* Runs the expanded `command` (from alone_command) as a child process and
 * reads `result_key` from its key=value lines (the last one wins). 0 with
 * *out filled (out->ok says whether it gave a result; free its strings
 * with alone_outcome_free), -1 with `err` when it could not be started. */
int alone_run_command(const char *command, const char *result_key, alone_outcome *out,
                      char *err, size_t err_size);

void alone_outcome_free(alone_outcome *out);

#endif
