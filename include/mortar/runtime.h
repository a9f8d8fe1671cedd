/*
 * mortar/runtime.h - the event loop that runs components.
 *
 * One loop runs one or more components in one thread. Co-located components
 * talk over in-process connections (a message becomes an event at its stamp);
 * components in other processes are reached over shared-memory links that
 * the loop owns once bound. The loop implements the conservative rule: an
 * event at time t is handled only when every synchronized input link has
 * promised that nothing earlier than or equal to t is still to come (its
 * horizon is > t). It sends null messages on links that have been quiet for
 * a sync interval, and waits for peers following each link's wait policy.
 */
#ifndef MORTAR_RUNTIME_H
#define MORTAR_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mortar/component.h"
#include "mortar/link.h"

typedef struct mortar_loop mortar_loop;

int mortar_loop_create(mortar_loop **out);

/* Destroys the loop, its components (ops->destroy) and its links. */
void mortar_loop_destroy(mortar_loop *loop);

/* The last error's text, naming the component or link. */
const char *mortar_loop_errmsg(const mortar_loop *loop);

/*
 * Creates a component named `name` with `ops` from `params` (may be NULL:
 * empty). The params must outlive the call only. On success the handle is
 * stored in *out (may be NULL); the loop owns it.
 */
int mortar_loop_add(mortar_loop *loop, const mortar_component_ops *ops, const char *name,
                    const mortar_params *params, mortar_component **out);

/* Number of ports the component declared, and a port's protocol and intro. */
unsigned mortar_component_port_count(const mortar_component *c);
uint32_t mortar_component_port_protocol(const mortar_component *c, unsigned port);
const void *mortar_component_port_intro(const mortar_component *c, unsigned port,
                                        uint32_t *size);

/* Finds a component of the loop by name; NULL if none. */
mortar_component *mortar_loop_find(mortar_loop *loop, const char *name);

/* Binds `port` of `c` to an established link; the loop takes ownership of
 * the link. The link's protocol must match the port's. */
int mortar_loop_bind(mortar_loop *loop, mortar_component *c, unsigned port,
                     mortar_link *link);

/* Joins two co-located ports with an in-process connection that has the
 * timing of a link with parameters `p` (latency, bandwidth; name for errors). */
int mortar_loop_connect(mortar_loop *loop, mortar_component *a, unsigned port_a,
                        mortar_component *b, unsigned port_b, const mortar_link_params *p);

/* Records trace events of every component into `path` (binary, see
 * mortar/trace.h). Call before run. */
int mortar_loop_trace_to(mortar_loop *loop, const char *path);

/*
 * Runs until simulated time reaches `until_ps` (MORTAR_TIME_MAX: no limit), a
 * component calls mortar_stop(), every external peer terminated, or nothing is
 * left to do. Then sends terminate on every external link. Returns 0, or a
 * MORTAR_E code with the message naming the link or component (a peer that
 * died: MORTAR_EPEER).
 */
int mortar_loop_run(mortar_loop *loop, uint64_t until_ps);

/* Sets the time the loop starts at (default 0): the run's synchronized
 * phase begins there, e.g. after hosts booted unsynchronized. Call before
 * start. */
int mortar_loop_set_start(mortar_loop *loop, uint64_t start_ps);

/*
 * Lookahead promises (on by default): each null message also says the
 * earliest time this loop's components could next send on that link (their
 * pending events and the other links' input bounds, plus the in-process
 * latencies between), so that the peer may run ahead to it
 * (mortar_link_send_promise, mortar_link_in_bound). Results are the same
 * either way; off sends plain null messages. Call before start.
 */
void mortar_loop_set_promises(mortar_loop *loop, bool on);

/*
 * A check (off by default): the loop now and then promises less than it
 * could, at pseudo-random points: a component's next event looks earlier
 * to the promises and to mortar_port_quiet_until(_own). Results must be
 * the same either way, as with promises off; mortar-sim turns it on with
 * MORTAR_BOUND_JITTER=1, as the QEMU host does its own. Call before start.
 */
void mortar_loop_set_bound_jitter(mortar_loop *loop, bool on);

/* Checks that every declared port is connected, sends the first null
 * messages and calls each component's start(). run() and step() call it
 * when it was not called yet. */
int mortar_loop_start(mortar_loop *loop);

/*
 * Handles at most one event (waiting for peers as needed). Returns 1 when an
 * event was handled, 0 when there is nothing to do before `until_ps` (or the
 * loop was stopped, or every peer terminated), or a MORTAR_E code. Test
 * benches drive a loop step by step with it.
 */
int mortar_loop_step(mortar_loop *loop, uint64_t until_ps);

/* True once a component called mortar_stop(). */
bool mortar_loop_stopped(const mortar_loop *loop);

/* The state a component's create() returned, for test benches that drive a
 * component directly. */
void *mortar_component_state(mortar_component *c);

/* The loop's current simulated time. */
uint64_t mortar_loop_now(const mortar_loop *loop);

/* The same, safe to call from another thread while the loop runs (for
 * progress reports). */
uint64_t mortar_loop_now_shared(const mortar_loop *loop);

/* Events handled so far (messages + timers), for benchmarks. */
uint64_t mortar_loop_events(const mortar_loop *loop);

/* Writes every component's stats (and link counters) as one JSON object
 * {"component": {"stat": value, ...}, ...} to `f`. */
int mortar_loop_write_stats(mortar_loop *loop, FILE *f);

#endif
