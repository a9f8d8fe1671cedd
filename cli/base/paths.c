/*
 * paths.c - where the `mortar` command finds its parts (paths.h has the
 * order: environment, install layout, source tree).
 *
 * The install layout is relative to the binary, so an installed tree can be
 * moved as a whole: <prefix>/bin/mortar finds <prefix>/share/mortar through
 * MORTAR_DATADIR_FROM_BINDIR, the data dir relative to the bin dir that
 * CMake computed from GNUInstallDirs ("../share/mortar" by default). The
 * build tree keeps the default shape (build/bin, build/share/mortar), so it
 * is the second place looked at.
 */
#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errbuf.h"

#ifndef MORTAR_DATADIR_FROM_BINDIR
#define MORTAR_DATADIR_FROM_BINDIR "../share/mortar"
#endif
#define BUILD_DATADIR_FROM_BINDIR "../share/mortar"

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* `path`, made canonical when it exists (so messages and records show
 * <prefix>/share/mortar, not <prefix>/bin/../share/mortar). */
static void set_path(char *out, size_t size, const char *path)
{
    char real[PATH_MAX];
    snprintf(out, size, "%s", realpath(path, real) ? real : path);
}

/* The value of environment variable `name`, or NULL when unset or empty. */
static const char *env_value(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

int paths_exe_dir(char *out, size_t size, char *err, size_t err_size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(err, err_size, "cannot find the mortar binary's directory: %s",
                 strerror(errno));
        return -1;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(out, size, "%s", exe);
    return 0;
}

int paths_data_dir(char *out, size_t size, char *err, size_t err_size)
{
    const char *env = env_value("MORTAR_DATA");
    if (env) {
        if (!is_dir(env)) {
            snprintf(err, err_size, "MORTAR_DATA=%s is not a directory", env);
            return -1;
        }
        set_path(out, size, env);
        return 0;
    }
    char bin[PATH_MAX], installed[PATH_MAX + 64], built[PATH_MAX + 64];
    if (paths_exe_dir(bin, sizeof bin, err, err_size))
        return -1;
    snprintf(installed, sizeof installed, "%s/%s", bin, MORTAR_DATADIR_FROM_BINDIR);
    snprintf(built, sizeof built, "%s/%s", bin, BUILD_DATADIR_FROM_BINDIR);
    const char *found = is_dir(installed) ? installed : is_dir(built) ? built : NULL;
    if (!found) {
        snprintf(err, err_size,
                 "no mortar data directory: no %s (installed) nor %s (build tree); "
                 "set MORTAR_DATA to one",
                 installed, built);
        return -1;
    }
    set_path(out, size, found);
    return 0;
}

int paths_web_dir(char *out, size_t size, char *err, size_t err_size)
{
    const char *env = env_value("MORTAR_WEB_DIR");
    if (env) {
        snprintf(out, size, "%s", env);
        return 0;
    }
    char data[PATH_MAX];
    if (paths_data_dir(data, sizeof data, err, err_size))
        return -1;
    snprintf(out, size, "%s/web", data);
    return 0;
}

int paths_program(const char *name, char *out, size_t size, char *err, size_t err_size)
{
    char dir[PATH_MAX], path[2 * PATH_MAX];
    if (strchr(name, '/')) {
        snprintf(out, size, "%s", name);
        return is_executable(name) ? 0 : errbuf_fail(err, err_size, "%s is not a program", name);
    }
    const char *env = env_value("MORTAR_BIN");
    char why[256];
    const char *dirs[2] = {env, paths_exe_dir(dir, sizeof dir, why, sizeof why) ? NULL : dir};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dirs[i] ? dirs[i] : "", name);
        if (dirs[i] && is_executable(path)) {
            snprintf(out, size, "%s", path);
            return 0;
        }
    }
    const char *search = getenv("PATH");
    for (const char *p = search; p && *p;) {
        size_t n = strcspn(p, ":");
        snprintf(path, sizeof path, "%.*s/%s", (int)n, n ? p : ".", name);
        if (is_executable(path)) {
            snprintf(out, size, "%s", path);
            return 0;
        }
        p += n + (p[n] == ':');
    }
    return errbuf_fail(err, err_size,
                       "%s not found: not in MORTAR_BIN, next to mortar or on PATH", name);
}

int paths_sim_bin(char *out, size_t size, char *err, size_t err_size)
{
    const char *env = env_value("MORTAR_BIN");
    char bin[PATH_MAX], beside[PATH_MAX + 16];
    if (env) {
        snprintf(beside, sizeof beside, "%s/mortar-sim", env);
        if (!is_executable(beside)) {
            snprintf(err, err_size, "no mortar-sim in MORTAR_BIN=%s", env);
            return -1;
        }
        snprintf(out, size, "%s", beside);
        return 0;
    }
    if (paths_exe_dir(bin, sizeof bin, err, err_size))
        return -1;
    snprintf(beside, sizeof beside, "%s/mortar-sim", bin);
    if (is_executable(beside)) {
        snprintf(out, size, "%s", beside);
        return 0;
    }
    char source[PATH_MAX], built[PATH_MAX + 32], source_err[2 * PATH_MAX + 128];
    if (paths_source_dir(source, sizeof source, source_err, sizeof source_err) == 0) {
        snprintf(built, sizeof built, "%s/build/bin/mortar-sim", source);
        if (is_executable(built)) {
            snprintf(out, size, "%s", built);
            return 0;
        }
    }
    snprintf(err, err_size,
             "mortar-sim not found: no %s (installed or built next to mortar); "
             "set MORTAR_BIN to its directory",
             beside);
    return -1;
}

int paths_source_dir(char *out, size_t size, char *err, size_t err_size)
{
    const char *env = env_value("MORTAR_SOURCE");
    if (env) {
        snprintf(out, size, "%s", env);
        return 0;
    }
    char bin[PATH_MAX], source[PATH_MAX + 8], script[PATH_MAX + 64];
    if (paths_exe_dir(bin, sizeof bin, err, err_size))
        return -1;
    /* <source>/build/bin/mortar: the source tree is two levels above bin/ */
    snprintf(source, sizeof source, "%s/../..", bin);
    snprintf(script, sizeof script, "%s/hosts/qemu/build.sh", source);
    if (access(script, R_OK) != 0) {
        snprintf(err, err_size,
                 "no mortar source tree above %s (no %s); set MORTAR_SOURCE", bin,
                 script);
        return -1;
    }
    set_path(out, size, source);
    return 0;
}

int paths_cache_dir(char *out, size_t size, char *err, size_t err_size)
{
    const char *cache = env_value("MORTAR_CACHE");
    const char *xdg = env_value("XDG_CACHE_HOME");
    const char *home = env_value("HOME");
    if (cache)
        snprintf(out, size, "%s", cache);
    else if (xdg)
        snprintf(out, size, "%s/mortar", xdg);
    else if (home)
        snprintf(out, size, "%s/.cache/mortar", home);
    else {
        snprintf(err, err_size,
                 "no cache directory: none of MORTAR_CACHE, XDG_CACHE_HOME, HOME is set");
        return -1;
    }
    return 0;
}
