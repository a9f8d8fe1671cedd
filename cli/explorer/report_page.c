/*
 * report_page.c - fills the explorer's template with a database's data.
 *
 * The template is built once by the build (web/build.mjs): the page's HTML
 * with its script, style and Chart.js inlined, and one slot where the data
 * goes. Here the data is serialized and escaped so that no text in it can end
 * the <script> element that holds it: every '<' becomes \u003c, which JSON
 * reads back as the same character (a '<' only ever occurs inside a string).
 * The traced requests, which would make the page tens of megabytes, are
 * scripts of their own that the page loads when it shows one; they are
 * escaped the same way.
 */
#include "report_page.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "dirs.h"
#include "paths.h"
#include "gzip.h"
#include "report_data.h"
#include "trace_export.h"
#include "trace_format.h"

int report_page_find_template(char *path, size_t size, char *err, size_t err_size)
{
    char dir[PATH_MAX], dir_err[2 * PATH_MAX + 256];
    if (paths_web_dir(dir, sizeof dir, dir_err, sizeof dir_err) == 0) {
        snprintf(path, size, "%s/%s", dir, REPORT_PAGE_TEMPLATE);
        if (access(path, R_OK) == 0)
            return 0;
        snprintf(dir_err, sizeof dir_err, "no explorer template at %s", path);
    }
    snprintf(err, err_size,
             "the explorer page is not built: %s (build the \"web\" target, which needs "
             "node and npm: tools/setup.sh; or point MORTAR_WEB_DIR at a built one)",
             dir_err);
    return -1;
}

/* `before`, then `json` with each '<' written as \u003c, then `after`: a new
 * NUL-terminated string of *len bytes, or NULL when out of memory. */
static char *join_escaped(const char *before, size_t before_len, const char *json,
                          const char *after, size_t after_len, size_t *len)
{
    size_t lts = 0, json_len = strlen(json);
    for (const char *p = json; *p; p++)
        lts += *p == '<';
    size_t out_len = before_len + json_len + lts * 5 + after_len;
    char *out = malloc(out_len + 1);
    if (!out)
        return NULL;
    memcpy(out, before, before_len);
    char *w = out + before_len;
    for (const char *p = json; *p; p++) {
        if (*p == '<') {
            memcpy(w, "\\u003c", 6);
            w += 6;
        } else {
            *w++ = *p;
        }
    }
    memcpy(w, after, after_len);
    w[after_len] = '\0';
    *len = out_len;
    return out;
}

/* The template with `json` in place of the slot, each '<' in it escaped. */
static char *fill_template(const char *tpl, size_t tpl_len, const char *json, size_t *len,
                           char *err, size_t err_size)
{
    const char *slot = strstr(tpl, REPORT_PAGE_SLOT);
    if (!slot) {
        snprintf(err, err_size, "the explorer template has no %s slot", REPORT_PAGE_SLOT);
        return NULL;
    }
    const char *after = slot + strlen(REPORT_PAGE_SLOT);
    char *out = join_escaped(tpl, (size_t)(slot - tpl), json, after,
                             tpl_len - (size_t)(after - tpl), len);
    if (!out)
        snprintf(err, err_size, "out of memory for the page");
    return out;
}

/* Opens the database at db_path read-only; it must exist. */
static int open_existing(db_conn **db, const char *db_path, char *err, size_t err_size)
{
    return db_open_read(db, db_path, err, err_size);
}

int report_page_check(const char *db_path, char *err, size_t err_size)
{
    char tpl_path[PATH_MAX + 64];
    db_conn *db;
    if (report_page_find_template(tpl_path, sizeof tpl_path, err, err_size) ||
        open_existing(&db, db_path, err, err_size))
        return -1;
    db_close(db);
    return 0;
}

char *report_page_build(const char *db_path, const study *st, json_t **timelines,
                        json_t *cache, const json_t *extra, size_t *len, char *err,
                        size_t err_size)
{
    if (timelines)
        *timelines = NULL;
    char tpl_path[PATH_MAX + 64];
    db_conn *db;
    if (report_page_find_template(tpl_path, sizeof tpl_path, err, err_size) ||
        open_existing(&db, db_path, err, err_size))
        return NULL;
    size_t tpl_len;
    char *tpl = dirs_read_file(tpl_path, &tpl_len, err, err_size);
    if (!tpl) {
        db_close(db);
        return NULL;
    }
    char *shown = realpath(db_path, NULL);
    json_t *data =
        report_data(db, st, shown ? shown : db_path, timelines, cache, err, err_size);
    free(shown);
    db_close(db);
    if (data && extra)
        json_object_update(data, (json_t *)extra);
    char *json = data ? json_dumps(data, JSON_COMPACT) : NULL;
    char *page = NULL;
    if (json)
        page = fill_template(tpl, tpl_len, json, len, err, err_size);
    else if (data)
        snprintf(err, err_size, "cannot serialize the page's data");
    json_decref(data);
    free(json);
    free(tpl);
    if (!page && timelines) {
        json_decref(*timelines);
        *timelines = NULL;
    }
    return page;
}

char *report_page_trace_script(json_int_t id, const json_t *timeline, size_t *len)
{
    char *json = json_dumps(timeline, JSON_COMPACT);
    if (!json)
        return NULL;
    char call[64];
    int n = snprintf(call, sizeof call, "%s(%lld, ", REPORT_PAGE_TRACE_CALLBACK,
                     (long long)id);
    char *script = join_escaped(call, (size_t)n, json, ");\n", 3, len);
    free(json);
    return script;
}

int report_page_trace(const char *db_path, const split_parts *parts, json_int_t id,
                      char **script, size_t *len, char *err, size_t err_size)
{
    db_conn *db;
    if (open_existing(&db, db_path, err, err_size))
        return -1;
    json_t *all = db_runs_json(db);
    db_close(db);
    if (!all) {
        snprintf(err, err_size, "%s: %s", db_path, db_last_error());
        return -1;
    }
    json_t *timeline =
        report_data_trace(json_object_get(all, "runs"), id, parts, err, err_size);
    json_decref(all);
    if (!timeline)
        return 1;
    *script = report_page_trace_script(id, timeline, len);
    json_decref(timeline);
    if (!*script) {
        snprintf(err, err_size, "cannot serialize the trace of run %lld", (long long)id);
        return -1;
    }
    return 0;
}

int report_page_trace_export(const char *db_path, json_int_t id, report_trace_kind kind,
                             char **data, size_t *len, char *err, size_t err_size)
{
    db_conn *db;
    if (open_existing(&db, db_path, err, err_size))
        return -1;
    json_t *doc = trace_format_run(db, db_path, id, TRACE_REQUEST_MEDIAN,
                                   report_data_trace_format(kind), NULL, err, err_size);
    db_close(db);
    if (!doc)
        return 1;
    size_t text_len;
    char *text = trace_format_text(doc, &text_len);
    json_decref(doc);
    *data = text ? gzip_bytes(text, text_len, len) : NULL;
    free(text);
    if (!*data) {
        snprintf(err, err_size, "out of memory writing the trace of run %lld", (long long)id);
        return -1;
    }
    return 0;
}
