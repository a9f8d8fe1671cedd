/*
 * host_tools.c - finds mortar's QEMU build and the guest image (order and
 * rules in host_tools.h).
 *
 * A source tree computes where its builds are: the cache keys hash its
 * files, so only its scripts know them. An installed mortar has no source
 * tree; `cmake --install` ran those scripts once and wrote the keys into
 * <data dir>/cache-keys, and here they are looked up in the cache of the
 * user who runs mortar. Nothing is built then: a missing build is an error
 * that names it and says how to build it.
 */
#include "host_tools.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "paths.h"

#define KEY_MAX 200

typedef struct cache_keys {
    char qemu[KEY_MAX + 1], guest[KEY_MAX + 1];
    char source[PATH_MAX], commit[64];
} cache_keys;

int host_tools_last_line(const char *cmd, char *out, size_t size)
{
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    char line[PATH_MAX];
    out[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0])
            snprintf(out, size, "%s", line);
    }
    return pclose(f) == 0 && out[0] ? 0 : -1;
}

/* ---- from a source tree: its scripts ------------------------------------------ */

static int from_source(host_tools *t, const char *source, host_tools_note *note,
                       char *err, size_t size)
{
    char cmd[PATH_MAX * 2 + 128];
    snprintf(cmd, sizeof cmd, "'%s/hosts/qemu/build.sh' --print-path 2>/dev/null",
             source);
    if (host_tools_last_line(cmd, t->qemu, sizeof t->qemu) || access(t->qemu, X_OK)) {
        if (t->qemu[0])
            snprintf(err, size, "QEMU is not built (%s); run 'make setup' first in %s",
                     t->qemu, source);
        else
            snprintf(err, size,
                     "cannot run %s/hosts/qemu/build.sh (is MORTAR_SOURCE=%s "
                     "a mortar source tree?)",
                     source, source);
        return -1;
    }
    if (note)
        note("guest image (cached after the first build)");
    snprintf(cmd, sizeof cmd,
             "MORTAR_GUEST_BIN=\"${MORTAR_GUEST_BIN:-%s/build/guest-bin}\" "
             "'%s/guest/build-image.sh' 2>/dev/null",
             source, source);
    if (host_tools_last_line(cmd, t->image, sizeof t->image)) {
        snprintf(err, size,
                 "the guest image could not be built (run %s/guest/build-image.sh)",
                 source);
        return -1;
    }
    return 0;
}

/* ---- installed: the keys cmake --install wrote, looked up in the cache -------- */

/* A key is one directory name: [A-Za-z0-9._+~-], at most KEY_MAX of them,
 * not "." or "..". */
static bool key_ok(const char *key)
{
    static const char allowed[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                  "0123456789._+~-";
    size_t len = strlen(key);
    return len > 0 && len <= KEY_MAX && strspn(key, allowed) == len && strcmp(key, ".") &&
           strcmp(key, "..");
}

static int read_keys(const char *path, cache_keys *k, char *err, size_t size)
{
    *k = (cache_keys){0};
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, size, "%s: %s", path, strerror(errno));
        return -1;
    }
    char line[PATH_MAX + 32];
    int lineno = 0, rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        char *value = strchr(line, ' ');
        if (value)
            *value++ = '\0';
        if (value && !strcmp(line, "qemu") && key_ok(value))
            snprintf(k->qemu, sizeof k->qemu, "%s", value);
        else if (value && !strcmp(line, "guest") && key_ok(value))
            snprintf(k->guest, sizeof k->guest, "%s", value);
        else if (value && !strcmp(line, "source"))
            snprintf(k->source, sizeof k->source, "%s", value);
        else if (value && !strcmp(line, "commit"))
            snprintf(k->commit, sizeof k->commit, "%s", value);
        else {
            snprintf(err, size,
                     "%s: line %d is not 'qemu KEY', 'guest KEY', 'source DIR' "
                     "or 'commit HASH'",
                     path, lineno);
            rc = -1;
        }
    }
    fclose(f);
    if (!rc && (!k->qemu[0] || !k->guest[0])) {
        snprintf(err, size, "%s names no %s", path,
                 k->qemu[0] ? "guest image" : "QEMU build");
        rc = -1;
    }
    return rc;
}

/* Says which of the two builds are missing and how to get them. */
static void explain_missing(const cache_keys *k, const char *keys_path, const char *cache,
                            bool qemu_missing, bool image_missing, char *err, size_t size)
{
    char what[2 * PATH_MAX + 1024];
    int n = 0;
    if (qemu_missing)
        n += snprintf(what + n, sizeof what - (size_t)n,
                      "QEMU build %s (no %s/qemu/%s/bin/qemu-system-x86_64)", k->qemu,
                      cache, k->qemu);
    if (image_missing)
        snprintf(what + n, sizeof what - (size_t)n,
                 "%sguest image %s (no %s/guest/%s/initramfs.cpio.gz)",
                 qemu_missing ? " and " : "", k->guest, cache, k->guest);
    snprintf(
        err, size,
        "missing %s. This installed mortar (%s) runs with the QEMU build and guest "
        "image of its source tree%s%s%s%s%s: build them there with 'make setup', as "
        "the user who runs mortar (they are cached in %s), or set MORTAR_SOURCE to a "
        "mortar source tree whose QEMU is built",
        what, keys_path, k->source[0] ? " " : "", k->source,
        k->commit[0] ? " (commit " : "", k->commit, k->commit[0] ? ")" : "", cache);
}

/* Names the image's kernel and initramfs in `t` (the one rule for where
 * they are); true when both are there to read. */
static bool image_files_present(host_tools *t)
{
    snprintf(t->kernel, sizeof t->kernel, "%s/vmlinuz", t->image);
    snprintf(t->initrd, sizeof t->initrd, "%s/initramfs.cpio.gz", t->image);
    return access(t->kernel, R_OK) == 0 && access(t->initrd, R_OK) == 0;
}

static int from_cache(host_tools *t, const char *keys_path, char *err, size_t size)
{
    cache_keys k;
    char cache[PATH_MAX];
    if (read_keys(keys_path, &k, err, size) ||
        paths_cache_dir(cache, sizeof cache, err, size))
        return -1;
    snprintf(t->qemu, sizeof t->qemu, "%s/qemu/%s/bin/qemu-system-x86_64", cache, k.qemu);
    snprintf(t->image, sizeof t->image, "%s/guest/%s", cache, k.guest);
    bool qemu_missing = access(t->qemu, X_OK) != 0;
    bool image_missing = !image_files_present(t);
    if (qemu_missing || image_missing) {
        explain_missing(&k, keys_path, cache, qemu_missing, image_missing, err, size);
        return -1;
    }
    /* "current" names the cache's newest build: record which one it was */
    char real[PATH_MAX];
    if (realpath(t->qemu, real))
        snprintf(t->qemu, sizeof t->qemu, "%s", real);
    if (realpath(t->image, real))
        snprintf(t->image, sizeof t->image, "%s", real);
    return 0;
}

/* ---- named: MORTAR_QEMU and MORTAR_GUEST_IMAGE, as a sweep passes them on --- */

static const char *env_set(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static int from_env(host_tools *t, const char *qemu, const char *image, char *err,
                    size_t size)
{
    if (!qemu || !image) {
        snprintf(err, size, "%s is set but %s is not: set both, or neither",
                 qemu ? HOST_TOOLS_QEMU_ENV : HOST_TOOLS_IMAGE_ENV,
                 qemu ? HOST_TOOLS_IMAGE_ENV : HOST_TOOLS_QEMU_ENV);
        return -1;
    }
    struct stat st;
    if (stat(qemu, &st) != 0 || !S_ISREG(st.st_mode) || access(qemu, X_OK) != 0) {
        snprintf(err, size, "%s=%s: not an executable file", HOST_TOOLS_QEMU_ENV, qemu);
        return -1;
    }
    snprintf(t->qemu, sizeof t->qemu, "%s", qemu);
    snprintf(t->image, sizeof t->image, "%s", image);
    if (!image_files_present(t)) {
        snprintf(err, size, "%s=%s: no guest image there (vmlinuz and initramfs.cpio.gz)",
                 HOST_TOOLS_IMAGE_ENV, image);
        return -1;
    }
    return 0;
}

static int find(host_tools *t, host_tools_note *note, char *err, size_t err_size)
{
    *t = (host_tools){0};
    char source[PATH_MAX], data[PATH_MAX], keys[PATH_MAX + 32];
    char source_err[PATH_MAX + 256], data_err[2 * PATH_MAX + 256];
    const char *qemu = env_set(HOST_TOOLS_QEMU_ENV), *image = env_set(HOST_TOOLS_IMAGE_ENV);
    if (qemu || image)
        return from_env(t, qemu, image, err, err_size);
    if (getenv("MORTAR_SOURCE") && *getenv("MORTAR_SOURCE"))
        return from_source(t, getenv("MORTAR_SOURCE"), note, err, err_size);
    if (paths_data_dir(data, sizeof data, data_err, sizeof data_err) == 0) {
        snprintf(keys, sizeof keys, "%s/%s", data, HOST_TOOLS_KEYS_FILE);
        if (access(keys, F_OK) == 0)
            return from_cache(t, keys, err, err_size);
    }
    if (paths_source_dir(source, sizeof source, source_err, sizeof source_err) == 0)
        return from_source(t, source, note, err, err_size);
    snprintf(err, err_size,
             "cannot find QEMU and the guest image: this mortar is not installed (no "
             "share/mortar/%s beside its bin/) and %s",
             HOST_TOOLS_KEYS_FILE, source_err);
    return -1;
}

int host_tools_find(host_tools *t, host_tools_note *note, char *err, size_t err_size)
{
    if (find(t, note, err, err_size) != 0)
        return -1;
    image_files_present(t); /* names them for the image found, wherever */
    return 0;
}
