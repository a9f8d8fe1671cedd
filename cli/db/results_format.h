/*
 * results_format.h - the recorded runs (db_runs_json) in the formats of
 * `mortar results`: versioned JSON, CSV with one row per run, and CSV with
 * one row per measured request; and the one rule every real number of
 * those outputs is printed by. The columns and the schema are in
 * docs/experiments.md ("Exporting results").
 */
#ifndef MORTAR_CLI_RESULTS_FORMAT_H
#define MORTAR_CLI_RESULTS_FORMAT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "db.h"

/* The version of the JSON document's layout ("schema_version"): raised
 * whenever a key is removed or changes meaning (adding one does not).
 * 2: a run's variables are only in its "vars" (version 1 had four of them
 * as keys of their own too), and a request's figures other than its
 * start, latency and verified flag are in its "fields" under the keys its
 * lines reported them with (version 1 had "service_ns" and "compute_ns"). */
#define RESULTS_SCHEMA_VERSION 2

/* Real numbers are rounded to this many decimals (a nanosecond of the _us
 * columns, a millisecond of wall_s) and printed without trailing zeros, so
 * 2431.8 never shows as 2431.7999999999997. */
#define RESULTS_DECIMALS 3

/* `x` rounded to RESULTS_DECIMALS, in its shortest form ("2431.8", "0.25",
 * "12"); "" for NaN or an infinity. Returns the length written (snprintf's
 * rule: the text is cut to fit `size`). */
int results_format_real(double x, char *out, size_t size);

/* The runs of `db` as the JSON document of `mortar results --json`:
 * {"schema_version", "runs": [...]} with each run as db_runs_json gives it
 * and, with `with_requests`, its measured requests as "requests": [{"idx",
 * "start_ns", "latency_ns", "verified", "fields"}] (db_run_requests).
 * Every real is already rounded (results_format_real). A new reference;
 * NULL when the database cannot be read (see db_last_error). */
json_t *results_json(db_conn *db, bool with_requests);

/* How results_json's document is written, here and by `mortar serve`'s
 * /api/runs. */
#define RESULTS_JSON_FLAGS (JSON_INDENT(1) | JSON_REAL_PRECISION(15))

/* Writes a document of results_json (pretty-printed, one trailing
 * newline); 0, or -1 when writing failed. */
int results_write_json(FILE *f, const json_t *doc);

/* Writes the runs of a results_json document as CSV (RFC 4180 quoting,
 * "\n" line ends): a header line, then one line per run; after the fixed
 * columns, one "vars.<name>" column per variable any run has, sorted by
 * name (empty where a run has none). 0, or -1 when writing failed. */
int results_write_runs_csv(FILE *f, const json_t *doc);

/* Writes the requests of a results_json document made `with_requests` as
 * CSV: a header line, then one line per request of every run; after the
 * fixed columns, one "fields.<name>" column per field any request has,
 * sorted by name (empty where a request has none). 0, or -1. */
int results_write_requests_csv(FILE *f, const json_t *doc);

#endif
