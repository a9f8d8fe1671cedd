/*
 * test_run_progress.c - `mortar run`'s progress (cli/run/run_progress.c):
 * the requests done counted from a console as it grows, the ETA from
 * their rate, and the line that shows both.
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

#include "run_progress.h"

static void append(const char *path, const char *text)
{
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_requests_are_counted_as_the_console_grows(void **state)
{
    (void)state;
    char path[] = "/tmp/mortar-run-progress-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    request_counter c = {0};
    assert_int_equal(request_counter_update(&c, path), 0);
    append(path, "[    1.0] boot\nreq=0 latency_ns=100 verified=1\n"
                 "req=0 service_ns=90\nreq=1 latency_ns=1");
    /* the second request's line is still being written */
    assert_int_equal(request_counter_update(&c, path), 1);
    long first = c.offset;
    append(path, "20 verified=1\nreq=2 latency_ns=abc\n");
    assert_int_equal(request_counter_update(&c, path), 2);
    assert_true(c.offset > first);
    /* nothing new: the count holds and nothing is read again */
    long end = c.offset;
    assert_int_equal(request_counter_update(&c, path), 2);
    assert_int_equal(c.offset, end);
    unlink(path);
    assert_int_equal(request_counter_update(&c, path), 2);
}

static void test_the_eta_follows_the_rate_of_requests_done(void **state)
{
    (void)state;
    assert_true(run_eta_s(0, 60, 5) < 0); /* nothing done yet */
    assert_true(run_eta_s(10, 0, 5) < 0); /* how many is unknown */
    assert_float_equal(run_eta_s(20, 60, 10), 20, 1e-9);
    assert_float_equal(run_eta_s(60, 60, 30), 0, 1e-9);
    assert_float_equal(run_eta_s(70, 60, 30), 0, 1e-9);
}

static void
test_without_requests_the_eta_is_the_past_runs_minus_the_time_taken(void **state)
{
    (void)state;
    assert_true(run_eta_past_s(0, 5) < 0); /* no past run */
    assert_float_equal(run_eta_past_s(40, 15), 25, 1e-9);
    assert_float_equal(run_eta_past_s(40, 55), 0, 1e-9);
}

static void test_the_line_says_time_requests_and_eta(void **state)
{
    (void)state;
    char buf[256];
    run_progress_text(buf, sizeof buf, 12, 0.00341, 37, 60, 8.2, 5);
    assert_string_equal(
        buf, "[mortar] run 12: 3.41 ms simulated, 37/60 requests, 8.2 s wall, ETA 5s");
    run_progress_text(buf, sizeof buf, 3, -1, 4, 0, 1.0, -1);
    assert_string_equal(buf, "[mortar] run 3: -- simulated, 4 requests, 1.0 s wall");
    run_progress_text(buf, sizeof buf, 4, 1.65, 0, 5, 2.0, 40);
    assert_string_equal(
        buf, "[mortar] run 4: 1.650 s simulated, 0/5 requests, 2.0 s wall, ETA 40s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_requests_are_counted_as_the_console_grows),
        cmocka_unit_test(test_the_eta_follows_the_rate_of_requests_done),
        cmocka_unit_test(
            test_without_requests_the_eta_is_the_past_runs_minus_the_time_taken),
        cmocka_unit_test(test_the_line_says_time_requests_and_eta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
