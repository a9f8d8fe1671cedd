/*
 * trace_flows.c - the arrows of a joined request (see trace_join.h): which
 * event caused which, across components, found from kinds and times since
 * the trace records no causes. Three kinds (docs/traces.md, "Flows"):
 *
 *   doorbell   the host's last MMIO write to a device before the device's
 *              doorbell -> the doorbell -> the device's first DMA (or
 *              descriptor fetch) after it -> its last DMA before the
 *              completion -> the completion -> the device's interrupt ->
 *              the host's interrupt from that device;
 *   frame      a NIC's tx_frame -> the switch's frame_rx -> the switch's
 *              frame_tx -> another NIC's rx_frame (the earliest unused
 *              candidate each time, one of the same size when there is one);
 *   interrupt  any other device interrupt (a NIC's irq) -> the host's next
 *              interrupt from that device.
 */
#include <stdlib.h>
#include <string.h>

#include "trace_join.h"

#define NONE (-1L)

/* What a candidate event must be. */
typedef struct want {
    const char *name;  /* its name */
    long track;        /* on this track, or NONE for any */
    long not_track;    /* not on this track, or NONE */
    uint64_t from_ps;  /* starts at or after */
    uint64_t until_ps; /* and before (exclusive) */
    int size_arg;      /* 0: arg0 holds its size, 1: arg1, -1: no size */
    uint64_t size;     /* preferred size */
    bool not_port;     /* arg0 (a switch port) must differ from `port` */
    uint64_t port;
} want;

static bool named(const tj_event *e, const char *name)
{
    return !strcmp(e->name, name);
}

static bool fits(const tj_event *e, const want *q)
{
    return named(e, q->name) && e->start_ps >= q->from_ps && e->start_ps < q->until_ps &&
           (q->not_track == NONE || e->track != (size_t)q->not_track) &&
           (!q->not_port || e->begin.arg0 != q->port);
}

static bool earlier(const tj_event *a, const tj_event *b)
{
    return a->start_ps < b->start_ps || (a->start_ps == b->start_ps && a->seq < b->seq);
}

/* The earliest unused event that fits `q`, preferring one of the same size. */
static long find_first(const trace_join *j, const want *q, const bool *used)
{
    size_t lo = 0, hi = j->nevents;
    if (q->track != NONE) {
        lo = j->tracks[q->track].first;
        hi = lo + j->tracks[q->track].count;
    }
    long any = NONE, same = NONE;
    for (size_t i = lo; i < hi; i++) {
        const tj_event *e = &j->events[i];
        if (used[i] || !fits(e, q))
            continue;
        if (any == NONE || earlier(e, &j->events[any]))
            any = (long)i;
        uint64_t size = q->size_arg == 0 ? e->begin.arg0 : e->begin.arg1;
        if (q->size_arg >= 0 && size == q->size &&
            (same == NONE || earlier(e, &j->events[same])))
            same = (long)i;
    }
    return same != NONE ? same : any;
}

/* The latest event named `name` on `track` starting in [from, until). */
static long find_last(const trace_join *j, long track, const char *name, uint64_t from,
                      uint64_t until, const bool *used)
{
    const tj_track *k = &j->tracks[track];
    long best = NONE;
    for (size_t i = k->first; i < k->first + k->count; i++) {
        const tj_event *e = &j->events[i];
        if (!used[i] && named(e, name) && e->start_ps >= from && e->start_ps < until &&
            (best == NONE || earlier(&j->events[best], e)))
            best = (long)i;
    }
    return best;
}

static want on_track(long track, const char *name, uint64_t from, uint64_t until)
{
    return (want){.name = name,
                  .track = track,
                  .not_track = NONE,
                  .from_ps = from,
                  .until_ps = until,
                  .size_arg = -1};
}

/* Links the nodes that were found (NONE ones are skipped) in order. */
static int link_chain(trace_join *j, const long *nodes, size_t n, const char *name,
                      bool *used)
{
    long prev = NONE;
    for (size_t i = 0; i < n; i++) {
        if (nodes[i] == NONE || nodes[i] == prev)
            continue;
        used[nodes[i]] = true;
        if (prev != NONE && tj_add_flow(j, (size_t)prev, (size_t)nodes[i], name))
            return -1;
        prev = nodes[i];
    }
    return 0;
}

static long earliest_of(const trace_join *j, long a, long b)
{
    if (a == NONE)
        return b;
    if (b == NONE)
        return a;
    return earlier(&j->events[b], &j->events[a]) ? b : a;
}

/* The doorbell chain that starts at event `d` on the model's track. */
static int doorbell_chain(trace_join *j, size_t d, bool *used)
{
    const tj_event *db = &j->events[d];
    long t = (long)db->track, host = j->tracks[t].host_view;
    uint64_t until = UINT64_MAX; /* the next doorbell */
    const tj_track *k = &j->tracks[t];
    for (size_t i = d + 1; i < k->first + k->count; i++)
        if (named(&j->events[i], "doorbell") && j->events[i].start_ps > db->start_ps) {
            until = j->events[i].start_ps;
            break;
        }
    long nodes[7];
    for (size_t i = 0; i < 7; i++)
        nodes[i] = NONE;
    if (host != NONE)
        nodes[0] = find_last(j, host, "mmio_write", 0, db->start_ps + 1, used);
    nodes[1] = (long)d;
    long first = NONE;
    const char *dma_kinds[] = {"desc_fetch", "dma_read", "dma_write"};
    for (size_t i = 0; i < 3; i++) {
        want w = on_track(t, dma_kinds[i], db->start_ps, until);
        first = earliest_of(j, first, find_first(j, &w, used));
    }
    nodes[2] = first;
    want wc = on_track(t, "completion", db->start_ps, until);
    long done = find_first(j, &wc, used);
    nodes[4] = done;
    if (first != NONE) {
        uint64_t end = done != NONE ? j->events[done].start_ps : until;
        long last = find_last(j, t, "dma_write", j->events[first].start_ps, end, used);
        if (last == NONE)
            last = find_last(j, t, "dma_read", j->events[first].start_ps, end, used);
        nodes[3] = last;
    }
    if (done != NONE) {
        want wi = on_track(t, "interrupt", j->events[done].start_ps, until);
        nodes[5] = find_first(j, &wi, used);
    }
    if (nodes[5] != NONE && host != NONE) {
        want wh = on_track(host, "interrupt", j->events[nodes[5]].start_ps, UINT64_MAX);
        nodes[6] = find_first(j, &wh, used);
    }
    return link_chain(j, nodes, 7, "doorbell", used);
}

/* The frame chain that starts at a NIC's tx_frame `tx`. */
static int frame_chain(trace_join *j, size_t tx, bool *used)
{
    const tj_event *e = &j->events[tx];
    long nodes[4] = {(long)tx, NONE, NONE, NONE};
    want q = {.name = "frame_rx",
              .track = NONE,
              .not_track = NONE,
              .from_ps = e->start_ps,
              .until_ps = UINT64_MAX,
              .size_arg = 1,
              .size = e->begin.arg0};
    nodes[1] = find_first(j, &q, used);
    if (nodes[1] != NONE) {
        const tj_event *rx = &j->events[nodes[1]];
        q = (want){.name = "frame_tx",
                   .track = (long)rx->track,
                   .not_track = NONE,
                   .from_ps = rx->start_ps,
                   .until_ps = UINT64_MAX,
                   .size_arg = 1,
                   .size = rx->begin.arg1,
                   .not_port = true,
                   .port = rx->begin.arg0};
        nodes[2] = find_first(j, &q, used);
    }
    if (nodes[2] != NONE) {
        const tj_event *out = &j->events[nodes[2]];
        q = (want){.name = "rx_frame",
                   .track = NONE,
                   .not_track = (long)e->track,
                   .from_ps = out->start_ps,
                   .until_ps = UINT64_MAX,
                   .size_arg = 0,
                   .size = out->begin.arg1};
        nodes[3] = find_first(j, &q, used);
    }
    return link_chain(j, nodes, 4, "frame", used);
}

/* Indices of the events named `name` on model tracks, by time. */
static size_t *events_named(const trace_join *j, const char *name, size_t *n)
{
    size_t *idx = malloc((j->nevents + 1) * sizeof *idx);
    *n = 0;
    if (!idx)
        return NULL;
    for (size_t i = 0; i < j->nevents; i++)
        if (named(&j->events[i], name) && !j->tracks[j->events[i].track].host_side)
            idx[(*n)++] = i;
    /* insertion sort by time: the lists are short and nearly sorted */
    for (size_t a = 1; a < *n; a++)
        for (size_t b = a; b > 0 && earlier(&j->events[idx[b]], &j->events[idx[b - 1]]);
             b--) {
            size_t tmp = idx[b];
            idx[b] = idx[b - 1];
            idx[b - 1] = tmp;
        }
    return idx;
}

int tj_build_flows(trace_join *j)
{
    bool *used = calloc(j->nevents + 1, sizeof *used);
    if (!used)
        return -1;
    int rc = 0;
    const char *starts[] = {"doorbell", "tx_frame"};
    for (size_t s = 0; s < 2 && rc == 0; s++) {
        size_t n, *idx = events_named(j, starts[s], &n);
        if (!idx)
            rc = -1;
        for (size_t i = 0; i < n && rc == 0; i++)
            rc = s == 0 ? doorbell_chain(j, idx[i], used) : frame_chain(j, idx[i], used);
        free(idx);
    }
    /* every other device interrupt to the host's */
    for (size_t i = 0; i < j->nevents && rc == 0; i++) {
        const tj_event *e = &j->events[i];
        long host = j->tracks[e->track].host_view;
        if (used[i] || host == NONE || !(named(e, "irq") || named(e, "interrupt")))
            continue;
        want q = on_track(host, "interrupt", e->start_ps, UINT64_MAX);
        long nodes[2] = {(long)i, find_first(j, &q, used)};
        if (nodes[1] != NONE)
            rc = link_chain(j, nodes, 2, "interrupt", used);
    }
    free(used);
    return rc;
}
