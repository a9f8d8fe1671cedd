/*
 * bench/rtl.c - how fast the RTL adapter clocks a design, printed as
 * key=value.
 *
 *   model_edges_per_s        testdev's Verilated model alone, edge after edge
 *                            (idle inputs): the shim and eval() without mortar
 *   adapter_edges_per_s      edges evaluated per wall second while testdev
 *                            copies 4 KiB buffers back to back over a 500 ns
 *                            PCIe link to the test host, interrupt per copy
 *   adapter_sim_us_per_wall_s  simulated time per wall second in that run
 *   copies_per_wall_s        copies finished per wall second
 *   edges_per_copy           edges evaluated per copy (the rest were skipped)
 *   skipped_fraction         edges skipped / grid edges in that run
 *
 * Usage: bench-rtl [--copies N] (default 2000; usage_text below). Not a test: the figures
 * depend on the machine.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mortar/pcie.h"
#include "mortar/runtime.h"
#include "mortar/hoststub.h"
#include "mortar/rtl.h"
#include "mortar/rtl_model.h"

#define MODEL_EDGES 2000000
#define COPY_BYTES  4096

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int bench_model(void)
{
    mortar_rtl_model *m = mortar_rtl_model_create(mortar_rtl_design_find("testdev"));
    if (!m)
        return 1;
    mortar_rtl_ports p;
    memset(&p, 0, sizeof p);
    double t = wall_s();
    for (uint64_t k = 0; k < MODEL_EDGES; k++) {
        p.rst_n = k >= 4;
        p.now_ps = k * 2500;
        mortar_rtl_model_edge(m, &p);
    }
    t = wall_s() - t;
    mortar_rtl_model_destroy(m);
    printf("model_edges_per_s=%.0f\n", MODEL_EDGES / t);
    return 0;
}

static int bench_adapter(uint64_t copies)
{
    mortar_loop *loop;
    mortar_component *host, *dev;
    if (mortar_loop_create(&loop))
        return 1;
    mortar_params *p =
        mortar_params_parse("{\"design\": \"testdev\"}", "params", NULL, 0);
    int rc = mortar_loop_add(loop, &mortar_hoststub_ops, "host", NULL, &host);
    if (!rc)
        rc = mortar_loop_add(loop, &mortar_rtl_ops, "rtl", p, &dev);
    mortar_params_free(p);
    mortar_link_params lp;
    mortar_link_params_init(&lp);
    lp.protocol = MORTAR_PROTO_PCIE;
    lp.slot_size = MORTAR_PCIE_SLOT_SIZE;
    lp.latency_ps = MORTAR_NS(500);
    if (!rc)
        rc = mortar_loop_connect(loop, host, 0, dev, 0, &lp);
    if (rc) {
        fprintf(stderr, "bench-rtl: cannot set up: %s\n", mortar_loop_errmsg(loop));
        mortar_loop_destroy(loop);
        return 1;
    }
    mortar_hoststub *h = mortar_hoststub_get(host, loop);
    uint64_t base = mortar_hoststub_mem_base(h);
    mortar_hoststub_devctrl(h,
                            MORTAR_PCIE_CTRL_MSIX_ENABLE | MORTAR_PCIE_CTRL_BUS_MASTER);
    mortar_hoststub_mmio_write(h, 0, 0x08, 8, base);
    mortar_hoststub_mmio_write(h, 0, 0x10, 8, base + 0x10000);
    mortar_hoststub_mmio_write(h, 0, 0x18, 4, COPY_BYTES);
    mortar_rtl_counters c0, c1;
    mortar_rtl_get_counters(dev, &c0);
    uint64_t sim0 = mortar_hoststub_now(h);
    double t = wall_s();
    for (uint64_t i = 0; i < copies; i++) {
        mortar_hoststub_mmio_write(h, 0, 0x20, 4, (uint32_t)i);
        if (!mortar_hoststub_wait_interrupt(h, MORTAR_MS(1), NULL, NULL)) {
            fprintf(stderr, "bench-rtl: copy %llu never finished\n",
                    (unsigned long long)i);
            mortar_loop_destroy(loop);
            return 1;
        }
    }
    t = wall_s() - t;
    mortar_rtl_get_counters(dev, &c1);
    uint64_t sim_ps = mortar_hoststub_now(h) - sim0;
    uint64_t edges = c1.edges - c0.edges, skipped = c1.edges_skipped - c0.edges_skipped;
    printf("adapter_edges_per_s=%.0f\n", (double)edges / t);
    printf("adapter_sim_us_per_wall_s=%.1f\n", (double)sim_ps / 1e6 / t);
    printf("copies_per_wall_s=%.0f\n", (double)copies / t);
    printf("edges_per_copy=%.1f\n", (double)edges / (double)copies);
    printf("skipped_fraction=%.3f\n", (double)skipped / (double)(edges + skipped));
    mortar_loop_destroy(loop);
    return 0;
}

static const char usage_text[] =
    "Usage: bench-rtl [OPTION]...\n"
    "Edges per wall second of the RTL test design through the Verilator adapter,\n"
    "as key=value lines (bench/README.md).\n"
    "\n"
    "      --copies N    4 KiB copies in the adapter run (default 2000)\n"
    "  -h, --help        show this help and exit\n"
    "      --version     print the version and exit\n";

enum { OPT_COPIES = 256, OPT_VERSION };

/* Returns -1 to run the benchmark, or the exit status. */
static int parse_args(int argc, char **argv, uint64_t *copies)
{
    static const struct option options[] = {
        {"copies", required_argument, NULL, OPT_COPIES},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0}};
    for (int c; (c = getopt_long(argc, argv, "h", options, NULL)) != -1;) {
        if (c == OPT_COPIES) {
            char *end;
            *copies = strtoull(optarg, &end, 10);
            if (*end || *copies == 0 || *copies > 10000000) {
                fprintf(stderr,
                        "bench-rtl: --copies wants a number from 1 to 10000000\n");
                return 2;
            }
        } else if (c == 'h') {
            fputs(usage_text, stdout);
            return 0;
        } else if (c == OPT_VERSION) {
            printf("bench-rtl (mortar) %s\n", MORTAR_VERSION);
            return 0;
        } else
            return 2;
    }
    if (optind < argc) {
        fprintf(stderr, "bench-rtl: unexpected '%s'\n", argv[optind]);
        return 2;
    }
    return -1;
}

int main(int argc, char **argv)
{
    uint64_t copies = 2000;
    int rc = parse_args(argc, argv, &copies);
    if (rc >= 0)
        return rc;
    printf("design=testdev\nclock_mhz=400\ncopy_bytes=%d\ncopies=%llu\n", COPY_BYTES,
           (unsigned long long)copies);
    return bench_model() || bench_adapter(copies);
}
