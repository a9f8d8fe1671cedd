/*
 * mortar/progress.h - a simulator's progress report to the orchestrator.
 *
 * A simulator (mortar-sim, a QEMU host) writes its current simulated time
 * into a small file about once a second of wall time: one line with the
 * time in picoseconds. `mortar run` reads these files to tell a stalled run
 * (no simulated time moves anywhere) from a slow one, and to name the
 * component that holds the others back (the lowest clock).
 */
#ifndef MORTAR_PROGRESS_H
#define MORTAR_PROGRESS_H

#include <stdint.h>

/* Replaces `path` atomically with "<time_ps>\n". Returns 0 or a negative
 * mortar error code. */
int mortar_progress_write(const char *path, uint64_t time_ps);

/* Reads a progress file; returns 0 with *time_ps set, or -1. */
int mortar_progress_read(const char *path, uint64_t *time_ps);

#endif
