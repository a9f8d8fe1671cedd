/*
 * sims/plugins.h - finding a component model by kind: built in
 * (sims/registry.h), else a plugin (mortar/plugin.h, docs/sdk.md).
 */
#ifndef MORTAR_SIMS_PLUGINS_H
#define MORTAR_SIMS_PLUGINS_H

#include <stddef.h>

#include "mortar/component.h"

/*
 * The model of `kind`: the built-in one, else the one in the first
 * mortar-model-<kind>.so of the directories in MORTAR_PLUGIN_PATH and then
 * `installed_dir` (may be NULL: none). NULL when there is none or a plugin
 * is refused, with the reason in `err` (naming the kind and the
 * directories searched, or the file and what is wrong with it). A plugin
 * stays loaded until the process exits.
 */
const mortar_component_ops *mortar_model_find(const char *kind, const char *installed_dir,
                                              char *err, size_t err_size);

/* The installed plugin directory of this program: MORTAR_PLUGINDIR_FROM_BINDIR
 * next to the directory of /proc/self/exe, written into `out`; "" when the
 * program's path cannot be read. */
void mortar_model_installed_dir(char *out, size_t size);

#endif
