/*
 * test_time_split.c - splitting one joined request's end-to-end time into
 * client software, network, server software, host interface, PCIe wire and
 * compute
 * (cli/trace/time_split.h), on synthetic traces written with the trace writer and
 * joined as `mortar trace` joins them. Each expected split is worked out by
 * hand from the rule in docs/traces.md ("Where the time goes"); the test
 * comments show the arithmetic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mortar/trace.h"
#include "time_split.h"
#include "trace_export.h"
#include "trace_join.h"

#define US 1000000ull /* picoseconds */
#define NS 1000ull

/* One event of a synthetic trace; time in ns. */
typedef struct tev {
    const char *comp, *kind;
    uint64_t t_ns, req, a0, a1;
} tev;

#define MAX_EVENTS 512

/* A synthetic run: a list of events, written to <dir>/sim0.trace. */
typedef struct scenario {
    tev ev[MAX_EVENTS];
    size_t n;
} scenario;

/* The trace's activities as the parts (a study without "split"). */
static split_parts activities;

static void add(scenario *s, const char *comp, const char *kind, uint64_t t_ns,
                uint64_t req, uint64_t a0, uint64_t a1)
{
    assert_true(s->n < MAX_EVENTS);
    s->ev[s->n++] = (tev){comp, kind, t_ns, req, a0, a1};
}

/* Removes every event of `kind`. */
static void drop(scenario *s, const char *kind)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->ev[i].kind, kind))
            s->ev[k++] = s->ev[i];
    s->n = k;
}

static int by_time(const void *pa, const void *pb)
{
    const tev *a = pa, *b = pb;
    return (a->t_ns > b->t_ns) - (a->t_ns < b->t_ns);
}

static void write_trace(const char *dir, scenario *s)
{
    qsort(s->ev, s->n, sizeof s->ev[0], by_time);
    char path[600];
    snprintf(path, sizeof path, "%s/sim0.trace", dir);
    mortar_trace_writer *w;
    assert_int_equal(mortar_trace_writer_open(&w, path), 0);
    for (size_t i = 0; i < s->n; i++) {
        const tev *e = &s->ev[i];
        mortar_trace_event r = {.time_ps = e->t_ns * NS,
                                .component = mortar_trace_writer_component(w, e->comp),
                                .kind = mortar_trace_writer_kind(w, e->kind),
                                .req_id = e->req,
                                .arg0 = e->a0,
                                .arg1 = e->a1};
        mortar_trace_writer_event(w, &r);
    }
    assert_int_equal(mortar_trace_writer_close(w), 0);
}

/* ---- the request's path ----------------------------------------------------------- */

/* The client sends one frame at 1 us (register write) .. 7 us (the server's
 * interrupt): network [1, 7], then again for the reply from `reply_ns`
 * (+0 .. +6 us). Request 0 starts at 0 and ends at `end_ns`. */
static void network_and_marks(scenario *s, uint64_t received_ns, uint64_t reply_ns,
                              uint64_t end_ns)
{
    add(s, "client", "request_start", 0, 0, 1, 0);
    add(s, "client.nic_client", "mmio_write", 1000, 7, 0x3818, 1);
    add(s, "nic_client", "tx_frame", 2000, 1, 1514, 0);
    add(s, "switch", "frame_rx", 3000, 0, 0, 1514);
    add(s, "switch", "frame_tx", 4000, 0, 1, 1514);
    add(s, "nic_server", "rx_frame", 5000, 1, 1514, 3);
    add(s, "nic_server", "irq", 6000, 1, 0x80, 1);
    add(s, "server.nic_server", "interrupt", 7000, 9, 2, 0);
    add(s, "server", "request_received", received_ns, 0, 3, 0);
    add(s, "server", "reply_sent", reply_ns - 1000, 0, 6, 0);
    add(s, "server.nic_server", "mmio_write", reply_ns, 15, 0x3818, 2);
    add(s, "nic_server", "tx_frame", reply_ns + 1000, 2, 9014, 0);
    add(s, "switch", "frame_rx", reply_ns + 2000, 0, 1, 9014);
    add(s, "switch", "frame_tx", reply_ns + 3000, 0, 0, 9014);
    add(s, "nic_client", "rx_frame", reply_ns + 4000, 2, 9014, 3);
    add(s, "nic_client", "irq", reply_ns + 5000, 2, 0x80, 1);
    add(s, "client.nic_client", "interrupt", reply_ns + 6000, 16, 2, 0);
    add(s, "client", "request_end", end_ns, 0, 2, 0);
}

/*
 * A request through a device, in us:
 *   client  0 start, 45 end                 server 10 received, 36 sent
 *   network [1, 7] and [37, 43]             server 11 device_start, 34 device_done
 *   server.accel 12 register write, 13 doorbell, DMA reads [14, 16] and [15, 17],
 *   compute [17, 27], a status poll [20, 22] while it computes, DMA write
 *   [27, 29], completion 30, interrupt 31, seen by the host at 32.
 */
static void device_request(scenario *s)
{
    network_and_marks(s, 10000, 37000, 45000);
    add(s, "server", "device_start", 11000, 0, 4, 0);
    add(s, "server.accel", "mmio_write", 12000, 10, 0x00, 1);
    add(s, "accel", "doorbell", 13000, 0, 1, 64);
    add(s, "accel", "dma_read", 14000, 0, 0x1000, 4096);
    add(s, "accel", "dma_read", 15000, 0, 0x2000, 4096);
    add(s, "accel", "dma_read_done", 16000, 0, 0x1000, 4096);
    add(s, "accel", "dma_read_done", 17000, 0, 0x2000, 4096);
    add(s, "accel", "compute_start", 17000, 0, 0, 10 * US);
    add(s, "server.accel", "mmio_read", 20000, 11, (1ull << 32) | 0x10, 4);
    add(s, "server.accel", "mmio_read_done", 22000, 11, (1ull << 32) | 0x10, 0);
    add(s, "accel", "compute_end", 27000, 0, 0, 0);
    add(s, "accel", "dma_write", 27000, 0, 0x3000, 65536);
    add(s, "accel", "dma_write_done", 29000, 0, 0x3000, 65536);
    add(s, "accel", "completion", 30000, 0, 64, 0);
    add(s, "accel", "interrupt", 31000, 0, 1, 0);
    add(s, "server.accel", "interrupt", 32000, 12, 3, 1);
    add(s, "server", "device_done", 34000, 0, 5, 0);
}

/* ---- fixtures and helpers --------------------------------------------------------- */

static int setup(void **state)
{
    char *dir = strdup("/tmp/mortar-split-test-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    *state = dir;
    return 0;
}

static int teardown(void **state)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", (char *)*state);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", (char *)*state);
    free(*state);
    return 0;
}

/* Writes the scenario, joins request 0 and splits it. */
static time_split split_of(const char *dir, scenario *s)
{
    write_trace(dir, s);
    trace_join *j;
    char err[512] = "";
    if (trace_join_open(&j, dir, 0, err, sizeof err))
        fail_msg("join: %s", err);
    time_split out;
    int rc = time_split_compute(j, &out, err, sizeof err);
    trace_join_free(j);
    if (rc)
        fail_msg("split: %s", err);
    return out;
}

/* The split's error for the scenario (it must fail). */
static void split_error(const char *dir, scenario *s, char *err, size_t size)
{
    write_trace(dir, s);
    json_t *out = time_split_run(dir, 0, &activities, err, size);
    assert_null(out);
}

static uint64_t sum(const time_split *t)
{
    uint64_t total = 0;
    for (int p = 0; p < SPLIT_NACTIVITIES; p++)
        total += t->activity_ps[p];
    return total;
}

static void assert_split(const time_split *t, uint64_t client_us, uint64_t net_us,
                         uint64_t server_us, uint64_t iface_us, uint64_t compute_us)
{
    assert_int_equal(t->activity_ps[SPLIT_CLIENT_SOFTWARE], client_us * US);
    assert_int_equal(t->activity_ps[SPLIT_NETWORK], net_us * US);
    assert_int_equal(t->activity_ps[SPLIT_SERVER_SOFTWARE], server_us * US);
    assert_int_equal(t->activity_ps[SPLIT_HOST_INTERFACE], iface_us * US);
    assert_int_equal(t->activity_ps[SPLIT_COMPUTE], compute_us * US);
    assert_int_equal(t->activity_ps[SPLIT_PCIE_WIRE], 0);
    assert_int_equal(sum(t), t->end_ps - t->start_ps);
}

/* ---- the tests -------------------------------------------------------------------- */

/*
 * client:  [0, 1] before its first register write, [43, 45] after the
 *          reply's interrupt                                          = 3
 * network: [1, 7] + [37, 43]                                          = 12
 * server:  [7, 12] (the next to act is the server), [32, 37]          = 10
 * host interface: [12, 32] less compute                               = 10
 * compute: [17, 27]                                                   = 10
 */
static void test_device_request_splits_by_rule_and_sums_to_latency(void **state)
{
    scenario s = {.n = 0};
    device_request(&s);
    time_split t = split_of(*state, &s);
    assert_int_equal(t.request, 0);
    assert_int_equal(t.end_ps - t.start_ps, 45 * US);
    assert_split(&t, 3, 12, 10, 10, 10);
}

/* The DMA reads overlap each other and the first compute step; the status
 * poll overlaps compute; a second compute step overlaps the first: compute
 * keeps its 10 us plus the 2 us only the second covers, and nothing is
 * counted twice. */
static void test_overlapping_activities_count_once(void **state)
{
    scenario s = {.n = 0};
    device_request(&s);
    add(&s, "accel", "compute_start", 25000, 0, 1, 4 * US);
    add(&s, "accel", "compute_end", 29000, 0, 1, 0);
    time_split t = split_of(*state, &s);
    /* compute [17, 29] = 12; host interface [12, 32] less that = 8 */
    assert_split(&t, 3, 12, 10, 8, 12);
}

/*
 * Bytes arriving over PCIe links (pcie_wire: at their first byte, for arg0
 * ps): the device's are their own part, beating the host interface they
 * lie in but not compute; a NIC's are network.
 *   server.accel [15, 16.5]: read completions inside the DMA reads  +1.5
 *   accel [27.5, 28.5]: the result write inside the DMA write        +1
 *   server.accel [20, 22]: during compute: compute keeps it          +0
 *   server.nic_server [8, 9]: a NIC's DMA in the server's stretch:
 *   network 13, server software 9
 * host interface 10 - 2.5 = 7.5
 */
static void test_pcie_wire_of_a_device_is_its_own_part(void **state)
{
    scenario s = {.n = 0};
    device_request(&s);
    add(&s, "server.accel", "pcie_wire", 15000, 0, 1500 * NS, 0x13);
    add(&s, "accel", "pcie_wire", 27500, 0, 1000 * NS, 0x21);
    add(&s, "server.accel", "pcie_wire", 20000, 0, 2000 * NS, 0x13);
    add(&s, "server.nic_server", "pcie_wire", 8000, 0, 1000 * NS, 0x13);
    time_split t = split_of(*state, &s);
    assert_int_equal(t.activity_ps[SPLIT_PCIE_WIRE], 2500 * NS);
    assert_int_equal(t.activity_ps[SPLIT_HOST_INTERFACE], 7500 * NS);
    assert_int_equal(t.activity_ps[SPLIT_COMPUTE], 10 * US);
    assert_int_equal(t.activity_ps[SPLIT_NETWORK], 13 * US);
    assert_int_equal(t.activity_ps[SPLIT_SERVER_SOFTWARE], 9 * US);
    assert_int_equal(t.activity_ps[SPLIT_CLIENT_SOFTWARE], 3 * US);
    assert_int_equal(sum(&t), t.end_ps - t.start_ps);
}

/* No device: the server computes on its own CPU from 11 to 311 us. */
static void test_request_without_device_has_no_compute_or_host_interface(void **state)
{
    scenario s = {.n = 0};
    network_and_marks(&s, 10000, 314000, 322000);
    add(&s, "server", "device_start", 11000, 0, 4, 0);
    add(&s, "server", "device_done", 311000, 0, 5, 0);
    time_split t = split_of(*state, &s);
    /* client [0, 1] + [320, 322]; network [1, 7] + [314, 320];
       server [7, 314] */
    assert_split(&t, 3, 12, 307, 0, 0);
}

/* A driver copying into device registers: writes every us from 12 to 20,
 * then two reads (round trips) [21, 23] and [24, 26]; the time between
 * accesses is the driver busy with the device. */
static void test_register_traffic_is_host_interface(void **state)
{
    scenario s = {.n = 0};
    network_and_marks(&s, 10000, 37000, 45000);
    add(&s, "server", "device_start", 11000, 0, 4, 0);
    for (uint64_t t = 12000; t <= 20000; t += 1000)
        add(&s, "server.accel", "mmio_write", t, t, 0x100, 1);
    add(&s, "server.accel", "mmio_read", 21000, 1, 0x10, 4);
    add(&s, "server.accel", "mmio_read_done", 23000, 1, 0x10, 0);
    add(&s, "server.accel", "mmio_read", 24000, 2, 0x10, 4);
    add(&s, "server.accel", "mmio_read_done", 26000, 2, 0x10, 0);
    add(&s, "server", "device_done", 34000, 0, 5, 0);
    time_split t = split_of(*state, &s);
    /* host interface [12, 26] = 14; server [7, 12] + [26, 37] = 16 */
    assert_split(&t, 3, 12, 16, 14, 0);
}

/* The same, but the server takes a NIC interrupt at 16.5 us: the run of
 * accesses is broken there and [16, 17] is the server's software. */
static void test_other_host_event_breaks_register_traffic(void **state)
{
    scenario s = {.n = 0};
    network_and_marks(&s, 10000, 37000, 45000);
    add(&s, "server", "device_start", 11000, 0, 4, 0);
    for (uint64_t t = 12000; t <= 20000; t += 1000)
        add(&s, "server.accel", "mmio_write", t, t, 0x100, 1);
    add(&s, "server.nic_server", "interrupt", 16500, 20, 2, 0);
    add(&s, "server", "device_done", 34000, 0, 5, 0);
    time_split t = split_of(*state, &s);
    /* host interface [12, 16] + [17, 20] = 7; server [7, 12] + [16, 17] +
       [20, 37] = 23 */
    assert_split(&t, 3, 12, 23, 7, 0);
}

/* Outside the server's marks, a gap goes to the host that acts next: the
 * client writes its NIC's register at 1 us, but the server acts first after
 * the request's frame arrived (7 us) and before it marks it received. */
static void test_gap_goes_to_the_host_that_acts_next(void **state)
{
    scenario s = {.n = 0};
    device_request(&s);
    add(&s, "client", "mark", 500, 0, 9, 0); /* the client acts at 0.5 */
    time_split t = split_of(*state, &s);
    assert_split(&t, 3, 12, 10, 10, 10); /* [0, 0.5] and [0.5, 1]: both the client's */

    scenario r = {.n = 0};
    device_request(&r);
    add(&r, "server.nic_server", "mmio_write", 500, 30, 0x2818, 1); /* server at 0.5 */
    t = split_of(*state, &r);
    /* [0, 0.5] now goes to the server, [0.5, 1] still to the client; the
       server's register write at 0.5 also kicks its NIC, with no frame after
       it until the reply: nothing more */
    assert_int_equal(t.activity_ps[SPLIT_CLIENT_SOFTWARE], 2 * US + US / 2);
    assert_int_equal(t.activity_ps[SPLIT_SERVER_SOFTWARE], 10 * US + US / 2);
    assert_int_equal(sum(&t), 45 * US);
}

static void test_missing_reply_sent_mark_is_an_error(void **state)
{
    scenario s = {.n = 0};
    device_request(&s);
    drop(&s, "reply_sent");
    char err[512] = "";
    split_error(*state, &s, err, sizeof err);
    assert_non_null(strstr(err, "reply_sent"));
    assert_non_null(strstr(err, "request 0"));
}

static void test_missing_server_marks_is_an_error(void **state)
{
    scenario s = {.n = 0};
    device_request(&s);
    drop(&s, "reply_sent");
    drop(&s, "request_received");
    char err[512] = "";
    split_error(*state, &s, err, sizeof err);
    assert_non_null(strstr(err, "request_received"));
}

static void test_missing_request_end_mark_is_an_error(void **state)
{
    scenario s = {.n = 0};
    device_request(&s);
    drop(&s, "request_end");
    char err[512] = "";
    split_error(*state, &s, err, sizeof err);
    assert_non_null(strstr(err, "request_end"));
}

/* A DMA that is still in flight when the request ends counts up to the
 * window's end. */
static void test_slice_cut_by_the_window_counts_to_its_edge(void **state)
{
    scenario s = {.n = 0};
    device_request(&s);
    add(&s, "accel", "dma_read", 44000, 5, 0x9000, 64);
    add(&s, "accel", "dma_read_done", 50000, 5, 0x9000, 64); /* after request_end */
    time_split t = split_of(*state, &s);
    /* host interface gains [44, 45], the client keeps [43, 44] */
    assert_split(&t, 2, 12, 10, 11, 10);
}

/* Many overlapping activities at pseudo-random times: the parts always sum
 * to the latency. */
static void test_parts_always_sum_to_latency(void **state)
{
    uint64_t x = 12345;
    for (int round = 0; round < 20; round++) {
        scenario s = {.n = 0};
        network_and_marks(&s, 10000, 400000, 420000);
        add(&s, "server", "device_start", 11000, 0, 4, 0);
        add(&s, "server", "device_done", 399000, 0, 5, 0);
        for (int i = 0; i < 60; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t t = 8000 + (x >> 33) % 390000, len = 1 + (x >> 20) % 20000;
            static const char *const begins[] = {"compute_start", "dma_read",
                                                 "dma_write"};
            static const char *const ends[] = {"compute_end", "dma_read_done",
                                               "dma_write_done"};
            int k = (int)((x >> 8) % 3);
            add(&s, "accel", begins[k], t, (uint64_t)i, (uint64_t)i, 0);
            add(&s, "accel", ends[k], t + len, (uint64_t)i, (uint64_t)i, 0);
            add(&s, "server.accel", (x >> 12) % 2 ? "mmio_write" : "interrupt",
                t + len / 2, (uint64_t)i, 0x10, 0);
        }
        time_split t = split_of(*state, &s);
        assert_int_equal(sum(&t), 420 * US);
    }
}

static void test_json_lists_the_six_parts_in_order(void **state)
{
    scenario s = {.n = 0};
    device_request(&s);
    write_trace(*state, &s);
    char err[512] = "";
    json_t *out = time_split_run(*state, TRACE_REQUEST_MEDIAN, &activities, err, sizeof err);
    assert_non_null(out);
    assert_int_equal(json_integer_value(json_object_get(out, "latency_ps")), 45 * US);
    json_t *parts = json_object_get(out, "parts");
    assert_int_equal(json_array_size(parts), SPLIT_NACTIVITIES);
    const char *keys[] = {"client_software", "network",   "server_software",
                          "host_interface",  "pcie_wire", "compute"};
    const uint64_t us[] = {3, 12, 10, 10, 0, 10};
    for (size_t p = 0; p < SPLIT_NACTIVITIES; p++) {
        json_t *part = json_array_get(parts, p);
        assert_string_equal(json_string_value(json_object_get(part, "part")), keys[p]);
        assert_int_equal(json_integer_value(json_object_get(part, "ps")), us[p] * US);
        assert_true(json_real_value(json_object_get(part, "us")) == (double)us[p]);
    }
    json_decref(out);
}

/* A study's parts, from its file: each the sum of the activities it takes,
 * under the study's names and labels, in the study's order. */
static void test_json_gives_the_study_parts(void **state)
{
    scenario s = {.n = 0};
    device_request(&s);
    write_trace(*state, &s);
    json_t *js = json_loads("[{\"name\": \"hosts\", \"label\": \"the hosts' software\","
                            "  \"takes\": [\"server_software\", \"client_software\"]},"
                            " {\"name\": \"device\", \"takes\": [\"compute\"]},"
                            " {\"name\": \"io\", \"short\": \"i/o\", \"takes\":"
                            "  [\"network\", \"host_interface\", \"pcie_wire\"]}]",
                            0, NULL);
    split_parts study_parts;
    char err[512] = "";
    assert_int_equal(split_parts_read(js, &study_parts, err, sizeof err), 0);
    json_decref(js);
    assert_int_equal(study_parts.nparts, 3);
    assert_string_equal(study_parts.part[1].label, "device");
    assert_string_equal(study_parts.part[2].short_label, "i/o");
    json_t *out = time_split_run(*state, TRACE_REQUEST_MEDIAN, &study_parts, err, sizeof err);
    assert_non_null(out);
    json_t *jp = json_object_get(out, "parts");
    assert_int_equal(json_array_size(jp), 3);
    const char *names[] = {"hosts", "device", "io"};
    const char *labels[] = {"the hosts' software", "device", "io"};
    const uint64_t us[] = {3 + 10, 10, 12 + 10 + 0};
    for (size_t p = 0; p < 3; p++) {
        json_t *part = json_array_get(jp, p);
        assert_string_equal(json_string_value(json_object_get(part, "part")), names[p]);
        assert_string_equal(json_string_value(json_object_get(part, "label")), labels[p]);
        assert_int_equal(json_integer_value(json_object_get(part, "ps")), us[p] * US);
    }
    json_decref(out);
}

/* Parts that would not sum to the latency, or that name no activity of the
 * trace, are refused with the member named. */
static void test_study_parts_take_every_activity_once(void **state)
{
    (void)state;
    const char *bad[][2] = {
        {"[{\"name\": \"all\", \"takes\": [\"client_software\", \"network\","
         " \"server_software\", \"host_interface\", \"pcie_wire\"]}]",
         "no part takes 'compute'"},
        {"[{\"name\": \"a\", \"takes\": [\"network\"]},"
         " {\"name\": \"b\", \"takes\": [\"network\"]}]",
         "[1].takes: 'network' is taken by part 0 too"},
        {"[{\"name\": \"a\", \"takes\": [\"accelerator\"]}]",
         "[0].takes[0]: not an activity of the trace"},
        {"[{\"name\": \"A\", \"takes\": [\"network\"]}]", "[0].name: expected"},
        {"[{\"name\": \"a\", \"colour\": 1, \"takes\": [\"network\"]}]",
         "[0]: unknown key 'colour'"},
        {"[]", "expected a list of 1 to 6 parts"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *js = json_loads(bad[i][0], 0, NULL);
        assert_non_null(js);
        split_parts out;
        char err[512] = "";
        assert_int_equal(split_parts_read(js, &out, err, sizeof err), -1);
        if (!strstr(err, bad[i][1]))
            fail_msg("case %zu: '%s' does not say '%s'", i, err, bad[i][1]);
        json_decref(js);
    }
}

/* A request with nothing in flight at any time, only the hosts' marks
 * (found by fuzz/fuzz_trace.c: sorting no intervals passed qsort a null
 * array, undefined): all of it is software. */
static void test_a_request_with_no_activity_is_all_software(void **state)
{
    scenario s = {.n = 0};
    add(&s, "client", "request_start", 0, 0, 1, 0);
    add(&s, "server", "request_received", 10000, 0, 3, 0);
    add(&s, "server", "reply_sent", 30000, 0, 6, 0);
    add(&s, "client", "request_end", 40000, 0, 2, 0);
    time_split t = split_of(*state, &s);
    assert_int_equal(sum(&t), 40 * US);
    assert_int_equal(t.activity_ps[SPLIT_CLIENT_SOFTWARE] + t.activity_ps[SPLIT_SERVER_SOFTWARE],
                     40 * US);
}

int main(void)
{
    split_parts_default(&activities);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_device_request_splits_by_rule_and_sums_to_latency, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overlapping_activities_count_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_pcie_wire_of_a_device_is_its_own_part, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_request_without_device_has_no_compute_or_host_interface, setup,
            teardown),
        cmocka_unit_test_setup_teardown(test_register_traffic_is_host_interface, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_other_host_event_breaks_register_traffic,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_gap_goes_to_the_host_that_acts_next, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_missing_reply_sent_mark_is_an_error, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_missing_server_marks_is_an_error, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_missing_request_end_mark_is_an_error, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_slice_cut_by_the_window_counts_to_its_edge,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_parts_always_sum_to_latency, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_json_lists_the_six_parts_in_order, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_json_gives_the_study_parts, setup, teardown),
        cmocka_unit_test(test_study_parts_take_every_activity_once),
        cmocka_unit_test_setup_teardown(test_a_request_with_no_activity_is_all_software,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
