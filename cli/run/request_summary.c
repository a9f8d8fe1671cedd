/*
 * request_summary.c - a run's summary of its requests (see
 * request_summary.h).
 */
#include "request_summary.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

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
    qsort(v, n, sizeof *v, cmp_i64);
    size_t med = (n + 1) / 2 - 1, p99 = (size_t)ceil(0.99 * (double)n) - 1;
    s.median_us =
        (n % 2 ? (double)v[med] : ((double)v[med] + (double)v[med + 1]) / 2) / 1000;
    s.p99_us = (double)v[p99] / 1000;
    s.mean_us = sum / (double)n / 1000;
    s.min_us = (double)v[0] / 1000;
    s.max_us = (double)v[n - 1] / 1000;
    free(v);
    s.throughput_rps = throughput(reqs, n);
    return s;
}
