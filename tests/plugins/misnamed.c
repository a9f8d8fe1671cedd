/*
 * tests/plugins/misnamed.c - the plugin file of kind "test-misnamed" whose
 * model says it is "test-something-else": refused (tests/test_plugins.c).
 */
#include <stddef.h>

#include "mortar/plugin.h"

static void never_called(void *state, unsigned port, const mortar_msg *msg) {}

static int never_created(mortar_component *self, const mortar_params *p, void **state)
{
    return -1;
}

static const mortar_component_ops misnamed_ops = {
    .kind = "test-something-else", .create = never_created, .message = never_called};

MORTAR_PLUGIN(misnamed_ops)
