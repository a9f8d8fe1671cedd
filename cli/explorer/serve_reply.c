/*
 * serve_reply.c - compression and revalidation of `mortar serve`'s answers
 * (see serve_reply.h).
 */
#include "serve_reply.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* FNV-1a, 64 bits: an ETag only has to change when the bytes do. */
void serve_reply_etag(const void *body, size_t len, char etag[SERVE_REPLY_ETAG_SIZE])
{
    const unsigned char *b = body;
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 0x100000001b3u;
    snprintf(etag, SERVE_REPLY_ETAG_SIZE, "\"%016llx\"", (unsigned long long)h);
}

/* The next comma-separated item of a header at *p, trimmed, into `item`;
 * false at the end. */
static bool next_item(const char **p, char *item, size_t size)
{
    const char *s = *p + strspn(*p, " \t,");
    if (!*s)
        return false;
    size_t n = strcspn(s, ",");
    *p = s + n;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    snprintf(item, size, "%.*s", (int)n, s);
    return true;
}

bool serve_reply_not_modified(const char *if_none_match, const char *etag)
{
    char item[128];
    for (const char *p = if_none_match; p && next_item(&p, item, sizeof item);) {
        const char *tag = strncmp(item, "W/", 2) ? item : item + 2;
        if (!strcmp(tag, "*") || !strcmp(tag, etag))
            return true;
    }
    return false;
}

/* Whether a coding's parameters ("; q=0.5") leave it accepted. */
static bool quality_nonzero(const char *params)
{
    const char *q = strstr(params, "q=");
    return !q || strtod(q + 2, NULL) > 0;
}

bool serve_reply_accepts_gzip(const char *accept_encoding)
{
    char item[128];
    for (const char *p = accept_encoding; p && next_item(&p, item, sizeof item);) {
        size_t name = strcspn(item, "; \t");
        if ((name == 4 && !strncasecmp(item, "gzip", 4)) || (name == 1 && item[0] == '*'))
            return quality_nonzero(item + name);
    }
    return false;
}
