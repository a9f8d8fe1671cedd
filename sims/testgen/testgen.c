/*
 * testgen.c - a traffic generator for testing and benchmarking links and the
 * event loop.
 *
 * On each port it sends messages at pseudo-random times (a fixed seed, so a
 * run is reproducible) and, when `log` is set, writes one line per handled
 * event: "<now_ps> rx <port> <stamp_ps> <sender> <seq>" or
 * "<now_ps> timer <n>". With `echo` it answers every message on the port it
 * came from (a ping-pong responder).
 *
 * Parameters: ports (1), seed (1), messages (per port, 0), max_gap ("1us"),
 * payload (bytes, 16), echo (false), log (path, none), stop_after (messages
 * received before mortar_stop(), 0 = never).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/component.h"
#include "mortar/error.h"
#include "sims/registry.h"

#define TESTGEN_MSG 0x10

typedef struct testgen {
    mortar_component *self;
    uint64_t ports, seed, messages, payload, stop_after;
    uint64_t max_gap_ps;
    bool echo;
    FILE *log;
    uint64_t rng;
    uint64_t sent[64];
    uint64_t received, timers;
} testgen;

typedef struct testgen_msg {
    uint64_t seq;
    uint64_t sender_seed;
} testgen_msg;

static uint64_t next_random(testgen *g)
{
    /* xorshift64*: small, fast, good enough for test traffic */
    g->rng ^= g->rng >> 12;
    g->rng ^= g->rng << 25;
    g->rng ^= g->rng >> 27;
    return g->rng * 2685821657736338717ull;
}

static void schedule(testgen *g, unsigned port)
{
    if (g->sent[port] >= g->messages)
        return;
    uint64_t gap = g->max_gap_ps ? 1 + next_random(g) % g->max_gap_ps : 1;
    mortar_timer_set(g->self, mortar_now(g->self) + gap, port);
}

static int testgen_create(mortar_component *self, const mortar_params *p, void **state)
{
    static const char *const known[] = {"ports", "seed", "messages", "max_gap", "payload",
                                        "echo", "log", "stop_after", NULL};
    testgen *g = calloc(1, sizeof *g);
    if (!g)
        return MORTAR_ENOMEM;
    const char *log = NULL;
    int rc = mortar_params_check_known(p, known);
    if (!rc) rc = mortar_params_u64(p, "ports", 1, &g->ports);
    if (!rc) rc = mortar_params_u64(p, "seed", 1, &g->seed);
    if (!rc) rc = mortar_params_u64(p, "messages", 0, &g->messages);
    if (!rc) rc = mortar_params_time(p, "max_gap", MORTAR_US(1), &g->max_gap_ps);
    if (!rc) rc = mortar_params_u64(p, "payload", 16, &g->payload);
    if (!rc) rc = mortar_params_bool(p, "echo", false, &g->echo);
    if (!rc) rc = mortar_params_string(p, "log", NULL, &log);
    if (!rc) rc = mortar_params_u64(p, "stop_after", 0, &g->stop_after);
    if (!rc && (g->ports == 0 || g->ports > 64))
        rc = MORTAR_EINVAL;
    if (!rc && g->payload < sizeof(testgen_msg))
        g->payload = sizeof(testgen_msg);
    if (!rc && log && !(g->log = fopen(log, "w")))
        rc = MORTAR_EIO;
    if (rc) {
        free(g);
        return rc;
    }
    g->self = self;
    g->rng = g->seed * 0x9e3779b97f4a7c15ull + 1;
    for (unsigned i = 0; i < g->ports; i++)
        mortar_port_declare(self, i, MORTAR_PROTO_TEST, NULL, 0);
    *state = g;
    return MORTAR_OK;
}

static void testgen_start(void *state)
{
    testgen *g = state;
    for (unsigned i = 0; i < g->ports; i++)
        schedule(g, i);
}

static void send_one(testgen *g, unsigned port, uint64_t seq)
{
    uint8_t buf[4096];
    testgen_msg m = {.seq = seq, .sender_seed = g->seed};
    uint32_t size = (uint32_t)(g->payload < sizeof buf ? g->payload : sizeof buf);
    memset(buf, 0, size); /* only what is sent: zeroing 4 KiB cost more than the send */
    memcpy(buf, &m, sizeof m);
    mortar_send(g->self, port, TESTGEN_MSG, buf, size, 0, NULL);
}

static void testgen_message(void *state, unsigned port, const mortar_msg *msg)
{
    testgen *g = state;
    testgen_msg m = {0};
    memcpy(&m, msg->payload, msg->size < sizeof m ? msg->size : sizeof m);
    g->received++;
    if (g->log)
        fprintf(g->log, "%" PRIu64 " rx %u %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                mortar_now(g->self), port, msg->timestamp_ps, m.sender_seed, m.seq);
    if (g->echo)
        send_one(g, port, m.seq);
    if (g->stop_after && g->received >= g->stop_after)
        mortar_stop(g->self);
}

static void testgen_timer(void *state, uint64_t port)
{
    testgen *g = state;
    g->timers++;
    if (g->log)
        fprintf(g->log, "%" PRIu64 " timer %" PRIu64 "\n", mortar_now(g->self), port);
    send_one(g, (unsigned)port, g->sent[port]++);
    schedule(g, (unsigned)port);
}

static void testgen_stats(void *state, mortar_stats *s)
{
    testgen *g = state;
    uint64_t sent = 0;
    for (unsigned i = 0; i < g->ports; i++)
        sent += g->sent[i];
    mortar_stats_u64(s, "sent", sent);
    mortar_stats_u64(s, "received", g->received);
    mortar_stats_u64(s, "timers", g->timers);
}

static void testgen_destroy(void *state)
{
    testgen *g = state;
    if (g->log)
        fclose(g->log);
    free(g);
}

const mortar_component_ops mortar_testgen_ops = {
    .kind = "testgen",
    .summary = "random test traffic and echo, for link and loop tests",
    .create = testgen_create,
    .start = testgen_start,
    .message = testgen_message,
    .timer = testgen_timer,
    .stats = testgen_stats,
    .destroy = testgen_destroy,
};
