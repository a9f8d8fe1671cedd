/*
 * test_serve_guard.c - the connections of `mortar serve` that wait for a
 * request's headers (cli/explorer/serve_guard.h): one that does not finish
 * them in time is shut down however it trickles, and near the limit a new
 * connection displaces the one that has waited longest. Connections are
 * socket pairs: the guard shuts one end down, the test reads the other.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve_guard.h"

#define HEADERS_MS 5000.0

typedef struct pair {
    int server, client;
    serve_conn *conn;
} pair;

static void open_pair(serve_guard *g, pair *p, double now_ms)
{
    int fds[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    p->server = fds[0];
    p->client = fds[1];
    fcntl(p->client, F_SETFL, O_NONBLOCK);
    p->conn = serve_guard_opened(g, p->server, now_ms);
    assert_non_null(p->conn);
}

/* Whether the server's end has been shut down: the client reads the end. */
static bool is_shut(const pair *p)
{
    char c;
    ssize_t n = read(p->client, &c, 1);
    assert_true(n == 0 || (n < 0 && errno == EAGAIN));
    return n == 0;
}

static void close_pair(serve_guard *g, pair *p)
{
    serve_guard_closed(g, p->conn);
    close(p->server);
    close(p->client);
}

static void test_shuts_a_connection_whose_headers_are_late(void **state)
{
    (void)state;
    serve_guard g;
    serve_guard_init(&g, 100, HEADERS_MS);
    pair early, late;
    open_pair(&g, &early, 0);
    open_pair(&g, &late, 1000);
    serve_guard_sweep(&g, HEADERS_MS);
    assert_false(is_shut(&early));
    serve_guard_sweep(&g, HEADERS_MS + 1);
    assert_true(is_shut(&early));
    assert_false(is_shut(&late));
    serve_guard_sweep(&g, 1000 + HEADERS_MS + 1);
    assert_true(is_shut(&late));
    close_pair(&g, &early);
    close_pair(&g, &late);
    assert_int_equal(g.open, 0);
}

static void test_headers_in_stop_the_clock_and_an_answer_restarts_it(void **state)
{
    (void)state;
    serve_guard g;
    serve_guard_init(&g, 100, HEADERS_MS);
    pair p;
    open_pair(&g, &p, 0);
    serve_guard_headers_in(&g, p.conn);
    serve_guard_sweep(&g, 60000); /* a page that takes a minute to build */
    assert_false(is_shut(&p));
    serve_guard_answered(&g, p.conn, 60000); /* kept alive for another request */
    serve_guard_sweep(&g, 60000 + HEADERS_MS);
    assert_false(is_shut(&p));
    serve_guard_sweep(&g, 60000 + HEADERS_MS + 1);
    assert_true(is_shut(&p));
    close_pair(&g, &p);
}

static void
test_near_the_limit_a_new_connection_displaces_the_longest_waiting(void **state)
{
    (void)state;
    serve_guard g;
    serve_guard_init(&g, 6, HEADERS_MS); /* room for 3 */
    assert_int_equal(g.room, 3);
    pair p[5];
    open_pair(&g, &p[0], 0);
    open_pair(&g, &p[1], 1);
    open_pair(&g, &p[2], 2);
    serve_guard_headers_in(&g, p[0].conn); /* being answered: not displaced */
    open_pair(&g, &p[3], 3);
    assert_false(is_shut(&p[0]));
    assert_true(is_shut(&p[1]));
    assert_false(is_shut(&p[2]));
    assert_false(is_shut(&p[3]));
    /* p[1] is shut but not closed yet: the next one displaces p[2]. */
    open_pair(&g, &p[4], 4);
    assert_true(is_shut(&p[2]));
    assert_false(is_shut(&p[3]));
    assert_false(is_shut(&p[4]));
    /* Once shut, never again in the list, even after an answer. */
    serve_guard_answered(&g, p[1].conn, 5);
    assert_ptr_equal(g.oldest, p[3].conn);
    for (int i = 0; i < 5; i++)
        close_pair(&g, &p[i]);
    assert_int_equal(g.open, 0);
    assert_null(g.oldest);
    assert_null(g.newest);
}

static void test_room_keeps_a_margin_below_the_limit(void **state)
{
    (void)state;
    serve_guard g;
    serve_guard_init(&g, 4000, HEADERS_MS);
    assert_int_equal(g.room, 4000 - SERVE_GUARD_MARGIN);
    serve_guard_init(&g, 40, HEADERS_MS);
    assert_int_equal(g.room, 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shuts_a_connection_whose_headers_are_late),
        cmocka_unit_test(test_headers_in_stop_the_clock_and_an_answer_restarts_it),
        cmocka_unit_test(
            test_near_the_limit_a_new_connection_displaces_the_longest_waiting),
        cmocka_unit_test(test_room_keeps_a_margin_below_the_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
