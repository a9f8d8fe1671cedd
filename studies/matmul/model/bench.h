/*
 * bench.h - a test bench for the matmul model: one event loop holding the
 * host stub and a matmul device joined by an in-process PCIe link, and the
 * component benchmark ("alone") built on it.
 *
 * The alone benchmark runs one full request with the design's driver on a
 * link of 1 ps latency and no bandwidth limit (a zero-latency bench), checks
 * the product against the reference multiply, and reports the device's
 * compute time for the request (design A: 64 x 30 us = 1920 us at 1x),
 * whichever result format the driver asks for (int8 by default).
 */
#ifndef MORTAR_MATMUL_BENCH_H
#define MORTAR_MATMUL_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mortar/runtime.h"
#include "mortar/hoststub.h"
#include "model/drivers_hoststub.h"
#include "model/result.h"

typedef struct matmul_bench {
    mortar_loop *loop; /* owns both components */
    mortar_component *host, *dev;
    mortar_hoststub *h;
} matmul_bench;

/*
 * Builds the bench: host stub with `host_mem` bytes (0: its default) and a
 * matmul device from `dev_params` (a JSON object), joined by a link of
 * `latency_ps`. With `trace_path`, events go to that trace file. Returns 0,
 * or a MORTAR_E code with the reason in `err`.
 */
int matmul_bench_open(matmul_bench *b, const char *dev_params, uint64_t latency_ps,
                      uint64_t host_mem, const char *trace_path, char *err,
                      size_t err_size);

/* The same with another device: `dev_ops` built from `dev_params` (e.g.
 * the rtl component running design B in RTL). */
int matmul_bench_open_device(matmul_bench *b, const mortar_component_ops *dev_ops,
                             const char *dev_params, uint64_t latency_ps,
                             uint64_t host_mem, const char *trace_path, char *err,
                             size_t err_size);

/* Destroys the loop (and flushes the trace). */
void matmul_bench_close(matmul_bench *b);

/*
 * Runs one request through the open driver `d` with n x n operands from
 * `seed` (A from seed, B from seed + 1) and compares the product with the
 * reference multiply, requantized when the driver asks for int8: *ok is
 * true when they are bit-exact. Returns the driver's result code.
 */
int matmul_bench_check(matmul_drv *d, uint32_t n, uint64_t seed, matmul_drv_result *r,
                       bool *ok);

typedef struct matmul_alone_result {
    uint64_t step_ps;    /* one tile step */
    uint32_t steps;      /* steps the device computed */
    uint64_t compute_ps; /* the device's compute time for the request */
    uint64_t span_ps;    /* first step start to last step end */
    uint64_t service_ps; /* driver handed the request over to driver saw it done */
    bool product_ok;
} matmul_alone_result;

/* The alone benchmark's name for design B in RTL (studies/matmul/rtl, design
 * matmul_b on the rtl component): design B's driver, speed 1 only. */
#define MATMUL_ALONE_RTL_B "rtl-b"

/*
 * Runs the alone benchmark for `design` ("a", "b", "regcopy", "rtl-b") at `speed`
 * with n x n operands from `seed`, the driver asking for the product in
 * format `result`. Returns 0 when the request ran (check out->product_ok),
 * or a MORTAR_E code with the reason in `err`.
 */
int matmul_alone_run(const char *design, double speed, uint32_t n, uint64_t seed,
                     matmul_result result, matmul_alone_result *out, char *err,
                     size_t err_size);

#endif
