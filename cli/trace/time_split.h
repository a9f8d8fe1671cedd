/*
 * time_split.h - where one request's time goes: every picosecond of its
 * end-to-end interval (the client's request_start mark to its request_end
 * mark) given to exactly one of six parts, from the joined request
 * (trace_join.h): client software, network (NICs, wire, switch), server
 * software, host interface (register accesses, DMA, doorbells and
 * interrupts between a host and an attached device), PCIe wire (the DMA
 * data to or from an attached device arriving over its PCIe link:
 * mortar/pcie_wire.h) and compute (the device busy computing). They sum
 * to the latency exactly, and so do a study's parts, which take each
 * activity once. The rule is in docs/traces.md ("Where the
 * time goes").
 *
 * Components are told apart by what the trace shows of them, never by name:
 * a model that sends or receives frames is a network element; any other
 * model a host sees is an attached device; a host is the client (the one
 * whose marks make the window) or a server (any other).
 */
#ifndef MORTAR_CLI_TIME_SPLIT_H
#define MORTAR_CLI_TIME_SPLIT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "split_parts.h"
#include "trace_join.h"

/* One request's split: the time of each activity; a study's parts
 * (split_parts.h) add them up. */
typedef struct time_split {
    int64_t request;           /* the request's index */
    uint64_t start_ps, end_ps; /* its window */
    uint64_t activity_ps[SPLIT_NACTIVITIES];
} time_split;

/*
 * Splits the joined request `j`. Returns 0 with *out filled, its parts
 * summing to end_ps - start_ps; or -1 with `err` set when the request lacks
 * a mark the split needs (the client's request_start/request_end pair, a
 * server's request_received/reply_sent pair for the same request) or memory
 * runs out. Reads `j` only.
 */
int time_split_compute(const trace_join *j, time_split *out, char *err, size_t err_size);

/* {"request", "start_ps", "end_ps", "latency_ps", "latency_us", "parts":
 * [{"part", "label", "ps", "us"}]}: each of `parts` (a study's, in its
 * order) with the sum of the activities it takes; a new reference. */
json_t *time_split_json(const time_split *s, const split_parts *parts);

/* The split of request `request` (an index, or TRACE_REQUEST_MEDIAN) of the
 * run in `run_dir` into `parts`, as time_split_json gives it; NULL with
 * `err` set when the run has no trace, no such request, or the split
 * fails. */
json_t *time_split_run(const char *run_dir, int64_t request, const split_parts *parts,
                       char *err, size_t err_size);

#endif
