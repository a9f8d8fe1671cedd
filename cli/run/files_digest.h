/*
 * files_digest.h - the digest of the files every booted-guest snapshot of a
 * run depends on (QEMU, kernel, initrd, mortar-sim: about 40 MB), hashed
 * once per change of them instead of once per run.
 *
 * Hashing them took a run 15-20 ms of CPU, in every run of a sweep. The
 * digest (snapshot_key() over the files alone) is kept in
 * `cache_dir`/files.key with the files' stat signature: each file's path,
 * device, inode, size, and modification and change times to the
 * nanosecond. A run whose files show the same signature takes the digest
 * from there. A write to a file moves its change time, which no program
 * can set back, so the next run hashes them again and replaces the entry
 * (a temporary file renamed over it: a reader sees the old entry or the
 * new one).
 */
#ifndef MORTAR_CLI_FILES_DIGEST_H
#define MORTAR_CLI_FILES_DIGEST_H

#include <stddef.h>

#include "snapshot_key.h"

/* The digest of the NULL-terminated `files` into `key`, remembered in
 * `cache_dir` (NULL: not remembered; an entry that cannot be written is
 * only a lost saving). Returns 0, or -1 with a message when a file cannot
 * be read. */
int files_digest(const char *const files[], const char *cache_dir,
                 char key[SNAPSHOT_KEY_HEX + 1], char *err, size_t err_size);

#endif
