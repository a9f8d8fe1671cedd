/*
 * sims/plugins.h - finding a component model by kind: built in
 * (sims/registry.h), else a plugin (mortar/plugin.h, docs/sdk.md).
 */
#ifndef MORTAR_SIMS_PLUGINS_H
#define MORTAR_SIMS_PLUGINS_H

#include <stdbool.h>
#include <stddef.h>

#include "mortar/component.h"
#include "sims/plugin_path.h"

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

/* What mortar_model_list_plugins() found: a usable plugin (`ops` set,
 * `why` NULL) or a refused one (`ops` NULL, `why` the reason). */
typedef void (*mortar_plugin_visit)(const char *file, const mortar_component_ops *ops,
                                    const char *why, void *arg);

/*
 * Calls `visit` for every mortar-model-<kind>.so in the directories
 * mortar_model_find() searches, in its order (files by name within a
 * directory): the plugin that kind resolves to, loaded and checked, or the
 * reason it is refused. Files of a kind found earlier (built in, or in an
 * earlier directory) are not visited: they would never be used. For
 * `mortar-sim --list`; loads every plugin it visits.
 */
void mortar_model_list_plugins(const char *installed_dir, mortar_plugin_visit visit,
                               void *arg);

#endif
