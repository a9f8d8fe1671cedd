/*
 * serve_guard.h - how `mortar serve` keeps clients that never finish a
 * request from locking the others out.
 *
 * libmicrohttpd's connection timeout counts from a connection's last byte,
 * so a client that trickles a header byte a second holds its connection for
 * as long as it likes, and a few thousand such clients hold every
 * connection the server has. A limit per client address would not help:
 * the server listens on 127.0.0.1, so every client, the browser and the
 * one trickling alike, comes from 127.0.0.1. The guard instead follows each
 * connection while it waits for a request's headers (from when it opens,
 * and again after each answer, as it may send another request) and
 *   - closes it when the headers are not all in within `headers_ms`,
 *     however it trickles (serve_guard_sweep, called a few times a second);
 *   - when the server is near its connection limit, closes the connection
 *     that has waited longest, so that a new one has room: a client that
 *     sends its request at once (a browser) is served, however many
 *     connections others hold open.
 * A connection is closed with shutdown(2): the server sees its stream end
 * and closes it as it does any other, so the descriptor stays the server's
 * until then. All calls come from the server's one polling thread.
 */
#ifndef MORTAR_CLI_SERVE_GUARD_H
#define MORTAR_CLI_SERVE_GUARD_H

/* What a new connection keeps free below the server's connection limit
 * while the connections it displaces are being closed: more than
 * libmicrohttpd accepts in one turn of its loop (10). */
#define SERVE_GUARD_MARGIN 32

typedef struct serve_conn serve_conn; /* one connection, as the guard sees it */

typedef struct serve_guard {
    serve_conn *oldest, *newest; /* those waiting for headers, oldest first */
    unsigned open;               /* connections open */
    unsigned room;     /* past this many, a new one displaces the oldest waiting */
    double headers_ms; /* how long a request's headers may take */
} serve_guard;

/* A guard for a server that holds at most `connection_limit` connections. */
void serve_guard_init(serve_guard *g, unsigned connection_limit, double headers_ms);

/* Connection `fd` has opened at `now_ms`: it waits for its request, and
 * may displace the oldest waiting one. Returns what the other calls take
 * (owned by the guard until serve_guard_closed), or NULL when out of
 * memory: the connection is then shut down. */
serve_conn *serve_guard_opened(serve_guard *g, int fd, double now_ms);

/* The headers of `c`'s request are all in: it no longer waits. */
void serve_guard_headers_in(serve_guard *g, serve_conn *c);

/* `c`'s request has been answered at `now_ms`: it waits for the next. */
void serve_guard_answered(serve_guard *g, serve_conn *c, double now_ms);

/* `c` has closed; frees it. */
void serve_guard_closed(serve_guard *g, serve_conn *c);

/* Shuts down every connection that has waited for its headers longer than
 * `headers_ms` at `now_ms`. */
void serve_guard_sweep(serve_guard *g, double now_ms);

#endif
