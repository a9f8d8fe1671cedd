/*
 * plugin_path.c - where plugins are looked for (plugin_path.h): the
 * directories of MORTAR_PLUGIN_PATH in order (empty entries skipped), then
 * the installed plugin directory, relative to the program's own place.
 */
#include "sims/plugin_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PATH_TEXT 4096

void mortar_plugin_installed_dir(char *out, size_t size)
{
    char exe[PATH_TEXT];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = n > 0 ? memrchr(exe, '/', (size_t)n) : NULL;
    if (!slash) {
        snprintf(out, size, "%s", "");
        return;
    }
    *slash = '\0';
    snprintf(out, size, "%s/%s", exe, MORTAR_PLUGINDIR_FROM_BINDIR);
}

/* Whether `dir` (its first `len` bytes) holds <prefix><name>.so, into
 * `file`; `searched` collects the directories. */
static bool in_dir(const char *dir, size_t len, const char *prefix, const char *name,
                   char *file, size_t file_size, char *searched, size_t searched_size)
{
    int n = snprintf(file, file_size, "%.*s/%s%s.so", (int)len, dir, prefix, name);
    size_t used = strlen(searched);
    snprintf(searched + used, searched_size - used, "%s%.*s", used ? ", " : "", (int)len,
             dir);
    return n >= 0 && (size_t)n < file_size && access(file, F_OK) == 0;
}

bool mortar_plugin_search(const char *prefix, const char *name, const char *installed_dir,
                          char *file, size_t file_size, char *searched, size_t searched_size)
{
    searched[0] = '\0';
    const char *path = getenv("MORTAR_PLUGIN_PATH");
    for (const char *p = path; p && *p;) {
        size_t len = strcspn(p, ":");
        if (len && in_dir(p, len, prefix, name, file, file_size, searched, searched_size))
            return true;
        p += len + (p[len] == ':');
    }
    return installed_dir && *installed_dir &&
           in_dir(installed_dir, strlen(installed_dir), prefix, name, file, file_size,
                  searched, searched_size);
}

