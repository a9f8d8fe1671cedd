/*
 * snapshot_cache.c - the snapshot cache's size limit (see snapshot_cache.h).
 */
#include "snapshot_cache.h"
#include "snapshot_id.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errbuf.h"

#define SUFFIX ".vm"

void snapshot_cache_touch(const char *path)
{
    utimensat(AT_FDCWD, path, NULL, 0); /* best effort: an old mtime only ages it */
}

int snapshot_cache_limit(uint64_t *bytes, char *err, size_t size)
{
    const char *v = getenv("MORTAR_SNAPSHOT_CACHE_MB");
    if (!v || !v[0]) {
        *bytes = (uint64_t)SNAPSHOT_CACHE_DEFAULT_MB << 20;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long mb = strtoull(v, &end, 10);
    if (errno || *end || v[0] == '-' || mb < 1 || mb > (UINT64_MAX >> 20))
        return errbuf_fail(err, size,
                           "MORTAR_SNAPSHOT_CACHE_MB=%s: expected a whole number of MiB >= 1",
                           v);
    *bytes = (uint64_t)mb << 20;
    return 0;
}

typedef struct entry {
    char path[PATH_MAX];
    int64_t used; /* mtime, seconds */
    uint64_t bytes;
} entry;

static bool is_snapshot_name(const char *name)
{
    size_t n = strlen(name), k = strlen(SUFFIX);
    return n > k && !strcmp(name + n - k, SUFFIX) && name[0] != '.';
}

static int newest_first(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    return x->used < y->used ? 1 : x->used > y->used ? -1 : strcmp(x->path, y->path);
}

static bool kept(const char *path, const char *const *keep, size_t nkeep)
{
    for (size_t i = 0; i < nkeep; i++)
        if (keep[i] && !strcmp(keep[i], path))
            return true;
    return false;
}

/* The snapshot files of `dir`; *n of them in a malloc'd array. */
/* The disk space the guest RAM of snapshot `vm` takes (a sparse file:
 * pages the guest never touched take none). */
static uint64_t ram_bytes(const char *vm)
{
    char ram[PATH_MAX];
    struct stat st;
    snapshot_ram_path(vm, ram, sizeof ram);
    return stat(ram, &st) == 0 ? (uint64_t)st.st_blocks * 512 : 0;
}

static entry *list_snapshots(const char *dir, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    size_t cap = 16;
    entry *e = malloc(cap * sizeof *e);
    struct dirent *de;
    *n = 0;
    while (e && (de = readdir(d))) {
        struct stat st;
        if (!is_snapshot_name(de->d_name))
            continue;
        if (*n == cap) {
            entry *bigger = realloc(e, 2 * cap * sizeof *e);
            if (!bigger) {
                free(e);
                e = NULL;
                break;
            }
            e = bigger;
            cap *= 2;
        }
        entry *x = &e[*n];
        snprintf(x->path, sizeof x->path, "%s/%s", dir, de->d_name);
        if (lstat(x->path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        x->used = (int64_t)st.st_mtime;
        x->bytes = (uint64_t)st.st_size + ram_bytes(x->path);
        (*n)++;
    }
    closedir(d);
    return e;
}

int snapshot_cache_prune(const char *dir, uint64_t limit, int64_t now, int64_t grace_s,
                         const char *const *keep, size_t nkeep,
                         snapshot_prune_result *out, char *err, size_t size)
{
    *out = (snapshot_prune_result){0};
    size_t n;
    entry *e = list_snapshots(dir, &n);
    if (!e)
        return errbuf_fail(err, size, "cannot read the snapshot cache %s", dir);
    qsort(e, n, sizeof *e, newest_first);
    for (size_t i = 0; i < n; i++) {
        bool fits = out->kept_bytes + e[i].bytes <= limit;
        bool spared = now - e[i].used < grace_s || kept(e[i].path, keep, nkeep);
        if (!fits && !spared && unlink(e[i].path) == 0) {
            char id[sizeof e[i].path + 16];
            snapshot_id_path(e[i].path, id, sizeof id);
            unlink(id); /* its identity and its RAM go with it */
            snapshot_ram_path(e[i].path, id, sizeof id);
            unlink(id);
            out->removed++;
            out->removed_bytes += e[i].bytes;
            continue;
        }
        out->kept_bytes += e[i].bytes;
    }
    free(e);
    return 0;
}
