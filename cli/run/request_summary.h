/*
 * request_summary.h - what a run's summary says about its requests (runs
 * table, db.h's db_summary): how many, how many verified, the median, p99,
 * mean, min and max latency in us, and the throughput.
 */
#ifndef MORTAR_CLI_REQUEST_SUMMARY_H
#define MORTAR_CLI_REQUEST_SUMMARY_H

#include <stddef.h>

#include "db.h"

/* The summary of reqs[0 .. n): the latencies' median and p99 by
 * quantile.h's rule (the p99 by nearest rank); the throughput is measured requests per second of
 * guest time, first start to last end, 0 when the client did not report
 * start times. All zero when n is 0. */
db_summary request_summary(const db_request *reqs, size_t n);

#endif
