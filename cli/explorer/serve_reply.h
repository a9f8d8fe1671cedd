/*
 * serve_reply.h - how `mortar serve` sends a successful answer: compressed
 * when the client accepts gzip, and revalidated rather than cached blindly.
 *
 * Every answer is built afresh from the database, which a sweep may change
 * at any moment, so a client may keep an answer but must ask again before
 * using it ("Cache-Control: no-cache"); the answer's ETag is a hash of its
 * uncompressed bytes, so a client whose copy is still current gets 304 and
 * no body. Error answers are not cached at all ("no-store", serve.c).
 */
#ifndef MORTAR_CLI_SERVE_REPLY_H
#define MORTAR_CLI_SERVE_REPLY_H

#include <stdbool.h>
#include <stddef.h>

/* "Cache-Control" of a successful answer. */
#define SERVE_REPLY_CACHE_CONTROL "no-cache"

/* An ETag: a quoted hex hash and its NUL. */
#define SERVE_REPLY_ETAG_SIZE 20

/* The ETag of an answer of `len` bytes at `body`: "\"<16 hex digits>\"",
 * the same for the same bytes. */
void serve_reply_etag(const void *body, size_t len, char etag[SERVE_REPLY_ETAG_SIZE]);

/* Whether an If-None-Match header (NULL: none) names `etag`: one of its
 * comma-separated entity tags equals it (a weak "W/" tag compares by its
 * value, as RFC 9110 says for If-None-Match), or it is "*". */
bool serve_reply_not_modified(const char *if_none_match, const char *etag);

/* Whether an Accept-Encoding header (NULL: none) accepts gzip: it lists
 * "gzip" (or "*") without "q=0". */
bool serve_reply_accepts_gzip(const char *accept_encoding);


#endif
