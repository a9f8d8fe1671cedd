/*
 * tests/plugins/echo.c - the plugin "test-echo" of tests/test_plugins.c: a
 * component with one test-protocol port that sends every message back,
 * built against the public headers only, like a model built outside the
 * tree (mortar/plugin.h).
 */
#include <stdlib.h>

#include "mortar/plugin.h"

typedef struct echo {
    mortar_component *self;
    uint64_t echoed;
} echo;

static int echo_create(mortar_component *self, const mortar_params *params, void **state)
{
    echo *e = calloc(1, sizeof *e);
    if (!e)
        return -1;
    e->self = self;
    mortar_port_declare(self, 0, MORTAR_PROTO_TEST, NULL, 0);
    *state = e;
    return 0;
}

static void echo_message(void *state, unsigned port, const mortar_msg *msg)
{
    echo *e = state;
    e->echoed++;
    mortar_send(e->self, port, msg->type, msg->payload, msg->size, 0, NULL);
}

static void echo_stats(void *state, mortar_stats *s)
{
    mortar_stats_u64(s, "echoed", ((echo *)state)->echoed);
}

static const mortar_component_ops echo_ops = {
    .kind = "test-echo",
    .summary = "sends every message back (a test plugin)",
    .create = echo_create,
    .message = echo_message,
    .stats = echo_stats,
    .destroy = free,
};

MORTAR_PLUGIN(echo_ops)
