/*
 * trace_perfetto.c - a joined request (trace_join.h) as Chrome trace-event
 * JSON, which Perfetto's UI and chrome://tracing open. The layout is in
 * docs/traces.md ("perfetto").
 *
 * What Perfetto's JSON importer does, and what this file does about it:
 *  - It reads the events sorted by time; at equal times it takes the `E`
 *    events first, then the `X` events longest first, then all the others
 *    in the file's order. So a slice with a duration is written as a `B`
 *    and an `E` event, and an instant (or a slice shorter than a
 *    nanosecond) as an `X` event of duration 0: among events of one time,
 *    the order of the file is the order Perfetto reads.
 *  - The slices of one thread must nest; one that overlaps another without
 *    nesting in it is dropped. A component whose slices overlap (DMAs in
 *    flight while the unit computes) gets more threads ("lanes"): each
 *    slice goes to the first lane where it nests, taken in the order the
 *    events are written.
 *  - An arrow is bound to a slice by "bind_id" with "flow_out" (it starts
 *    there), "flow_in" (it ends there) or both (it passes through) on the
 *    slice's own event, and an end read before its start is dropped. Each
 *    causal chain is one flow id, and among events of one time an event is
 *    written after the event its arrow comes from.
 * Times are whole nanoseconds from the request's start, written in
 * microseconds.
 */
#include "trace_export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_join.h"

/* Where each event goes in the trace-event file. */
typedef struct pf_layout {
    uint64_t *start_ns, *dur_ns; /* per event, from the request's start */
    size_t *rank;     /* per event: arrows within its start time leading to it */
    size_t *order;    /* the events by start, rank, longer first, index */
    size_t *position; /* per event: its place in `order` */
    size_t *lane;     /* per event: its lane within its track */
    size_t *tid_base; /* per track: its lanes are tid_base + 1 + lane */
    size_t *lanes;    /* per track: how many */
    size_t *pid;      /* per file: 1.., or 0 when none of its tracks */
    size_t *bind;     /* per event: its chain's flow id, 0 for none */
    bool *flow_in, *flow_out;
} pf_layout;

static void free_layout(pf_layout *l)
{
    free(l->start_ns);
    free(l->dur_ns);
    free(l->rank);
    free(l->order);
    free(l->position);
    free(l->lane);
    free(l->tid_base);
    free(l->lanes);
    free(l->pid);
    free(l->bind);
    free(l->flow_in);
    free(l->flow_out);
}

/* ---- the order of the events ---------------------------------------------------- */

/* rank[b] = the longest run of arrows between events of one start time
 * that ends at b, so a target is written after its source. Arrows never
 * go back in time, so the runs are short; at most nflows + 1 passes. */
static void rank_events(const trace_join *j, pf_layout *l)
{
    bool changed = true;
    for (size_t pass = 0; changed && pass <= j->nflows; pass++) {
        changed = false;
        for (size_t f = 0; f < j->nflows; f++) {
            size_t a = j->flows[f].from, b = j->flows[f].to;
            if (l->start_ns[a] == l->start_ns[b] && l->rank[b] < l->rank[a] + 1) {
                l->rank[b] = l->rank[a] + 1;
                changed = true;
            }
        }
    }
}

static int by_emit_order(const void *pa, const void *pb, void *layout)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const pf_layout *l = layout;
    if (l->start_ns[a] != l->start_ns[b])
        return l->start_ns[a] < l->start_ns[b] ? -1 : 1;
    if (l->rank[a] != l->rank[b])
        return l->rank[a] < l->rank[b] ? -1 : 1;
    if (l->dur_ns[a] != l->dur_ns[b])
        return l->dur_ns[a] > l->dur_ns[b] ? -1 : 1; /* the enclosing slice first */
    return a < b ? -1 : a > b; /* within a track: slices before instants */
}

/* ---- lanes ---------------------------------------------------------------------- */

/* One lane's open slices (their ends), innermost last. */
typedef struct lane_stack {
    uint64_t *end_ns;
    size_t n;
} lane_stack;

/* Whether a slice [a, a + dur) nests on `s`; first pops what has ended by
 * `a` (an `E` at `a` is read before a `B` at `a`). */
static bool lane_takes(lane_stack *s, uint64_t a, uint64_t dur)
{
    while (s->n > 0 && s->end_ns[s->n - 1] <= a)
        s->n--;
    return s->n == 0 || a + dur <= s->end_ns[s->n - 1];
}

/* Puts each slice of track `t` with a duration on the first lane where it
 * nests, in the written order; instants stay on lane 0, where they nest in
 * whatever is open. */
static int assign_lanes(const trace_join *j, pf_layout *l, size_t t)
{
    const tj_track *k = &j->tracks[t];
    lane_stack *st = calloc(k->count + 1, sizeof *st);
    int rc = st ? 0 : -1;
    size_t nlanes = 1;
    for (size_t o = 0; o < j->nevents && rc == 0; o++) {
        size_t i = l->order[o];
        if (j->events[i].track != t)
            continue;
        l->lane[i] = 0;
        if (l->dur_ns[i] == 0)
            continue;
        size_t lane = 0;
        while (!lane_takes(&st[lane], l->start_ns[i], l->dur_ns[i]))
            lane++;
        lane_stack *s = &st[lane];
        if (!s->end_ns && !(s->end_ns = malloc((k->count + 1) * sizeof *s->end_ns))) {
            rc = -1;
            break;
        }
        s->end_ns[s->n++] = l->start_ns[i] + l->dur_ns[i];
        l->lane[i] = lane;
        if (lane + 1 > nlanes)
            nlanes = lane + 1;
    }
    for (size_t i = 0; st && i < k->count + 1; i++)
        free(st[i].end_ns);
    free(st);
    l->lanes[t] = nlanes;
    return rc;
}

/* ---- flow ids ------------------------------------------------------------------- */

static size_t root_of(size_t *parent, size_t f)
{
    while (parent[f] != f)
        f = parent[f] = parent[parent[f]];
    return f;
}

/* Gives every chain of arrows (arrows that meet at an event) one flow id,
 * and each event its side of it. One bind_id per event cannot say that two
 * arrows leave (or reach) it; trace_flows.c makes no such pair, and a
 * second one would be left out. */
static int bind_flows(const trace_join *j, pf_layout *l)
{
    size_t n = j->nflows + 1, *parent = malloc(n * sizeof *parent);
    size_t *in = calloc(j->nevents + 1, sizeof *in),
           *out = calloc(j->nevents + 1, sizeof *out);
    int rc = parent && in && out ? 0 : -1;
    for (size_t f = 0; f < j->nflows && rc == 0; f++) { /* in/out: arrow + 1 */
        size_t a = j->flows[f].from, b = j->flows[f].to;
        parent[f] = f;
        if (out[a] || in[b])
            continue;
        out[a] = f + 1;
        in[b] = f + 1;
    }
    for (size_t i = 0; i < j->nevents && rc == 0; i++)
        if (in[i] && out[i])
            parent[root_of(parent, out[i] - 1)] = root_of(parent, in[i] - 1);
    for (size_t i = 0; i < j->nevents && rc == 0; i++) {
        size_t f = out[i] ? out[i] : in[i];
        l->bind[i] = f ? root_of(parent, f - 1) + 1 : 0;
        l->flow_in[i] = in[i] != 0;
        l->flow_out[i] = out[i] != 0;
    }
    free(parent);
    free(in);
    free(out);
    return rc;
}

static int make_layout(const trace_join *j, pf_layout *l)
{
    size_t n = j->nevents + 1, nt = j->ntracks + 1;
    *l = (pf_layout){.start_ns = calloc(n, sizeof(uint64_t)),
                     .dur_ns = calloc(n, sizeof(uint64_t)),
                     .rank = calloc(n, sizeof(size_t)),
                     .order = calloc(n, sizeof(size_t)),
                     .position = calloc(n, sizeof(size_t)),
                     .lane = calloc(n, sizeof(size_t)),
                     .tid_base = calloc(nt, sizeof(size_t)),
                     .lanes = calloc(nt, sizeof(size_t)),
                     .pid = calloc(j->nfiles + 1, sizeof(size_t)),
                     .bind = calloc(n, sizeof(size_t)),
                     .flow_in = calloc(n, sizeof(bool)),
                     .flow_out = calloc(n, sizeof(bool))};
    if (!l->start_ns || !l->dur_ns || !l->rank || !l->order || !l->position || !l->lane ||
        !l->tid_base || !l->lanes || !l->pid || !l->bind || !l->flow_in || !l->flow_out)
        return -1;
    for (size_t i = 0; i < j->nevents; i++) {
        const tj_event *e = &j->events[i];
        l->start_ns[i] = (e->start_ps - j->start_ps) / 1000;
        l->dur_ns[i] = (e->end_ps - j->start_ps) / 1000 - l->start_ns[i];
        l->order[i] = i;
    }
    rank_events(j, l);
    qsort_r(l->order, j->nevents, sizeof *l->order, by_emit_order, l);
    for (size_t o = 0; o < j->nevents; o++)
        l->position[l->order[o]] = o;
    size_t tids = 0, pids = 0;
    for (size_t t = 0; t < j->ntracks; t++) {
        if (assign_lanes(j, l, t) != 0)
            return -1;
        l->tid_base[t] = tids;
        tids += l->lanes[t];
        if (l->pid[j->tracks[t].file] == 0) /* processes in the order of the path */
            l->pid[j->tracks[t].file] = ++pids;
    }
    return bind_flows(j, l);
}

/* ---- the events ----------------------------------------------------------------- */

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

/* The name of the chain event i belongs to ("doorbell"), or NULL. */
static const char *flow_name(const trace_join *j, size_t i)
{
    for (size_t f = 0; f < j->nflows; f++)
        if (j->flows[f].from == i || j->flows[f].to == i)
            return j->flows[f].name;
    return NULL;
}

/* Event i's `B` (begin), `E` (end) or, without a duration, `X` event. */
static json_t *pf_event(const trace_join *j, const pf_layout *l, size_t i, char ph)
{
    const tj_event *e = &j->events[i];
    const tj_track *k = &j->tracks[e->track];
    uint64_t ts = l->start_ns[i] + (ph == 'E' ? l->dur_ns[i] : 0);
    char phase[2] = {ph, '\0'};
    json_t *ev =
        json_pack("{s:s, s:s, s:s, s:o, s:I, s:I}", "name", e->name, "cat", k->name, "ph",
                  phase, "ts", us(ts), "pid", (json_int_t)l->pid[k->file], "tid",
                  (json_int_t)(l->tid_base[e->track] + 1 + l->lane[i]));
    if (ph == 'E')
        return ev;
    if (ph == 'X')
        json_object_set_new(ev, "dur", json_integer(0));
    json_t *args = tj_event_args(j, e);
    if (l->bind[i]) {
        json_object_set_new(ev, "bind_id", json_integer((json_int_t)l->bind[i]));
        if (l->flow_out[i])
            json_object_set_new(ev, "flow_out", json_true());
        if (l->flow_in[i])
            json_object_set_new(ev, "flow_in", json_true());
        json_object_set_new(args, "flow", json_string(flow_name(j, i)));
    }
    json_object_set_new(ev, "args", args);
    return ev;
}

/* One event of the file: event `event`'s begin (or only) record, or its end. */
typedef struct pf_record {
    uint64_t ts;
    size_t event, position;
    bool end;
} pf_record;

/* By time; at one time the ends first, the inner (later begun) end before
 * the outer; then the begins and instants in the written order. */
static int by_record(const void *pa, const void *pb)
{
    const pf_record *a = pa, *b = pb;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->end != b->end)
        return a->end ? -1 : 1;
    if (a->position != b->position)
        return (a->position < b->position) == !a->end ? -1 : 1;
    return 0;
}

static json_t *perfetto_of(const trace_join *j)
{
    pf_layout l = {0};
    json_t *out = NULL;
    pf_record *records = malloc((2 * j->nevents + 1) * sizeof *records);
    if (!records || make_layout(j, &l) != 0)
        goto done;
    size_t n = 0;
    for (size_t i = 0; i < j->nevents; i++) {
        records[n++] =
            (pf_record){.ts = l.start_ns[i], .event = i, .position = l.position[i]};
        if (l.dur_ns[i] > 0)
            records[n++] = (pf_record){.ts = l.start_ns[i] + l.dur_ns[i],
                                       .event = i,
                                       .position = l.position[i],
                                       .end = true};
    }
    qsort(records, n, sizeof *records, by_record);
    json_t *events = json_array();
    add_metadata(j, &l, events);
    for (size_t r = 0; r < n; r++) {
        size_t i = records[r].event;
        char ph = records[r].end ? 'E' : l.dur_ns[i] > 0 ? 'B' : 'X';
        json_array_append_new(events, pf_event(j, &l, i, ph));
    }
    out = json_pack("{s:o, s:s, s:{s:s, s:I, s:I, s:I, s:I, s:s}}", "traceEvents", events,
                    "displayTimeUnit", "ns", "otherData", "run_dir", j->run_dir,
                    "request", (json_int_t)j->request, "start_ps",
                    (json_int_t)j->start_ps, "end_ps", (json_int_t)j->end_ps,
                    "latency_ps", (json_int_t)(j->end_ps - j->start_ps), "ts_origin",
                    "the request's start (request_start)");
done:
    free(records);
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
