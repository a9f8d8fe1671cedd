/*
 * trace_export.c - a joined request (trace_join.h) as the explorer's
 * timeline and as Chrome trace-event JSON for Perfetto. OTLP is in
 * trace_otlp.c. The formats are in docs/traces.md.
 *
 * Perfetto draws `X` slices of one thread as a stack and drops a slice that
 * overlaps another without nesting in it, so a component whose slices
 * overlap (DMAs in flight while the unit computes) gets more threads
 * ("lanes"): each slice goes to the first lane where it nests. Times are
 * whole nanoseconds from the request's start, written in microseconds, so
 * Perfetto's rounding cannot make nested slices overlap. A flow arrow binds
 * to the slice open on its thread at its time, so each flow event follows
 * its event directly in the array.
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
static void add_split(json_t *timeline, const trace_join *j)
{
    time_split split;
    char why[512];
    if (time_split_compute(j, &split, why, sizeof why) == 0)
        json_object_set_new(timeline, "split", time_split_json(&split));
    else
        json_object_set_new(timeline, "split_error", json_string(why));
}

json_t *trace_timeline(const char *run_dir, int64_t request, char *err, size_t err_size)
{
    trace_join *j;
    if (trace_join_open(&j, run_dir, request, err, err_size) != 0)
        return NULL;
    json_t *out = timeline_of(j);
    if (out)
        add_split(out, j);
    trace_join_free(j);
    if (!out)
        snprintf(err, err_size, "out of memory writing the timeline");
    return out;
}

/* ---- Perfetto ------------------------------------------------------------------- */

/* Where each event goes in the trace-event file. */
typedef struct pf_layout {
    uint64_t *start_ns, *dur_ns; /* from the request's start */
    size_t *lane;                /* the event's lane within its track */
    size_t *tid_base;            /* per track: its lanes are tid_base + 1 + lane */
    size_t *lanes;               /* per track: how many */
    size_t *pid;                 /* per file: 1.., or 0 when none of its tracks */
    size_t *order;               /* the events in the order they are written */
} pf_layout;

/* One lane's open slices, innermost last. */
typedef struct lane_stack {
    uint64_t *end_ns;
    bool *zero;
    size_t n;
} lane_stack;

/* Whether a slice [a, a + dur) can go on `s`; pops what ended before it. */
static bool lane_takes(lane_stack *s, uint64_t a, uint64_t dur)
{
    while (s->n > 0) {
        uint64_t end = s->end_ns[s->n - 1];
        bool both_zero = s->zero[s->n - 1] && dur == 0;
        if (end < a || (end == a && !both_zero))
            s->n--;
        else
            break;
    }
    return s->n == 0 || a + dur <= s->end_ns[s->n - 1];
}

/* Assigns each slice of track `t` to the first lane where it nests. */
static int assign_lanes(const trace_join *j, pf_layout *l, size_t t)
{
    const tj_track *k = &j->tracks[t];
    lane_stack *st = calloc(k->count + 1, sizeof *st);
    int rc = st ? 0 : -1;
    size_t nlanes = 1;
    for (size_t i = k->first; i < k->first + k->count && rc == 0; i++) {
        l->lane[i] = 0;
        if (!j->events[i].slice)
            continue;
        size_t lane = 0;
        while (!lane_takes(&st[lane], l->start_ns[i], l->dur_ns[i]))
            lane++;
        lane_stack *s = &st[lane];
        if (!s->end_ns) {
            s->end_ns = malloc((k->count + 1) * sizeof *s->end_ns);
            s->zero = malloc((k->count + 1) * sizeof *s->zero);
            if (!s->end_ns || !s->zero) {
                rc = -1;
                break;
            }
        }
        s->end_ns[s->n] = l->start_ns[i] + l->dur_ns[i];
        s->zero[s->n++] = l->dur_ns[i] == 0;
        l->lane[i] = lane;
        if (lane + 1 > nlanes)
            nlanes = lane + 1;
    }
    for (size_t i = 0; st && i < k->count + 1; i++) {
        free(st[i].end_ns);
        free(st[i].zero);
    }
    free(st);
    l->lanes[t] = nlanes;
    return rc;
}

static int by_emit_order(const void *pa, const void *pb, void *layout)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const pf_layout *l = layout;
    if (l->start_ns[a] != l->start_ns[b])
        return l->start_ns[a] < l->start_ns[b] ? -1 : 1;
    if (l->dur_ns[a] != l->dur_ns[b])
        return l->dur_ns[a] > l->dur_ns[b] ? -1 : 1; /* the enclosing slice first */
    return a < b ? -1 : a > b; /* within a track: slices before instants */
}

static void free_layout(pf_layout *l)
{
    free(l->start_ns);
    free(l->dur_ns);
    free(l->lane);
    free(l->tid_base);
    free(l->lanes);
    free(l->pid);
    free(l->order);
}

static int make_layout(const trace_join *j, pf_layout *l)
{
    size_t n = j->nevents + 1, nt = j->ntracks + 1;
    *l = (pf_layout){.start_ns = calloc(n, sizeof(uint64_t)),
                     .dur_ns = calloc(n, sizeof(uint64_t)),
                     .lane = calloc(n, sizeof(size_t)),
                     .tid_base = calloc(nt, sizeof(size_t)),
                     .lanes = calloc(nt, sizeof(size_t)),
                     .pid = calloc(j->nfiles + 1, sizeof(size_t)),
                     .order = calloc(n, sizeof(size_t))};
    if (!l->start_ns || !l->dur_ns || !l->lane || !l->tid_base || !l->lanes || !l->pid ||
        !l->order)
        return -1;
    for (size_t i = 0; i < j->nevents; i++) {
        const tj_event *e = &j->events[i];
        l->start_ns[i] = (e->start_ps - j->start_ps) / 1000;
        l->dur_ns[i] = (e->end_ps - j->start_ps) / 1000 - l->start_ns[i];
        l->order[i] = i;
    }
    size_t tids = 0, pids = 0;
    for (size_t t = 0; t < j->ntracks; t++) {
        if (assign_lanes(j, l, t) != 0)
            return -1;
        l->tid_base[t] = tids;
        tids += l->lanes[t];
        if (l->pid[j->tracks[t].file] == 0) /* processes in the order of the path */
            l->pid[j->tracks[t].file] = ++pids;
    }
    qsort_r(l->order, j->nevents, sizeof *l->order, by_emit_order, l);
    return 0;
}

static json_t *us(uint64_t ns)
{
    return json_real((double)ns / 1000.0);
}

static json_t *metadata(const char *what, size_t pid, size_t tid, const char *key,
                        json_t *value)
{
    return json_pack("{s:s, s:s, s:I, s:I, s:i, s:{s:o}}", "name", what, "ph", "M", "pid",
                     (json_int_t)pid, "tid", (json_int_t)tid, "ts", 0, "args", key,
                     value);
}

static void add_metadata(const trace_join *j, const pf_layout *l, json_t *out)
{
    for (size_t f = 0; f < j->nfiles; f++) {
        if (!l->pid[f])
            continue;
        json_array_append_new(out, metadata("process_name", l->pid[f], 0, "name",
                                            json_string(j->files[f])));
        json_array_append_new(out,
                              metadata("process_sort_index", l->pid[f], 0, "sort_index",
                                       json_integer((json_int_t)l->pid[f])));
    }
    for (size_t t = 0; t < j->ntracks; t++) {
        const tj_track *k = &j->tracks[t];
        for (size_t lane = 0; lane < l->lanes[t]; lane++) {
            size_t tid = l->tid_base[t] + 1 + lane, pid = l->pid[k->file];
            char name[300];
            if (lane == 0)
                snprintf(name, sizeof name, "%s", k->name);
            else
                snprintf(name, sizeof name, "%s #%zu", k->name, lane + 1);
            json_array_append_new(
                out, metadata("thread_name", pid, tid, "name", json_string(name)));
            json_array_append_new(out,
                                  metadata("thread_sort_index", pid, tid, "sort_index",
                                           json_integer((json_int_t)tid)));
        }
    }
}

static json_t *pf_event(const trace_join *j, const pf_layout *l, size_t i)
{
    const tj_event *e = &j->events[i];
    const tj_track *k = &j->tracks[e->track];
    json_t *ev = json_pack("{s:s, s:s, s:s, s:o, s:I, s:I, s:o}", "name", e->name, "cat",
                           k->name, "ph", e->slice ? "X" : "i", "ts", us(l->start_ns[i]),
                           "pid", (json_int_t)l->pid[k->file], "tid",
                           (json_int_t)(l->tid_base[e->track] + 1 + l->lane[i]), "args",
                           tj_event_args(j, e));
    if (e->slice)
        json_object_set_new(ev, "dur", us(l->dur_ns[i]));
    else
        json_object_set_new(ev, "s", json_string("t"));
    return ev;
}

/* A flow's start ('s') or end ('f') on event i. */
static json_t *pf_flow(const trace_join *j, const pf_layout *l, size_t flow, bool start)
{
    size_t i = start ? j->flows[flow].from : j->flows[flow].to;
    const tj_event *e = &j->events[i];
    return json_pack("{s:s, s:s, s:s, s:I, s:o, s:I, s:I, s:s}", "name",
                     j->flows[flow].name, "cat", "flow", "ph", start ? "s" : "f", "id",
                     (json_int_t)flow + 1, "ts", us(l->start_ns[i]), "pid",
                     (json_int_t)l->pid[j->tracks[e->track].file], "tid",
                     (json_int_t)(l->tid_base[e->track] + 1 + l->lane[i]), "bp", "e");
}

static json_t *perfetto_of(const trace_join *j)
{
    pf_layout l;
    size_t *first_flow = NULL, *next_flow = NULL; /* flow ends by event, as lists */
    json_t *out = NULL;
    if (make_layout(j, &l) != 0)
        goto done;
    size_t nends = 2 * j->nflows;
    first_flow = malloc((j->nevents + 1) * sizeof *first_flow);
    next_flow = malloc((nends + 1) * sizeof *next_flow);
    if (!first_flow || !next_flow)
        goto done;
    for (size_t i = 0; i < j->nevents; i++)
        first_flow[i] = SIZE_MAX;
    for (size_t k = nends; k-- > 0;) { /* end k: flow k / 2, its start when k is even */
        size_t ev = k % 2 == 0 ? j->flows[k / 2].from : j->flows[k / 2].to;
        next_flow[k] = first_flow[ev];
        first_flow[ev] = k;
    }
    json_t *events = json_array();
    add_metadata(j, &l, events);
    for (size_t o = 0; o < j->nevents; o++) {
        size_t i = l.order[o];
        json_array_append_new(events, pf_event(j, &l, i));
        for (size_t k = first_flow[i]; k != SIZE_MAX; k = next_flow[k])
            json_array_append_new(events, pf_flow(j, &l, k / 2, k % 2 == 0));
    }
    out = json_pack("{s:o, s:s, s:{s:s, s:I, s:I, s:I, s:I, s:s}}", "traceEvents", events,
                    "displayTimeUnit", "ns", "otherData", "run_dir", j->run_dir,
                    "request", (json_int_t)j->request, "start_ps",
                    (json_int_t)j->start_ps, "end_ps", (json_int_t)j->end_ps,
                    "latency_ps", (json_int_t)(j->end_ps - j->start_ps), "ts_origin",
                    "the request's start (request_start)");
done:
    free(first_flow);
    free(next_flow);
    free_layout(&l);
    return out;
}

json_t *trace_perfetto(const char *run_dir, int64_t request, char *err, size_t err_size)
{
    trace_join *j;
    if (trace_join_open(&j, run_dir, request, err, err_size) != 0)
        return NULL;
    json_t *out = perfetto_of(j);
    trace_join_free(j);
    if (!out)
        snprintf(err, err_size, "out of memory writing the Perfetto trace");
    return out;
}
