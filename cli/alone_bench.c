/*
 * alone_bench.c - alone_measure(): the component benchmark of `mortar
 * alone` as a function, so the verdict can put each design's alone time
 * next to its in-system latency. It runs the real device model through
 * matmul_alone_run() (sims/matmul/bench.h); nothing here knows the numbers
 * it should produce.
 */
#include <stdio.h>

#include "alone.h"
#include "mortar/error.h"
#include "sims/matmul/bench.h"

int alone_measure(const char *design, double speed, double *alone_us, char *err,
                  size_t err_size)
{
    matmul_alone_result r;
    int rc = matmul_alone_run(design, speed, ALONE_DEFAULT_N, ALONE_DEFAULT_SEED, &r, err,
                              err_size);
    if (rc)
        return rc;
    if (!r.product_ok) {
        snprintf(err, err_size,
                 "alone %s at %gx: the product differs from the reference "
                 "multiply",
                 design, speed);
        return MORTAR_EPROTO;
    }
    *alone_us = (double)r.compute_ps / 1e6;
    return MORTAR_OK;
}
