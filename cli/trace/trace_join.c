/*
 * trace_join.c - joining one request from a run's trace files (see
 * trace_join.h; the rules are in docs/traces.md).
 *
 * Two passes over every file: the first collects the guests' request marks
 * and picks the request and its window, the second keeps only the events
 * inside the window, so memory follows the request, not the run. Begin and
 * end kinds are then paired into slices, the components ordered along the
 * request's path, and each host's view of a device tied to the device model.
 */
#include "errbuf.h"
#include "grow.h"
#include "quantile.h"
#include "track_order.h"
#include "trace_join.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"
#include "trace_export.h"

#define MAX_IDS 4096 /* component and kind ids a trace file can name */

/* An event as read, with its names interned. */
typedef struct raw_event {
    mortar_trace_event ev;
    const char *comp, *kind;
    size_t file, seq;
} raw_event;

/* A request_start or request_end mark. */
typedef struct mark {
    uint64_t idx, time_ps;
    const char *comp;
    bool end;
} mark;

/* Everything needed while joining; freed when trace_join_open returns. */
typedef struct join_work {
    char **paths; /* full paths, parallel to j->files */
    raw_event *raw;
    size_t nraw, raw_cap;
    mark *marks;
    size_t nmarks, marks_cap;
    const char *k_start, *k_end; /* interned mark kinds */
    const char *client;          /* the component whose marks make the window */
    /* The reader's name pointers and their interned copies, per file. */
    const char *seen[2][MAX_IDS], *interned[2][MAX_IDS];
} join_work;

/* Begin and end kinds that make a slice; `key` says what must match too. */
enum { KEY_REQ = 1, KEY_ARG0 = 2 };
typedef struct pair_rule {
    const char *begin, *end, *name;
    unsigned key;
} pair_rule;

static const pair_rule pair_rules[] = {
    {"request_start", "request_end", "request", KEY_REQ},
    {"request_received", "reply_sent", "service", KEY_REQ},
    {"device_start", "device_done", "device", KEY_REQ},
    {"mmio_read", "mmio_read_done", "mmio_read", 0}, /* the next done, in order */
    {"dma_read", "dma_read_done", "dma_read", KEY_REQ | KEY_ARG0},
    {"dma_write", "dma_write_done", "dma_write", KEY_REQ | KEY_ARG0},
    {"compute_start", "compute_end", "compute", KEY_REQ | KEY_ARG0},
};
#define N_RULES (sizeof pair_rules / sizeof pair_rules[0])



static const char *intern(trace_join *j, const char *s)
{
    for (size_t i = 0; i < j->nnames; i++)
        if (!strcmp(j->names[i], s))
            return j->names[i];
    char *copy = strdup(s);
    if (!copy || grow(&j->names, &j->names_cap, j->nnames + 1, sizeof *j->names)) {
        free(copy);
        return NULL;
    }
    j->names[j->nnames++] = copy;
    return copy;
}

/* ---- the files ---------------------------------------------------------------- */

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_trace_name(const char *name)
{
    size_t n = strlen(name);
    return n > 6 && !strcmp(name + n - 6, ".trace");
}

int trace_count_files(const char *run_dir)
{
    DIR *d = opendir(run_dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        n += is_trace_name(de->d_name);
    closedir(d);
    return n;
}

/* Fills j->files (names without ".trace", sorted) and w->paths. */
static int list_files(trace_join *j, join_work *w, char *err, size_t size)
{
    DIR *d = opendir(j->run_dir);
    if (!d)
        return errbuf_fail(err, size, "%s: cannot open the run directory: %s", j->run_dir,
                    strerror(errno));
    size_t cap = 0;
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(d)) && rc == 0) {
        if (!is_trace_name(de->d_name))
            continue;
        char *name = strdup(de->d_name);
        if (!name || grow(&j->files, &cap, j->nfiles + 1, sizeof *j->files)) {
            free(name);
            rc = errbuf_fail(err, size, "out of memory");
            break;
        }
        j->files[j->nfiles++] = name;
    }
    closedir(d);
    if (rc)
        return rc;
    if (j->nfiles == 0)
        return errbuf_fail(err, size, "%s: no trace files (*.trace): the run was not traced",
                    j->run_dir);
    qsort(j->files, j->nfiles, sizeof *j->files, by_string);
    w->paths = calloc(j->nfiles, sizeof *w->paths);
    if (!w->paths)
        return errbuf_fail(err, size, "out of memory");
    for (size_t i = 0; i < j->nfiles; i++) {
        if (asprintf(&w->paths[i], "%s/%s", j->run_dir, j->files[i]) < 0) {
            w->paths[i] = NULL;
            return errbuf_fail(err, size, "out of memory");
        }
        j->files[i][strlen(j->files[i]) - 6] = '\0';
    }
    return 0;
}

/* The interned name of a component (space 0) or kind (space 1). */
static const char *name_of(trace_join *j, join_work *w, const mortar_trace_reader *r,
                           int space, uint16_t id)
{
    const char *s =
        space ? mortar_trace_reader_kind(r, id) : mortar_trace_reader_component(r, id);
    if (id >= MAX_IDS)
        return intern(j, s);
    /* a redeclared name may reuse the old one's memory: compare the text too */
    if (w->seen[space][id] != s || !w->interned[space][id] ||
        strcmp(w->interned[space][id], s) != 0) {
        w->seen[space][id] = s;
        w->interned[space][id] = intern(j, s);
    }
    return w->interned[space][id];
}

typedef int (*visit_fn)(trace_join *j, join_work *w, const raw_event *e);

/* Reads every event of file `fi` into `visit`. */
static int read_file(trace_join *j, join_work *w, size_t fi, visit_fn visit, char *err,
                     size_t size)
{
    mortar_trace_reader *r;
    char why[600];
    int rc = mortar_trace_reader_open(&r, w->paths[fi], why, sizeof why);
    if (rc != 0)
        return errbuf_fail(err, size, "%s",
                    rc == MORTAR_EPROTO || rc == MORTAR_EIO
                        ? why
                        : "out of memory reading the trace");
    memset(w->seen, 0, sizeof w->seen);
    raw_event e = {.file = fi};
    for (;;) {
        rc = mortar_trace_reader_next(r, &e.ev);
        if (rc <= 0)
            break;
        e.comp = name_of(j, w, r, 0, e.ev.component);
        e.kind = name_of(j, w, r, 1, e.ev.kind);
        if (!e.comp || !e.kind || visit(j, w, &e) != 0) {
            rc = 2;
            break;
        }
        e.seq++;
    }
    mortar_trace_reader_close(r);
    if (rc == 2)
        return errbuf_fail(err, size, "out of memory reading %s", w->paths[fi]);
    if (rc < 0)
        return errbuf_fail(err, size, "%s: corrupt trace file (after %zu good events)",
                    w->paths[fi], e.seq);
    return 0;
}

/* ---- the request -------------------------------------------------------------- */

static int collect_mark(trace_join *j, join_work *w, const raw_event *e)
{
    (void)j;
    if (e->kind != w->k_start && e->kind != w->k_end)
        return 0;
    if (grow(&w->marks, &w->marks_cap, w->nmarks + 1, sizeof *w->marks))
        return -1;
    w->marks[w->nmarks++] = (mark){.idx = e->ev.req_id,
                                   .time_ps = e->ev.time_ps,
                                   .comp = e->comp,
                                   .end = e->kind == w->k_end};
    return 0;
}

/* Marks by request, then starts before ends, then by time. */
static int by_request(const void *pa, const void *pb)
{
    const mark *a = pa, *b = pb;
    if (a->idx != b->idx)
        return a->idx < b->idx ? -1 : 1;
    if (a->end != b->end)
        return a->end ? 1 : -1;
    return a->time_ps < b->time_ps ? -1 : a->time_ps > b->time_ps;
}

/* One request's window: the earliest start, and the latest end of the same
 * component. */
typedef struct window {
    uint64_t idx, start_ps, end_ps;
    const char *comp;
    bool has_start, has_end;
} window;

static int by_latency(const void *pa, const void *pb)
{
    const window *a = pa, *b = pb;
    uint64_t la = a->end_ps - a->start_ps, lb = b->end_ps - b->start_ps;
    if (la != lb)
        return la < lb ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Groups the sorted marks into windows; returns how many (in *wins). */
static size_t windows_of(const join_work *w, window *wins)
{
    size_t n = 0;
    for (size_t i = 0; i < w->nmarks;) {
        const mark *m = &w->marks[i];
        window *x = &wins[n++];
        *x = (window){.idx = m->idx};
        for (; i < w->nmarks && w->marks[i].idx == x->idx; i++) {
            m = &w->marks[i];
            if (!m->end && !x->has_start) {
                x->has_start = true;
                x->start_ps = m->time_ps;
                x->comp = m->comp;
            } else if (m->end && x->has_start && m->comp == x->comp &&
                       m->time_ps >= x->start_ps) {
                x->has_end = true;
                x->end_ps = m->time_ps;
            } else if (m->end && !x->has_start) {
                x->has_end = true; /* an end without a start */
            }
        }
    }
    return n;
}

/* Picks the request and its window from the marks. */
static int choose_request(trace_join *j, join_work *w, int64_t request, char *err,
                          size_t size)
{
    if (w->nmarks == 0)
        return errbuf_fail(err, size,
                    "%s: no request marks (request_start/request_end) in the trace files:"
                    " the hosts were not traced",
                    j->run_dir);
    qsort(w->marks, w->nmarks, sizeof *w->marks, by_request);
    window *wins = calloc(w->nmarks, sizeof *wins);
    if (!wins)
        return errbuf_fail(err, size, "out of memory");
    size_t n = windows_of(w, wins), ncomplete = 0;
    const window *pick = NULL;
    int rc = 0;
    if (request >= 0) {
        for (size_t i = 0; i < n; i++)
            if (wins[i].idx == (uint64_t)request)
                pick = &wins[i];
        if (!pick)
            rc = errbuf_fail(err, size,
                      "request %lld not found: the trace has requests %llu to %llu",
                      (long long)request, (unsigned long long)wins[0].idx,
                      (unsigned long long)wins[n - 1].idx);
        else if (!pick->has_start || !pick->has_end || !pick->comp)
            rc = errbuf_fail(err, size, "request %lld has no %s mark in the trace",
                      (long long)request,
                      pick->has_start ? "request_end" : "request_start");
    } else {
        for (size_t i = 0; i < n; i++)
            if (wins[i].has_start && wins[i].has_end && wins[i].comp)
                wins[ncomplete++] = wins[i];
        if (ncomplete == 0)
            rc = errbuf_fail(err, size,
                      "no request has both a request_start and a request_end mark");
        else {
            qsort(wins, ncomplete, sizeof *wins, by_latency);
            pick = &wins[quantile_lower_median_index(ncomplete)]; /* the lower median */
        }
    }
    if (rc == 0) {
        j->request = (int64_t)pick->idx;
        j->start_ps = pick->start_ps;
        j->end_ps = pick->end_ps;
        w->client = pick->comp;
    }
    free(wins);
    return rc;
}

static int collect_in_window(trace_join *j, join_work *w, const raw_event *e)
{
    if (e->ev.time_ps < j->start_ps || e->ev.time_ps > j->end_ps)
        return 0;
    if (grow(&w->raw, &w->raw_cap, w->nraw + 1, sizeof *w->raw))
        return -1;
    w->raw[w->nraw++] = *e;
    return 0;
}

/* ---- slices --------------------------------------------------------------------- */

static int by_time(const void *pa, const void *pb)
{
    const raw_event *a = pa, *b = pb;
    if (a->ev.time_ps != b->ev.time_ps)
        return a->ev.time_ps < b->ev.time_ps ? -1 : 1;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int add_event(trace_join *j, size_t *cap, const raw_event *b, const raw_event *e,
                     const char *name, size_t seq)
{
    if (grow(&j->events, cap, j->nevents + 1, sizeof *j->events))
        return -1;
    tj_event *x = &j->events[j->nevents++];
    *x = (tj_event){.start_ps = b->ev.time_ps,
                    .end_ps = e ? e->ev.time_ps : b->ev.time_ps,
                    .name = name,
                    .slice = e != NULL,
                    .begin = b->ev,
                    .begin_kind = b->kind,
                    .end_kind = e ? e->kind : NULL,
                    .seq = seq};
    if (e)
        x->end = e->ev;
    x->component = b->comp;
    return 0;
}

static bool keys_match(const pair_rule *rule, const raw_event *b, const raw_event *e)
{
    if ((rule->key & KEY_REQ) && b->ev.req_id != e->ev.req_id)
        return false;
    if ((rule->key & KEY_ARG0) && b->ev.arg0 != e->ev.arg0)
        return false;
    return b->comp == e->comp;
}

/* Pairs the window's events into slices and instants (j->events). The
 * chosen request's own marks make the root slice whatever else is open. */
static int pair_events(trace_join *j, join_work *w)
{
    const char *begin[N_RULES], *end[N_RULES], *name[N_RULES];
    for (size_t r = 0; r < N_RULES; r++) {
        begin[r] = intern(j, pair_rules[r].begin);
        end[r] = intern(j, pair_rules[r].end);
        name[r] = intern(j, pair_rules[r].name);
        if (!begin[r] || !end[r] || !name[r])
            return -1;
    }
    qsort(w->raw, w->nraw, sizeof *w->raw, by_time);
    size_t root_b = SIZE_MAX, root_e = SIZE_MAX;
    for (size_t i = 0; i < w->nraw; i++) {
        const raw_event *e = &w->raw[i];
        if (e->comp != w->client || e->ev.req_id != (uint64_t)j->request)
            continue;
        if (e->kind == w->k_start && e->ev.time_ps == j->start_ps && root_b == SIZE_MAX)
            root_b = i;
        if (e->kind == w->k_end && e->ev.time_ps == j->end_ps)
            root_e = i;
    }
    if (root_b == SIZE_MAX || root_e == SIZE_MAX)
        return -1; /* cannot happen: the window was made from these marks */

    size_t cap = 0, *open = malloc((w->nraw + 1) * sizeof *open), nopen = 0;
    unsigned char *rule_of = malloc(w->nraw + 1);
    int rc = (open && rule_of) ? 0 : -1;
    for (size_t i = 0; i < w->nraw && rc == 0; i++) {
        const raw_event *e = &w->raw[i];
        if (i == root_e)
            continue;
        if (i == root_b) {
            rc = add_event(j, &cap, e, &w->raw[root_e], name[0], i);
            j->root = j->nevents - 1;
            continue;
        }
        size_t r;
        for (r = 0; r < N_RULES && e->kind != begin[r]; r++)
            ;
        if (r < N_RULES) {
            rule_of[i] = (unsigned char)r;
            open[nopen++] = i;
            continue;
        }
        for (r = 0; r < N_RULES && e->kind != end[r]; r++)
            ;
        size_t k = nopen;
        if (r < N_RULES)
            for (k = 0; k < nopen; k++)
                if (rule_of[open[k]] == r &&
                    keys_match(&pair_rules[r], &w->raw[open[k]], e))
                    break;
        if (r == N_RULES || k == nopen) {
            rc = add_event(j, &cap, e, NULL, e->kind, i);
            continue;
        }
        rc = add_event(j, &cap, &w->raw[open[k]], e, name[r], open[k]);
        memmove(&open[k], &open[k + 1], (nopen - k - 1) * sizeof *open);
        nopen--;
    }
    for (size_t k = 0; k < nopen && rc == 0; k++) /* begins without an end */
        rc = add_event(j, &cap, &w->raw[open[k]], NULL, w->raw[open[k]].kind, open[k]);
    free(open);
    free(rule_of);
    return rc;
}

/* ---- tracks --------------------------------------------------------------------- */

/* A track and its place on the request's path (track_order.h). */
typedef struct ranked_track {
    size_t rank;
    tj_track track;
} ranked_track;

static int by_rank(const void *pa, const void *pb)
{
    const ranked_track *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return strcmp(a->track.name, b->track.name);
}

/* Orders the tracks along the run's topology from the host of the
 * request's root slice. */
static int order_tracks(trace_join *j)
{
    if (j->ntracks == 0)
        return 0;
    track_order o;
    ranked_track *r = malloc(j->ntracks * sizeof *r);
    if (!r || track_order_read(&o, j->run_dir, j->events[j->root].component)) {
        free(r);
        return -1;
    }
    for (size_t t = 0; t < j->ntracks; t++)
        r[t] = (ranked_track){track_order_rank(&o, j->tracks[t].name), j->tracks[t]};
    qsort(r, j->ntracks, sizeof *r, by_rank);
    for (size_t t = 0; t < j->ntracks; t++)
        j->tracks[t] = r[t].track;
    free(r);
    track_order_free(&o);
    return 0;
}

static long track_named(const trace_join *j, const char *name, size_t len)
{
    for (size_t t = 0; t < j->ntracks; t++)
        if (strlen(j->tracks[t].name) == len && !strncmp(j->tracks[t].name, name, len))
            return (long)t;
    return -1;
}

/* Ties "<host>.<device>" to the model "<device>" and gives every track its
 * host group. */
static int link_tracks(trace_join *j)
{
    for (size_t t = 0; t < j->ntracks; t++)
        j->tracks[t].device = j->tracks[t].host_view = -1;
    for (size_t t = 0; t < j->ntracks; t++) {
        tj_track *k = &j->tracks[t];
        const char *dot = strchr(k->name, '.');
        k->host_side = dot != NULL;
        if (!dot)
            continue;
        char host[256];
        snprintf(host, sizeof host, "%.*s", (int)(dot - k->name), k->name);
        if (!(k->group = intern(j, host)))
            return -1;
        /* the device's name, or its name with a port ("nic.0") */
        const char *dev = dot + 1, *port = strchr(dev, '.');
        k->device = track_named(j, dev, strlen(dev));
        if (k->device < 0 && port)
            k->device = track_named(j, dev, (size_t)(port - dev));
        if (k->device >= 0 && j->tracks[k->device].host_view < 0)
            j->tracks[k->device].host_view = (long)t;
    }
    for (size_t t = 0; t < j->ntracks; t++) {
        tj_track *k = &j->tracks[t];
        if (k->host_side)
            continue;
        k->group = k->host_view >= 0 ? j->tracks[k->host_view].group : k->name;
    }
    return 0;
}

static int by_track_then_time(const void *pa, const void *pb)
{
    const tj_event *a = pa, *b = pb;
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    if (a->start_ps != b->start_ps)
        return a->start_ps < b->start_ps ? -1 : 1;
    if (a->end_ps != b->end_ps)
        return a->end_ps > b->end_ps ? -1 : 1; /* the enclosing slice first */
    if (a->slice != b->slice)
        return a->slice ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Makes the tracks from the events' components and orders everything. */
static int build_tracks(trace_join *j, join_work *w)
{
    size_t cap = 0;
    for (size_t i = 0; i < j->nevents; i++) {
        const char *comp = j->events[i].component;
        size_t t;
        for (t = 0; t < j->ntracks && j->tracks[t].name != comp; t++)
            ;
        if (t == j->ntracks) {
            if (grow(&j->tracks, &cap, j->ntracks + 1, sizeof *j->tracks))
                return -1;
            j->tracks[j->ntracks++] = (tj_track){.name = comp, .file = SIZE_MAX};
        }
    }
    /* each track's file: the first file that has its events in the window */
    for (size_t i = 0; i < w->nraw; i++)
        for (size_t t = 0; t < j->ntracks; t++)
            if (j->tracks[t].name == w->raw[i].comp && w->raw[i].file < j->tracks[t].file)
                j->tracks[t].file = w->raw[i].file;
    if (order_tracks(j))
        return -1;
    size_t root_seq = j->events[j->root].seq;
    for (size_t i = 0; i < j->nevents; i++)
        for (size_t t = 0; t < j->ntracks; t++)
            if (j->tracks[t].name == j->events[i].component)
                j->events[i].track = t;
    qsort(j->events, j->nevents, sizeof *j->events, by_track_then_time);
    for (size_t i = 0; i < j->nevents; i++) {
        tj_event *e = &j->events[i];
        tj_track *k = &j->tracks[e->track];
        if (k->count == 0)
            k->first = i;
        e->pos = k->count++;
        if (e->seq == root_seq)
            j->root = i;
    }
    return link_tracks(j);
}

/* ---- arguments ------------------------------------------------------------------ */

enum { SRC_ARG0, SRC_ARG1, SRC_ARG0_HI, SRC_ARG0_LO, SRC_ARG1_HI, SRC_ARG1_LO };
enum { FMT_INT, FMT_HEX, FMT_IRQ };
enum { SIDE_ANY, SIDE_HOST, SIDE_MODEL };

typedef struct arg_field {
    const char *name;
    unsigned char src, fmt;
} arg_field;

typedef struct arg_decoder {
    const char *kind;
    unsigned char side;
    arg_field fields[3];
} arg_decoder;

#define BAR_OFFSET                                                                       \
    {"bar", SRC_ARG0_HI, FMT_INT},                                                       \
    {                                                                                    \
        "offset", SRC_ARG0_LO, FMT_HEX                                                   \
    }
#define ADDR_SIZE                                                                        \
    {"addr", SRC_ARG0, FMT_HEX},                                                         \
    {                                                                                    \
        "size", SRC_ARG1, FMT_INT                                                        \
    }

static const arg_decoder decoders[] = {
    {"mmio_read", SIDE_ANY, {BAR_OFFSET, {"size", SRC_ARG1, FMT_INT}}},
    {"mmio_read_done", SIDE_ANY, {BAR_OFFSET, {"value", SRC_ARG1, FMT_HEX}}},
    {"mmio_write", SIDE_ANY, {BAR_OFFSET, {"value", SRC_ARG1, FMT_HEX}}},
    {"dma_read", SIDE_ANY, {ADDR_SIZE}},
    {"dma_write", SIDE_ANY, {ADDR_SIZE}},
    {"dma_read_done", SIDE_ANY, {ADDR_SIZE}},
    {"dma_write_done", SIDE_ANY, {ADDR_SIZE}},
    {"interrupt",
     SIDE_HOST,
     {{"type", SRC_ARG0, FMT_IRQ}, {"vector", SRC_ARG1, FMT_INT}}},
    {"interrupt", SIDE_MODEL, {{"vector", SRC_ARG0, FMT_INT}}},
    {"tx_frame", SIDE_ANY, {{"len", SRC_ARG0, FMT_INT}}},
    {"rx_frame", SIDE_ANY, {{"len", SRC_ARG0, FMT_INT}, {"status", SRC_ARG1, FMT_HEX}}},
    {"irq", SIDE_ANY, {{"icr", SRC_ARG0, FMT_HEX}, {"msi", SRC_ARG1, FMT_INT}}},
    {"frame_rx", SIDE_ANY, {{"port", SRC_ARG0, FMT_INT}, {"size", SRC_ARG1, FMT_INT}}},
    {"frame_tx", SIDE_ANY, {{"port", SRC_ARG0, FMT_INT}, {"size", SRC_ARG1, FMT_INT}}},
    {"frame_drop",
     SIDE_ANY,
     {{"port", SRC_ARG0, FMT_INT},
      {"reason", SRC_ARG1_HI, FMT_INT},
      {"size", SRC_ARG1_LO, FMT_INT}}},
    {"compute_start",
     SIDE_ANY,
     {{"step", SRC_ARG0, FMT_INT}, {"step_ps", SRC_ARG1, FMT_INT}}},
    {"compute_end", SIDE_ANY, {{"step", SRC_ARG0, FMT_INT}}},
    {"doorbell", SIDE_ANY, {{"value", SRC_ARG0, FMT_HEX}, {"arg1", SRC_ARG1, FMT_INT}}},
    /* a PCIe message's bytes arriving (docs/pcie.md): for wire_ps, its type */
    {"pcie_wire", SIDE_ANY, {{"wire_ps", SRC_ARG0, FMT_INT}, {"type", SRC_ARG1, FMT_HEX}}},
    /* the guests' marks: the request index is the req_id */
    {"request_start", SIDE_ANY, {{NULL, 0, 0}}},
    {"request_end", SIDE_ANY, {{NULL, 0, 0}}},
    {"request_received", SIDE_ANY, {{NULL, 0, 0}}},
    {"device_start", SIDE_ANY, {{NULL, 0, 0}}},
    {"device_done", SIDE_ANY, {{NULL, 0, 0}}},
    {"reply_sent", SIDE_ANY, {{NULL, 0, 0}}},
};
#define N_DECODERS (sizeof decoders / sizeof decoders[0])

static const arg_decoder generic = {
    NULL, SIDE_ANY, {{"arg0", SRC_ARG0, FMT_INT}, {"arg1", SRC_ARG1, FMT_INT}}};

static uint64_t arg_value(const mortar_trace_event *ev, unsigned src)
{
    switch (src) {
    case SRC_ARG0:
        return ev->arg0;
    case SRC_ARG1:
        return ev->arg1;
    case SRC_ARG0_HI:
        return ev->arg0 >> 32;
    case SRC_ARG0_LO:
        return ev->arg0 & 0xffffffffu;
    case SRC_ARG1_HI:
        return ev->arg1 >> 32;
    default:
        return ev->arg1 & 0xffffffffu;
    }
}

static json_t *json_u64(uint64_t v)
{
    if (v <= INT64_MAX)
        return json_integer((json_int_t)v);
    char hex[24];
    snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)v);
    return json_string(hex);
}

static json_t *format_value(uint64_t v, unsigned fmt)
{
    static const char *const irq_types[] = {"legacy_high", "legacy_low", "msi", "msix"};
    char hex[24];
    switch (fmt) {
    case FMT_HEX:
        snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)v);
        return json_string(hex);
    case FMT_IRQ:
        return v < 4 ? json_string(irq_types[v]) : json_u64(v);
    default:
        return json_u64(v);
    }
}

static const arg_decoder *decoder_for(const char *kind, bool host_side)
{
    for (size_t i = 0; i < N_DECODERS; i++) {
        const arg_decoder *d = &decoders[i];
        if (strcmp(d->kind, kind) != 0)
            continue;
        if (d->side == SIDE_ANY || (d->side == SIDE_HOST) == host_side)
            return d;
    }
    return &generic;
}

/* Adds the decoded arguments of `ev`, keeping keys already there. */
static void add_args(json_t *args, const mortar_trace_event *ev, const char *kind,
                     bool host_side)
{
    const arg_decoder *d = decoder_for(kind, host_side);
    for (size_t i = 0; i < 3 && d->fields[i].name; i++) {
        const arg_field *f = &d->fields[i];
        if (!json_object_get(args, f->name))
            json_object_set_new(args, f->name,
                                format_value(arg_value(ev, f->src), f->fmt));
    }
}

json_t *tj_event_args(const trace_join *j, const tj_event *e)
{
    bool host_side = j->tracks[e->track].host_side;
    json_t *args = json_object();
    json_object_set_new(args, "req_id", json_u64(e->begin.req_id));
    add_args(args, &e->begin, e->begin_kind, host_side);
    if (e->slice)
        add_args(args, &e->end, e->end_kind, host_side);
    return args;
}

/* ---- open and free -------------------------------------------------------------- */

static void free_work(const trace_join *j, join_work *w)
{
    if (w->paths)
        for (size_t i = 0; i < j->nfiles; i++)
            free(w->paths[i]);
    free(w->paths);
    free(w->raw);
    free(w->marks);
    free(w);
}

int trace_join_open(trace_join **out, const char *run_dir, int64_t request, char *err,
                    size_t err_size)
{
    *out = NULL;
    trace_join *j = calloc(1, sizeof *j);
    join_work *w = calloc(1, sizeof *w);
    if (!j || !w || !(j->run_dir = strdup(run_dir))) {
        free(j);
        free(w);
        return errbuf_fail(err, err_size, "out of memory");
    }
    int rc = list_files(j, w, err, err_size);
    if (rc == 0 && (!(w->k_start = intern(j, "request_start")) ||
                    !(w->k_end = intern(j, "request_end"))))
        rc = errbuf_fail(err, err_size, "out of memory");
    for (size_t f = 0; f < j->nfiles && rc == 0; f++)
        rc = read_file(j, w, f, collect_mark, err, err_size);
    if (rc == 0)
        rc = choose_request(j, w, request, err, err_size);
    for (size_t f = 0; f < j->nfiles && rc == 0; f++)
        rc = read_file(j, w, f, collect_in_window, err, err_size);
    if (rc == 0 &&
        (pair_events(j, w) != 0 || build_tracks(j, w) != 0 || tj_build_flows(j) != 0))
        rc = errbuf_fail(err, err_size, "out of memory joining the trace of %s", run_dir);
    free_work(j, w);
    if (rc != 0) {
        trace_join_free(j);
        return rc;
    }
    *out = j;
    return 0;
}

void trace_join_free(trace_join *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->nfiles; i++)
        free(j->files[i]);
    free(j->files);
    for (size_t i = 0; i < j->nnames; i++)
        free(j->names[i]);
    free(j->names);
    free(j->tracks);
    free(j->events);
    free(j->flows);
    free(j->run_dir);
    free(j);
}

int tj_add_flow(trace_join *j, size_t from, size_t to, const char *name)
{
    if (from == to)
        return 0;
    if (grow(&j->flows, &j->flows_cap, j->nflows + 1, sizeof *j->flows))
        return -1;
    j->flows[j->nflows++] = (tj_flow){.from = from, .to = to, .name = name};
    return 0;
}
