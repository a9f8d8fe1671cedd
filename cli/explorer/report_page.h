/*
 * report_page.h - the explorer page: the template built from web/ (one HTML
 * file with its script, style and the charting library inlined) filled with
 * the data of a results database (report_data.h), and the scripts of the
 * traced requests that the page loads when it shows one
 * (traces/<run id>.js). Used by `mortar report`, which writes them to files,
 * and `mortar serve`, which builds them per request.
 */
#ifndef MORTAR_CLI_REPORT_PAGE_H
#define MORTAR_CLI_REPORT_PAGE_H

#include <jansson.h>
#include <stddef.h>

#include "report_data.h"
#include "study.h"

/* The template's file name, and the text in it that the data replaces
 * (exactly once, inside <script type="application/json" id="mortar-data">). */
#define REPORT_PAGE_TEMPLATE "explorer.html"
#define REPORT_PAGE_SLOT     "@MORTAR_DATA@"

/* The function a trace script calls (web/src/explorer.js defines it). A
 * script, not JSON fetched by the page, because a page opened from disk
 * (file://) may load scripts beside it but not fetch files. */
#define REPORT_PAGE_TRACE_CALLBACK "mortarTrace"

/* Finds the template in the explorer's directory (paths_web_dir:
 * $MORTAR_WEB_DIR, else <data dir>/web: <prefix>/share/mortar/web when
 * installed, build/share/mortar/web in a build tree, where the build's "web"
 * target puts it). Writes its path into `path`; 0, or -1 with `err`
 * saying where it looked and how to build it. */
int report_page_find_template(char *path, size_t size, char *err, size_t err_size);

/* What report_page_build needs, checked without building the page (which
 * computes the verdict): the template is there and `db_path` is a results
 * database. 0, or -1 with `err` set. */
int report_page_check(const char *db_path, char *err, size_t err_size);

/* The page for the results database at `db_path`: a NUL-terminated HTML
 * string of `*len` bytes that the caller frees, or NULL with `err` set (no
 * database at that path, not a results database, no template). Its data
 * holds a summary of each traced request (report_data.h); when `timelines`
 * is not NULL, *timelines receives the traced requests themselves
 * ({"<run id>": timeline}, owned by the caller; NULL when the page is
 * NULL), to be written with report_page_trace_script. `cache` (may be NULL)
 * keeps the traces' summaries across calls (report_data). The database is
 * opened and closed inside; a missing one is never created. The study `st`
 * names the variants the verdict compares (report_data). The members of
 * `extra` (may be NULL) are added to the data: `mortar report --video`'s
 * "walkthrough". */
char *report_page_build(const char *db_path, const study *st, json_t **timelines,
                        json_t *cache, const json_t *extra, size_t *len, char *err,
                        size_t err_size);

/* The script that hands run `id`'s timeline to the page:
 * `mortarTrace(<id>, <timeline as JSON>);` and a newline, every '<' in the
 * JSON escaped as in the page. A NUL-terminated string of `*len` bytes that
 * the caller frees, or NULL when it cannot be serialized. */
char *report_page_trace_script(json_int_t id, const json_t *timeline, size_t *len);

/* Run `id`'s trace script, built from the results database at `db_path`
 * with its split into `parts` (the study's; for `mortar serve`). 0 with *script (the caller frees it) and *len set;
 * 1 with `err` set when the database has no such run or the run no trace;
 * -1 with `err` set when the database cannot be read. */
int report_page_trace(const char *db_path, const split_parts *parts, json_int_t id,
                      char **script, size_t *len, char *err, size_t err_size);

/* Run `id`'s traced (median) request as the export of `kind`
 * (REPORT_TRACE_PERFETTO or REPORT_TRACE_OTLP, report_data.h): what
 * `mortar trace --format perfetto|otlp` writes, gzip-compressed, from the
 * results database at `db_path`. 0 with *data (the caller frees it) and
 * *len set; 1 with `err` set when the run or its trace is not there; -1
 * when the database cannot be read. */
int report_page_trace_export(const char *db_path, json_int_t id, report_trace_kind kind,
                             char **data, size_t *len, char *err, size_t err_size);

#endif
