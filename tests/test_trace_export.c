/*
 * test_trace_export.c - joining a request from a run's trace files and the
 * three exports (timeline, Perfetto, OTLP), on synthetic traces written
 * with the trace writer: a "sim" file with the NICs, the switch and the
 * accelerator, and a "host" file with the guests' marks and the PCIe events
 * the hosts saw, for three requests of different latencies. Also the
 * failures (no directory, no trace, corrupt files, no such request) and the
 * `mortar trace` command's exit codes and messages.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sqlite3.h>

#include "db.h"
#include "mortar/trace.h"
#include "trace_export.h"

#define US 1000000ull /* picoseconds */

/* The requests: start and latency. Request 0 has the median latency. */
/* The trace's activities as the parts (a study without "split"). */
static split_parts activities;

static const uint64_t req_start[3] = {10 * US, 100 * US, 200 * US};
static const uint64_t req_latency[3] = {40 * US, 50 * US, 30 * US};

static const char *const path_tracks[] = {
    "client",     "client.nic_client", "nic_client", "switch",
    "nic_server", "server.nic_server", "server",     "server.accel",
    "accel",      "probe_a",           "probe_b"};
#define N_TRACKS (sizeof path_tracks / sizeof path_tracks[0])

/* ---- writing synthetic traces ------------------------------------------------ */

static void ev(mortar_trace_writer *w, uint16_t comp, const char *kind, uint64_t t,
               uint64_t req, uint64_t a0, uint64_t a1)
{
    mortar_trace_event e = {.time_ps = t,
                            .component = comp,
                            .kind = mortar_trace_writer_kind(w, kind),
                            .req_id = req,
                            .arg0 = a0,
                            .arg1 = a1};
    mortar_trace_writer_event(w, &e);
}

static void write_sim(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/sim0.trace", dir);
    mortar_trace_writer *w;
    assert_int_equal(mortar_trace_writer_open(&w, path), 0);
    uint16_t nic_c = mortar_trace_writer_component(w, "nic_client");
    uint16_t nic_s = mortar_trace_writer_component(w, "nic_server");
    uint16_t sw = mortar_trace_writer_component(w, "switch");
    uint16_t acc = mortar_trace_writer_component(w, "accel");
    uint16_t pb = mortar_trace_writer_component(w, "probe_b");
    uint16_t pa = mortar_trace_writer_component(w, "probe_a");
    ev(w, sw, "frame_drop", 1 * US, 0, 0, 1514); /* before every request */
    for (int i = 0; i < 3; i++) {
        uint64_t s = req_start[i];
        ev(w, nic_c, "tx_frame", s + 2 * US, (uint64_t)i, 1514, 0);
        ev(w, sw, "frame_rx", s + 2500000, 0, 0, 1514);
        ev(w, sw, "frame_tx", s + 3 * US, 0, 1, 1514);
        ev(w, nic_s, "rx_frame", s + 3500000, (uint64_t)i, 1514, 3);
        ev(w, nic_s, "irq", s + 3600000, (uint64_t)i, 0x80, 1);
        ev(w, acc, "doorbell", s + 6500000, (uint64_t)i, 1, 64);
        ev(w, acc, "dma_read", s + 7 * US, (uint64_t)i, 0x1000, 4096);
        ev(w, acc, "dma_read", s + 8 * US, (uint64_t)i, 0x2000, 4096); /* overlaps */
        ev(w, acc, "dma_read_done", s + 9 * US, (uint64_t)i, 0x1000, 4096);
        ev(w, acc, "dma_read_done", s + 10 * US, (uint64_t)i, 0x2000, 4096);
        ev(w, acc, "compute_start", s + 10 * US, (uint64_t)i, 0, 2 * US);
        ev(w, acc, "compute_end", s + 12 * US, (uint64_t)i, 0, 0);
        ev(w, acc, "dma_write", s + 12 * US, (uint64_t)i, 0x3000, 65536);
        ev(w, acc, "dma_write_done", s + 13 * US, (uint64_t)i, 0x3000, 65536);
        ev(w, acc, "completion", s + 13500000, (uint64_t)i, 64, 2 * US);
        ev(w, acc, "interrupt", s + 13600000, (uint64_t)i, 1, 0);
        ev(w, nic_s, "tx_frame", s + 18 * US, (uint64_t)i, 9014, 0);
        ev(w, sw, "frame_rx", s + 18500000, 0, 1, 9014);
        ev(w, sw, "frame_tx", s + 19 * US, 0, 0, 9014);
        ev(w, nic_c, "rx_frame", s + 19500000, (uint64_t)i, 9014, 3);
        ev(w, nic_c, "irq", s + 19600000, (uint64_t)i, 0x80, 1);
        ev(w, pb, "tick", s + 20 * US, 0, 0, 0);
        ev(w, pa, "tick", s + 21 * US, 0, 0, 0);
    }
    assert_int_equal(mortar_trace_writer_close(w), 0);
}

static void write_host(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/host.trace", dir);
    mortar_trace_writer *w;
    assert_int_equal(mortar_trace_writer_open(&w, path), 0);
    uint16_t cl = mortar_trace_writer_component(w, "client");
    uint16_t sv = mortar_trace_writer_component(w, "server");
    uint16_t cl_nic = mortar_trace_writer_component(w, "client.nic_client");
    uint16_t sv_nic = mortar_trace_writer_component(w, "server.nic_server");
    uint16_t sv_acc = mortar_trace_writer_component(w, "server.accel");
    for (uint64_t i = 0; i < 3; i++) {
        uint64_t s = req_start[i];
        ev(w, cl, "request_start", s, i, 1, 0);
        ev(w, cl_nic, "mmio_write", s + 1 * US, 7, 0x3818, 1);
        ev(w, cl_nic, "dma_read", s + 1500000, 8, 0x10000, 1514);
        ev(w, sv_nic, "interrupt", s + 3700000, 9, 2, 0);
        ev(w, sv, "request_received", s + 4 * US, i, 3, 0);
        ev(w, sv, "device_start", s + 5 * US, i, 4, 0);
        ev(w, sv_acc, "mmio_write", s + 5500000, 10, 0x08, 0x1000); /* not the doorbell */
        ev(w, sv_acc, "mmio_write", s + 6 * US, 11, 0x00, 1);
        ev(w, sv_acc, "dma_read", s + 7500000, 12, 0x1000, 4096);
        ev(w, sv_acc, "interrupt", s + 14 * US, 13, 3, 1);
        ev(w, sv_acc, "mmio_read", s + 14500000, 14, (1ull << 32) | 0x10, 4);
        ev(w, sv_acc, "mmio_read_done", s + 15 * US, 14, (1ull << 32) | 0x10, 1);
        ev(w, sv, "device_done", s + 16 * US, i, 5, 0);
        ev(w, sv, "reply_sent", s + 17 * US, i, 6, 0);
        ev(w, sv_nic, "mmio_write", s + 17500000, 15, 0x3818, 2);
        ev(w, cl_nic, "interrupt", s + 19800000, 16, 2, 0);
        ev(w, cl, "request_end", s + req_latency[i], i, 2, 0);
    }
    assert_int_equal(mortar_trace_writer_close(w), 0);
}

/* The run's topology as its spec.json has it (the tracks follow it from
 * the client, cli/trace/private/track_order.h); probe_a and probe_b are on no
 * link. */
static void write_topology(const char *dir)
{
    static const char spec[] =
        "{\"hosts\": [{\"name\": \"client\"}, {\"name\": \"server\"}],\n"
        " \"components\": [{\"name\": \"nic_client\"}, {\"name\": \"nic_server\"},\n"
        "  {\"name\": \"switch\"}, {\"name\": \"accel\"}],\n"
        " \"links\": [{\"host\": \"client\", \"component\": \"nic_client.0\"},\n"
        "  {\"host\": \"server\", \"component\": \"nic_server.0\"},\n"
        "  {\"a\": \"nic_client.1\", \"b\": \"switch.0\"},\n"
        "  {\"a\": \"nic_server.1\", \"b\": \"switch.1\"},\n"
        "  {\"host\": \"server\", \"component\": \"accel.0\"}]}\n";
    char path[600];
    snprintf(path, sizeof path, "%s/spec.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(spec, f);
    assert_int_equal(fclose(f), 0);
}

/* A run directory with the two files and its spec; freed by teardown. */
static int setup(void **state)
{
    char *dir = strdup("/tmp/mortar-trace-test-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    write_sim(dir);
    write_host(dir);
    write_topology(dir);
    *state = dir;
    return 0;
}

static void remove_dir(const char *dir)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

static int teardown(void **state)
{
    remove_dir(*state);
    free(*state);
    return 0;
}

/* ---- JSON helpers -------------------------------------------------------------- */

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s)
        fail_msg("no string \"%s\"", key);
    return s;
}

static int64_t num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v))
        fail_msg("no integer \"%s\"", key);
    return json_integer_value(v);
}

/* The timeline's track named `name`, or NULL. */
static json_t *track(json_t *timeline, const char *name)
{
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(timeline, "tracks"), i, t)
    {
        if (!strcmp(str(t, "name"), name))
            return t;
    }
    return NULL;
}

/* How many events named `name` a track has; the last one in *out. */
static int count_named(json_t *trk, const char *name, json_t **out)
{
    int n = 0;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(trk, "events"), i, e)
    {
        if (!strcmp(str(e, "name"), name)) {
            n++;
            if (out)
                *out = e;
        }
    }
    return n;
}

/* ---- the timeline --------------------------------------------------------------- */

static void test_median_request_is_chosen(void **state)
{
    char err[512];
    json_t *tl = trace_timeline(*state, TRACE_REQUEST_MEDIAN, &activities, err, sizeof err);
    if (!tl)
        fail_msg("%s", err);
    assert_int_equal(num(tl, "request"), 0);
    assert_int_equal(num(tl, "start_ps"), (int64_t)req_start[0]);
    assert_int_equal(num(tl, "end_ps"), (int64_t)(req_start[0] + req_latency[0]));
    assert_int_equal(num(tl, "latency_ps"), (int64_t)req_latency[0]);
    json_decref(tl);
}

static void test_request_can_be_picked(void **state)
{
    char err[512];
    json_t *tl = trace_timeline(*state, 2, &activities, err, sizeof err);
    if (!tl)
        fail_msg("%s", err);
    assert_int_equal(num(tl, "request"), 2);
    assert_int_equal(num(tl, "latency_ps"), (int64_t)req_latency[2]);
    json_decref(tl);
}

static void test_median_ties_go_to_the_lower_index(void **state)
{
    (void)state;
    char dir[] = "/tmp/mortar-trace-tie-XXXXXX", path[600], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/client.trace", dir);
    mortar_trace_writer *w;
    assert_int_equal(mortar_trace_writer_open(&w, path), 0);
    uint16_t cl = mortar_trace_writer_component(w, "client");
    const uint64_t lat[4] = {20, 10, 20, 30}; /* sorted: 10(1) 20(0) 20(2) 30(3) */
    for (uint64_t i = 0; i < 4; i++) {
        ev(w, cl, "request_start", (i + 1) * 100 * US, i, 1, 0);
        ev(w, cl, "request_end", (i + 1) * 100 * US + lat[i] * US, i, 2, 0);
    }
    ev(w, cl, "request_start", 900 * US, 4, 1, 0); /* never ended: not counted */
    assert_int_equal(mortar_trace_writer_close(w), 0);
    json_t *tl = trace_timeline(dir, TRACE_REQUEST_MEDIAN, &activities, err, sizeof err);
    if (!tl)
        fail_msg("%s", err);
    assert_int_equal(num(tl, "request"), 0);
    json_decref(tl);
    assert_null(trace_timeline(dir, 4, &activities, err, sizeof err));
    assert_non_null(strstr(err, "request 4 has no request_end"));
    remove_dir(dir);
}

static void test_timeline_tracks_follow_the_path(void **state)
{
    char err[512];
    json_t *tl = trace_timeline(*state, TRACE_REQUEST_MEDIAN, &activities, err, sizeof err);
    if (!tl)
        fail_msg("%s", err);
    json_t *tracks = json_object_get(tl, "tracks");
    assert_int_equal(json_array_size(tracks), N_TRACKS);
    for (size_t i = 0; i < N_TRACKS; i++)
        assert_string_equal(str(json_array_get(tracks, i), "name"), path_tracks[i]);
    json_decref(tl);
}

static void test_timeline_events_lie_in_the_request(void **state)
{
    char err[512];
    json_t *tl = trace_timeline(*state, 1, &activities, err, sizeof err);
    if (!tl)
        fail_msg("%s", err);
    int64_t start = num(tl, "start_ps"), end = num(tl, "end_ps");
    size_t i, k, total = 0;
    json_t *t, *e;
    json_array_foreach(json_object_get(tl, "tracks"), i, t)
    {
        int64_t prev = start;
        json_array_foreach(json_object_get(t, "events"), k, e)
        {
            int64_t s = num(e, "start_ps"), f = num(e, "end_ps");
            if (s < start || f > end || f < s)
                fail_msg("%s %s [%lld, %lld] outside [%lld, %lld]", str(t, "name"),
                         str(e, "name"), (long long)s, (long long)f, (long long)start,
                         (long long)end);
            assert_true(s >= prev); /* by start time */
            prev = s;
            assert_true(json_is_object(json_object_get(e, "args")));
            total++;
        }
    }
    /* request 1's events only: the drop before it and the other requests' are out */
    assert_int_equal(count_named(track(tl, "switch"), "frame_drop", NULL), 0);
    assert_int_equal(count_named(track(tl, "switch"), "frame_rx", NULL), 2);
    assert_int_equal(count_named(track(tl, "client"), "request", NULL), 1);
    assert_int_equal(total, 32);
    json_decref(tl);
}

static void test_begin_and_end_kinds_pair_into_slices(void **state)
{
    char err[512];
    json_t *tl = trace_timeline(*state, TRACE_REQUEST_MEDIAN, &activities, err, sizeof err), *e = NULL;
    if (!tl)
        fail_msg("%s", err);
    uint64_t s = req_start[0];
    assert_int_equal(count_named(track(tl, "client"), "request", &e), 1);
    assert_int_equal(num(e, "start_ps"), (int64_t)s);
    assert_int_equal(num(e, "end_ps"), (int64_t)(s + req_latency[0]));
    assert_int_equal(count_named(track(tl, "server"), "service", &e), 1);
    assert_int_equal(num(e, "end_ps") - num(e, "start_ps"), (int64_t)(13 * US));
    assert_int_equal(count_named(track(tl, "server"), "device", &e), 1);
    assert_int_equal(num(e, "end_ps") - num(e, "start_ps"), (int64_t)(11 * US));
    assert_int_equal(count_named(track(tl, "server.accel"), "mmio_read", &e), 1);
    assert_int_equal(num(e, "end_ps") - num(e, "start_ps"), (int64_t)(500000));
    json_t *args = json_object_get(e, "args");
    assert_int_equal(num(args, "bar"), 1);
    assert_string_equal(str(args, "offset"), "0x10");
    assert_int_equal(num(args, "size"), 4);
    assert_string_equal(str(args, "value"), "0x1");
    assert_int_equal(count_named(track(tl, "server.accel"), "mmio_read_done", NULL), 0);
    /* the host's DMA has no done event: an instant */
    assert_int_equal(count_named(track(tl, "server.accel"), "dma_read", &e), 1);
    assert_int_equal(num(e, "end_ps"), num(e, "start_ps"));
    /* the model's overlapping DMAs pair by address */
    json_t *acc = track(tl, "accel");
    assert_int_equal(count_named(acc, "dma_read", NULL), 2);
    size_t i;
    json_array_foreach(json_object_get(acc, "events"), i, e)
    {
        if (strcmp(str(e, "name"), "dma_read") != 0)
            continue;
        const char *addr = str(json_object_get(e, "args"), "addr");
        int64_t want = !strcmp(addr, "0x1000") ? 7 * US : 8 * US;
        assert_int_equal(num(e, "start_ps"), (int64_t)(s + want));
        assert_int_equal(num(e, "end_ps") - num(e, "start_ps"), (int64_t)(2 * US));
    }
    assert_int_equal(count_named(acc, "compute", &e), 1);
    assert_int_equal(num(e, "end_ps") - num(e, "start_ps"), (int64_t)(2 * US));
    assert_int_equal(count_named(acc, "dma_write", NULL), 1);
    assert_int_equal(count_named(acc, "dma_read_done", NULL), 0);
    assert_int_equal(count_named(track(tl, "server.accel"), "interrupt", &e), 1);
    assert_string_equal(str(json_object_get(e, "args"), "type"), "msix");
    json_decref(tl);
}

/* Whether the timeline has an arrow from (track, kind) to (track, kind). */
static bool has_flow(json_t *tl, const char *from_track, const char *from,
                     const char *to_track, const char *to)
{
    size_t i;
    json_t *f, *tracks = json_object_get(tl, "tracks");
    json_array_foreach(json_object_get(tl, "flows"), i, f)
    {
        json_t *a = json_object_get(f, "from"), *b = json_object_get(f, "to");
        json_t *ta =
            json_array_get(tracks, (size_t)json_integer_value(json_array_get(a, 0)));
        json_t *tb =
            json_array_get(tracks, (size_t)json_integer_value(json_array_get(b, 0)));
        json_t *ea = json_array_get(json_object_get(ta, "events"),
                                    (size_t)json_integer_value(json_array_get(a, 1)));
        json_t *eb = json_array_get(json_object_get(tb, "events"),
                                    (size_t)json_integer_value(json_array_get(b, 1)));
        if (ea && eb && !strcmp(str(ta, "name"), from_track) &&
            !strcmp(str(ea, "name"), from) && !strcmp(str(tb, "name"), to_track) &&
            !strcmp(str(eb, "name"), to))
            return true;
    }
    return false;
}

static void test_flows_follow_doorbell_and_frames(void **state)
{
    char err[512];
    json_t *tl = trace_timeline(*state, TRACE_REQUEST_MEDIAN, &activities, err, sizeof err);
    if (!tl)
        fail_msg("%s", err);
    assert_true(has_flow(tl, "server.accel", "mmio_write", "accel", "doorbell"));
    assert_true(has_flow(tl, "accel", "doorbell", "accel", "dma_read"));
    assert_true(has_flow(tl, "accel", "dma_read", "accel", "dma_write"));
    assert_true(has_flow(tl, "accel", "dma_write", "accel", "completion"));
    assert_true(has_flow(tl, "accel", "completion", "accel", "interrupt"));
    assert_true(has_flow(tl, "accel", "interrupt", "server.accel", "interrupt"));
    assert_true(has_flow(tl, "nic_client", "tx_frame", "switch", "frame_rx"));
    assert_true(has_flow(tl, "switch", "frame_rx", "switch", "frame_tx"));
    assert_true(has_flow(tl, "switch", "frame_tx", "nic_server", "rx_frame"));
    assert_true(has_flow(tl, "switch", "frame_tx", "nic_client", "rx_frame"));
    assert_true(has_flow(tl, "nic_server", "irq", "server.nic_server", "interrupt"));
    assert_false(has_flow(tl, "switch", "frame_tx", "nic_server", "tx_frame"));
    assert_int_equal(json_array_size(json_object_get(tl, "flows")), 14);
    /* the doorbell chain starts at the write just before the doorbell */
    size_t i;
    json_t *f, *tracks = json_object_get(tl, "tracks");
    json_array_foreach(json_object_get(tl, "flows"), i, f)
    {
        json_t *a = json_object_get(f, "from");
        json_t *ta =
            json_array_get(tracks, (size_t)json_integer_value(json_array_get(a, 0)));
        json_t *ea = json_array_get(json_object_get(ta, "events"),
                                    (size_t)json_integer_value(json_array_get(a, 1)));
        if (!strcmp(str(ta, "name"), "server.accel") &&
            !strcmp(str(ea, "name"), "mmio_write"))
            assert_int_equal(num(ea, "start_ps"), (int64_t)(req_start[0] + 6 * US));
    }
    json_decref(tl);
}

/* ---- Perfetto ----------------------------------------------------------------- */

static int64_t ts_ns(json_t *ev, const char *key)
{
    json_t *v = json_object_get(ev, key);
    if (!json_is_number(v))
        fail_msg("event %s has no number \"%s\"",
                 json_string_value(json_object_get(ev, "name")), key);
    return (int64_t)llround(json_number_value(v) * 1000.0);
}

static bool thread_named(json_t *events, int64_t pid, int64_t tid, const char **name)
{
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
    {
        if (!strcmp(str(e, "ph"), "M") && !strcmp(str(e, "name"), "thread_name") &&
            num(e, "pid") == pid && num(e, "tid") == tid) {
            *name = str(json_object_get(e, "args"), "name");
            return true;
        }
    }
    return false;
}

/* An event in the order Perfetto's JSON importer reads them: by time; at
 * one time the `E` events first, then the `X` events longest first, then
 * the others, each group in the file's order (its trace sorter's rule). */
typedef struct pf_read {
    json_t *ev;
    int64_t ts, key;
    size_t index;
} pf_read;

static int by_read_order(const void *pa, const void *pb)
{
    const pf_read *a = pa, *b = pb;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* One thread's open slices as Perfetto keeps them: end -1 while a `B`
 * waits for its `E`. */
typedef struct pf_open {
    int64_t pid, tid, start, end;
    const char *name;
} pf_open;

#define MAX_OPEN 64

/* An arrow as Perfetto draws it: from one slice to another. */
typedef struct pf_arrow {
    const char *from, *to;
    int64_t from_ts, to_ts;
} pf_arrow;

#define MAX_ARROWS 64

typedef struct pf_check {
    pf_open open[MAX_OPEN];
    size_t nopen;
    int64_t flow[MAX_ARROWS]; /* the flow ids whose start was read */
    json_t *last[MAX_ARROWS]; /* and the slice each one reached last */
    int64_t last_ts[MAX_ARROWS];
    size_t nflows;
    pf_arrow arrows[MAX_ARROWS];
    size_t narrows;
} pf_check;

/* Pops the finished slices of the thread that end before `ts`, or at
 * `ts` unless both are instants (Perfetto's slice tracker's rule); returns
 * the thread's innermost open slice after that, or NULL. */
static pf_open *close_finished(pf_check *c, int64_t pid, int64_t tid, int64_t ts, int64_t dur)
{
    for (size_t k = c->nopen; k-- > 0;) {
        pf_open *o = &c->open[k];
        if (o->pid != pid || o->tid != tid)
            continue;
        if (o->end < 0)
            return o;
        bool zero = o->end == o->start && dur == 0;
        if (o->end < ts || (o->end == ts && !zero)) {
            memmove(o, o + 1, (c->nopen - k - 1) * sizeof *o);
            c->nopen--;
            continue;
        }
        return o;
    }
    return NULL;
}

static void read_slice_event(pf_check *c, json_t *e, const char *ph, int64_t ts)
{
    int64_t pid = num(e, "pid"), tid = num(e, "tid");
    const char *name = str(e, "name");
    int64_t dur = ph[0] == 'X' ? ts_ns(e, "dur") : -1;
    pf_open *top = close_finished(c, pid, tid, ts, dur);
    if (ph[0] == 'E') {
        if (!top || top->end >= 0 || strcmp(top->name, name) != 0)
            fail_msg("E of %s at %lld does not close the innermost open slice", name,
                     (long long)ts);
        top->end = ts;
        close_finished(c, pid, tid, ts + 1, -1);
        return;
    }
    if (ph[0] == 'X' && top && top->end >= 0 && ts + dur > top->end)
        fail_msg("%s overlaps %s on thread %lld: Perfetto drops it", name, top->name,
                 (long long)tid);
    assert_true(c->nopen < MAX_OPEN);
    c->open[c->nopen++] = (pf_open){pid, tid, ts, ph[0] == 'X' ? ts + dur : -1, name};
}

/* A flow's side on a slice event, as Perfetto's flow tracker takes it: a
 * start opens the flow id, an end draws an arrow from the slice the flow
 * reached last (and is dropped when the flow has not started), a step
 * does both. */
static void read_flow(pf_check *c, json_t *e, const char *ph, int64_t ts)
{
    json_t *id = json_object_get(e, "bind_id");
    if (!id)
        return;
    if (ph[0] != 'B' && ph[0] != 'X')
        fail_msg("a flow bound to a %s event: Perfetto binds flows to slices only", ph);
    int64_t flow = json_integer_value(id);
    bool in = json_is_true(json_object_get(e, "flow_in"));
    bool out = json_is_true(json_object_get(e, "flow_out"));
    assert_true(in || out);
    size_t k = 0;
    while (k < c->nflows && c->flow[k] != flow)
        k++;
    if (in && k == c->nflows)
        fail_msg("flow %lld ends at %s before it starts", (long long)flow, str(e, "name"));
    if (!in && k < c->nflows)
        fail_msg("flow %lld starts twice", (long long)flow);
    if (in) {
        assert_true(c->narrows < MAX_ARROWS);
        c->arrows[c->narrows++] =
            (pf_arrow){str(c->last[k], "name"), str(e, "name"), c->last_ts[k], ts};
    }
    if (k == c->nflows) {
        assert_true(c->nflows < MAX_ARROWS);
        c->flow[c->nflows++] = flow;
    }
    c->last[k] = e;
    c->last_ts[k] = ts;
}

/* Reads `doc` as Perfetto does: every slice must nest on its thread and
 * every flow end follow its start on a slice; the arrows drawn go to
 * c->arrows. */
static void read_like_perfetto(json_t *doc, pf_check *c)
{
    json_t *events = json_object_get(doc, "traceEvents"), *e;
    size_t n = json_array_size(events), i;
    pf_read *order = calloc(n + 1, sizeof *order);
    json_array_foreach(events, i, e)
    {
        const char *ph = str(e, "ph");
        int64_t ts = ts_ns(e, "ts");
        assert_true(ts >= 0);
        int64_t key = ph[0] == 'E' ? INT64_MIN
                      : ph[0] == 'X' ? INT64_MAX - ts_ns(e, "dur")
                                     : INT64_MAX;
        order[i] = (pf_read){e, ts, key, i};
    }
    qsort(order, n, sizeof *order, by_read_order);
    memset(c, 0, sizeof *c);
    for (i = 0; i < n; i++) {
        const char *ph = str(order[i].ev, "ph"), *name;
        if (ph[0] == 'M')
            continue;
        if (!thread_named(events, num(order[i].ev, "pid"), num(order[i].ev, "tid"), &name))
            fail_msg("thread %lld has no name", (long long)num(order[i].ev, "tid"));
        if (strcmp(ph, "B") && strcmp(ph, "E") && strcmp(ph, "X"))
            fail_msg("unexpected ph %s", ph);
        read_slice_event(c, order[i].ev, ph, order[i].ts);
        read_flow(c, order[i].ev, ph, order[i].ts);
    }
    for (i = 0; i < c->nopen; i++)
        if (c->open[i].end < 0)
            fail_msg("%s is never closed", c->open[i].name);
    free(order);
}

/* The timeline's event at `at` ([track, event]). */
static json_t *timeline_event(json_t *tl, json_t *at)
{
    json_t *t = json_array_get(json_object_get(tl, "tracks"),
                               (size_t)json_integer_value(json_array_get(at, 0)));
    return json_array_get(json_object_get(t, "events"),
                          (size_t)json_integer_value(json_array_get(at, 1)));
}

/* Fails unless Perfetto draws exactly the timeline's arrows. */
static void expect_timeline_arrows(const char *dir, int64_t request, json_t *doc)
{
    char err[512];
    json_t *tl = trace_timeline(dir, request, &activities, err, sizeof err), *f;
    if (!tl)
        fail_msg("%s", err);
    pf_check *c = malloc(sizeof *c);
    read_like_perfetto(doc, c);
    int64_t t0 = num(tl, "start_ps");
    size_t i;
    json_array_foreach(json_object_get(tl, "flows"), i, f)
    {
        json_t *a = timeline_event(tl, json_object_get(f, "from"));
        json_t *b = timeline_event(tl, json_object_get(f, "to"));
        int64_t ta = (num(a, "start_ps") - t0) / 1000, tb = (num(b, "start_ps") - t0) / 1000;
        bool drawn = false;
        for (size_t k = 0; k < c->narrows; k++)
            drawn |= !strcmp(c->arrows[k].from, str(a, "name")) &&
                     !strcmp(c->arrows[k].to, str(b, "name")) && c->arrows[k].from_ts == ta &&
                     c->arrows[k].to_ts == tb;
        if (!drawn)
            fail_msg("the arrow %s -> %s is not drawn", str(a, "name"), str(b, "name"));
    }
    assert_int_equal(c->narrows, json_array_size(json_object_get(tl, "flows")));
    free(c);
    json_decref(tl);
}

static void test_perfetto_is_valid_trace_event_json(void **state)
{
    char err[512];
    json_t *doc = trace_perfetto(*state, TRACE_REQUEST_MEDIAN, err, sizeof err);
    if (!doc)
        fail_msg("%s", err);
    char *text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    json_error_t jerr;
    doc = json_loads(text, 0, &jerr); /* what Perfetto reads */
    free(text);
    assert_non_null(doc);
    assert_string_equal(str(doc, "displayTimeUnit"), "ns");
    assert_int_equal(num(json_object_get(doc, "otherData"), "request"), 0);
    json_t *events = json_object_get(doc, "traceEvents"), *e;
    assert_true(json_array_size(events) > 0);
    size_t i, nthreads_accel = 0;
    json_array_foreach(events, i, e)
    {
        const char *name;
        if (!strcmp(str(e, "ph"), "M") && !strcmp(str(e, "name"), "thread_name") &&
            thread_named(events, num(e, "pid"), num(e, "tid"), &name) &&
            !strncmp(name, "accel", 5) && (name[5] == '\0' || name[5] == ' '))
            nthreads_accel++;
    }
    /* the overlapping DMAs are on a second accel thread */
    assert_int_equal(nthreads_accel, 2);
    /* slices nest, and Perfetto draws every arrow of the timeline */
    expect_timeline_arrows(*state, TRACE_REQUEST_MEDIAN, doc);
    json_decref(doc);
}

/* A request whose doorbell, the host's write that rang it, the DMA it
 * starts and the compute step share one picosecond, the way a device
 * answers a doorbell at once: the DMA is a slice and the doorbell an
 * instant, so a reader that takes longer slices first at one time (as
 * Perfetto does with `X` events) reads the arrow's end before its start. */
static void write_equal_times(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/sim0.trace", dir);
    mortar_trace_writer *w;
    assert_int_equal(mortar_trace_writer_open(&w, path), 0);
    uint16_t acc = mortar_trace_writer_component(w, "accel");
    const uint64_t t = 5 * US;
    ev(w, acc, "doorbell", t, 1, 1, 0);
    ev(w, acc, "dma_read", t, 1, 0x1000, 4096);
    ev(w, acc, "compute_start", t, 1, 0, 3 * US);
    ev(w, acc, "dma_read_done", t + 1 * US, 1, 0x1000, 4096);
    ev(w, acc, "compute_end", t + 3 * US, 1, 0, 0);
    ev(w, acc, "dma_write", t + 3 * US, 1, 0x3000, 4096);
    ev(w, acc, "dma_write_done", t + 4 * US, 1, 0x3000, 4096);
    ev(w, acc, "completion", t + 4 * US, 1, 0, 0);
    ev(w, acc, "interrupt", t + 4 * US, 1, 1, 0);
    assert_int_equal(mortar_trace_writer_close(w), 0);
    snprintf(path, sizeof path, "%s/server.trace", dir);
    assert_int_equal(mortar_trace_writer_open(&w, path), 0);
    uint16_t sv = mortar_trace_writer_component(w, "server");
    uint16_t sv_acc = mortar_trace_writer_component(w, "server.accel");
    ev(w, sv, "request_start", 1 * US, 0, 1, 0);
    ev(w, sv_acc, "mmio_write", t, 2, 0x00, 1);
    ev(w, sv_acc, "interrupt", t + 4 * US, 3, 3, 1);
    ev(w, sv, "request_end", 20 * US, 0, 2, 0);
    assert_int_equal(mortar_trace_writer_close(w), 0);
}

static void test_perfetto_flows_at_equal_times_start_before_they_end(void **state)
{
    (void)state;
    char dir[] = "/tmp/mortar-trace-equal-XXXXXX", err[512];
    assert_non_null(mkdtemp(dir));
    write_equal_times(dir);
    json_t *tl = trace_timeline(dir, 0, &activities, err, sizeof err);
    if (!tl)
        fail_msg("%s", err);
    /* write -> doorbell -> DMA -> ... -> the host's interrupt */
    assert_true(json_array_size(json_object_get(tl, "flows")) >= 5);
    json_decref(tl);
    json_t *doc = trace_perfetto(dir, 0, err, sizeof err);
    if (!doc)
        fail_msg("%s", err);
    expect_timeline_arrows(dir, 0, doc);
    json_decref(doc);
    remove_dir(dir);
}

/* ---- OTLP ----------------------------------------------------------------------- */

static bool is_hex(const char *s, size_t len)
{
    if (strlen(s) != len)
        return false;
    bool nonzero = false;
    for (; *s; s++) {
        if (!isxdigit((unsigned char)*s) || isupper((unsigned char)*s))
            return false;
        nonzero |= *s != '0';
    }
    return nonzero;
}

static uint64_t decimal(json_t *span, const char *key)
{
    const char *s = str(span, key);
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p))
            fail_msg("%s is not a decimal string: %s", key, s);
    return strtoull(s, NULL, 10);
}

typedef struct otlp_span {
    json_t *span;
    const char *service;
} otlp_span;

static otlp_span *find_span(otlp_span *spans, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(str(spans[i].span, "spanId"), id))
            return &spans[i];
    return NULL;
}

static const trace_run test_run = {.id = 7,
                                   .db_path = "/home/user/mortar.db",
                                   .machine_id = "0123456789abcdef0123456789abcdef",
                                   .epoch_unix_ns = 1700000000ull * 1000000000ull};

/* Checks that every key of `attrs` is namespaced; the value of `key`, or
 * NULL. */
static json_t *attributes_value(json_t *attrs, const char *key)
{
    size_t i;
    json_t *a, *found = NULL;
    json_array_foreach(attrs, i, a)
    {
        const char *k = str(a, "key");
        if (strncmp(k, "mortar.", 7) != 0 && strncmp(k, "service.", 8) != 0)
            fail_msg("attribute %s has no namespace", k);
        json_t *v = json_object_get(a, "value");
        if (json_object_get(v, "intValue"))
            decimal(v, "intValue"); /* 64-bit integers are strings */
        if (!strcmp(k, key))
            found = v;
    }
    return found;
}

static const char *first_trace_id(json_t *doc)
{
    json_t *span = json_array_get(
        json_object_get(
            json_array_get(json_object_get(
                               json_array_get(json_object_get(doc, "resourceSpans"), 0),
                               "scopeSpans"),
                           0),
            "spans"),
        0);
    return str(span, "traceId");
}

/* How many of the timeline's events are instants (end == start). */
static size_t timeline_instants(json_t *tl, size_t *all)
{
    size_t i, k, n = 0;
    json_t *t, *e;
    *all = 0;
    json_array_foreach(json_object_get(tl, "tracks"), i, t)
        json_array_foreach(json_object_get(t, "events"), k, e)
        {
            (*all)++;
            n += num(e, "end_ps") == num(e, "start_ps");
        }
    return n;
}

static void test_otlp_is_one_span_tree(void **state)
{
    char err[512];
    const uint64_t epoch = test_run.epoch_unix_ns;
    json_t *doc = trace_otlp(*state, TRACE_REQUEST_MEDIAN, &test_run, err, sizeof err);
    if (!doc)
        fail_msg("%s", err);
    otlp_span spans[128];
    size_t n = 0, i, k, s, nevents = 0, prev_track = 0;
    json_t *rs, *ss, *sp;
    const char *trace_id = NULL;
    json_array_foreach(json_object_get(doc, "resourceSpans"), i, rs)
    {
        json_t *attrs = json_object_get(json_object_get(rs, "resource"), "attributes");
        json_t *name = attributes_value(attrs, "service.name");
        assert_non_null(name);
        const char *service = str(name, "stringValue");
        assert_string_equal(str(attributes_value(attrs, "mortar.component"), "stringValue"),
                            service);
        assert_int_equal(decimal(attributes_value(attrs, "mortar.run.id"), "intValue"),
                         test_run.id);
        size_t t = 0; /* one resource per component with spans, in path order */
        while (t < N_TRACKS && strcmp(path_tracks[t], service) != 0)
            t++;
        assert_true(t < N_TRACKS && (i == 0 || t > prev_track));
        prev_track = t;
        json_array_foreach(json_object_get(rs, "scopeSpans"), k, ss)
        {
            assert_string_equal(str(json_object_get(ss, "scope"), "name"), "mortar");
            json_array_foreach(json_object_get(ss, "spans"), s, sp)
            {
                assert_true(n < 128);
                spans[n++] = (otlp_span){sp, service};
            }
        }
    }
    size_t roots = 0;
    bool doorbell_is_an_event = false;
    for (i = 0; i < n; i++) {
        json_t *span = spans[i].span;
        if (!trace_id)
            trace_id = str(span, "traceId");
        assert_true(is_hex(str(span, "traceId"), 32));
        assert_string_equal(str(span, "traceId"), trace_id);
        assert_true(is_hex(str(span, "spanId"), 16));
        assert_ptr_equal(find_span(spans, n, str(span, "spanId")),
                         &spans[i]); /* unique */
        assert_int_equal(num(span, "kind"), 1);
        uint64_t start = decimal(span, "startTimeUnixNano");
        uint64_t end = decimal(span, "endTimeUnixNano");
        assert_true(start < end); /* instants are not spans */
        assert_true(start >= epoch);
        attributes_value(json_object_get(span, "attributes"), "");
        json_t *event;
        json_array_foreach(json_object_get(span, "events"), k, event)
        {
            uint64_t t = decimal(event, "timeUnixNano");
            assert_true(start <= t && t <= end); /* within its span */
            json_t *attrs = json_object_get(event, "attributes");
            json_t *comp = attributes_value(attrs, "mortar.component");
            assert_non_null(comp);
            if (!strcmp(str(event, "name"), "doorbell")) {
                doorbell_is_an_event = true;
                assert_string_equal(str(comp, "stringValue"), "accel");
            }
            nevents++;
        }
        json_t *link;
        json_array_foreach(json_object_get(span, "links"), k, link)
        {
            assert_string_equal(str(link, "traceId"), trace_id);
            assert_non_null(find_span(spans, n, str(link, "spanId")));
            assert_non_null(attributes_value(json_object_get(link, "attributes"),
                                             "mortar.flow"));
        }
        const char *parent_id = json_string_value(json_object_get(span, "parentSpanId"));
        if (!parent_id) {
            roots++;
            assert_string_equal(str(span, "name"), "request 0");
            assert_string_equal(spans[i].service, "client");
            assert_int_equal(start, epoch + req_start[0] / 1000);
            assert_int_equal(end, epoch + (req_start[0] + req_latency[0]) / 1000);
            json_t *attrs = json_object_get(span, "attributes");
            assert_int_equal(decimal(attributes_value(attrs, "mortar.run.id"), "intValue"),
                             test_run.id);
            assert_int_equal(
                decimal(attributes_value(attrs, "mortar.request.index"), "intValue"), 0);
            continue;
        }
        otlp_span *parent = find_span(spans, n, parent_id);
        if (!parent)
            fail_msg("span %s: parent %s does not exist", str(span, "name"), parent_id);
        assert_true(decimal(parent->span, "startTimeUnixNano") <= start);
        assert_true(end <= decimal(parent->span, "endTimeUnixNano"));
        /* the accelerator's work hangs under the server's device slice */
        if (!strcmp(spans[i].service, "accel") && !strcmp(str(span, "name"), "compute")) {
            assert_string_equal(parent->service, "server");
            assert_string_equal(str(parent->span, "name"), "device");
        }
    }
    assert_int_equal(roots, 1);
    assert_true(doorbell_is_an_event);
    /* every event of the timeline is a span or an event of one */
    json_t *tl = trace_timeline(*state, TRACE_REQUEST_MEDIAN, &activities, err, sizeof err);
    size_t all, instants = timeline_instants(tl, &all);
    json_decref(tl);
    assert_int_equal(nevents, instants);
    assert_int_equal(n, all - instants);
    json_t *again = trace_otlp(*state, TRACE_REQUEST_MEDIAN, &test_run, err, sizeof err);
    assert_true(json_equal(doc, again)); /* ids are deterministic */
    json_decref(again);
    again = trace_otlp(*state, 1, &test_run, err, sizeof err);
    assert_string_not_equal(first_trace_id(again), trace_id); /* one trace per request */
    json_decref(again);
    json_decref(doc);
}

static void test_otlp_trace_ids_differ_between_runs_and_machines(void **state)
{
    char err[512], ids[4][33];
    trace_run runs[4] = {test_run, test_run, test_run, test_run};
    runs[1].id = test_run.id + 1;                                /* another run */
    runs[2].machine_id = "fedcba9876543210fedcba9876543210";     /* another machine */
    runs[3].db_path = "/home/user/other.db";                     /* another database */
    for (size_t r = 0; r < 4; r++) {
        json_t *doc = trace_otlp(*state, TRACE_REQUEST_MEDIAN, &runs[r], err, sizeof err);
        if (!doc)
            fail_msg("%s", err);
        snprintf(ids[r], sizeof ids[r], "%s", first_trace_id(doc));
        assert_true(is_hex(ids[r], 32));
        json_decref(doc);
    }
    for (size_t a = 0; a < 4; a++)
        for (size_t b = a + 1; b < 4; b++)
            assert_string_not_equal(ids[a], ids[b]);
    char machine[128];
    trace_machine_id(machine, sizeof machine);
    assert_null(strchr(machine, '\n'));
}

/* ---- failures ------------------------------------------------------------------- */

static void expect_failure(const char *dir, int64_t request, const char *text)
{
    char err[1024] = "";
    json_t *out[3] = {trace_timeline(dir, request, &activities, err, sizeof err), NULL, NULL};
    if (out[0] || !strstr(err, text))
        fail_msg("expected an error with \"%s\", got \"%s\"", text, err);
    err[0] = '\0';
    out[1] = trace_perfetto(dir, request, err, sizeof err);
    assert_null(out[1]);
    assert_non_null(strstr(err, text));
    err[0] = '\0';
    out[2] = trace_otlp(dir, request, &test_run, err, sizeof err);
    assert_null(out[2]);
    assert_non_null(strstr(err, text));
}

static void write_bytes(const char *dir, const char *name, const void *data, size_t n)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void test_missing_directory_is_named(void **state)
{
    (void)state;
    expect_failure("/nonexistent/mortar-run-42", TRACE_REQUEST_MEDIAN,
                   "/nonexistent/mortar-run-42");
    assert_int_equal(trace_count_files("/nonexistent/mortar-run-42"), -1);
}

static void test_run_without_trace_files_fails(void **state)
{
    (void)state;
    char dir[] = "/tmp/mortar-trace-empty-XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_bytes(dir, "sim0.stats.json", "{}", 2);
    assert_int_equal(trace_count_files(dir), 0);
    expect_failure(dir, TRACE_REQUEST_MEDIAN, "no trace files");
    remove_dir(dir);
}

static void test_corrupt_files_are_named(void **state)
{
    char dir[] = "/tmp/mortar-trace-bad-XXXXXX", path[700];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "cp %s/*.trace %s/", (char *)*state, dir);
    assert_int_equal(system(path), 0);
    assert_int_equal(trace_count_files(dir), 2);
    /* a bad record tag after a good header */
    uint32_t header[4] = {MORTAR_TRACE_MAGIC, MORTAR_TRACE_VERSION, 0, 0};
    unsigned char bad[sizeof header + 3];
    memcpy(bad, header, sizeof header);
    memcpy(bad + sizeof header, "Zzz", 3);
    write_bytes(dir, "broken.trace", bad, sizeof bad);
    expect_failure(dir, TRACE_REQUEST_MEDIAN, "broken.trace: corrupt trace file");
    /* not a trace file at all */
    snprintf(path, sizeof path, "%s/broken.trace", dir);
    unlink(path);
    write_bytes(dir, "notes.trace", "hello, world\n", 13);
    expect_failure(dir, TRACE_REQUEST_MEDIAN, "notes.trace: not a mortar trace file");
    /* a file cut in the middle of an event */
    snprintf(path, sizeof path, "%s/notes.trace", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/host.trace", dir);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(n > 100 && n < sizeof buf);
    write_bytes(dir, "host.trace", buf, n - 7);
    expect_failure(dir, TRACE_REQUEST_MEDIAN, "host.trace: corrupt trace file");
    remove_dir(dir);
}

static void test_unknown_request_fails(void **state)
{
    expect_failure(*state, 7, "request 7 not found");
}

static void test_trace_without_marks_fails(void **state)
{
    (void)state;
    char dir[] = "/tmp/mortar-trace-nomarks-XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_sim(dir);
    expect_failure(dir, TRACE_REQUEST_MEDIAN, "no request marks");
    remove_dir(dir);
}

/* ---- the command ---------------------------------------------------------------- */

/* Runs `mortar trace ARGS`; returns its exit code, stderr in `err_text`. */
static int run_cli(const char *tmp, const char *args, char *err_text, size_t size)
{
    const char *bin = getenv("MORTAR_BIN") ? getenv("MORTAR_BIN") : "build/bin";
    char cmd[2048], err_path[700];
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", tmp);
    snprintf(cmd, sizeof cmd, "'%s/mortar' trace %s >/dev/null 2>'%s'", bin, args,
             err_path);
    int st = system(cmd);
    FILE *f = fopen(err_path, "r");
    size_t n = f ? fread(err_text, 1, size - 1, f) : 0;
    err_text[n] = '\0';
    if (f)
        fclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The request number of the split `mortar trace ARGS` writes on stdout, or
 * -1. */
static int64_t split_request_on_stdout(const char *tmp, const char *args)
{
    const char *bin = getenv("MORTAR_BIN") ? getenv("MORTAR_BIN") : "build/bin";
    char cmd[2048], out_path[700];
    snprintf(out_path, sizeof out_path, "%s/stdout.json", tmp);
    snprintf(cmd, sizeof cmd, "'%s/mortar' trace %s >'%s' 2>/dev/null", bin, args, out_path);
    int st = system(cmd);
    json_error_t jerr;
    json_t *doc = WIFEXITED(st) && WEXITSTATUS(st) == 0 ? json_load_file(out_path, 0, &jerr)
                                                          : NULL;
    int64_t req = doc ? num(doc, "request") : -1;
    json_decref(doc);
    remove(out_path);
    return req;
}

static void test_command_writes_stdout_for_a_dash(void **state)
{
    const char *bin = getenv("MORTAR_BIN") ? getenv("MORTAR_BIN") : "build/bin";
    char exe[600];
    snprintf(exe, sizeof exe, "%s/mortar", bin);
    if (access(exe, X_OK) != 0)
        skip(); /* the command is not built */
    char tmp[] = "/tmp/mortar-trace-dash-XXXXXX", db_path[700], args[2048], err[512];
    assert_non_null(mkdtemp(tmp));
    snprintf(db_path, sizeof db_path, "%s/mortar.db", tmp);
    sqlite3 *db;
    assert_int_equal(db_open(&db, db_path, err, sizeof err), 0);
    json_t *spec = json_object();
    db_run_info traced = {.name = "t", .run_dir = *state, .spec = spec};
    int64_t id = db_begin_run(db, &traced);
    json_decref(spec);
    sqlite3_close(db);
    const char *outputs[] = {"-o -", "--output -", "--output=-", ""};
    for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++) {
        snprintf(args, sizeof args, "%lld --db '%s' --format split --request 1 %s",
                 (long long)id, db_path, outputs[i]);
        if (split_request_on_stdout(tmp, args) != 1)
            fail_msg("mortar trace %s wrote no split on stdout", args);
    }
    struct stat st;
    snprintf(args, sizeof args, "%s/-", tmp);
    assert_int_not_equal(stat(args, &st), 0); /* no file named "-" */
    remove_dir(tmp);
}

static void test_command_exit_codes_and_messages(void **state)
{
    const char *bin = getenv("MORTAR_BIN") ? getenv("MORTAR_BIN") : "build/bin";
    char exe[600];
    snprintf(exe, sizeof exe, "%s/mortar", bin);
    if (access(exe, X_OK) != 0)
        skip(); /* the command is not built */
    char tmp[] = "/tmp/mortar-trace-cli-XXXXXX", db_path[700], empty[700], args[2048];
    char out_path[700], text[4096], err[512];
    assert_non_null(mkdtemp(tmp));
    snprintf(db_path, sizeof db_path, "%s/mortar.db", tmp);
    snprintf(empty, sizeof empty, "%s/empty-run", tmp);
    snprintf(out_path, sizeof out_path, "%s/out.json", tmp);
    assert_int_equal(mkdir(empty, 0755), 0);
    sqlite3 *db;
    assert_int_equal(db_open(&db, db_path, err, sizeof err), 0);
    json_t *spec = json_object();
    db_run_info traced = {.name = "t", .run_dir = *state, .spec = spec};
    db_run_info untraced = {.name = "u", .run_dir = empty, .spec = spec};
    int64_t id = db_begin_run(db, &traced), id2 = db_begin_run(db, &untraced);
    assert_true(id > 0 && id2 > 0);
    json_decref(spec);
    sqlite3_close(db);

    snprintf(args, sizeof args, "%lld --db '%s' --format otlp --output '%s'", (long long)id,
             db_path, out_path);
    if (run_cli(tmp, args, text, sizeof text) != 0)
        fail_msg("mortar trace failed: %s", text);
    json_error_t jerr;
    json_t *doc = json_load_file(out_path, 0, &jerr);
    assert_non_null(doc);
    json_t *resource = json_object_get(
        json_array_get(json_object_get(doc, "resourceSpans"), 0), "resource");
    assert_int_equal(decimal(attributes_value(json_object_get(resource, "attributes"),
                                              "mortar.run.id"),
                             "intValue"),
                     id); /* the run's id, as in the database */
    json_decref(doc);
    snprintf(args, sizeof args, "%lld --db '%s' --format perfetto --request 2 -o '%s'",
             (long long)id, db_path, out_path);
    assert_int_equal(run_cli(tmp, args, text, sizeof text), 0);
    doc = json_load_file(out_path, 0, &jerr);
    assert_int_equal(num(json_object_get(doc, "otherData"), "request"), 2);
    /* the run's start (started_at, whole seconds), the pcap's and OTLP's epoch */
    int64_t epoch = num(json_object_get(doc, "otherData"), "epoch_unix_ns");
    assert_true(epoch > 0 && epoch % 1000000000 == 0);
    json_decref(doc);

    snprintf(args, sizeof args, "%lld --db '%s' --format split --request 2 --output='%s'",
             (long long)id, db_path, out_path);
    assert_int_equal(run_cli(tmp, args, text, sizeof text), 0);
    doc = json_load_file(out_path, 0, &jerr);
    assert_int_equal(num(doc, "request"), 2);
    json_t *parts = json_object_get(doc, "parts");
    assert_int_equal(json_array_size(parts), 6);
    int64_t total = 0;
    for (size_t p = 0; p < 6; p++)
        total += num(json_array_get(parts, p), "ps");
    assert_int_equal(total, (int64_t)req_latency[2]);
    json_decref(doc);

    snprintf(args, sizeof args, "999 --db '%s' --format otlp", db_path);
    assert_int_equal(run_cli(tmp, args, text, sizeof text), 1);
    assert_non_null(strstr(text, "no run 999"));
    snprintf(args, sizeof args, "%lld --db '%s' --format otlp", (long long)id2, db_path);
    assert_int_equal(run_cli(tmp, args, text, sizeof text), 1);
    assert_non_null(strstr(text, "has no trace: rerun it with --trace"));
    snprintf(args, sizeof args, "%lld --db '%s' --format svg", (long long)id, db_path);
    assert_int_equal(run_cli(tmp, args, text, sizeof text), 2);
    assert_non_null(strstr(text, "unknown format 'svg'"));
    snprintf(args, sizeof args, "%lld --db '%s' --format perfetto --request 9",
             (long long)id, db_path);
    assert_int_equal(run_cli(tmp, args, text, sizeof text), 1);
    assert_non_null(strstr(text, "request 9 not found"));
    snprintf(args, sizeof args, "--db '%s' --format perfetto", db_path); /* no RUN */
    assert_int_equal(run_cli(tmp, args, text, sizeof text), 2);
    snprintf(args, sizeof args, "%lld --db '%s'", (long long)id, db_path); /* no format */
    assert_int_equal(run_cli(tmp, args, text, sizeof text), 2);
    snprintf(args, sizeof args, "%lld --db '%s' --format otlp --request", (long long)id,
             db_path);
    assert_int_equal(run_cli(tmp, args, text, sizeof text), 2);
    assert_non_null(strstr(text, "option '--request' requires an argument"));
    snprintf(args, sizeof args, "1 --db '%s/none.db' --format perfetto", tmp);
    assert_int_equal(run_cli(tmp, args, text, sizeof text), 1);
    assert_non_null(strstr(text, "none.db"));
    remove_dir(tmp);
}

int main(void)
{
    split_parts_default(&activities);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_median_request_is_chosen, setup, teardown),
        cmocka_unit_test_setup_teardown(test_request_can_be_picked, setup, teardown),
        cmocka_unit_test(test_median_ties_go_to_the_lower_index),
        cmocka_unit_test_setup_teardown(test_timeline_tracks_follow_the_path, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_timeline_events_lie_in_the_request, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_begin_and_end_kinds_pair_into_slices, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_flows_follow_doorbell_and_frames, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_perfetto_is_valid_trace_event_json, setup,
                                        teardown),
        cmocka_unit_test(test_perfetto_flows_at_equal_times_start_before_they_end),
        cmocka_unit_test_setup_teardown(test_otlp_is_one_span_tree, setup, teardown),
        cmocka_unit_test_setup_teardown(test_otlp_trace_ids_differ_between_runs_and_machines,
                                        setup, teardown),
        cmocka_unit_test(test_missing_directory_is_named),
        cmocka_unit_test(test_run_without_trace_files_fails),
        cmocka_unit_test_setup_teardown(test_corrupt_files_are_named, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_request_fails, setup, teardown),
        cmocka_unit_test(test_trace_without_marks_fails),
        cmocka_unit_test_setup_teardown(test_command_exit_codes_and_messages, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_command_writes_stdout_for_a_dash, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
