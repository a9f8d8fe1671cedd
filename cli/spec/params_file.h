/*
 * params_file.h - a host's per-run parameters as the file its guest reads
 * after the snapshot point (QEMU's fw_cfg entry opt/mortar/params, read by
 * guest/programs/params.c; docs/snapshots.md).
 *
 * One "mortar.KEY=VALUE" a line: hostname, ip and mtu when the spec sets
 * them, and the command as run64 (base64: any quoting, any length; the
 * kernel command line limited it to about 1.4 KB before). guest/init
 * exports each as MORTAR_KEY to the command, as before.
 */
#ifndef MORTAR_CLI_PARAMS_FILE_H
#define MORTAR_CLI_PARAMS_FILE_H

#include <jansson.h>
#include <stddef.h>

/* Writes the parameters of `host` (a resolved spec's host object, named
 * `name`) into `path`, a file that must not exist yet. Returns 0, or -1 with
 * a message (a value holding a line break, a file that exists). */
int params_file_write(const char *path, const char *name, json_t *host, char *err,
                      size_t err_size);

/* Base64 of `in` (standard alphabet, '=' padding) into `out`; returns the
 * text's length, or -1 when `out` (size bytes) is too small. */
long params_base64(const char *in, size_t in_size, char *out, size_t size);

#endif
