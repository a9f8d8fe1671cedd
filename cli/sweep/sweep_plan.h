/*
 * sweep_plan.h - the points of a sweep: grids crossed over specs, every
 * point resolved and validated before anything starts, duplicates merged,
 * and points that already have a finished run in the results database
 * found, so that a rerun resumes instead of starting over.
 *
 * A sweep is given either as one spec with grids,
 *   mortar sweep SPEC --grid mtu=1500,9000 --grid pcie.latency=1us,2us
 * or as a sweep file (told apart by its "parts" key):
 *   {"name": "my-study", "description": "...",
 *    "parts": [{"specs": ["fast.json", "small.json"],
 *               "grid": {"pcie.latency": ["0.5us", "1us"], "mtu": [1500, 9000]},
 *               "set": {"requests": 60}}]}
 * or as a study file (told apart by its "variants" key, study.h), whose
 * parts name variants instead of specs; the variant axis may not be given
 * with --grid or --set then.
 * Spec paths in a sweep file are relative to the file. A part's points are
 * its specs (outermost) crossed with its grid's axes in the order written,
 * the first axis varying slowest; the sweep's points are the parts' points
 * in order. Each point is a spec plus `--set path=value` overrides (the
 * part's "set", the command line's --set, then the grid's values), exactly
 * what `mortar run` is given; values are passed as text, so 1 and 1.0 are
 * the same point.
 *
 * A point is identified by its resolved spec as `mortar run` records it in
 * runs.spec: compact JSON with sorted keys. Two points with the same
 * resolved spec are one point (the first one's label is kept); a point
 * whose resolved spec equals a run with status "ok" is done.
 */
#ifndef MORTAR_CLI_SWEEP_PLAN_H
#define MORTAR_CLI_SWEEP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db_query.h"

typedef struct sweep_point {
    char *spec_path; /* as `mortar run` is given it (relative to the cwd) */
    char **sets;     /* "path=value", nsets of them */
    size_t nsets;
    char *label;         /* "small pcie.latency=0.5us mtu=9000": spec + grid values */
    char *canonical;     /* the resolved spec as runs.spec holds it */
    int64_t done_run_id; /* > 0: an ok run of this point exists (sweep_plan_match_done) */
    bool started;        /* this invocation started a run of it */
    bool ended;          /* ... and that run ended, ok or not */
} sweep_point;

typedef struct sweep_plan {
    char *name;          /* the sweep file's "name", or the spec's file name */
    sweep_point *points; /* npoints of them, in order, duplicates merged */
    size_t npoints;
    size_t nduplicates; /* points merged into an earlier identical one */
} sweep_plan;

/* Builds the plan of `path`, a sweep file, a study or a spec. The command line's
 * `grids` ("path=v1,v2,...") are added to every part's grid and its `sets`
 * ("path=value") to every part's fixed overrides. Every point is resolved
 * and validated; the first problem is returned as -1 with a message in
 * `err` naming the file, the path and the value (an unreadable file, bad
 * --grid syntax, a path that is neither a variable nor a place in the
 * spec, a value the spec's validation rejects). On success the plan is
 * owned by the caller (sweep_plan_free), also after an error. */
int sweep_plan_load(sweep_plan *plan, const char *path, char *const grids[],
                    size_t ngrids, char *const sets[], size_t nsets, char *err,
                    size_t err_size);

void sweep_plan_free(sweep_plan *plan);

/* Resolves and validates one more point, `spec_path` with `sets`
 * ("path=value") labelled `label`, and appends it unless a point with the
 * same resolved spec is there; either way its index goes to *index.
 * Returns 0, or -1 with why in `err` (the plan unchanged). */
int sweep_plan_add(sweep_plan *plan, const char *spec_path, char *const sets[],
                   size_t nsets, const char *label, size_t *index, char *err,
                   size_t err_size);

/* Whether `path` is a sweep file or a study (a JSON object with "parts"),
 * not a spec. */
bool sweep_plan_is_sweep_file(const char *path);

/* Sets each point's done_run_id to the first run with status "ok" and the
 * point's resolved spec (0 if none). Returns the number of done points, or
 * -1 with the database's message in `err`. */
int sweep_plan_match_done(sweep_plan *plan, db_conn *db, char *err, size_t err_size);

/* A run's expected wall time before any run of this sweep ended: for each
 * point not done, the mean wall time of the past ok runs recorded under its
 * resolved spec's name (a design's or a variant's name, whatever its knob
 * values: a new grid point has no run of its own yet), averaged over the
 * points that have any; 0 when none has (or on a database error). */
double sweep_plan_expected_wall_s(const sweep_plan *plan, db_conn *db);

/* The largest run id in the database (0 if none, -1 on error). */
int64_t sweep_max_run_id(db_conn *db);

/* What a `mortar run` of a point recorded: id 0 when nothing. */
typedef db_run_outcome sweep_run_result;

/* The newest run with id > `after_id` whose resolved spec is `canonical`:
 * what a `mortar run` of that point recorded. Returns 0 (out->id == 0 when
 * there is none) or -1 on a database error. */
int sweep_find_run(db_conn *db, const char *canonical, int64_t after_id,
                   sweep_run_result *out);

#endif
