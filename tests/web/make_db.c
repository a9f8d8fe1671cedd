/*
 * make_db.c - writes a synthetic results database with known numbers for
 * the explorer's tests (cli.test.mjs, explorer.test.mjs), through db.h like
 * `mortar run` does, so it always has the real schema:
 *
 *   - the grid: designs A and B at PCIe latencies 0.5, 1 and 2 us x compute
 *     speeds 1x and 2x, one request in flight (A wins at low latency, B at
 *     high, and the crossover differs per speed);
 *   - the baselines: software and register copy at each latency, 1x;
 *   - load: A and B with 2 and 4 requests in flight at 0.5 and 2 us;
 *   - extra runs of A and B between the grid's latencies at 1x (as a
 *     refinement makes: 1.25, 1.0625 and 1.03125 us, where they cross, the
 *     first a value the study does not declare either), untraced;
 *   - one failed run.
 *
 * Every run gets a run directory under OUT_DIR; the A and B grid runs but
 * one (B at 2 us, 2x: the page must say it has no trace) get trace files
 * there too, as a traced run has them (docs/traces.md): every request's
 * marks, and for the median request (index 5) its frames, the server's steps
 * and the accelerator's doorbells, DMAs and compute steps. The expected
 * numbers go to MANIFEST as JSON.
 *
 *   web_make_db DB OUT_DIR MANIFEST
 *   web_make_db --empty DB        a results database without runs
 */
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db.h"
#include "mortar/trace.h"

#define NREQ 11

static const double latencies_us[] = {0.5, 1.0, 2.0};
static const double speeds[] = {1.0, 2.0};

typedef struct expected {
    const char *design;
    double latency_us, speed;
    int64_t in_flight;
    double median_us, p99_us, service_us, compute_us;
} expected;

/* The case study's shape, in round numbers: A computes faster but crosses
 * the link about ten times per tile step; B crosses it a few times per
 * request. The rest of the system adds the same 150 us to both. */
static expected grid_point(const char *design, double L, double s)
{
    expected e = {.design = design, .latency_us = L, .speed = s, .in_flight = 1};
    if (design[0] == 'a') {
        e.compute_us = 1920.0 / s;
        e.service_us = e.compute_us + 64 * 10 * L;
    } else {
        e.compute_us = 2560.0 / s;
        e.service_us = e.compute_us + 7 * L;
    }
    e.median_us = e.service_us + 150.0;
    e.p99_us = e.median_us + 10.0 + 4 * L;
    return e;
}

/* ---- synthetic trace files ---------------------------------------------------- */

#define MEDIAN_REQ 5 /* the request whose latency is the median (offset 0) */

typedef struct tev {
    uint64_t time_ps;
    int comp;
    const char *kind;
    uint64_t req, arg0, arg1;
    size_t seq;
} tev;

/* One trace file being made; its events are written sorted by time. */
typedef struct tfile {
    const char *name;
    const char *comps[4];
    tev *ev;
    size_t n, cap;
    uint64_t base_ps; /* the current request's start */
} tfile;

static void emit(tfile *f, int comp, const char *kind, double t_us, uint64_t req,
                 uint64_t arg0, uint64_t arg1)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 256;
        f->ev = realloc(f->ev, f->cap * sizeof *f->ev);
        if (!f->ev)
            abort();
    }
    f->ev[f->n] = (tev){.time_ps = f->base_ps + (uint64_t)(t_us * 1e6 + 0.5),
                        .comp = comp,
                        .kind = kind,
                        .req = req,
                        .arg0 = arg0,
                        .arg1 = arg1,
                        .seq = f->n};
    f->n++;
}

static int by_time(const void *pa, const void *pb)
{
    const tev *a = pa, *b = pb;
    if (a->time_ps != b->time_ps)
        return a->time_ps < b->time_ps ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int write_tfile(tfile *f, const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.trace", dir, f->name);
    mortar_trace_writer *w;
    if (mortar_trace_writer_open(&w, path))
        return -1;
    uint16_t ids[4] = {0};
    for (int i = 0; i < 4 && f->comps[i]; i++)
        ids[i] = mortar_trace_writer_component(w, f->comps[i]);
    qsort(f->ev, f->n, sizeof *f->ev, by_time);
    for (size_t i = 0; i < f->n; i++) {
        mortar_trace_event ev = {.time_ps = f->ev[i].time_ps,
                                 .component = ids[f->ev[i].comp],
                                 .kind = mortar_trace_writer_kind(w, f->ev[i].kind),
                                 .req_id = f->ev[i].req,
                                 .arg0 = f->ev[i].arg0,
                                 .arg1 = f->ev[i].arg1};
        mortar_trace_writer_event(w, &ev);
    }
    free(f->ev);
    f->ev = NULL;
    f->n = f->cap = 0;
    return mortar_trace_writer_close(w) ? -1 : 0;
}

enum { CLIENT, SERVER, SIM };
enum { C_CLIENT = 0 };
enum { S_SERVER = 0, S_ACCEL = 1 };
enum { M_NIC_CLIENT = 0, M_SWITCH = 1, M_NIC_SERVER = 2, M_ACCEL = 3 };

/* Six jumbo frames from one NIC through the switch to the other, from t_us. */
static void frames(tfile *sim, int from_nic, int to_nic, double t_us)
{
    for (int k = 0; k < 6; k++) {
        double t = t_us + 8.0 * k;
        emit(sim, from_nic, "tx_frame", t, 100 + k, 9014, 0);
        emit(sim, M_SWITCH, "frame_rx", t + 1.2, 0, from_nic == M_NIC_CLIENT ? 0 : 1,
             9014);
        emit(sim, M_SWITCH, "frame_tx", t + 1.6, 0, from_nic == M_NIC_CLIENT ? 1 : 0,
             9014);
        emit(sim, to_nic, "rx_frame", t + 2.9, 100 + k, 9014, 0);
    }
}

/* The device's work between device_start (at 70 us) and device_done. */
static void device_work(tfile *srv, tfile *sim, const expected *e)
{
    const double L = e->latency_us, c = e->compute_us / 64, t0 = 70;
    const uint64_t req = 1, tile = 128 * 128;
    if (e->design[0] == 'a') {
        /* Per tile step: the driver writes the addresses, reads back, rings
         * the doorbell; the device fetches two tiles, computes, writes a
         * result every fourth step; the driver polls status. */
        double step = (e->service_us) / 64;
        for (int k = 0; k < 64; k++) {
            double s = t0 + k * step;
            emit(srv, S_ACCEL, "mmio_write", s, 0, 0x10, 0x100000 + k * tile);
            emit(srv, S_ACCEL, "mmio_write", s + 0.02, 0, 0x18, 0x800000 + k * tile);
            emit(srv, S_ACCEL, "mmio_read", s + 0.04, 1000 + k, 0x18, 4);
            emit(srv, S_ACCEL, "mmio_read_done", s + 0.04 + 2 * L, 1000 + k, 0x18, 0);
            emit(srv, S_ACCEL, "mmio_write", s + 0.06 + 2 * L, 0, 0x20, 1);
            emit(sim, M_ACCEL, "doorbell", s + 0.06 + 3 * L, req, 1, 0);
            double d = s + 0.06 + 3 * L;
            for (int t = 0; t < 2; t++, d += 2 * L) {
                emit(sim, M_ACCEL, "dma_read", d, req, 0x100000 + (2 * k + t) * tile,
                     tile);
                emit(sim, M_ACCEL, "dma_read_done", d + 2 * L, req,
                     0x100000 + (2 * k + t) * tile, tile);
            }
            emit(sim, M_ACCEL, "compute_start", d, req, k, (uint64_t)(c * 1e6));
            emit(sim, M_ACCEL, "compute_end", d + c, req, k, 0);
            if (k % 4 == 3) {
                emit(sim, M_ACCEL, "dma_write", d + c, req, 0x800000 + k * tile,
                     4 * tile);
                emit(sim, M_ACCEL, "dma_write_done", d + c + L, req, 0x800000 + k * tile,
                     4 * tile);
            }
            emit(sim, M_ACCEL, "completion", d + c + 0.01, req, 0, 0);
            emit(srv, S_ACCEL, "mmio_read", d + c, 2000 + k, 0x08, 4);
            emit(srv, S_ACCEL, "mmio_read_done", d + c + 2 * L, 2000 + k, 0x08, 1);
        }
    } else {
        /* One descriptor: the device streams tiles while it computes,
         * prefetching the next step's, and raises MSI-X at the end. */
        emit(srv, S_ACCEL, "mmio_write", t0, 0, 0x40, 1);
        emit(sim, M_ACCEL, "doorbell", t0 + L, 0, 1, 0);
        emit(sim, M_ACCEL, "desc_fetch", t0 + L, req, 0, 0);
        emit(sim, M_ACCEL, "dma_read", t0 + L, req, 0x100000, 2 * tile);
        emit(sim, M_ACCEL, "dma_read_done", t0 + 3 * L, req, 0x100000, 2 * tile);
        double s = t0 + 3 * L;
        for (int k = 0; k < 64; k++, s += c) {
            emit(sim, M_ACCEL, "compute_start", s, req, k, (uint64_t)(c * 1e6));
            emit(sim, M_ACCEL, "compute_end", s + c, req, k, 0);
            if (k < 63) {
                uint64_t a = 0x100000 + (uint64_t)(k + 1) * 2 * tile;
                emit(sim, M_ACCEL, "dma_read", s + 0.1, req, a, 2 * tile);
                emit(sim, M_ACCEL, "dma_read_done", s + 0.1 + 2 * L, req, a, 2 * tile);
            }
            if (k % 4 == 3) {
                emit(sim, M_ACCEL, "dma_write", s + c, req, 0x800000 + k * tile,
                     4 * tile);
                emit(sim, M_ACCEL, "dma_write_done", s + c + L, req, 0x800000 + k * tile,
                     4 * tile);
            }
        }
        emit(sim, M_ACCEL, "completion", s + L, req, 0, 0);
        emit(sim, M_ACCEL, "interrupt", s + 2 * L, req, 0, 0);
        emit(srv, S_ACCEL, "interrupt", s + 3 * L, 0, 3, 0);
    }
}

/* The run's topology, as a real run's spec.json has it: the trace join
 * orders its tracks along it (cli/trace/private/track_order.h). */
static int write_topology(const char *dir)
{
    json_t *spec = json_pack(
        "{s:[{s:s},{s:s}], s:[{s:s},{s:s},{s:s},{s:s}], s:[{s:s,s:s},{s:s,s:s},{s:s,s:s},"
        "{s:s,s:s},{s:s,s:s}]}",
        "hosts", "name", "client", "name", "server", "components", "name", "nic_client",
        "name", "switch", "name", "nic_server", "name", "accel", "links", "host", "client",
        "component", "nic_client.0", "a", "nic_client.1", "b", "switch.0", "a",
        "nic_server.1", "b", "switch.1", "host", "server", "component", "nic_server.0",
        "host", "server", "component", "accel.0");
    char path[4200];
    snprintf(path, sizeof path, "%s/spec.json", dir);
    int rc = spec ? json_dump_file(spec, path, JSON_INDENT(1)) : -1;
    json_decref(spec);
    return rc;
}

/* Trace files for a grid run whose requests took `lat_us`. */
static int write_traces(const char *dir, const expected *e, const double *lat_us,
                        size_t n)
{
    tfile cli = {.name = "client", .comps = {"client"}};
    tfile srv = {.name = "server", .comps = {"server", "server.accel"}};
    tfile sim = {.name = "sim0",
                 .comps = {"nic_client", "switch", "nic_server", "accel"}};
    for (size_t i = 0; i < n; i++) {
        uint64_t base = (uint64_t)i * 10000000000ULL; /* one request per 10 ms */
        cli.base_ps = srv.base_ps = sim.base_ps = base;
        emit(&cli, C_CLIENT, "request_start", 0, i, 1, 0);
        emit(&cli, C_CLIENT, "request_end", lat_us[i], i, 2, 0);
        if (i != MEDIAN_REQ)
            continue;
        frames(&sim, M_NIC_CLIENT, M_NIC_SERVER, 2);
        emit(&srv, S_SERVER, "request_received", 60, i, 3, 0);
        emit(&srv, S_SERVER, "device_start", 70, i, 4, 0);
        device_work(&srv, &sim, e);
        emit(&srv, S_SERVER, "device_done", 70 + e->service_us, i, 5, 0);
        emit(&srv, S_SERVER, "reply_sent", 75 + e->service_us, i, 6, 0);
        frames(&sim, M_NIC_SERVER, M_NIC_CLIENT, 78 + e->service_us);
    }
    int rc = write_tfile(&cli, dir);
    rc |= write_topology(dir);
    rc |= write_tfile(&srv, dir);
    rc |= write_tfile(&sim, dir);
    return rc;
}

/* Records one finished run with NREQ requests around e's median and p99
 * (nearest rank: the 6th of 11 is the median, the 11th the p99). */
static int64_t record(sqlite3 *db, const char *out_dir, const expected *e,
                      const char *status, const char *error, double throughput_rps,
                      int traced)
{
    char name[64], dir[4096];
    snprintf(name, sizeof name, "synthetic-%s", e->design);
    char latency[32];
    snprintf(latency, sizeof latency, "%gus", e->latency_us);
    db_run_info info = {.name = name,
                        .run_dir = "",
                        .spec = json_pack("{s:s, s:{s:s, s:s, s:f, s:I}}", "name", name,
                                          "vars", "design", e->design, "pcie.latency",
                                          latency, "speed", e->speed, "inflight",
                                          (json_int_t)e->in_flight)};
    int64_t id = db_begin_run(db, &info);
    json_decref(info.spec);
    if (id < 0)
        return -1;
    snprintf(dir, sizeof dir, "%s/%06lld-%s", out_dir, (long long)id, name);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return -1;
    char *sql =
        sqlite3_mprintf("UPDATE runs SET run_dir=%Q WHERE id=%lld", dir, (long long)id);
    int rc = sql ? sqlite3_exec(db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
    if (rc != SQLITE_OK)
        return -1;

    static const double offsets_us[NREQ - 1] = {-4, -3, -2, -1, -0.5, 0, 0.5, 1, 2, 3};
    db_request reqs[NREQ];
    json_t *fields = json_pack("{s:I, s:I}", "service_ns",
                               (json_int_t)(e->service_us * 1000 + 0.5), "device_compute_ns",
                               (json_int_t)(e->compute_us * 1000 + 0.5));
    db_summary sum = {0};
    size_t n = strcmp(status, "ok") ? 0 : NREQ;
    double total = 0, lat_us[NREQ];
    for (size_t i = 0; i < n; i++) {
        double lat = i + 1 < NREQ ? e->median_us + offsets_us[i] : e->p99_us;
        lat_us[i] = lat;
        reqs[i] = (db_request){.idx = (int64_t)i,
                               .latency_ns = (int64_t)(lat * 1000 + 0.5),
                               .start_ns = (int64_t)i * 10000000,
                               .verified = 1,
                               .fields = fields};
        total += lat;
    }
    if (n) {
        sum = (db_summary){.requests = NREQ,
                           .verified = NREQ,
                           .median_us = e->median_us,
                           .p99_us = e->p99_us,
                           .mean_us = total / NREQ,
                           .min_us = e->median_us - 4,
                           .max_us = e->p99_us,
                           .throughput_rps = throughput_rps};
    }
    int failed = (traced && n && write_traces(dir, e, lat_us, n)) ||
                 db_finish_run(db, id, status, error, 12.5, NULL, NULL, reqs, n, &sum);
    json_decref(fields);
    return failed ? -1 : id;
}

static json_t *expected_json(const expected *e, int64_t id, double throughput_rps)
{
    return json_pack("{s:I,s:s,s:f,s:f,s:I,s:f,s:f,s:f,s:f,s:f}", "run_id",
                     (json_int_t)id, "design", e->design, "pcie_latency_us",
                     e->latency_us, "speed", e->speed, "in_flight",
                     (json_int_t)e->in_flight, "median_us", e->median_us, "p99_us",
                     e->p99_us, "service_us", e->service_us, "compute_us", e->compute_us,
                     "throughput_rps", throughput_rps);
}

int main(int argc, char **argv)
{
    sqlite3 *db;
    char err[512];
    if (argc == 3 && !strcmp(argv[1], "--empty")) {
        if (db_open(&db, argv[2], err, sizeof err)) {
            fprintf(stderr, "web_make_db: %s\n", err);
            return 1;
        }
        sqlite3_close(db);
        return 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: web_make_db DB OUT_DIR MANIFEST\n");
        return 2;
    }
    char out_dir[PATH_MAX];
    if ((mkdir(argv[2], 0755) != 0 && errno != EEXIST) || !realpath(argv[2], out_dir)) {
        perror(argv[2]);
        return 1;
    }
    if (db_open(&db, argv[1], err, sizeof err)) {
        fprintf(stderr, "web_make_db: %s\n", err);
        return 1;
    }
    json_t *grid = json_array(), *baselines = json_array(), *load = json_array(),
           *extra = json_array();
    int failed = 0;

    /* An older failed run at a grid point: the page must ignore it. */
    expected bad = grid_point("b", 1.0, 2.0);
    failed |=
        record(db, out_dir, &bad, "failed",
               "synthetic failure: </script><!-- <b>the server crashed</b>", 0, 0) < 0;

    for (size_t li = 0; li < 3; li++) {
        for (size_t si = 0; si < 2; si++) {
            for (const char *d = "a"; d; d = d[0] == 'a' ? "b" : NULL) {
                expected e = grid_point(d, latencies_us[li], speeds[si]);
                double rps = 1e6 / e.median_us;
                int traced = !(d[0] == 'b' && li == 2 && si == 1);
                int64_t id = record(db, out_dir, &e, "ok", NULL, rps, traced);
                failed |= id < 0;
                json_t *x = expected_json(&e, id, rps);
                json_object_set_new(x, "traced", json_boolean(traced));
                json_array_append_new(grid, x);
            }
        }
    }
    for (size_t li = 0; li < 3; li++) {
        double L = latencies_us[li];
        expected sw = {.design = "software",
                       .latency_us = L,
                       .speed = 1,
                       .in_flight = 1,
                       .median_us = 9000 + 2 * L,
                       .p99_us = 9050 + 2 * L};
        expected rc = {.design = "regcopy",
                       .latency_us = L,
                       .speed = 1,
                       .in_flight = 1,
                       .median_us = 2070 + 524288 * L,
                       .p99_us = 2100 + 524288 * L};
        const expected *both[] = {&sw, &rc};
        for (int k = 0; k < 2; k++) {
            double rps = 1e6 / both[k]->median_us;
            int64_t id = record(db, out_dir, both[k], "ok", NULL, rps, 0);
            failed |= id < 0;
            json_array_append_new(baselines, expected_json(both[k], id, rps));
        }
    }
    /* A refinement's extra runs at 1x: A - B is 633 L - 640 us, so they
     * cross at 1.011 us, inside the last bracket (1, 1.03125). */
    const double extra_latencies[] = {1.25, 1.0625, 1.03125};
    for (size_t li = 0; li < 3; li++) {
        for (const char *d = "a"; d; d = d[0] == 'a' ? "b" : NULL) {
            expected e = grid_point(d, extra_latencies[li], 1.0);
            double rps = 1e6 / e.median_us;
            int64_t id = record(db, out_dir, &e, "ok", NULL, rps, 0);
            failed |= id < 0;
            json_array_append_new(extra, expected_json(&e, id, rps));
        }
    }
    /* Load: A serves one request at a time, B overlaps the next with the
     * current one. */
    const double load_latencies[] = {0.5, 2.0};
    for (size_t li = 0; li < 2; li++) {
        for (const char *d = "a"; d; d = d[0] == 'a' ? "b" : NULL) {
            for (int64_t k = 2; k <= 4; k *= 2) {
                expected e = grid_point(d, load_latencies[li], 1.0);
                double one = e.median_us;
                e.in_flight = k;
                e.median_us = d[0] == 'a' ? one * k : one * (1 + 0.6 * (k - 1));
                e.p99_us = e.median_us + 20;
                double rps = k * 1e6 / e.median_us;
                int64_t id = record(db, out_dir, &e, "ok", NULL, rps, 0);
                failed |= id < 0;
                json_array_append_new(load, expected_json(&e, id, rps));
            }
        }
    }
    sqlite3_close(db);
    if (failed) {
        fprintf(stderr, "web_make_db: cannot record a run in %s\n", argv[1]);
        return 1;
    }
    json_t *manifest =
        json_pack("{s:o,s:o,s:o,s:o,s:[f,f,f],s:[f,f]}", "grid", grid, "baselines", baselines,
                  "load", load, "extra", extra, "latencies_us", latencies_us[0], latencies_us[1],
                  latencies_us[2], "speeds", speeds[0], speeds[1]);
    int rc = json_dump_file(manifest, argv[3], JSON_INDENT(1));
    json_decref(manifest);
    return rc ? 1 : 0;
}
