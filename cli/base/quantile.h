/*
 * quantile.h - the one rule for a median and a percentile of a run's
 * values: the run's summary (request_summary.h), the medians over the
 * requests that the verdict and the report show (db_request_median_us),
 * and which request a trace shows by default (trace_join.h) all take
 * their middle here, so they cannot drift apart.
 *
 * The rule (docs/experiments.md): sort ascending; the median is the
 * middle value, or the mean of the two middle ones for an even count; the
 * p99 is the nearest rank, the value at rank ceil(0.99 n). Where one
 * request must be picked (a trace shows a real request, not a mean), it is
 * the lower median: the middle one, or the lower of the two middle ones.
 */
#ifndef MORTAR_CLI_QUANTILE_H
#define MORTAR_CLI_QUANTILE_H

#include <stddef.h>
#include <stdint.h>

/* Sorts v[0 .. n) ascending. */
void quantile_sort_i64(int64_t *v, size_t n);

/* The index of the lower median among n sorted values, (n - 1) / 2: the
 * middle one, or the lower of the two middle ones; 0 when n is 0. */
size_t quantile_lower_median_index(size_t n);

/* The median of the sorted v[0 .. n): the middle value, or the mean of the
 * two middle ones; NAN when n is 0. */
double quantile_median_sorted(const int64_t *v, size_t n);

/* The nearest-rank quantile q (0 < q <= 1) of the sorted v[0 .. n): the
 * value at rank ceil(q n), counting from 1 (q 0.99: the p99); n > 0. */
int64_t quantile_nearest_rank_sorted(const int64_t *v, size_t n, double q);

#endif
