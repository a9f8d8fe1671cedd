/*
 * gzip.h - bytes compressed as one gzip member (RFC 1952) with zlib: what
 * `mortar serve` sends to a client that accepts gzip, and the trace exports
 * `mortar report` writes beside the page.
 */
#ifndef MORTAR_CLI_GZIP_H
#define MORTAR_CLI_GZIP_H

#include <stddef.h>

/* `len` bytes at `data` as a gzip member: a new buffer of *out_len bytes
 * that the caller frees, or NULL when memory runs out (or `len` is past
 * what zlib counts, 4 GiB). */
void *gzip_bytes(const void *data, size_t len, size_t *out_len);

#endif
