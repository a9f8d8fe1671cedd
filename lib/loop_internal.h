/*
 * loop_internal.h - the event loop's objects: events, the heap, components
 * and their ports. Shared by event_loop.c (running), component.c (the API
 * models call) and loop_setup.c (building and tearing down).
 */
#ifndef MORTAR_LOOP_INTERNAL_H
#define MORTAR_LOOP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "mortar/runtime.h"
#include "mortar/trace.h"
#include "sync_rule.h"

#define MAX_PORTS 64

enum { EV_MESSAGE = 0, EV_TIMER = 1 }; /* at equal time, messages first */

/* Payloads up to this size travel inside the event (no allocation): most
 * control messages are small, and co-located components exchange them at
 * the rate of the event loop itself. */
#define EVENT_INLINE_BYTES 24

/* One pending event. Ordered by time, then `order` (component, class, port:
 * see event_order()), then sequence. 64 bytes, one cache line. */
typedef struct event {
    uint64_t time;
    uint64_t order;
    uint64_t seq;
    union {
        struct {
            uint32_t size;
            uint8_t type;
            uint8_t *data; /* malloc'd copy of the payload; NULL: in `small` */
            uint8_t small[EVENT_INLINE_BYTES];
        } msg;
        struct {
            uint32_t slot, gen;
            uint64_t cookie;
        } timer;
    };
} event;

_Static_assert(sizeof(event) == 64, "an event is one cache line");

/* The tie-break after time, as one number: component, then class (messages
 * before timers), then port. */
static inline uint64_t event_order(uint32_t comp, uint8_t cls, uint8_t port)
{
    return (uint64_t)comp << 16 | (uint64_t)cls << 8 | port;
}
static inline uint32_t event_comp(const event *ev) { return (uint32_t)(ev->order >> 16); }
static inline uint8_t event_class(const event *ev) { return (uint8_t)(ev->order >> 8); }
static inline uint8_t event_port(const event *ev) { return (uint8_t)ev->order; }

/* Fills a message event's payload: inline when it fits, else a malloc'd
 * copy. MORTAR_ENOMEM when that fails. */
int event_set_payload(event *ev, const void *payload, uint32_t size);

/* The payload of a message event, and freeing it once handled. */
static inline const void *event_payload(const event *ev)
{
    return ev->msg.data ? ev->msg.data : ev->msg.small;
}
void event_free_payload(event *ev);

typedef struct event_heap {
    event *items;
    size_t count, cap;
} event_heap;

int heap_push(event_heap *h, const event *ev);
void heap_pop(event_heap *h, event *out);
void heap_free(event_heap *h);

enum { PORT_UNBOUND = 0, PORT_EXTERNAL, PORT_INPROC };

typedef struct port {
    bool declared;
    int binding;
    uint32_t protocol;
    void *intro;
    uint32_t intro_size;
    uint64_t rx_seq;  /* sequence of messages delivered to this port */
    mortar_link *link; /* external */
    struct {           /* in-process */
        mortar_component *peer;
        unsigned peer_port;
        mortar_link_timing timing;
        char name[64];
        uint32_t max_payload;
    } inproc;
} port_state;

typedef struct timer_slot {
    uint32_t gen;
    bool active;
} timer_slot;

struct mortar_component {
    mortar_loop *loop;
    char name[64];
    uint32_t index;
    const mortar_component_ops *ops;
    void *state;
    port_state ports[MAX_PORTS];
    unsigned nports;
    uint64_t timer_seq;
    timer_slot *timers;
    uint32_t *free_timers;
    uint32_t timer_cap, free_count;
    uint16_t trace_id;
    uint64_t events; /* events handled (profile) */
};

/* An external link bound to a port, for polling and waiting; its place
 * under the synchronization rule is loop->sync[] at the same index. */
typedef struct ext_link {
    mortar_link *link;
    mortar_component *comp;
    unsigned port;
    uint64_t wait_ticks, waits; /* wall time blocked while this link held us back */
} ext_link;

struct mortar_loop {
    mortar_component **comps;
    uint32_t ncomps;
    ext_link *exts;
    sync_link *sync; /* the same links under the rule (sync_rule.h), by index */
    uint32_t nexts;
    event_heap heap;
    uint64_t now;
    uint64_t events;
    uint64_t next_sync_due; /* lower bound of every link's next sync */
    bool stop;
    bool started;
    int fatal; /* an error raised inside a callback (e.g. a dead peer) */
    bool promises_off;  /* plain null messages only (mortar_loop_set_promises) */
    bool bound_jitter;  /* promise less at random (mortar_loop_set_bound_jitter) */
    uint64_t jitter_state;
    uint64_t *reach;    /* loop_promise.c: ncomps x ncomps in-process latencies */
    uint64_t *earliest; /* loop_promise.c: each component's next event */
    mortar_trace_writer *trace;
    char **kinds; /* trace kind names, by id, known with or without a trace */
    uint16_t nkinds;
    uint16_t wire_kind; /* "pcie_wire" (component.c), registered with the trace */
    /* profile (mortar_loop_get_profile): the run's span in CLOCK_MONOTONIC
     * ns and in wall_ticks (wall_ticks.h), waits in ticks (profile.c
     * converts them) */
    bool profile_off;
    uint64_t wall_start_ns, wall_end_ns;
    uint64_t wall_start_ticks, wall_end_ticks;
    uint64_t wait_any_ticks, waits_any; /* waits without a holder link */
    /* a timed wait that ended and is not charged yet (event_loop.c) */
    bool wait_open;
    int wait_holder; /* its holder link, -1: any input */
    uint64_t wait_start_ticks;
    char err[512];
};

int loop_set_error(mortar_loop *loop, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The id of a trace kind, registered on first use. */
uint16_t loop_trace_kind(mortar_loop *loop, const char *name);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t loop_wall_ns(void);

/* Moves every available message of every external link into the heap. */
int loop_poll_inputs(mortar_loop *loop);

/* Lookahead promises (loop_promise.c): the in-process latency table, built
 * at start; each component's earliest event; what the loop tells the rule
 * (sync_rule.h) of its own future: its components' next events and the
 * latencies from one external link to another. `scanned` is cleared before
 * each round of null messages; the events are scanned once, when the first
 * promise is made. */
int loop_promise_setup(mortar_loop *loop);
void loop_promise_scan(mortar_loop *loop);
typedef struct loop_promiser {
    sync_promiser rule;
    mortar_loop *loop;
    bool scanned;
} loop_promiser;
void loop_promiser_init(loop_promiser *p, mortar_loop *loop);

#endif
