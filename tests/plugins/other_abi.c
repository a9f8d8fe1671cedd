/*
 * tests/plugins/other_abi.c - the plugin "test-other-abi": built, it says,
 * for the next major version of the SDK. mortar-sim must refuse it before it
 * looks at its operations table (tests/test_plugins.c).
 */
#include <stddef.h>

#include "mortar/plugin.h"

static void never_called(void *state, unsigned port, const mortar_msg *msg) {}

static int never_created(mortar_component *self, const mortar_params *p, void **state)
{
    return -1;
}

static const mortar_component_ops other_abi_ops = {
    .kind = "test-other-abi", .create = never_created, .message = never_called};

__attribute__((visibility("default"))) const mortar_plugin_info *
mortar_plugin_component(void);
const mortar_plugin_info *mortar_plugin_component(void)
{
    static const mortar_plugin_info info = {
        .abi = MORTAR_PLUGIN_ABI + 1, .sdk_version = "99.0.0", .ops = &other_abi_ops};
    return &info;
}
