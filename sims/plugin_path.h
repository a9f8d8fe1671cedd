/*
 * sims/plugin_path.h - where plugins are found: component models
 * (mortar-model-<kind>.so, sims/plugins.h) and RTL designs
 * (mortar-rtl-<name>.so, mortar/rtl_model.h) alike.
 */
#ifndef MORTAR_SIMS_PLUGIN_PATH_H
#define MORTAR_SIMS_PLUGIN_PATH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The file <prefix><name>.so in the first directory of MORTAR_PLUGIN_PATH
 * and then `installed_dir` (may be NULL) that has it, into `file`; false
 * when none has. `searched` lists the directories looked in, for messages.
 * `name` must have passed mortar_name_check().
 */
bool mortar_plugin_search(const char *prefix, const char *name, const char *installed_dir,
                          char *file, size_t file_size, char *searched, size_t searched_size);

/* The installed plugin directory of this program: MORTAR_PLUGINDIR_FROM_BINDIR
 * next to the directory of /proc/self/exe, written into `out`; "" when the
 * program's path cannot be read. */
void mortar_plugin_installed_dir(char *out, size_t size);

#endif
