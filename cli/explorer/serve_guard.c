/*
 * serve_guard.c - the connections of `mortar serve` that wait for a
 * request's headers, in a list oldest first (serve_guard.h). Every
 * operation is O(1) but the sweep, which stops at the first connection
 * still within its time.
 */
#include "serve_guard.h"

#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>

struct serve_conn {
    int fd;
    double waiting_since_ms;
    bool waiting;
    bool shut;               /* shut down: never waits again */
    serve_conn *prev, *next; /* in the list, while waiting */
};

void serve_guard_init(serve_guard *g, unsigned connection_limit, double headers_ms)
{
    *g = (serve_guard){.headers_ms = headers_ms};
    g->room = connection_limit > 2 * SERVE_GUARD_MARGIN
                  ? connection_limit - SERVE_GUARD_MARGIN
                  : connection_limit / 2;
}

static void start_waiting(serve_guard *g, serve_conn *c, double now_ms)
{
    if (c->waiting || c->shut)
        return;
    c->waiting = true;
    c->waiting_since_ms = now_ms;
    c->prev = g->newest;
    c->next = NULL;
    if (g->newest)
        g->newest->next = c;
    else
        g->oldest = c;
    g->newest = c;
}

static void stop_waiting(serve_guard *g, serve_conn *c)
{
    if (!c->waiting)
        return;
    c->waiting = false;
    if (c->prev)
        c->prev->next = c->next;
    else
        g->oldest = c->next;
    if (c->next)
        c->next->prev = c->prev;
    else
        g->newest = c->prev;
    c->prev = c->next = NULL;
}

/* Ends `c`: out of the list, so that it is shut down once. */
static void shut(serve_guard *g, serve_conn *c)
{
    stop_waiting(g, c);
    c->shut = true;
    shutdown(c->fd, SHUT_RDWR);
}

serve_conn *serve_guard_opened(serve_guard *g, int fd, double now_ms)
{
    serve_conn *c = calloc(1, sizeof *c);
    if (!c) {
        shutdown(fd, SHUT_RDWR);
        return NULL;
    }
    c->fd = fd;
    g->open++;
    if (g->open > g->room && g->oldest)
        shut(g, g->oldest);
    start_waiting(g, c, now_ms);
    return c;
}

void serve_guard_headers_in(serve_guard *g, serve_conn *c)
{
    if (c)
        stop_waiting(g, c);
}

void serve_guard_answered(serve_guard *g, serve_conn *c, double now_ms)
{
    if (c)
        start_waiting(g, c, now_ms);
}

void serve_guard_closed(serve_guard *g, serve_conn *c)
{
    if (!c)
        return;
    stop_waiting(g, c);
    g->open--;
    free(c);
}

void serve_guard_sweep(serve_guard *g, double now_ms)
{
    while (g->oldest && now_ms - g->oldest->waiting_since_ms > g->headers_ms)
        shut(g, g->oldest);
}
