/*
 * rtl_plugin_entry.c - the entry point of an RTL design built as a plugin,
 * mortar-rtl-<name>.so (mortar_add_rtl_design with PLUGIN, compiled once
 * per design with MORTAR_RTL_NAME=<name>): it hands mortar-sim the
 * design's descriptor, mortar_rtl_design_<name> (rtl_model.h).
 */
#include "mortar/plugin.h"
#include "mortar/rtl_model.h"

#ifndef MORTAR_RTL_NAME
#error "define MORTAR_RTL_NAME"
#endif

/* MORTAR_RTL_DESIGN pastes its argument: expand the name first. */
#define DESIGN_OF(name) MORTAR_RTL_DESIGN(name)

extern const mortar_rtl_design DESIGN_OF(MORTAR_RTL_NAME);

__attribute__((visibility("default"))) const mortar_rtl_plugin_info *
mortar_plugin_rtl_design(void);

const mortar_rtl_plugin_info *mortar_plugin_rtl_design(void)
{
    static const mortar_rtl_plugin_info info = {.abi = MORTAR_PLUGIN_ABI,
                                                .sdk_version = MORTAR_VERSION_STRING,
                                                .design = &DESIGN_OF(MORTAR_RTL_NAME)};
    return &info;
}
