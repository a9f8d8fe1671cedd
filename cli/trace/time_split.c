/*
 * time_split.c - where one request's time goes (see time_split.h; the rule
 * is in docs/traces.md, "Where the time goes").
 *
 * The algorithm: turn the joined request into intervals, each of one
 * activity (compute, PCIe wire, host interface, network), then sweep the
 * window once. Each stretch of time goes to the highest-priority activity
 * in flight (compute > PCIe wire > host interface > network); a stretch with none is software: the server's while the server
 * holds the request (its request_received .. reply_sent marks), otherwise
 * the software of the host that acts next (its next mark or register access
 * ends the stretch). Every picosecond of the window falls in exactly one
 * stretch, so the activities sum to the latency (and so do a study's parts,
 * split_parts.h, which take each activity once).
 *
 * What an interval is, by the role of the component (never its name):
 *   - a device's compute slice                       -> compute
 *   - DMA data to or from a device arriving over its PCIe link (pcie_wire
 *     events)                                        -> PCIe wire
 *   - a device's DMA slice; a host's MMIO read of a device (the round trip);
 *     a causal arrow between a host and a device (doorbell chain,
 *     interrupt); the time between two register accesses of a host to one
 *     device with nothing else of that host between (the driver doing
 *     register traffic: polling, copying)          -> host interface
 *   - a causal arrow that touches a network element (frames through the
 *     switch, a NIC's interrupt); a host's MMIO read of a NIC; a NIC from the
 *     host's last register write to each frame it sends; a NIC from each
 *     frame it receives to its next interrupt or the host's next register
 *     access to it                                   -> network
 * Slices whose begin or end lies outside the window count from or to the
 * window's edge.
 */
#include "time_split.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "grow.h"

/* What a track is, from what it records. */
typedef enum role { ROLE_OTHER, ROLE_HOST, ROLE_NETWORK, ROLE_DEVICE } role;

typedef struct interval {
    uint64_t start_ps, end_ps;
    split_activity part;
} interval;

/* A boundary of an interval, for the sweep. */
typedef struct bound {
    uint64_t time_ps;
    split_activity part;
    int delta; /* +1 at the start, -1 at the end */
} bound;

/* A host's event: who acted at this time. */
typedef struct host_point {
    uint64_t time_ps;
    bool client;
} host_point;

typedef struct split_work {
    const trace_join *j;
    role *roles;        /* per track */
    const char **owner; /* per track: the host it belongs to, or NULL */
    const char *client; /* the client host's name */
    uint64_t svc_start, svc_end;
    bound *bounds;
    size_t nbounds, bounds_cap;
    host_point *points;
    size_t npoints, points_cap;
} split_work;

/* ---- small helpers ---------------------------------------------------------------- */

static bool named(const tj_event *e, const char *name)
{
    return !strcmp(e->name, name);
}

static const tj_event *track_event(const trace_join *j, size_t t, size_t i)
{
    return &j->events[j->tracks[t].first + i];
}

/* Adds [start, end) clipped to the window; empty ones are dropped. */
static int add_interval(split_work *w, uint64_t start, uint64_t end, split_activity part)
{
    if (start < w->j->start_ps)
        start = w->j->start_ps;
    if (end > w->j->end_ps)
        end = w->j->end_ps;
    if (end <= start)
        return 0;
    if (grow(&w->bounds, &w->bounds_cap, w->nbounds + 2, sizeof *w->bounds))
        return -1;
    w->bounds[w->nbounds++] = (bound){start, part, +1};
    w->bounds[w->nbounds++] = (bound){end, part, -1};
    return 0;
}

static int add_point(split_work *w, uint64_t time_ps, const char *host)
{
    if (grow(&w->points, &w->points_cap, w->npoints + 1, sizeof *w->points))
        return -1;
    w->points[w->npoints++] = (host_point){time_ps, !strcmp(host, w->client)};
    return 0;
}

/* ---- roles ---------------------------------------------------------------------- */

static bool is_frame_kind(const char *name)
{
    static const char *const kinds[] = {"tx_frame", "rx_frame", "frame_rx", "frame_tx",
                                        "frame_drop"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(name, kinds[i]))
            return true;
    return false;
}

static bool sends_frames(const trace_join *j, size_t t)
{
    for (size_t i = 0; i < j->tracks[t].count; i++)
        if (is_frame_kind(track_event(j, t, i)->name))
            return true;
    return false;
}

/* Whether `name` is a host: the client, or the host of some host-side view. */
static bool is_host_name(const split_work *w, const char *name)
{
    if (!strcmp(name, w->client))
        return true;
    for (size_t t = 0; t < w->j->ntracks; t++)
        if (w->j->tracks[t].host_side && !strcmp(w->j->tracks[t].group, name))
            return true;
    return false;
}

/* Models first (network or device), then the hosts' views take their
 * model's role (a view without its model in the window: a device). */
static void assign_roles(split_work *w)
{
    const trace_join *j = w->j;
    for (size_t t = 0; t < j->ntracks; t++) {
        const tj_track *k = &j->tracks[t];
        if (k->host_side)
            continue;
        if (is_host_name(w, k->name))
            w->roles[t] = ROLE_HOST;
        else if (sends_frames(j, t))
            w->roles[t] = ROLE_NETWORK;
        else
            w->roles[t] = k->host_view >= 0 ? ROLE_DEVICE : ROLE_OTHER;
        w->owner[t] = w->roles[t] == ROLE_HOST ? k->name
                      : k->host_view >= 0      ? k->group
                                               : NULL;
    }
    for (size_t t = 0; t < j->ntracks; t++) {
        const tj_track *k = &j->tracks[t];
        if (!k->host_side)
            continue;
        w->roles[t] = k->device >= 0 ? w->roles[k->device] : ROLE_DEVICE;
        w->owner[t] = k->group;
    }
}

/* The activity a role's work belongs to, or SPLIT_NACTIVITIES for none. */
static split_activity part_of(role r)
{
    return r == ROLE_NETWORK  ? SPLIT_NETWORK
           : r == ROLE_DEVICE ? SPLIT_HOST_INTERFACE
                              : SPLIT_NACTIVITIES;
}

/* ---- the marks ------------------------------------------------------------------ */

/* Finds the server's service slice of the request; an error names the mark
 * that is missing. */
static int find_service(split_work *w, char *err, size_t size)
{
    const trace_join *j = w->j;
    const tj_event *root = j->root < j->nevents ? &j->events[j->root] : NULL;
    if (!root || !root->slice || !named(root, "request"))
        return errbuf_fail(err, size,
                           "request %lld: no request_start/request_end pair from the"
                           " client: its time cannot be split",
                           (long long)j->request);
    w->client = j->tracks[root->track].name;
    bool received = false;
    for (size_t i = 0; i < j->nevents; i++) {
        const tj_event *e = &j->events[i];
        if (e->begin.req_id != (uint64_t)j->request)
            continue;
        if (e->slice && named(e, "service")) {
            w->svc_start = e->start_ps;
            w->svc_end = e->end_ps;
            return 0;
        }
        received |= named(e, "request_received");
    }
    return errbuf_fail(err, size,
                       "request %lld has no %s mark from a server in its window: its"
                       " time cannot be split between client and server",
                       (long long)j->request,
                       received ? "reply_sent" : "request_received");
}

/* ---- the intervals -------------------------------------------------------------- */

/* A slice of a device or network element, or half of one cut by the window. */
static int event_intervals(split_work *w, const tj_event *e)
{
    const trace_join *j = w->j;
    const tj_track *k = &j->tracks[e->track];
    split_activity part = part_of(w->roles[e->track]);
    bool model = !k->host_side;
    if (named(e, "compute") && e->slice)
        return add_interval(w, e->start_ps, e->end_ps, SPLIT_COMPUTE);
    if (named(e, "compute_start"))
        return add_interval(w, e->start_ps, j->end_ps, SPLIT_COMPUTE);
    if (named(e, "compute_end"))
        return add_interval(w, j->start_ps, e->start_ps, SPLIT_COMPUTE);
    if (part == SPLIT_NACTIVITIES)
        return 0;
    if (named(e, "pcie_wire")) /* a message's bytes arriving over a PCIe link */
        return add_interval(w, e->start_ps, e->start_ps + e->begin.arg0,
                            part == SPLIT_HOST_INTERFACE ? SPLIT_PCIE_WIRE : part);
    bool transfer = named(e, "dma_read") || named(e, "dma_write");
    if ((model && transfer) || (!model && named(e, "mmio_read")))
        return add_interval(w, e->start_ps, e->slice ? e->end_ps : j->end_ps, part);
    if ((model && (named(e, "dma_read_done") || named(e, "dma_write_done"))) ||
        (!model && named(e, "mmio_read_done")))
        return add_interval(w, j->start_ps, e->start_ps, part);
    return 0;
}

static int flow_intervals(split_work *w)
{
    const trace_join *j = w->j;
    for (size_t f = 0; f < j->nflows; f++) {
        const tj_event *a = &j->events[j->flows[f].from], *b = &j->events[j->flows[f].to];
        role ra = w->roles[a->track], rb = w->roles[b->track];
        split_activity part = ra == ROLE_NETWORK || rb == ROLE_NETWORK ? SPLIT_NETWORK
                          : ra == ROLE_DEVICE || rb == ROLE_DEVICE ? SPLIT_HOST_INTERFACE
                                                                   : SPLIT_NACTIVITIES;
        uint64_t s = a->start_ps < b->start_ps ? a->start_ps : b->start_ps;
        uint64_t e = a->start_ps < b->start_ps ? b->start_ps : a->start_ps;
        if (part != SPLIT_NACTIVITIES && add_interval(w, s, e, part))
            return -1;
    }
    return 0;
}

static bool is_access(const tj_event *e)
{
    return named(e, "mmio_read") || named(e, "mmio_write");
}

/* The host's last register write to the NIC at or before `t`, or NULL. */
static const tj_event *last_write_before(const trace_join *j, size_t view, uint64_t t)
{
    const tj_event *best = NULL;
    for (size_t i = 0; i < j->tracks[view].count; i++) {
        const tj_event *e = track_event(j, view, i);
        if (e->start_ps > t)
            break;
        if (named(e, "mmio_write"))
            best = e;
    }
    return best;
}

/* The NIC's next interrupt, or the host's next register access to it, at or
 * after `t`; UINT64_MAX when neither comes in the window. */
static uint64_t rx_done_at(const trace_join *j, size_t nic, size_t view, uint64_t t)
{
    uint64_t best = UINT64_MAX;
    for (size_t i = 0; i < j->tracks[nic].count; i++) {
        const tj_event *e = track_event(j, nic, i);
        if (e->start_ps >= t && (named(e, "irq") || named(e, "interrupt"))) {
            best = e->start_ps;
            break;
        }
    }
    for (size_t i = 0; i < j->tracks[view].count; i++) {
        const tj_event *e = track_event(j, view, i);
        if (e->start_ps >= t && is_access(e)) {
            if (e->start_ps < best)
                best = e->start_ps;
            break;
        }
    }
    return best;
}

/* A NIC at work on the frames it sends and receives. */
static int nic_intervals(split_work *w, size_t nic)
{
    const trace_join *j = w->j;
    long view = j->tracks[nic].host_view;
    if (view < 0)
        return 0;
    for (size_t i = 0; i < j->tracks[nic].count; i++) {
        const tj_event *e = track_event(j, nic, i);
        if (named(e, "tx_frame")) {
            const tj_event *kick = last_write_before(j, (size_t)view, e->start_ps);
            if (kick && add_interval(w, kick->start_ps, e->start_ps, SPLIT_NETWORK))
                return -1;
        } else if (named(e, "rx_frame")) {
            uint64_t done = rx_done_at(j, nic, (size_t)view, e->start_ps);
            if (done != UINT64_MAX && add_interval(w, e->start_ps, done, SPLIT_NETWORK))
                return -1;
        }
    }
    return 0;
}

static int by_time(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

/* Whether a sorted array holds a time in (from, until). */
static bool any_between(const uint64_t *v, size_t n, uint64_t from, uint64_t until)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* the first > from */
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] < until;
}

/* The times of the host's events on other tracks than the view and its
 * device: what interrupts a run of register accesses (not bytes on a link:
 * nobody acts then). */
static uint64_t *other_host_times(const split_work *w, size_t view, size_t *n)
{
    const trace_join *j = w->j;
    long dev = j->tracks[view].device;
    const char *host = w->owner[view];
    uint64_t *v = malloc((2 * j->nevents + 1) * sizeof *v);
    *n = 0;
    for (size_t i = 0; v && i < j->nevents; i++) {
        const tj_event *e = &j->events[i];
        if (e->track == view || (long)e->track == dev || !w->owner[e->track] ||
            strcmp(w->owner[e->track], host) || named(e, "pcie_wire"))
            continue;
        v[(*n)++] = e->start_ps;
        if (e->slice)
            v[(*n)++] = e->end_ps;
    }
    if (v && *n > 1)
        qsort(v, *n, sizeof *v, by_time);
    return v;
}

/* Between two register accesses of a host to a device, with nothing else
 * of that host between them, the driver is busy with the device. */
static int register_traffic(split_work *w, size_t view)
{
    const trace_join *j = w->j;
    size_t n;
    uint64_t *others = other_host_times(w, view, &n);
    if (!others)
        return -1;
    const tj_event *prev = NULL;
    int rc = 0;
    for (size_t i = 0; i < j->tracks[view].count && !rc; i++) {
        const tj_event *e = track_event(j, view, i);
        if (!is_access(e))
            continue;
        if (prev && prev->end_ps < e->start_ps &&
            !any_between(others, n, prev->end_ps, e->start_ps))
            rc = add_interval(w, prev->end_ps, e->start_ps, SPLIT_HOST_INTERFACE);
        if (!prev || e->end_ps > prev->end_ps)
            prev = e;
    }
    free(others);
    return rc;
}

static int collect_intervals(split_work *w)
{
    const trace_join *j = w->j;
    for (size_t i = 0; i < j->nevents; i++)
        if (event_intervals(w, &j->events[i]))
            return -1;
    if (flow_intervals(w))
        return -1;
    for (size_t t = 0; t < j->ntracks; t++) {
        const tj_track *k = &j->tracks[t];
        if (!k->host_side && w->roles[t] == ROLE_NETWORK && nic_intervals(w, t))
            return -1;
        if (k->host_side && w->roles[t] == ROLE_DEVICE && register_traffic(w, t))
            return -1;
    }
    return 0;
}

/* What a host's software does: its marks, and its register accesses to its
 * devices and NICs (not what they do to it: DMA, interrupts). */
static int collect_points(split_work *w)
{
    const trace_join *j = w->j;
    for (size_t i = 0; i < j->nevents; i++) {
        const tj_event *e = &j->events[i];
        const tj_track *k = &j->tracks[e->track];
        bool acts = w->roles[e->track] == ROLE_HOST || (k->host_side && is_access(e));
        const char *host = w->owner[e->track];
        if (!acts || !host)
            continue;
        if (add_point(w, e->start_ps, host) ||
            (e->slice && add_point(w, e->end_ps, host)))
            return -1;
    }
    return 0;
}

/* ---- the sweep ------------------------------------------------------------------ */

static int by_bound(const void *pa, const void *pb)
{
    const bound *a = pa, *b = pb;
    return (a->time_ps > b->time_ps) - (a->time_ps < b->time_ps);
}

static int by_point(const void *pa, const void *pb)
{
    const host_point *a = pa, *b = pb;
    if (a->time_ps != b->time_ps)
        return (a->time_ps > b->time_ps) - (a->time_ps < b->time_ps);
    return (int)b->client - (int)a->client; /* equal times: the client first */
}

/* The part of a stretch with no activity in flight, ending at `until`. */
static split_activity software_part(const split_work *w, uint64_t from, uint64_t until,
                                const host_point *next)
{
    if (from >= w->svc_start && until <= w->svc_end)
        return SPLIT_SERVER_SOFTWARE;
    return !next || next->client ? SPLIT_CLIENT_SOFTWARE : SPLIT_SERVER_SOFTWARE;
}

static void sweep(split_work *w, time_split *out)
{
    static const split_activity priority[] = {SPLIT_COMPUTE, SPLIT_PCIE_WIRE,
                                          SPLIT_HOST_INTERFACE, SPLIT_NETWORK};
    if (w->nbounds) /* none: the array was never made (qsort wants one) */
        qsort(w->bounds, w->nbounds, sizeof *w->bounds, by_bound);
    if (w->npoints)
        qsort(w->points, w->npoints, sizeof *w->points, by_point);
    long active[SPLIT_NACTIVITIES] = {0};
    size_t bi = 0, pi = 0;
    uint64_t x = w->j->start_ps, end = w->j->end_ps;
    while (x < end) {
        for (; bi < w->nbounds && w->bounds[bi].time_ps <= x; bi++)
            active[w->bounds[bi].part] += w->bounds[bi].delta;
        for (; pi < w->npoints && w->points[pi].time_ps <= x; pi++)
            ;
        uint64_t next = end;
        if (bi < w->nbounds && w->bounds[bi].time_ps < next)
            next = w->bounds[bi].time_ps;
        if (pi < w->npoints && w->points[pi].time_ps < next)
            next = w->points[pi].time_ps;
        split_activity part = SPLIT_NACTIVITIES;
        for (size_t p = 0;
             p < sizeof priority / sizeof priority[0] && part == SPLIT_NACTIVITIES; p++)
            if (active[priority[p]] > 0)
                part = priority[p];
        if (part == SPLIT_NACTIVITIES)
            part = software_part(w, x, next, pi < w->npoints ? &w->points[pi] : NULL);
        out->activity_ps[part] += next - x;
        x = next;
    }
}

/* ---- the API -------------------------------------------------------------------- */

int time_split_compute(const trace_join *j, time_split *out, char *err, size_t err_size)
{
    *out =
        (time_split){.request = j->request, .start_ps = j->start_ps, .end_ps = j->end_ps};
    split_work w = {.j = j,
                    .roles = calloc(j->ntracks + 1, sizeof *w.roles),
                    .owner = calloc(j->ntracks + 1, sizeof *w.owner)};
    int rc = -1;
    if (j->end_ps < j->start_ps)
        errbuf_fail(err, err_size, "request %lld ends before it starts",
                    (long long)j->request);
    else if (!w.roles || !w.owner)
        errbuf_fail(err, err_size, "out of memory");
    else if (!find_service(&w, err, err_size)) {
        assign_roles(&w);
        if (collect_intervals(&w) || collect_points(&w))
            errbuf_fail(err, err_size, "out of memory splitting request %lld",
                        (long long)j->request);
        else {
            sweep(&w, out);
            rc = 0;
        }
    }
    free(w.roles);
    free(w.owner);
    free(w.bounds);
    free(w.points);
    return rc;
}

json_t *time_split_json(const time_split *s, const split_parts *parts)
{
    json_t *arr = json_array();
    for (size_t p = 0; p < parts->nparts; p++) {
        uint64_t ps = 0;
        for (size_t a = 0; a < SPLIT_NACTIVITIES; a++)
            if (parts->part[p].takes & (1u << a))
                ps += s->activity_ps[a];
        json_array_append_new(arr, json_pack("{s:s, s:s, s:I, s:f}", "part",
                                             parts->part[p].name, "label",
                                             parts->part[p].label, "ps", (json_int_t)ps,
                                             "us", (double)ps / 1e6));
    }
    uint64_t latency = s->end_ps - s->start_ps;
    return json_pack("{s:I, s:I, s:I, s:I, s:f, s:o}", "request", (json_int_t)s->request,
                     "start_ps", (json_int_t)s->start_ps, "end_ps", (json_int_t)s->end_ps,
                     "latency_ps", (json_int_t)latency, "latency_us",
                     (double)latency / 1e6, "parts", arr);
}

json_t *time_split_run(const char *run_dir, int64_t request, const split_parts *parts,
                       char *err, size_t err_size)
{
    trace_join *j;
    if (trace_join_open(&j, run_dir, request, err, err_size))
        return NULL;
    time_split s;
    json_t *out = time_split_compute(j, &s, err, err_size) ? NULL : time_split_json(&s, parts);
    trace_join_free(j);
    return out;
}
