/*
 * run_progress.h - what `mortar run` shows while the hosts run: the
 * simulated time reached, the requests done and an ETA,
 *
 *   [mortar] run 12: 3.41 ms simulated, 37/60 requests, 8.2 s wall, ETA 5s
 *
 * The requests done are the per-request lines (request_line.h) with a
 * value, `latency_ns`, on the measured host's console, counted as the
 * console grows; how many there will be is the spec's `requests` variable.
 * The ETA assumes the requests left go at the rate of those done since
 * the common start. A study whose hosts print their per-request lines only
 * at the end (the case study's client does: a console write inside the measured
 * window would cost simulated time) shows none done until then; the ETA is
 * then the mean wall time of the past ok runs of the same spec name minus
 * the time this run has taken.
 */
#ifndef MORTAR_CLI_RUN_PROGRESS_H
#define MORTAR_CLI_RUN_PROGRESS_H

#include <stddef.h>

/* The requests counted so far in one console file. */
typedef struct request_counter {
    long offset; /* bytes read: up to the end of the last whole line */
    size_t done; /* per-request lines with a value among them */
} request_counter;

/* Counts the whole lines appended to `path` since the last call (a line
 * still being written is left for the next); returns c->done. A missing
 * file counts nothing. */
size_t request_counter_update(request_counter *c, const char *path);

/* Seconds left when `done` of `total` requests took `elapsed_s`; -1 when it
 * cannot be told (total unknown (0) or nothing done yet). */
double run_eta_s(size_t done, size_t total, double elapsed_s);

/* Seconds left of a run expected to take `expected_s` (0: unknown, -1
 * returned) after `elapsed_s`; never below 0. */
double run_eta_past_s(double expected_s, double elapsed_s);

/* The progress line into buf: `sim_s` simulated seconds reached (< 0:
 * none reported yet), `total` 0 when unknown, `eta_s` < 0 when unknown. */
void run_progress_text(char *buf, size_t size, long long id, double sim_s, size_t done,
                       size_t total, double wall_s, double eta_s);

#endif
