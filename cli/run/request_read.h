/*
 * request_read.h - a run's per-request results, read from its hosts'
 * consoles by the contract of request_line.h: the measuring host's lines
 * with a `latency_ns` make the requests, every other request line (of any
 * host) adds its numeric fields to the request of its id.
 *
 * A guest's output is outside text: whatever breaks the contract fails the
 * read, naming the host, the line and the field, instead of becoming a
 * number nobody meant (`latency_ns=abc` as 0, `12abc` as 12, `verified=1x`
 * as verified):
 *   - a contract field whose value is not a whole integer, or out of its
 *     range (req, latency_ns and start_ns >= 0, verified 0 or 1), or a
 *     request that would end past the largest time (start_ns + latency_ns);
 *   - a request reported twice by the measuring host;
 *   - more requests than the caller has room for.
 * Lines are read whole, however long.
 */
#ifndef MORTAR_CLI_REQUEST_READ_H
#define MORTAR_CLI_REQUEST_READ_H

#include <stddef.h>

#include "db.h"

/* A host of the run and the file its console went to. */
typedef struct request_source {
    const char *host;
    const char *console;
} request_source;

/*
 * Reads the requests of `hosts` (`measure`: the measuring host's name)
 * into reqs[0 .. max), their count in *n; each request's `fields` is a new
 * JSON object (the caller's to free). Returns 0, or -1 with the reason in
 * `err` ("host client: line 12: latency_ns=abc is not a whole number") and
 * the requests read before it in reqs. A console that does not exist holds
 * no requests.
 */
int request_read(const request_source *hosts, size_t nhosts, const char *measure,
                 db_request *reqs, size_t max, size_t *n, char *err, size_t size);

#endif
