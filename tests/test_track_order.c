/*
 * test_track_order.c - a joined request's tracks along the run's own
 * topology (cli/trace/private/track_order.h): breadth first from the request's
 * host over the spec's links, a host's view of a device between the two,
 * anything else after; no name is known in advance.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "track_order.h"

static char dir[] = "/tmp/mortar-track-order.XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/spec.json", dir);
    unlink(path);
    return rmdir(dir);
}

static void write_spec(const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/spec.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Two hosts, a NIC each, a switch between, a device on the second host;
 * names no study uses. */
#define TOPOLOGY                                                                          \
    "{\"hosts\": [{\"name\": \"far\"}, {\"name\": \"near\"}],"                          \
    " \"components\": [{\"name\": \"dev\"}, {\"name\": \"sw\"}, {\"name\": \"n1\"},"     \
    " {\"name\": \"n2\"}],"                                                                 \
    " \"links\": [{\"host\": \"far\", \"component\": \"dev.0\"},"                           \
    " {\"host\": \"far\", \"component\": \"n2.0\"}, {\"a\": \"n2.1\", \"b\": \"sw.1\"},"     \
    " {\"a\": \"n1.1\", \"b\": \"sw.0\"}, {\"host\": \"near\", \"component\": \"n1.0\"}]}"

static void test_the_path_runs_from_the_requests_host(void **state)
{
    (void)state;
    write_spec(TOPOLOGY);
    track_order o;
    assert_int_equal(track_order_read(&o, dir, "near"), 0);
    const char *path[] = {"near", "n1", "sw", "n2", "far", "dev"};
    assert_int_equal(o.n, 6);
    for (size_t i = 0; i < o.n; i++)
        assert_string_equal(o.path[i], path[i]);
    assert_int_equal(track_order_rank(&o, "near"), 0);
    assert_int_equal(track_order_rank(&o, "near.n1"), 1);  /* between near and n1 */
    assert_int_equal(track_order_rank(&o, "far.n2"), 7);   /* between n2 and far */
    assert_int_equal(track_order_rank(&o, "far.dev"), 9);  /* between far and dev */
    assert_int_equal(track_order_rank(&o, "dev"), 10);
    assert_int_equal(track_order_rank(&o, "other"), 13);   /* after every node */
    assert_int_equal(track_order_rank(&o, "far.other"), 13);
    track_order_free(&o);

    /* from the other host, the other way round */
    assert_int_equal(track_order_read(&o, dir, "far"), 0);
    assert_string_equal(o.path[0], "far");
    assert_string_equal(o.path[1], "dev");
    assert_string_equal(o.path[2], "n2");
    track_order_free(&o);
}

static void test_without_a_spec_nothing_is_on_the_path(void **state)
{
    (void)state;
    write_spec("not json");
    track_order o;
    assert_int_equal(track_order_read(&o, dir, "near"), 0);
    assert_int_equal(o.n, 0);
    assert_int_equal(track_order_rank(&o, "near"), track_order_rank(&o, "dev"));
    track_order_free(&o);
    write_spec(TOPOLOGY);
    assert_int_equal(track_order_read(&o, dir, "nobody"), 0);
    assert_int_equal(o.n, 0);
    track_order_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_path_runs_from_the_requests_host),
        cmocka_unit_test(test_without_a_spec_nothing_is_on_the_path),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
