/*
 * wall_ticks.h - a cheap wall clock for timing the event loop's waits: the
 * CPU's time-stamp counter where there is one (one instruction; a
 * clock_gettime() costs 35-41 ns on the test machine, and a synchronized
 * step there takes 80-200 ns, timed twice), else CLOCK_MONOTONIC in
 * nanoseconds. Ticks become nanoseconds by the ratio of the two clocks
 * over the span measured, so nothing needs calibrating.
 */
#ifndef MORTAR_WALL_TICKS_H
#define MORTAR_WALL_TICKS_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

static inline uint64_t wall_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* `ticks` in nanoseconds, given a span that took `span_ticks` ticks and
 * `span_ns` nanoseconds. */
static inline uint64_t wall_ticks_to_ns(uint64_t ticks, uint64_t span_ticks, uint64_t span_ns)
{
    if (span_ticks == 0)
        return 0;
    return (uint64_t)((double)ticks * (double)span_ns / (double)span_ticks);
}

#endif
