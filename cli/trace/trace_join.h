/*
 * trace_join.h - one request of a run, joined from every trace file of the
 * run's directory on the one virtual clock: the request's window (from the
 * client's request_start and request_end marks), every event of every file
 * inside it, begin/end kinds paired into slices, the events grouped into
 * tracks (one per component) in the order of the request's path, and the
 * causal arrows between them (doorbell -> DMA -> interrupt, frame -> switch
 * -> frame). The exporters (trace_export.c, trace_otlp.c) only format this.
 * The conventions are in docs/traces.md.
 */
#ifndef MORTAR_CLI_TRACE_JOIN_H
#define MORTAR_CLI_TRACE_JOIN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mortar/trace.h"

/* One slice (a begin paired with its end) or one instant. */
typedef struct tj_event {
    uint64_t start_ps, end_ps; /* end == start for an instant */
    const char *name;          /* the slice's name ("dma_read", "compute") or the kind */
    const char *component;     /* the component's name (interned) */
    size_t track;              /* index into trace_join.tracks */
    size_t pos;                /* index among its track's events */
    bool slice;
    mortar_trace_event begin, end; /* the raw records; `end` only for a slice */
    const char *begin_kind, *end_kind;
    size_t seq; /* reading order (unique), for a stable order among equal times */
} tj_event;

/* One component's events. */
typedef struct tj_track {
    const char *name;    /* the component, e.g. "dev" or "server.dev" */
    const char *group;   /* the host it belongs to ("server"), or its own name */
    size_t file;         /* index into trace_join.files: where it was first seen */
    size_t first, count; /* its events: events[first .. first + count) */
    bool host_side;      /* "<host>.<device>": events as the host saw them */
    long device;         /* host side: the model's track ("dev"), or -1 */
    long host_view;      /* a model's track: the host side's track, or -1 */
} tj_track;

/* An arrow from one event to another (indices into trace_join.events). */
typedef struct tj_flow {
    size_t from, to;
    const char *name; /* "doorbell", "frame" or "interrupt" */
} tj_flow;

typedef struct trace_join {
    char *run_dir;
    int64_t request;           /* the request's index */
    uint64_t start_ps, end_ps; /* its window */
    char **files;              /* the trace files' names without ".trace", sorted */
    size_t nfiles;
    tj_track *tracks; /* in the order of the request's path */
    size_t ntracks;
    tj_event *events; /* by track, then by start time (longer first) */
    size_t nevents;
    size_t root; /* the client's "request" slice */
    tj_flow *flows;
    size_t nflows, flows_cap;
    char **names; /* interned strings, owned */
    size_t nnames, names_cap;
} trace_join;

/* Joins the request `request` (an index, or TRACE_REQUEST_MEDIAN) of the
 * run in `run_dir`. Returns 0 with *out set (free it with trace_join_free),
 * or -1 with `err` set: no such directory, no trace files, a corrupt file
 * (named), no such request. */
int trace_join_open(trace_join **out, const char *run_dir, int64_t request, char *err,
                    size_t err_size);
void trace_join_free(trace_join *j);

/* The event's arguments, decoded by kind ({"addr": "0x1000", "size": 4096,
 * "req_id": 3}); a new reference. A slice has its begin's and end's. */
json_t *tj_event_args(const trace_join *j, const tj_event *e);

/* Adds the arrows between events (trace_flows.c); called by trace_join_open. */
int tj_build_flows(trace_join *j);

/* Appends an arrow; 0, or -1 when out of memory. */
int tj_add_flow(trace_join *j, size_t from, size_t to, const char *name);

#endif
