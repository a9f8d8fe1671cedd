/*
 * snapshot_id.h - the identity of a booted-guest snapshot (docs/snapshots.md,
 * "Identity").
 *
 * The QEMU that builds a snapshot writes, beside the file, a SHA-256 of the
 * machine it saved (its RAM, instruction count and virtual clock), 64 hex
 * digits and a newline, in `<snapshot>.sha256`. The cache keeps it as
 * `<key>.sha256` beside `<key>.vm`, and every run records the identity of
 * each snapshot it started from: two runs with the same identities started
 * from the same machines, wherever the snapshots were built.
 */
#ifndef MORTAR_CLI_SNAPSHOT_ID_H
#define MORTAR_CLI_SNAPSHOT_ID_H

#include <stddef.h>

#define SNAPSHOT_ID_HEX 64

/* The identity file of the cached snapshot `vm` (`<key>.vm`): `<key>.sha256`. */
void snapshot_id_path(const char *vm, char *out, size_t size);

/* The guest RAM of the cached snapshot `vm` (`<key>.vm` holds the rest of
 * the machine): `<key>.ram`, mapped copy-on-write by every run that
 * restores it (docs/snapshots.md, "The guest's RAM"). */
void snapshot_ram_path(const char *vm, char *out, size_t size);

/* Reads the identity file `path`: exactly SNAPSHOT_ID_HEX lowercase hex
 * digits and a newline. Returns 0, or -1 when it is missing or malformed. */
int snapshot_id_read(const char *path, char id[SNAPSHOT_ID_HEX + 1]);

/* The identity of the cached snapshot `vm` (`<key>.vm`), as
 * snapshot_id_read. */
int snapshot_id_of(const char *vm, char id[SNAPSHOT_ID_HEX + 1]);

#endif
