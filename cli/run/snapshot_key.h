/*
 * snapshot_key.h - the name of a booted-guest snapshot in the cache: a hash
 * of everything that shapes the saved machine (docs/snapshots.md).
 *
 * The caller describes the machine as JSON (plan.c: QEMU's fixed options,
 * memory, icount shift, each device's identity as its model shows it, the
 * kernel command line) and names the files whose contents enter it (QEMU,
 * kernel, initrd, mortar-sim). Per-run values (addresses, the command, the
 * hostname, socket paths) must not be in the description: runs that differ
 * only in them share a snapshot. The key is 32 hex digits: two 64-bit
 * FNV-1a hashes with different offset bases over the description in
 * canonical form (sorted keys, compact) followed by each file's name,
 * contents (8 bytes a step, see snapshot_key.c) and size. A cache key, not
 * a security measure: nobody chooses the inputs to collide.
 */
#ifndef MORTAR_CLI_SNAPSHOT_KEY_H
#define MORTAR_CLI_SNAPSHOT_KEY_H

#include <jansson.h>
#include <stddef.h>

#define SNAPSHOT_KEY_HEX 32

/* Writes the key (SNAPSHOT_KEY_HEX digits and a NUL) for `machine` and the
 * NULL-terminated list of `files` into `key`. Returns 0, or -1 with a
 * message when a file cannot be read. */
int snapshot_key(json_t *machine, const char *const files[], char key[SNAPSHOT_KEY_HEX + 1],
                 char *err, size_t err_size);

#endif
