/*
 * mortar_snapshot_digest.h - the identity of a booted-guest snapshot
 * (docs/snapshots.md).
 */
#ifndef MORTAR_SNAPSHOT_DIGEST_H
#define MORTAR_SNAPSHOT_DIGEST_H

/* Writes to `path` the SHA-256 of the stopped machine's state (its RAM,
 * instruction count and virtual clock) as 64 hex digits and a newline.
 * Main loop, VM stopped. */
bool mortar_snapshot_write_digest(const char *path, Error **errp);

#endif
