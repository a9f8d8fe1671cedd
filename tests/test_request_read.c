/*
 * test_request_read.c - a run's per-request results from its hosts'
 * consoles (cli/run/request_read.c): the measuring host's lines make the
 * requests, the others add fields; whatever breaks the contract fails with
 * the host, the line and the field named, and no line is cut in two.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "request_read.h"

#define MAX 8

typedef struct fixture {
    char dir[64], client[128], server[128];
    db_request reqs[MAX];
    size_t n;
    char err[512];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/mortar-reqread-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->client, sizeof f->client, "%s/client.console.log", f->dir);
    snprintf(f->server, sizeof f->server, "%s/server.console.log", f->dir);
    *state = f;
    return 0;
}

static void free_fields(fixture *f)
{
    for (size_t i = 0; i < f->n; i++)
        json_decref(f->reqs[i].fields);
    f->n = 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    free_fields(f);
    unlink(f->client);
    unlink(f->server);
    rmdir(f->dir);
    free(f);
    return 0;
}

static void write_file(const char *path, const char *text)
{
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fputs(text, out);
    fclose(out);
}

/* Reads the two consoles (the client measures). */
static int read_both(fixture *f, const char *client, const char *server)
{
    free_fields(f);
    write_file(f->client, client);
    write_file(f->server, server);
    request_source src[] = {{"server", f->server}, {"client", f->client}};
    f->err[0] = '\0';
    return request_read(src, 2, "client", f->reqs, MAX, &f->n, f->err, sizeof f->err);
}

static void test_requests_and_their_fields_from_every_host(void **state)
{
    fixture *f = *state;
    assert_int_equal(read_both(f,
                               "boot noise\nreq=0 latency_ns=2000 verified=1 start_ns=5 conn=0\n"
                               "req=1 latency_ns=3000 verified=0\nreq=1 extra_ns=4\n",
                               "req=0 service_ns=1500\nreq=9 service_ns=1\n"),
                     0);
    assert_int_equal(f->n, 2);
    assert_int_equal(f->reqs[0].idx, 0);
    assert_int_equal(f->reqs[0].latency_ns, 2000);
    assert_int_equal(f->reqs[0].verified, 1);
    assert_int_equal(f->reqs[0].start_ns, 5);
    assert_int_equal(json_integer_value(json_object_get(f->reqs[0].fields, "service_ns")),
                     1500);
    assert_int_equal(f->reqs[1].verified, 0);
    assert_int_equal(f->reqs[1].start_ns, -1);
    assert_int_equal(json_integer_value(json_object_get(f->reqs[1].fields, "extra_ns")), 4);
}

static void test_a_malformed_contract_field_fails_naming_host_line_and_field(void **state)
{
    fixture *f = *state;
    struct {
        const char *client, *expected;
    } cases[] = {
        {"req=0 latency_ns=abc verified=1\n", "host client: line 1: latency_ns=abc is not a whole number"},
        {"x\nreq=0 latency_ns=12abc\n", "host client: line 2: latency_ns=12abc is not a whole number"},
        {"req=0 latency_ns=5 verified=1x\n", "verified=1x is not a whole number"},
        {"req=0 latency_ns=5 verified=2\n", "verified=2 is not in range"},
        {"req=abc latency_ns=5\n", "req=abc is not a whole number"},
        {"req=0 latency_ns=99999999999999999999\n", "is not a whole number"},
        {"req=0 latency_ns=-7\n", "latency_ns=-7 is not in range"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(read_both(f, cases[i].client, ""), -1);
        if (!strstr(f->err, cases[i].expected))
            fail_msg("%s: '%s' does not say '%s'", cases[i].client, f->err, cases[i].expected);
    }
    assert_int_equal(read_both(f, "", "req=x service_ns=1\n"), -1);
    assert_non_null(strstr(f->err, "host server: line 1: req=x is not a whole number"));
}

static void test_a_request_reported_twice_fails(void **state)
{
    fixture *f = *state;
    assert_int_equal(read_both(f, "req=3 latency_ns=1\nreq=4 latency_ns=1\nreq=3 latency_ns=2\n",
                               ""),
                     -1);
    assert_non_null(strstr(f->err, "host client: line 3: request 3 is reported twice"));
    assert_int_equal(f->n, 2);
}

static void test_more_requests_than_room_fails_instead_of_dropping_them(void **state)
{
    fixture *f = *state;
    char text[1024] = "";
    for (int i = 0; i <= MAX; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "req=%d latency_ns=1\n", i);
    assert_int_equal(read_both(f, text, ""), -1);
    assert_non_null(strstr(f->err, "line 9: more than 8 requests"));
}

/* Found by fuzz/fuzz_request.c: the run's throughput adds a request's start
 * and latency, and a sum past INT64_MAX was undefined. */
static void test_a_request_ending_past_the_largest_time_fails(void **state)
{
    fixture *f = *state;
    assert_int_equal(read_both(f,
                               "req=1 latency_ns=100 start_ns=9223372036854775807\n", ""),
                     -1);
    assert_non_null(strstr(f->err, "host client: line 1: start_ns=9223372036854775807 plus "
                                   "latency_ns=100 is past the largest time"));
    assert_int_equal(read_both(f, "req=1 latency_ns=9223372036854775800 start_ns=7\n", ""), 0);
}

static void test_a_long_line_is_one_line(void **state)
{
    fixture *f = *state;
    /* a 5,000-character line whose tail looks like a request: once read
     * as a second line, now part of the first */
    static char text[6000];
    memset(text, 'x', 4095);
    strcpy(text + 4095, "req=5 latency_ns=1\nreq=6 latency_ns=2\n");
    assert_int_equal(read_both(f, text, ""), 0);
    assert_int_equal(f->n, 1);
    assert_int_equal(f->reqs[0].idx, 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_requests_and_their_fields_from_every_host, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_a_malformed_contract_field_fails_naming_host_line_and_field, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_request_reported_twice_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_more_requests_than_room_fails_instead_of_dropping_them, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_request_ending_past_the_largest_time_fails,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_long_line_is_one_line, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
