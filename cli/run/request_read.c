/*
 * request_read.c - a run's per-request results from its hosts' consoles
 * (see request_read.h): the measuring host first, then the others.
 */
#include "request_read.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "request_line.h"

typedef struct reader {
    const request_source *src;
    size_t lineno;
    db_request *reqs;
    size_t max, *n;
    char *err;
    size_t size;
} reader;

static db_request *find_req(const reader *r, int64_t idx)
{
    for (size_t i = 0; i < *r->n; i++)
        if (r->reqs[i].idx == idx)
            return &r->reqs[i];
    return NULL;
}

/* Field `key` of `line` into *v: absent gives `absent`; a malformed value
 * or one outside [lo, hi] is an error naming it. */
static int field(reader *r, const char *line, const char *key, int64_t absent, int64_t lo,
                 int64_t hi, int64_t *v)
{
    int got = request_line_int(line, key, v);
    if (got == REQUEST_FIELD_ABSENT) {
        *v = absent;
        return 0;
    }
    if (got == REQUEST_FIELD_OK && *v >= lo && *v <= hi)
        return 0;
    const char *at = strstr(line, key);
    int len = at ? (int)strcspn(at, " \t\r\n") : 0;
    return errbuf_fail(r->err, r->size, "host %s: line %zu: %.*s is not %s", r->src->host,
                       r->lineno, len > 80 ? 80 : len, at ? at : key,
                       got == REQUEST_FIELD_OK ? "in range" : "a whole number");
}

/* A line of the measuring host with a latency: a new request. */
static int new_request(reader *r, const char *line, int64_t idx)
{
    int64_t latency, verified, start;
    if (field(r, line, REQUEST_KEY_VALUE, -1, 0, INT64_MAX, &latency) ||
        field(r, line, REQUEST_KEY_VERIFIED, 0, 0, 1, &verified) ||
        field(r, line, REQUEST_KEY_START, -1, 0, INT64_MAX, &start))
        return -1;
    if (start >= 0 && latency > INT64_MAX - start)
        return errbuf_fail(
            r->err, r->size,
            "host %s: line %zu: start_ns=%lld plus latency_ns=%lld is past the "
            "largest time",
            r->src->host, r->lineno, (long long)start, (long long)latency);
    if (find_req(r, idx))
        return errbuf_fail(r->err, r->size, "host %s: line %zu: request %lld is reported twice",
                           r->src->host, r->lineno, (long long)idx);
    if (*r->n == r->max)
        return errbuf_fail(r->err, r->size,
                           "host %s: line %zu: more than %zu requests (a run records at most "
                           "that many)",
                           r->src->host, r->lineno, r->max);
    db_request *q = &r->reqs[(*r->n)++];
    *q = (db_request){.idx = idx, .latency_ns = latency, .verified = (int)verified,
                      .start_ns = start, .fields = json_object()};
    request_line_fields(q->fields, line);
    return 0;
}

static int one_line(reader *r, const char *line, bool measuring)
{
    if (!request_line_is(line))
        return 0;
    int64_t idx, latency;
    if (field(r, line, REQUEST_KEY_ID, -1, 0, INT64_MAX, &idx))
        return -1;
    if (measuring && request_line_int(line, REQUEST_KEY_VALUE, &latency) != REQUEST_FIELD_ABSENT)
        return new_request(r, line, idx);
    db_request *q = find_req(r, idx);
    if (q)
        request_line_fields(q->fields, line);
    return 0;
}

static int read_console(reader *r, bool measuring)
{
    FILE *f = fopen(r->src->console, "r");
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    r->lineno = 0;
    while (!rc && getline(&line, &cap, f) >= 0) {
        r->lineno++;
        rc = one_line(r, line, measuring);
    }
    free(line);
    fclose(f);
    return rc;
}

int request_read(const request_source *hosts, size_t nhosts, const char *measure,
                 db_request *reqs, size_t max, size_t *n, char *err, size_t size)
{
    reader r = {.reqs = reqs, .max = max, .n = n, .err = err, .size = size};
    *n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < nhosts; i++) {
            bool measuring = measure && !strcmp(hosts[i].host, measure);
            if (measuring != (pass == 0))
                continue;
            r.src = &hosts[i];
            if (read_console(&r, measuring))
                return -1;
        }
    return 0;
}
