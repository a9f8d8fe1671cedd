/*
 * report_data.c - the explorer page's data: the runs (db.h), the verdict
 * (verdict.h) and a traced request per shown run (trace_export.h), put
 * together in one JSON object. The page holds only a summary of each traced
 * request; the whole timelines go to scripts beside it (report_page.h) that
 * the page loads when it shows one. Nothing here computes a conclusion; the
 * page only displays what these modules return.
 */
#include "report_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "study_json.h"
#include "trace_export.h"
#include "verdict.h"
#include "verdict_answer.h"
#include "verdict_axes.h"

/* The run with this id in db_runs_json's array, or NULL. */
static json_t *find_run(json_t *runs, json_int_t id)
{
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r) {
        if (json_integer_value(json_object_get(r, "id")) == id)
            return r;
    }
    return NULL;
}

/* Whether `variant` is one of the two variants the study compares. */
static int is_compared(const study *st, const char *variant)
{
    return variant && (!strcmp(variant, st->variants[st->compared[0]].name) ||
                       !strcmp(variant, st->variants[st->compared[1]].name));
}

json_t *report_data_trace(json_t *runs, json_int_t id, const split_parts *parts, char *err,
                          size_t err_size)
{
    json_t *run = find_run(runs, id);
    const char *dir = json_string_value(json_object_get(run, "run_dir"));
    err[0] = '\0';
    json_t *timeline = NULL;
    if (!run)
        snprintf(err, err_size, "run %lld is not in the database", (long long)id);
    else if (!dir || !*dir)
        snprintf(err, err_size, "run %lld has no run directory", (long long)id);
    else
        timeline = trace_timeline(dir, TRACE_REQUEST_MEDIAN, parts, err, err_size);
    if (!timeline && !err[0])
        snprintf(err, err_size, "no trace");
    return timeline;
}

static const char *const trace_endings[REPORT_TRACE_KINDS] = {".js", ".perfetto.json.gz",
                                                              ".otlp.json.gz"};

const char *report_data_trace_format(report_trace_kind kind)
{
    return kind == REPORT_TRACE_PERFETTO ? "perfetto" : kind == REPORT_TRACE_OTLP ? "otlp" : NULL;
}

void report_data_trace_file(json_int_t id, report_trace_kind kind, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%lld%s", REPORT_DATA_TRACES_DIR, (long long)id,
             trace_endings[kind]);
}

int report_data_trace_id(const char *name, json_int_t *id, report_trace_kind *kind)
{
    size_t digits = strspn(name, "0123456789");
    if (digits == 0 || digits > 18 || (name[0] == '0' && digits > 1))
        return -1;
    for (int k = 0; k < REPORT_TRACE_KINDS; k++)
        if (!strcmp(name + digits, trace_endings[k])) {
            *id = (json_int_t)strtoll(name, NULL, 10);
            *kind = (report_trace_kind)k;
            return 0;
        }
    return -1;
}

/* What the page needs of a timeline before it loads it: its request, times,
 * where its time went, how many events it holds and where its script is. */
static json_t *trace_summary(json_t *timeline, json_int_t id)
{
    size_t events = 0, i;
    json_t *track;
    json_array_foreach(json_object_get(timeline, "tracks"), i, track) {
        events += json_array_size(json_object_get(track, "events"));
    }
    char file[64], perfetto[64], otlp[64];
    report_data_trace_file(id, REPORT_TRACE_SCRIPT, file, sizeof file);
    report_data_trace_file(id, REPORT_TRACE_PERFETTO, perfetto, sizeof perfetto);
    report_data_trace_file(id, REPORT_TRACE_OTLP, otlp, sizeof otlp);
    json_t *summary = json_pack(
        "{s:O?, s:O?, s:O?, s:O?, s:I, s:s, s:{s:s, s:s}}", "request",
        json_object_get(timeline, "request"), "start_ps", json_object_get(timeline, "start_ps"),
        "end_ps", json_object_get(timeline, "end_ps"), "latency_ps",
        json_object_get(timeline, "latency_ps"), "events", (json_int_t)events, "file", file,
        "exports", "perfetto", perfetto, "otlp", otlp);
    const char *keys[] = {"split", "split_error"};
    for (int k = 0; k < 2; k++) {
        json_t *v = json_object_get(timeline, keys[k]);
        if (v)
            json_object_set(summary, keys[k], v);
    }
    return summary;
}

/* The shown runs' traces: a summary (or the error) per run in `traces`, the
 * whole timeline in `timelines` when that is not NULL; `cache`, when not
 * NULL, keeps finished runs' summaries across calls (report_data). */
typedef struct trace_sink {
    json_t *traces, *timelines, *cache;
    const split_parts *parts; /* the study's parts of a request's time */
} trace_sink;

/* The cache key of a finished run: its id, run directory and start, so that
 * a database made afresh with the same ids does not hit an old entry. NULL
 * (not cached) while the run may still be writing its trace. */
static const char *cache_key(json_t *runs, json_int_t id, char *buf, size_t size)
{
    json_t *run = find_run(runs, id);
    const char *status = json_string_value(json_object_get(run, "status"));
    if (!run || !status || !strcmp(status, "running"))
        return NULL;
    const char *dir = json_string_value(json_object_get(run, "run_dir"));
    const char *started = json_string_value(json_object_get(run, "started_at"));
    snprintf(buf, size, "%lld|%s|%s", (long long)id, dir ? dir : "",
             started ? started : "");
    return buf;
}

/* Adds the traced median request of run `id` (once). */
static void add_trace(trace_sink *sink, json_t *runs, json_int_t id)
{
    char key[32], ckey_buf[1200];
    snprintf(key, sizeof key, "%lld", (long long)id);
    if (json_object_get(sink->traces, key))
        return;
    const char *ckey = sink->cache && !sink->timelines
                           ? cache_key(runs, id, ckey_buf, sizeof ckey_buf)
                           : NULL;
    json_t *cached = ckey ? json_object_get(sink->cache, ckey) : NULL;
    if (cached) {
        json_object_set(sink->traces, key, cached);
        return;
    }
    char err[512];
    json_t *timeline = report_data_trace(runs, id, sink->parts, err, sizeof err);
    json_t *summary =
        timeline ? trace_summary(timeline, id) : json_pack("{s:s}", "error", err);
    json_object_set_new(sink->traces, key, summary);
    if (ckey)
        json_object_set(sink->cache, ckey, summary);
    if (timeline && sink->timelines)
        json_object_set_new(sink->timelines, key, timeline);
    else
        json_decref(timeline);
}

/* The verdict's cells name the runs the page shows. */
static void add_verdict_traces(trace_sink *sink, const study *st, json_t *runs,
                               json_t *verdict)
{
    size_t i;
    json_t *cell;
    json_array_foreach(json_object_get(verdict, "cells"), i, cell) {
        const char *variants[] = {st->variants[st->compared[0]].name,
                                  st->variants[st->compared[1]].name};
        for (int d = 0; d < 2; d++) {
            json_t *id = json_object_get(json_object_get(cell, variants[d]), "run_id");
            if (json_is_integer(id))
                add_trace(sink, runs, json_integer_value(id));
        }
    }
}

/* Without a verdict the page shows, per grid point of the two compared
 * variants (unloaded: the load axis' lowest value), the newest finished
 * run; so do the traces. `runs` are annotated (study_json_annotate_run). */
static void add_grid_traces(trace_sink *sink, const study *st, json_t *runs)
{
    json_t *newest = json_object(); /* "variant|x|series" -> id */
    double load_at = verdict_axes_of(st).load_at;
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r) {
        const char *variant = json_string_value(json_object_get(r, "variant"));
        const char *status = json_string_value(json_object_get(r, "status"));
        json_t *load = json_object_get(r, "load");
        if (!is_compared(st, variant) || !status || strcmp(status, "ok") ||
            (json_is_number(load) && json_number_value(load) != load_at))
            continue;
        char key[320];
        snprintf(key, sizeof key, "%s|%.17g|%.17g", variant,
                 json_number_value(json_object_get(r, "x")),
                 json_number_value(json_object_get(r, "series")));
        json_object_set(newest, key, json_object_get(r, "id")); /* ids ascend */
    }
    const char *key;
    json_t *id;
    json_object_foreach(newest, key, id) {
        add_trace(sink, runs, json_integer_value(id));
    }
    json_decref(newest);
}

json_t *report_data(db_conn *db, const study *st, const char *db_path, json_t **timelines,
                    json_t *cache, char *err, size_t err_size)
{
    json_t *all = db_runs_json(db);
    if (!all) {
        snprintf(err, err_size, "%s: %s", db_path, db_last_error());
        return NULL;
    }
    json_t *data = json_object();
    char now[DB_TIME_SIZE];
    db_utc_time(0, now);
    json_object_set_new(
        data, "generator",
        json_sprintf("mortar %s (commit %s)", MORTAR_VERSION, MORTAR_COMMIT));
    json_object_set_new(data, "generated_at", json_string(now));
    json_object_set_new(data, "database", json_string(db_path));

    json_object_set_new(data, "study", study_json(st));
    json_t *runs = json_object_get(all, "runs"), *run;
    size_t i;
    json_array_foreach(runs, i, run)
        study_json_annotate_run(st, run);
    json_object_set(data, "runs", runs);

    char why[1024] = "";
    json_t *verdict = verdict_compute(db, st, why, sizeof why);
    json_object_set_new(data, "verdict", verdict ? verdict : json_null());
    json_object_set_new(data, "verdict_error",
                        verdict ? json_null() : json_string(why[0] ? why : "no verdict"));
    json_t *answer = verdict_answer_of_study(verdict, st);
    json_object_set_new(data, "answer", answer ? answer : json_null());

    trace_sink sink = {.parts = &st->metric.split,
                       .traces = json_object(),
                       .timelines = timelines ? json_object() : NULL,
                       .cache = cache};
    if (verdict)
        add_verdict_traces(&sink, st, runs, verdict);
    else
        add_grid_traces(&sink, st, runs);
    json_object_set_new(data, "traces", sink.traces);
    if (timelines)
        *timelines = sink.timelines;
    json_decref(all);
    return data;
}
