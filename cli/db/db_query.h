/*
 * db_query.h - what the commands ask the results database beyond a run's
 * record (db.h): the finished runs and their request medians and device
 * counters for `mortar verdict`, the runs of a spec for `mortar sweep`, a
 * run's directory and start time for `mortar trace` and `mortar profile`.
 * Each returns plain C values; on a database error -1 with SQLite's message
 * in `err`, which the caller puts in context.
 */
#ifndef MORTAR_CLI_DB_QUERY_H
#define MORTAR_CLI_DB_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "db.h"

/* ---- mortar verdict ---- */

/* A finished (status "ok") run as the verdict reads it; NAN stands for SQL
 * NULL in the figures. */
typedef struct db_ok_run {
    int64_t id;
    json_t *vars; /* its variables (table run_vars): {"name": value}; the
                     callback's to read, not to keep */
    double median_us, p99_us, mean_us, min_us, max_us, throughput_rps;
    char run_dir[1024]; /* "" when none */
} db_ok_run;

/* Calls `each(ctx, run)` for every run with status "ok", in id order, until
 * it returns nonzero. Returns 0 when all were seen, 1 when `each` stopped
 * it, -1 on a database error. */
int db_each_ok_run(db_conn *db, int (*each)(void *ctx, const db_ok_run *run), void *ctx,
                   char *err, size_t size);

/* The median of request field `field`, a key of the per-request lines
 * ("latency_ns", "start_ns", or one of the other fields a run recorded,
 * such as a study's metric part "service_ns"), over run `run_id`'s
 * requests where it is known (>= 0), in us, by quantile.h's rule (the
 * middle value, or the mean of the two middle ones, as for the run's own
 * median); NAN when none is known. */
int db_request_median_us(db_conn *db, int64_t run_id, const char *field, double *out,
                         char *err, size_t size);

/* The sum of the run's device counter (stats key) `of` over the sum of
 * counter `per` of the same components (those with `per` > 0); NAN when
 * the run has no such counters. */
int db_counter_share(db_conn *db, int64_t run_id, const char *of, const char *per,
                     double *out, char *err, size_t size);

/* The number of runs with status "ok", or -1. */
int64_t db_count_ok_runs(db_conn *db, char *err, size_t size);

/* ---- mortar sweep ---- */

/* The first (lowest id) run with status "ok" whose resolved spec is
 * `canonical` (the spec's compact, key-sorted JSON, as db_begin_run stores
 * it): its id in *id, 0 if none. */
int db_first_ok_run_of_spec(db_conn *db, const char *canonical, int64_t *id, char *err,
                            size_t size);

/* The largest run id (0 if none, -1 on an error, see db_last_error). */
int64_t db_max_run_id(db_conn *db);

typedef struct db_run_outcome {
    int64_t id;      /* 0: no run */
    char status[16]; /* "ok", "failed", "running", ... */
    char error[512]; /* the run's error text, "" if none */
} db_run_outcome;

/* The newest run with id > `after_id` whose resolved spec is `canonical`.
 * Returns 0 (out->id == 0 when there is none) or -1 on a database error
 * (see db_last_error). */
int db_newest_run_of_spec(db_conn *db, const char *canonical, int64_t after_id,
                          db_run_outcome *out);

/* ---- mortar trace and mortar profile ---- */

typedef struct db_run_place {
    bool has_run_dir;     /* false: the run's directory is NULL */
    char run_dir[4096];   /* "" when NULL */
    bool has_started_at;  /* false: no start time */
    char started_at[128]; /* ISO 8601, UTC ("2026-01-02T03:04:05Z") */
} db_run_place;

/* Where run `id` keeps its files and when it started. Returns 1 with *out
 * filled, 0 when the database has no such run, -1 on an error. */
int db_run_place_of(db_conn *db, int64_t id, db_run_place *out, char *err, size_t size);

#endif
