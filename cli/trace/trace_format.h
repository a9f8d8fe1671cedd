/*
 * trace_format.h - one traced request of a recorded run in one of the
 * export formats, exactly as `mortar trace RUN --format F` writes it: the
 * command, `mortar report` (the files beside the page) and `mortar serve`
 * make it here.
 */
#ifndef MORTAR_CLI_TRACE_FORMAT_H
#define MORTAR_CLI_TRACE_FORMAT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "split_parts.h"

/* Whether `format` is one of "perfetto", "otlp", "timeline", "split". */
int trace_format_known(const char *format);

/* Request `request` (or TRACE_REQUEST_MEDIAN) of run `id` of the database
 * open as `db` (found at `db_path`) in `format`, the split and the
 * timeline's split into `parts` (the study's; not read, and may be NULL,
 * for perfetto and otlp): a new reference, or NULL
 * with `err` set (no such run, no run directory, no trace). The Perfetto
 * and timeline documents carry the run's wall-clock start
 * ("epoch_unix_ns"); OTLP's times start there. */
json_t *trace_format_run(db_conn *db, const char *db_path, int64_t id, int64_t request,
                         const char *format, const split_parts *parts, char *err,
                         size_t err_size);

/* `doc` as the exports are written: compact JSON and a newline; NULL when
 * memory runs out. The caller frees it. */
char *trace_format_text(const json_t *doc, size_t *len);

#endif
