/*
 * trace_format.c - a recorded run's traced request in an export format
 * (see trace_format.h).
 */
#include "trace_format.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_query.h"
#include "json_line.h"
#include "time_split.h"
#include "trace_export.h"

int trace_format_known(const char *format)
{
    return !strcmp(format, "perfetto") || !strcmp(format, "otlp") ||
           !strcmp(format, "timeline") || !strcmp(format, "split");
}

/* "2024-05-01T12:00:00Z" as nanoseconds since 1970; 0 when not that. */
static uint64_t epoch_ns_of(const char *iso)
{
    struct tm tm = {0};
    const char *end = iso ? strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
    if (!end || (*end && strcmp(end, "Z") != 0))
        return 0;
    time_t t = timegm(&tm);
    return t < 0 ? 0 : (uint64_t)t * 1000000000ull;
}

/* Perfetto's and the timeline's times are virtual; they get the run's
 * start to share the OTLP spans' and the pcap's wall-clock base
 * (docs/traces.md). */
static json_t *export_dir(const char *dir, int64_t request, const char *format,
                          const trace_run *run, const split_parts *parts, char *err,
                          size_t err_size)
{
    if (!strcmp(format, "otlp"))
        return trace_otlp(dir, request, run, err, err_size);
    if (!strcmp(format, "split"))
        return time_split_run(dir, request, parts, err, err_size);
    bool perfetto = !strcmp(format, "perfetto");
    json_t *doc = perfetto ? trace_perfetto(dir, request, err, err_size)
                           : trace_timeline(dir, request, parts, err, err_size);
    if (doc && run->epoch_unix_ns)
        json_object_set_new(perfetto ? json_object_get(doc, "otherData") : doc,
                            "epoch_unix_ns", json_integer((json_int_t)run->epoch_unix_ns));
    return doc;
}

json_t *trace_format_run(db_conn *db, const char *db_path, int64_t id, int64_t request,
                         const char *format, const split_parts *parts, char *err,
                         size_t err_size)
{
    db_run_place place;
    int found = db_run_place_of(db, id, &place, err, err_size);
    if (found <= 0) {
        if (found == 0)
            snprintf(err, err_size, "no run %lld in %s (see mortar results)", (long long)id,
                     db_path);
        return NULL;
    }
    if (!place.has_run_dir) {
        snprintf(err, err_size, "run %lld has no run directory", (long long)id);
        return NULL;
    }
    char machine[128], abs_db[PATH_MAX];
    trace_machine_id(machine, sizeof machine);
    trace_run run = {.id = id,
                     .db_path = realpath(db_path, abs_db) ? abs_db : db_path,
                     .machine_id = machine,
                     .epoch_unix_ns =
                         epoch_ns_of(place.has_started_at ? place.started_at : NULL)};
    return export_dir(place.run_dir, request, format, &run, parts, err, err_size);
}

char *trace_format_text(const json_t *doc, size_t *len)
{
    return json_line(doc, JSON_COMPACT, len);
}
