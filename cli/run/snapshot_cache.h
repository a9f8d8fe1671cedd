/*
 * snapshot_cache.h - keeping the booted-guest snapshot cache bounded
 * (docs/snapshots.md, "The cache and its key").
 *
 * Every change to QEMU, the guest image or a device's identity makes new
 * snapshot keys, and the old snapshots (about 90 MB each) are never used
 * again. A run marks each snapshot it starts from as used (its mtime); after
 * building new snapshots, the least recently used ones beyond the size limit
 * are removed, except any used within the last hour (a run of a parallel
 * sweep may be about to start from it) and the ones the caller names.
 */
#ifndef MORTAR_CLI_SNAPSHOT_CACHE_H
#define MORTAR_CLI_SNAPSHOT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define SNAPSHOT_CACHE_DEFAULT_MB 4096
#define SNAPSHOT_CACHE_GRACE_S    3600

/* Marks the snapshot at `path` as used now. */
void snapshot_cache_touch(const char *path);

/* The size limit: MORTAR_SNAPSHOT_CACHE_MB (a whole number of MiB, at
 * least 1), else the default. Returns 0, or -1 with a message in `err` when
 * the variable is malformed. */
int snapshot_cache_limit(uint64_t *bytes, char *err, size_t size);

typedef struct snapshot_prune_result {
    unsigned removed;
    uint64_t removed_bytes, kept_bytes;
} snapshot_prune_result;

/* Removes the least recently used `<key>.vm` files of `dir` until the rest
 * fit in `limit` bytes, sparing those used within `grace_s` seconds of `now`
 * and the `nkeep` paths of `keep`. Returns 0, or -1 with a message in
 * `err` when the directory cannot be read. */
int snapshot_cache_prune(const char *dir, uint64_t limit, int64_t now, int64_t grace_s,
                         const char *const *keep, size_t nkeep,
                         snapshot_prune_result *out, char *err, size_t size);

#endif
