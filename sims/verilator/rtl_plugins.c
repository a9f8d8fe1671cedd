/*
 * rtl_plugins.c - an RTL design by name: built in (rtl_designs.c), else a
 * plugin mortar-rtl-<name>.so found where models' plugins are
 * (sims/plugin_path.h), loaded and checked (mortar/rtl_model.h, "designs
 * as plugins").
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "mortar/name.h"
#include "mortar/plugin.h"
#include "mortar/rtl_model.h"
#include "sims/plugin_path.h"

#define PATH_TEXT 4096

/* The design the plugin `file` describes, checked; NULL and `err` else. */
static const mortar_rtl_design *load(const char *file, const char *name, char *err,
                                     size_t size)
{
    void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(err, size, "RTL design plugin %s cannot be loaded: %s", file, dlerror());
        return NULL;
    }
    const mortar_rtl_plugin_info *(*entry)(void);
    *(void **)&entry = dlsym(handle, MORTAR_RTL_PLUGIN_ENTRY);
    const mortar_rtl_plugin_info *info = entry ? entry() : NULL;
    const char *wrong = !entry                               ? "has no " MORTAR_RTL_PLUGIN_ENTRY "()"
                        : !info                              ? "returned no description"
                        : info->abi != MORTAR_PLUGIN_ABI     ? "is built for another plugin ABI"
                        : !info->design || !info->design->name ||
                                  strcmp(info->design->name, name) != 0
                            ? "describes another design"
                            : NULL;
    if (wrong) {
        snprintf(err, size, "RTL design plugin %s %s (this mortar: ABI %u, %s)", file, wrong,
                 MORTAR_PLUGIN_ABI, MORTAR_VERSION_STRING);
        dlclose(handle);
        return NULL;
    }
    return info->design; /* a usable plugin stays loaded until the process exits */
}

const mortar_rtl_design *mortar_rtl_design_lookup(const char *name, char *err, size_t size)
{
    const mortar_rtl_design *design = mortar_rtl_design_find(name);
    if (design)
        return design;
    char why[200];
    if (mortar_name_check(name, why, sizeof why) != 0) {
        snprintf(err, size, "%s", why);
        return NULL;
    }
    char installed[PATH_TEXT], file[PATH_TEXT], searched[PATH_TEXT];
    mortar_plugin_installed_dir(installed, sizeof installed);
    if (mortar_plugin_search("mortar-rtl-", name, installed, file, sizeof file, searched,
                             sizeof searched))
        return load(file, name, err, size);
    snprintf(err, size,
             "not built in, and no mortar-rtl-%s.so in MORTAR_PLUGIN_PATH or the installed "
             "plugin directory (searched: %s)",
             name, searched[0] ? searched : "no directory");
    return NULL;
}
