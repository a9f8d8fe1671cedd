/*
 * serve_api.h - the data of `mortar serve` as JSON, for programs rather
 * than the page: GET /api/runs is what `mortar results --json` prints
 * (/api/runs?requests=1 with each run's requests, as `--requests`), GET
 * /api/verdict what `mortar verdict --json` prints, byte for byte, for the
 * same database and study, with one member more at its end: "answer", as
 * the page's data has it (verdict_answer.h). docs/explorer.md lists them.
 */
#ifndef MORTAR_CLI_SERVE_API_H
#define MORTAR_CLI_SERVE_API_H

#include <stdbool.h>
#include <stddef.h>

#include "study.h"

/* The path prefix of the JSON answers. */
#define SERVE_API_PREFIX "/api/"

/* Whether GET /api/<name> is an answer, and the text of a 404 when not. */
bool serve_api_has(const char *name);
#define SERVE_API_NOT_FOUND \
    "not found: the data is at " SERVE_API_PREFIX "runs and " SERVE_API_PREFIX "verdict"

/* The answer to GET /api/<name> (`name` is what follows the prefix, without
 * the query) from the results database at `db_path`, with the study `st`:
 * 200 with *body (a NUL-terminated JSON text of *len bytes that the caller
 * frees); 404 when no run has finished yet (or serve_api_has says no), 500
 * when the database cannot be read, each with `err` set and *body NULL.
 * `with_requests` adds the runs' requests to /api/runs. */
unsigned serve_api_answer(const char *db_path, const study *st, const char *name,
                          bool with_requests, char **body, size_t *len, char *err,
                          size_t err_size);

#endif
