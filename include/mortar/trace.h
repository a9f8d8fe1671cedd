/*
 * mortar/trace.h - compact binary trace files.
 *
 * A trace file holds fixed-size event records (time, component, kind,
 * request id, two arguments) plus the names of components and kinds. Writing
 * is buffered and never changes simulated behaviour. The format is in
 * docs/protocol.md ("Trace files").
 */
#ifndef MORTAR_TRACE_H
#define MORTAR_TRACE_H

#include <stdint.h>
#include <stddef.h>

#define MORTAR_TRACE_MAGIC 0x4352544dU /* "MTRC" */
#define MORTAR_TRACE_VERSION 1

typedef struct mortar_trace_event {
    uint64_t time_ps;
    uint16_t component;
    uint16_t kind;
    uint32_t reserved;
    uint64_t req_id;
    uint64_t arg0, arg1;
} mortar_trace_event;

typedef struct mortar_trace_writer mortar_trace_writer;

int mortar_trace_writer_open(mortar_trace_writer **out, const char *path);
/* Declares a name (a component or a kind); returns its id. */
uint16_t mortar_trace_writer_component(mortar_trace_writer *w, const char *name);
uint16_t mortar_trace_writer_kind(mortar_trace_writer *w, const char *name);
void mortar_trace_writer_event(mortar_trace_writer *w, const mortar_trace_event *ev);
/* Flushes and closes; returns 0 or MORTAR_EIO when a write failed. */
int mortar_trace_writer_close(mortar_trace_writer *w);

typedef struct mortar_trace_reader mortar_trace_reader;

int mortar_trace_reader_open(mortar_trace_reader **out, const char *path, char *err,
                             size_t err_size);
/* Next event; 1 when one was read, 0 at the end, MORTAR_EPROTO when corrupt. */
int mortar_trace_reader_next(mortar_trace_reader *r, mortar_trace_event *ev);
/* Names of components and kinds seen so far ("?" when unknown). */
const char *mortar_trace_reader_component(const mortar_trace_reader *r, uint16_t id);
const char *mortar_trace_reader_kind(const mortar_trace_reader *r, uint16_t id);
void mortar_trace_reader_close(mortar_trace_reader *r);

#endif
