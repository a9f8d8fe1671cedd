/*
 * sync_rule.h - the conservative synchronization rule, written once for
 * every side that keeps a clock over links: mortar-sim's event loop
 * (event_loop.c, loop_promise.c) and QEMU's hub (hosts/qemu/src/
 * mortar_hub.c, which compiles this file in through libmortar.list).
 * docs/protocol.md §4 states the rule; this is its arithmetic.
 *
 * A side keeps its links in a table of sync_link, in its fixed link order
 * (that order is the tie-break). The rule reads the links' input bounds
 * (mortar_link_in_bound: the horizon, or more with the peer's promise) and
 * sends their null messages:
 *   - the safe time: the smallest bound over the synchronized links, and the
 *     link that holds it (the first one at equal bounds);
 *   - the earliest input: per link its waiting message's stamp, or its bound
 *     without one; the smallest (time, link index);
 *   - the promise on link j: the earliest time the side could send there,
 *     from its own next event and what the other links bring next, each
 *     plus its least latency to j;
 *   - the due null messages: on every synchronized link quiet for a sync
 *     interval, one at `now`, with the promise when the side makes one. One
 *     a full ring refuses stays due, to be tried at the next step or wait
 *     (the peer has our messages to read meanwhile).
 *
 * Internal to libmortar and QEMU's hub: nothing here is exported. It uses
 * only the public link API.
 */
#ifndef MORTAR_SYNC_RULE_H
#define MORTAR_SYNC_RULE_H

#include <stdbool.h>
#include <stdint.h>

#include "mortar/link.h"

/* One link of a side. */
typedef struct sync_link {
    mortar_link *link;
    bool synchronized; /* sync mode on: it holds time back, gets null messages */
} sync_link;

/* What a side knows of its own future, for lookahead promises. */
typedef struct sync_promiser {
    /* The earliest time the side's own pending work could make it send on
     * link j (its latency to j included); MORTAR_TIME_MAX: none. */
    uint64_t (*own_next)(void *ctx, unsigned j);
    /* The least latency from an input on link i to a send on link j;
     * MORTAR_TIME_MAX: none reaches j. NULL: every input reaches every link
     * at once. */
    uint64_t (*latency)(void *ctx, unsigned i, unsigned j);
    /* false: the side moves arrived messages into its own queue (own_next
     * counts them), so a link brings at least its bound; true: messages wait
     * on the ring, so a link brings its waiting message's stamp. */
    bool peek;
    void *ctx;
} sync_promiser;

/* The earliest input over all links. */
typedef struct sync_input {
    int index;       /* the link, -1 when there is none */
    uint64_t time;   /* its message's stamp or its bound */
    bool is_msg;     /* a message waits there (in `msg`, still on the ring) */
    mortar_msg msg;
} sync_input;

/* What sending the due null messages found. */
typedef struct sync_due {
    uint64_t next_due; /* the earliest time a null message is due again */
    int failed;        /* the link whose error is returned, else -1 */
    unsigned sent;     /* how many null messages this call sent */
} sync_due;

/* The safe time: the smallest input bound over the synchronized links;
 * *holder is the first link with it (-1 and MORTAR_TIME_MAX without one). */
uint64_t sync_rule_safe_time(const sync_link *links, unsigned n, int *holder);

/* The earliest input: per link its waiting message's stamp, else its
 * bound; the smallest (time, index). 0, or a link error (a malformed or
 * early message) with out->index naming the link. */
int sync_rule_earliest(const sync_link *links, unsigned n, sync_input *out);

/* The earliest time the side could send on link j: its own next event and,
 * for every other link i that reaches j, what i brings next (an
 * unsynchronized input brings messages at `now`) plus the latency from i to
 * j; at least `now`. What j itself brings is left out: its peer knows what it
 * sent (mortar_link_send_promise). */
uint64_t sync_rule_next_send(const sync_link *links, unsigned n, unsigned j, uint64_t now,
                             const sync_promiser *p);

/* Sends a null message at `now` on every synchronized link quiet for a sync
 * interval: with the promise of `p`, or plain when `p` is NULL. A full ring
 * leaves it due (and asks the socket whether the peer died). 0, or
 * the first link error (out->failed names the link). */
int sync_rule_send_due(sync_link *links, unsigned n, uint64_t now, const sync_promiser *p,
                       sync_due *out);

/* A plain null message at `now` on every synchronized link: the start of
 * synchronization, so that two idle peers never wait for each other. */
void sync_rule_start(sync_link *links, unsigned n, uint64_t now);

#endif
