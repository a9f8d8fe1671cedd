/*
 * mortar/plugin.h - a device model built outside mortar's tree, loaded by
 * mortar-sim at run time (docs/sdk.md).
 *
 * When a mortar-sim description names a component kind that is not built
 * in, mortar-sim looks for the shared object
 *
 *     mortar-model-<kind>.so
 *
 * in each directory of the environment variable MORTAR_PLUGIN_PATH
 * (colon-separated, searched in order), then in the installed plugin
 * directory (<prefix>/lib/mortar/plugins, `pkg-config --variable=plugindir
 * mortar`). The first file found is the plugin; a file that is found but
 * cannot be loaded or is refused is an error, never skipped. The kind must
 * be a valid mortar name (mortar/name.h: 1 to 64 characters from A-Z a-z
 * 0-9 _ -) before it becomes part of a path.
 *
 * A plugin exports one function, mortar_plugin_component(), which returns
 * a description of the model: the plugin ABI it was built for, first, and
 * its operations table (mortar/component.h). mortar-sim refuses a plugin
 * whose ABI is not its own (a plugin built against another major version
 * of the SDK must be rebuilt), whose kind is not the one it was looked up
 * by, or whose table lacks create() or message(). A host-side component (a
 * driver that speaks the host side of PCIe to a device) is a plugin too:
 * to mortar-sim every component is a model.
 *
 * The plugin links libmortar (`pkg-config --cflags --libs mortar`) and
 * uses only the public headers; mortar-sim and the plugin share the one
 * libmortar.so.MAJOR the process loaded. Build it with
 * -fvisibility=hidden: MORTAR_PLUGIN() exports the entry point alone.
 *
 *     #include "mortar/plugin.h"
 *     static const mortar_component_ops my_ops = {.kind = "my-device", ...};
 *     MORTAR_PLUGIN(my_ops)
 *
 * The plugin is loaded once per process and stays loaded until it exits;
 * the table and every string it points to must live as long.
 */
#ifndef MORTAR_PLUGIN_H
#define MORTAR_PLUGIN_H

#include <stdint.h>

#include "mortar/component.h"
#include "mortar/version.h"

/* The plugin ABI: the SDK's major version. Within one major version the
 * layout of mortar_plugin_info and mortar_component_ops only grows at the
 * end, and libmortar keeps every function it exported. */
#define MORTAR_PLUGIN_ABI MORTAR_VERSION_MAJOR

/* The name of the entry point, for dlsym(). */
#define MORTAR_PLUGIN_ENTRY "mortar_plugin_component"

/* What a plugin returns. `abi` comes first in every version, so a loader
 * of any version can read it before it trusts the rest. */
typedef struct mortar_plugin_info {
    uint32_t abi;            /* MORTAR_PLUGIN_ABI the plugin was built for */
    uint32_t reserved;       /* 0 */
    const char *sdk_version; /* MORTAR_VERSION_STRING of its build, for messages */
    const mortar_component_ops *ops; /* the model; .kind is the plugin's kind */
} mortar_plugin_info;

/* The entry point's type. The returned description is static (never
 * freed) and the same on every call. */
typedef const mortar_plugin_info *(*mortar_plugin_entry)(void);

/* Defines the entry point for the operations table `model_ops` (an lvalue
 * of type mortar_component_ops), exported whatever the visibility default. */
#define MORTAR_PLUGIN(model_ops)                                                         \
    __attribute__((visibility("default"))) const mortar_plugin_info *                    \
    mortar_plugin_component(void);                                                       \
    const mortar_plugin_info *mortar_plugin_component(void)                              \
    {                                                                                    \
        static const mortar_plugin_info info = {.abi = MORTAR_PLUGIN_ABI,                \
                                                .sdk_version = MORTAR_VERSION_STRING,    \
                                                .ops = &(model_ops)};                    \
        return &info;                                                                    \
    }

#endif
