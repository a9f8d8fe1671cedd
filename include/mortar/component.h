/*
 * mortar/component.h - writing a simulation component (a device model).
 *
 * A component is a C object behind an operations table. The runtime (an event
 * loop, see mortar/runtime.h) creates it from parameters, binds its ports to
 * links, delivers messages and timers to it in simulated-time order, and asks
 * it for stats at the end. From inside a callback the component may read the
 * current time, send on its ports, set and cancel timers, record trace events
 * and log. It never blocks and never reads the wall clock.
 *
 * Order of delivery: events are handled in increasing time; at equal time,
 * messages come before timers; messages by port index, then in the order they
 * were sent; timers in the order they were set. This rule is fixed, so a run
 * is deterministic however fast or slow the processes run.
 *
 * See docs/device-models.md for a walk through a small model.
 */
#ifndef MORTAR_COMPONENT_H
#define MORTAR_COMPONENT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "mortar/link.h"
#include "mortar/log.h"
#include "mortar/params.h"

typedef struct mortar_component mortar_component; /* the runtime's handle */
typedef struct mortar_stats mortar_stats;

typedef struct mortar_component_ops {
    const char *kind;    /* "switch", "e1000", "pcitest", ... */
    const char *summary; /* one line for `mortar-sim --list` */

    /* Creates the state from `params` and declares the ports with
     * mortar_port_declare(). Returns 0, or a MORTAR_E code after logging or
     * leaving the reason in the params' error message. Required. */
    int (*create)(mortar_component *self, const mortar_params *params, void **state);

    /* Called once at time 0 when every port is bound and connected, before
     * any message. May send and set timers. Optional. */
    void (*start)(void *state);

    /* A message arrived on `port` at mortar_now(). The payload is valid only
     * during the call. Required. */
    void (*message)(void *state, unsigned port, const mortar_msg *msg);

    /* A timer set with mortar_timer_set() is due. Optional. */
    void (*timer)(void *state, uint64_t cookie);

    /* Adds the component's counters to `stats`. Optional. */
    void (*stats)(void *state, mortar_stats *stats);

    /* Frees the state. Optional. */
    void (*destroy)(void *state);

    /* The names of the stats() counters that count frames or messages the
     * model lost (dropped, missed, refused: data that never reached its
     * destination), NULL-terminated; NULL when the model loses nothing.
     * Name totals, not per-port parts of them, so nothing counts twice.
     * `mortar run` records every one that is non-zero with the run, and
     * `mortar results` and `mortar verdict` flag the run
     * (docs/device-models.md, "Losses"). Optional. */
    const char *const *lost_stats;

    /* The fastest rate, in bits per second, at which the model can send on
     * `port` when created with `params` (a NIC's line rate, a switch's port
     * rate); 0 when it sets no limit of its own, or when `params` cannot be
     * read (create() reports that). `mortar spec` warns when the link on the
     * port is faster. Never called during a run. Optional. */
    uint64_t (*port_rate_bps)(const mortar_params *params, unsigned port);
} mortar_component_ops;

/* ---- ports ------------------------------------------------------------- */

/*
 * Declares port `port` (0-based, at most 64 ports) speaking `protocol`, with
 * this side's upper intro (copied; may be NULL). Call from create().
 */
int mortar_port_declare(mortar_component *self, unsigned port, uint32_t protocol,
                        const void *intro, uint32_t intro_size);

/* The peer's upper intro on `port` (valid during the run); NULL if none. */
const void *mortar_port_peer_intro(mortar_component *self, unsigned port, uint32_t *size);

/* Largest payload the link on `port` carries. */
uint32_t mortar_port_max_payload(mortar_component *self, unsigned port);

/*
 * The earliest time this component's process could next send on `port`, or
 * change anything of the component's, unless the port's peer sends it a
 * data message first: its components' pending events and what its other
 * links can still bring (the lookahead promise the loop would make on the
 * port's link now, mortar/link.h). A device answering a read uses it to
 * hold the read's bytes for the host (mortar/pcie.h, MORTAR_PCIE_DONE_HOLD).
 * The current time when nothing can be said: an in-process or
 * unsynchronized port, or promises turned off (mortar_loop_set_promises).
 */
uint64_t mortar_port_quiet_until(mortar_component *self, unsigned port);

/*
 * As mortar_port_quiet_until, for a component that knows that nothing its
 * other ports can bring makes it send on `port`, or changes what it holds,
 * before its own next event (a NIC whose queues are all off only counts the
 * frames it receives): its own pending events alone count, not those of the
 * components and links that could reach it. The current time in the same
 * cases as mortar_port_quiet_until.
 */
uint64_t mortar_port_quiet_until_own(mortar_component *self, unsigned port);

/* ---- time, sending, timers -------------------------------------------- */

/* Current simulated time in picoseconds. */
uint64_t mortar_now(const mortar_component *self);

/*
 * Sends a message on `port`, stamped by the port's link (latency, bandwidth).
 * `wire_bytes` is the size for serialization (0: the payload size). Returns
 * 0; MORTAR_ETOOBIG when the payload exceeds mortar_port_max_payload() (the
 * message is dropped, the run goes on); MORTAR_EPEER when the link is gone
 * (the run then ends after the current callback). The stamp is stored in
 * *stamp when not NULL.
 */
int mortar_send(mortar_component *self, unsigned port, uint8_t type, const void *payload,
                uint32_t size, uint32_t wire_bytes, uint64_t *stamp);

/* Sets a timer at absolute time `at_ps` (earlier times mean now). Returns
 * its id, or 0 when out of memory. */
uint64_t mortar_timer_set(mortar_component *self, uint64_t at_ps, uint64_t cookie);

/* Cancels a pending timer; a no-op when it already fired or was cancelled. */
void mortar_timer_cancel(mortar_component *self, uint64_t timer_id);

/* Asks the runtime to end the run after the current callback (a test bench
 * that is done). */
void mortar_stop(mortar_component *self);

/* ---- trace, log, identity ---------------------------------------------- */

/* Registers a trace event kind by name (call from create()); returns its id. */
uint16_t mortar_trace_kind(mortar_component *self, const char *name);

/* Records an event at mortar_now(). A no-op when tracing is off; never
 * changes simulated behaviour. */
void mortar_trace(mortar_component *self, uint16_t kind, uint64_t req_id, uint64_t arg0,
                  uint64_t arg1);

/* True when the run records a trace. */
bool mortar_tracing(const mortar_component *self);

const char *mortar_component_name(const mortar_component *self);

void mortar_logf(const mortar_component *self, mortar_log_level level, const char *fmt,
                 ...) __attribute__((format(printf, 3, 4)));

/* ---- stats ------------------------------------------------------------- */

void mortar_stats_u64(mortar_stats *s, const char *name, uint64_t value);
void mortar_stats_double(mortar_stats *s, const char *name, double value);
/* A time value, recorded in picoseconds under `name` (use a _ps suffix). */
void mortar_stats_time(mortar_stats *s, const char *name, uint64_t value_ps);

#endif
