/*
 * trace_export.c - a joined request (trace_join.h) as the explorer's
 * timeline, with where its time went (time_split.h). Perfetto's format is
 * in trace_perfetto.c, OTLP in trace_otlp.c; the formats are in
 * docs/traces.md.
 */
#include "trace_export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "time_split.h"
#include "trace_join.h"

/* ---- timeline ------------------------------------------------------------------- */

static json_t *timeline_of(const trace_join *j)
{
    json_t *tracks = json_array(), *flows = json_array();
    for (size_t t = 0; t < j->ntracks; t++) {
        const tj_track *k = &j->tracks[t];
        json_t *events = json_array();
        for (size_t i = k->first; i < k->first + k->count; i++) {
            const tj_event *e = &j->events[i];
            json_array_append_new(
                events, json_pack("{s:s, s:I, s:I, s:o}", "name", e->name, "start_ps",
                                  (json_int_t)e->start_ps, "end_ps",
                                  (json_int_t)e->end_ps, "args", tj_event_args(j, e)));
        }
        json_array_append_new(tracks,
                              json_pack("{s:s, s:o}", "name", k->name, "events", events));
    }
    for (size_t f = 0; f < j->nflows; f++) {
        const tj_event *a = &j->events[j->flows[f].from], *b = &j->events[j->flows[f].to];
        json_array_append_new(
            flows, json_pack("{s:s, s:[I,I], s:[I,I]}", "name", j->flows[f].name, "from",
                             (json_int_t)a->track, (json_int_t)a->pos, "to",
                             (json_int_t)b->track, (json_int_t)b->pos));
    }
    return json_pack("{s:I, s:I, s:I, s:I, s:o, s:o}", "request", (json_int_t)j->request,
                     "start_ps", (json_int_t)j->start_ps, "end_ps", (json_int_t)j->end_ps,
                     "latency_ps", (json_int_t)(j->end_ps - j->start_ps), "tracks",
                     tracks, "flows", flows);
}

/* Where the request's time went (time_split.h), or why that is not known. */
static void add_split(json_t *timeline, const trace_join *j, const split_parts *parts)
{
    time_split split;
    char why[512];
    if (time_split_compute(j, &split, why, sizeof why) == 0)
        json_object_set_new(timeline, "split", time_split_json(&split, parts));
    else
        json_object_set_new(timeline, "split_error", json_string(why));
}

json_t *trace_timeline(const char *run_dir, int64_t request, const split_parts *parts,
                       char *err, size_t err_size)
{
    trace_join *j;
    if (trace_join_open(&j, run_dir, request, err, err_size) != 0)
        return NULL;
    json_t *out = timeline_of(j);
    if (out)
        add_split(out, j, parts);
    trace_join_free(j);
    if (!out)
        snprintf(err, err_size, "out of memory writing the timeline");
    return out;
}
