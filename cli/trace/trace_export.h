/*
 * trace_export.h - one request of a run joined end to end on the one
 * virtual clock, from the trace files in the run's directory (the mortar-sim
 * processes' <sim>.trace and the QEMU hosts' <host>.trace), exported as a
 * timeline (for the explorer), Perfetto / Chrome trace-event JSON, or OTLP
 * JSON. The conventions are in docs/traces.md.
 */
#ifndef MORTAR_CLI_TRACE_EXPORT_H
#define MORTAR_CLI_TRACE_EXPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "split_parts.h"

#define TRACE_REQUEST_MEDIAN (-1) /* the lower-median latency's request (quantile.h) */

/* How many trace files (*.trace) `run_dir` holds; -1 when it cannot be read. */
int trace_count_files(const char *run_dir);

/* The run's request `request` (its index, as in the requests table, or
 * TRACE_REQUEST_MEDIAN) as a timeline: {"request", "start_ps", "end_ps",
 * "latency_ps", "split" (time_split_json into `parts`, a study's) or
 * "split_error" (why not), "tracks":
 * [{"name", "events": [{"name", "start_ps", "end_ps",
 * "args"}]}], "flows": [{"name", "from": [track, event], "to": [track, event]}]}
 * with tracks along the request's path and each track's events by start time.
 * NULL with `err` set when the run has no trace or no such request. */
json_t *trace_timeline(const char *run_dir, int64_t request, const split_parts *parts,
                       char *err, size_t err_size);

/* The same request as Chrome trace-event JSON (Perfetto opens it): a
 * process per trace file, a thread per component (more when its slices
 * overlap), flow arrows for the causal chains; ts in microseconds from the
 * request's start. */
json_t *trace_perfetto(const char *run_dir, int64_t request, char *err, size_t err_size);

/* Which run a trace belongs to, and where it lies in wall-clock time. */
typedef struct trace_run {
    int64_t id;             /* the run's id in its database */
    const char *db_path;    /* the database's absolute path, or NULL */
    const char *machine_id; /* the machine's id (trace_machine_id), or NULL */
    uint64_t epoch_unix_ns; /* the run's wall-clock start (Unix ns): virtual time 0 */
} trace_run;

/* The same request as OTLP JSON: a resource per component with spans, one
 * trace whose root span is the client's request, slices as spans and
 * instants as span events; times are `run->epoch_unix_ns` plus the virtual
 * time. The trace id is a hash of the machine id, the database path, the
 * run id and the request: the same for the same run, different for
 * another run or machine. */
json_t *trace_otlp(const char *run_dir, int64_t request, const trace_run *run, char *err,
                   size_t err_size);

/* This machine's id (the first line of /etc/machine-id, else of
 * /var/lib/dbus/machine-id), or "" when neither can be read. */
void trace_machine_id(char *out, size_t size);

#endif
