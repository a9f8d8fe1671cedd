/*
 * sweep_progress.h - the progress display of `mortar sweep` on stderr: a
 * one-line bar redrawn in place when stderr is a terminal (cut to its
 * width), plain status lines otherwise, and messages (one per finished run)
 * printed above the bar.
 *
 *   [######..........] 23/62 done, 1 failed, 2 running, 41m12s elapsed, ETA 1h10m
 *
 * "done" counts every point of the sweep that has finished: ok before this
 * invocation, ok or failed in it. The ETA is the work left divided by the
 * jobs: a run's expected wall time (the mean of the runs finished in this
 * invocation; before the first ends, the estimate from past runs that
 * progress_expect gave) for each run not started, plus what is left of it
 * for the runs running (their elapsed time subtracted, never below 0), so
 * it counts down between runs.
 */
#ifndef MORTAR_CLI_SWEEP_PROGRESS_H
#define MORTAR_CLI_SWEEP_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "status_line.h"

typedef struct progress {
    size_t total;  /* points of the sweep */
    size_t done;   /* finished (ok before, or ok/failed now) */
    size_t failed; /* failed in this invocation */
    size_t running;
    size_t jobs;          /* runs at a time, for the ETA */
    size_t finished_here; /* runs that ended in this invocation */
    double wall_sum_s;    /* their wall times */
    double start_s;       /* monotonic seconds at progress_init */
    double expected_s;    /* a run's wall time from past runs, 0: unknown */
    double started_sum_s; /* the start times of the runs running, summed */
    status_line line;     /* the bar, redrawn in place on a terminal */
} progress;

/* Monotonic wall-clock seconds. */
double progress_now(void);

/* Starts the display: `done_before` of `total` points are already done. */
void progress_init(progress *p, size_t total, size_t done_before, size_t jobs, bool tty);

/* Before any run of this invocation ends, a run is expected to take
 * `wall_s` (from past runs; 0: unknown, "ETA --"). */
void progress_expect(progress *p, double wall_s);

/* The seconds left at monotonic time `now`, or -1 when unknown. */
double progress_eta_s(const progress *p, double now);

/* The sweep's points became `total` (a refinement adds runs as it goes);
 * never fewer than those done or running. */
void progress_set_total(progress *p, size_t total);

/* A run started. */
void progress_started(progress *p);

/* A run ended after `wall_s`: counts it and prints `line` above the bar. */
void progress_finished(progress *p, bool ok, double wall_s, const char *line);

/* Prints a line above the bar (printf-style). */
void progress_message(progress *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Redraws the bar (terminal only; call it now and then for the clock). */
void progress_draw(progress *p);

/* Removes the bar (terminal) before the summary. */
void progress_end(progress *p);

#endif
