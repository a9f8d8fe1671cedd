/*
 * request_summary.c - a run's summary of its requests (see
 * request_summary.h).
 */
#include "request_summary.h"

#include <stdint.h>
#include <stdlib.h>

#include "quantile.h"

/* Measured requests per second of guest time, first start to last end;
 * 0 when the client did not report start times. */
static double throughput(const db_request *reqs, size_t n)
{
    int64_t first = INT64_MAX, last = 0;
    for (size_t i = 0; i < n; i++) {
        if (reqs[i].start_ns < 0)
            return 0;
        first = reqs[i].start_ns < first ? reqs[i].start_ns : first;
        int64_t end = reqs[i].start_ns + reqs[i].latency_ns;
        last = end > last ? end : last;
    }
    return last > first ? (double)n / ((double)(last - first) / 1e9) : 0;
}

db_summary request_summary(const db_request *reqs, size_t n)
{
    db_summary s = {.requests = (int64_t)n};
    if (n == 0)
        return s;
    int64_t *v = malloc(n * sizeof *v);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = reqs[i].latency_ns;
        sum += (double)v[i];
        s.verified += reqs[i].verified;
    }
    quantile_sort_i64(v, n);
    s.median_us = quantile_median_sorted(v, n) / 1000;
    s.p99_us = (double)quantile_nearest_rank_sorted(v, n, 0.99) / 1000;
    s.mean_us = sum / (double)n / 1000;
    s.min_us = (double)v[0] / 1000;
    s.max_us = (double)v[n - 1] / 1000;
    free(v);
    s.throughput_rps = throughput(reqs, n);
    return s;
}
