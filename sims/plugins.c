/*
 * plugins.c - component models by kind: the built-in table first, then
 * plugins, shared objects named mortar-model-<kind>.so (mortar/plugin.h).
 *
 * The search: every directory of MORTAR_PLUGIN_PATH in order (empty entries
 * skipped), then the installed plugin directory. The first file that exists
 * decides: it is loaded (dlopen, RTLD_NOW so a missing symbol fails here and
 * not in the middle of a run) and checked, ABI first; a refused file ends
 * the search with its error, so a broken plugin never hides behind another.
 * The kind passes mortar_name_check() before it is put into a path: no '/',
 * no "..".
 */
#include "sims/plugins.h"
#include "sims/plugin_path.h"
#include "sims/registry.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mortar/name.h"
#include "mortar/plugin.h"

#define PATH_TEXT 4096

static const mortar_component_ops *fail(char *err, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static const mortar_component_ops *fail(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
    return NULL;
}

/* Checks what the plugin at `file` returned; the ops when it is usable. */
static const mortar_component_ops *check_info(const mortar_plugin_info *info,
                                              const char *file, const char *kind,
                                              char *err, size_t size)
{
    if (!info)
        return fail(err, size, "plugin %s: %s() returned NULL", file,
                    MORTAR_PLUGIN_ENTRY);
    if (info->abi != MORTAR_PLUGIN_ABI)
        return fail(
            err, size,
            "plugin %s: built for plugin ABI %u (mortar %u.x), this mortar-sim runs "
            "ABI %u (mortar %s): rebuild the plugin against this SDK",
            file, (unsigned)info->abi, (unsigned)info->abi, MORTAR_PLUGIN_ABI,
            MORTAR_VERSION_STRING);
    const mortar_component_ops *ops = info->ops;
    if (!ops || !ops->kind || strcmp(ops->kind, kind) != 0)
        return fail(err, size, "plugin %s: its model's kind is '%.64s', not '%s'", file,
                    ops && ops->kind ? ops->kind : "(none)", kind);
    if (!ops->create || !ops->message)
        return fail(err, size, "plugin %s: the model '%s' has no %s()", file, kind,
                    !ops->create ? "create" : "message");
    return ops;
}

static const mortar_component_ops *load(const char *file, const char *kind, char *err,
                                        size_t size)
{
    void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
        return fail(err, size, "plugin %s for kind '%s' cannot be loaded: %s", file, kind,
                    dlerror());
    mortar_plugin_entry entry;
    *(void **)&entry = dlsym(handle, MORTAR_PLUGIN_ENTRY);
    if (!entry) {
        dlclose(handle);
        return fail(err, size,
                    "plugin %s has no %s() (is it built with MORTAR_PLUGIN()?)", file,
                    MORTAR_PLUGIN_ENTRY);
    }
    const mortar_component_ops *ops = check_info(entry(), file, kind, err, size);
    if (!ops)
        dlclose(handle);
    return ops; /* a usable plugin stays loaded until the process exits */
}

const mortar_component_ops *mortar_model_find(const char *kind, const char *installed_dir,
                                              char *err, size_t err_size)
{
    const mortar_component_ops *ops = kind ? mortar_registry_find(kind) : NULL;
    if (ops)
        return ops;
    char why[200];
    if (mortar_name_check(kind, why, sizeof why) != 0)
        return fail(err, err_size, "component kind: %s", why);
    char file[PATH_TEXT], searched[PATH_TEXT];
    if (mortar_plugin_search("mortar-model-", kind, installed_dir, file, sizeof file,
                             searched, sizeof searched))
        return load(file, kind, err, err_size);
    return fail(
        err, err_size,
        "unknown component kind '%s': not built in (mortar-sim --list), and no "
        "mortar-model-%s.so in MORTAR_PLUGIN_PATH or the installed plugin directory "
        "(searched: %s)",
        kind, kind, searched[0] ? searched : "no directory");
}

/* The kind in a file name "mortar-model-<kind>.so", into `kind`; false when
 * the name is not a plugin's. */
static bool kind_of_file(const char *name, char *kind, size_t size)
{
    static const char prefix[] = "mortar-model-", suffix[] = ".so";
    size_t len = strlen(name), fixed = sizeof prefix - 1 + sizeof suffix - 1;
    if (len <= fixed || strncmp(name, prefix, sizeof prefix - 1) != 0 ||
        strcmp(name + len - (sizeof suffix - 1), suffix) != 0 || len - fixed >= size)
        return false;
    memcpy(kind, name + sizeof prefix - 1, len - fixed);
    kind[len - fixed] = '\0';
    return mortar_name_check(kind, NULL, 0) == 0;
}

/* The kinds already visited: a plugin of one of them further on is never
 * used. A linear list: a plugin path holds a handful of plugins. */
typedef struct seen_kinds {
    char (*names)[MORTAR_NAME_MAX + 1];
    size_t count;
} seen_kinds;

static bool seen_before(seen_kinds *seen, const char *kind)
{
    for (size_t i = 0; i < seen->count; i++)
        if (strcmp(seen->names[i], kind) == 0)
            return true;
    void *grown = realloc(seen->names, (seen->count + 1) * sizeof *seen->names);
    if (!grown)
        return true; /* out of memory: list less rather than fail */
    seen->names = grown;
    snprintf(seen->names[seen->count++], sizeof *seen->names, "%s", kind);
    return false;
}

static void list_dir(const char *dir, size_t len, seen_kinds *seen,
                     mortar_plugin_visit visit, void *arg)
{
    char path[PATH_TEXT];
    snprintf(path, sizeof path, "%.*s", (int)len, dir);
    struct dirent **entries;
    int n = scandir(path, &entries, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        char kind[MORTAR_NAME_MAX + 1];
        if (kind_of_file(entries[i]->d_name, kind, sizeof kind) &&
            !mortar_registry_find(kind) && !seen_before(seen, kind)) {
            char file[PATH_TEXT * 2], why[1024];
            snprintf(file, sizeof file, "%s/%s", path, entries[i]->d_name);
            const mortar_component_ops *ops = load(file, kind, why, sizeof why);
            visit(file, ops, ops ? NULL : why, arg);
        }
        free(entries[i]);
    }
    if (n >= 0)
        free(entries);
}

void mortar_model_list_plugins(const char *installed_dir, mortar_plugin_visit visit,
                               void *arg)
{
    seen_kinds seen = {0};
    const char *path = getenv("MORTAR_PLUGIN_PATH");
    for (const char *p = path; p && *p;) {
        size_t len = strcspn(p, ":");
        if (len)
            list_dir(p, len, &seen, visit, arg);
        p += len + (p[len] == ':');
    }
    if (installed_dir && *installed_dir)
        list_dir(installed_dir, strlen(installed_dir), &seen, visit, arg);
    free(seen.names);
}
