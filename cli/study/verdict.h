/*
 * verdict.h - what a study concludes, computed from the runs in the results
 * database (never typed in): the winner and margin in every grid cell of
 * the two compared variants, where they cross along the study's first knob
 * for each value of its second, how far each moves across the first knob's
 * range, alone vs in-system ranking, the baselines, and the load results.
 * The JSON layout is in docs/studies.md ("The verdict's JSON").
 */
#ifndef MORTAR_CLI_VERDICT_H
#define MORTAR_CLI_VERDICT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "study.h"

/*
 * The verdict over the finished (status "ok") runs in `db`, the newest run
 * of each cell; it takes the alone time of each compared variant once for
 * each series value in the grid (alone_time(): recorded in `db`, or
 * measured and recorded then). NULL with `err` set on a database error or
 * when the alone benchmark fails. The caller owns the result. With no
 * finished runs every section is empty.
 */
json_t *verdict_compute(db_conn *db, const study *st, char *err, size_t err_size);

/* The same, plus where the median request's time goes in every run it uses
 * that has trace files: "split" in each variant's cell (null: not traced) and
 * the "splits" list (time_split.h). This joins each traced run's trace,
 * reading all of it, so `mortar verdict` asks for it and the explorer's page,
 * which has the traced requests anyway, does not. */
json_t *verdict_compute_with_splits(db_conn *db, const study *st, char *err,
                                    size_t err_size);

/* How a verdict is written as JSON, by `mortar verdict --json` and by
 * `mortar serve`'s /api/verdict. */
#define VERDICT_JSON_FLAGS (JSON_INDENT(1) | JSON_REAL_PRECISION(10))

/* How many runs in `db` finished ("ok"); -1 with `err` set on a database
 * error. */
int64_t verdict_finished_runs(db_conn *db, char *err, size_t err_size);

/* What `mortar verdict --json` shows for `db`: 0 with *verdict set
 * (verdict_compute_with_splits; the caller owns it), 1 when no run has
 * finished yet, -1 with `err` set when the database cannot be read or no
 * verdict can be made. */
int verdict_of_database(db_conn *db, const study *st, json_t **verdict, char *err,
                        size_t err_size);

#endif
