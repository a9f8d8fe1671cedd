/*
 * test_request_line.c - the per-request lines (cli/spec/request_line.c): a
 * field by its key, and every other numeric field of a line as a named
 * field of the request, whatever its key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>

#include "request_line.h"

static void test_a_field_is_read_by_its_key_and_only_as_a_whole_key(void **state)
{
    (void)state;
    const char *line = "req=7 xlatency_ns=5 latency_ns=2431800 verified=1\n";
    assert_true(request_line_is(line));
    assert_false(request_line_is("MORTAR-TCP-RETRANS 3"));
    int64_t v = 0;
    assert_int_equal(request_line_int(line, "req", &v), REQUEST_FIELD_OK);
    assert_int_equal(v, 7);
    assert_int_equal(request_line_int(line, "latency_ns", &v), REQUEST_FIELD_OK);
    assert_int_equal(v, 2431800);
    assert_int_equal(request_line_int(line, "start_ns", &v), REQUEST_FIELD_ABSENT);
}

/* One strict rule for every number a guest prints: "abc" was 0, "12abc"
 * 12, "1x" a verified request, a 20-digit number INT64_MAX. */
static void test_a_field_is_a_whole_integer_or_malformed(void **state)
{
    (void)state;
    const char *bad[] = {"req=1 latency_ns=abc", "req=1 latency_ns=12abc",
                         "req=1 latency_ns=1x",  "req=1 latency_ns=",
                         "req=1 latency_ns=-",   "req=1 latency_ns=99999999999999999999",
                         "req=1 latency_ns=+5",  "req=1 latency_ns=1.5"};
    int64_t v;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (request_line_int(bad[i], "latency_ns", &v) != REQUEST_FIELD_MALFORMED)
            fail_msg("'%s' was taken as %lld", bad[i], (long long)v);
    assert_int_equal(request_line_int("req=1 latency_ns=-3\n", "latency_ns", &v),
                     REQUEST_FIELD_OK);
    assert_int_equal(v, -3);
    assert_int_equal(request_line_int("req=1 latency_ns=9223372036854775807", "latency_ns", &v),
                     REQUEST_FIELD_OK);
    assert_int_equal(v, INT64_MAX);
}

static void test_every_other_numeric_field_is_a_named_field(void **state)
{
    (void)state;
    json_t *fields = json_object();
    request_line_fields(fields, "req=7 latency_ns=2431800 verified=1 start_ns=17040000"
                                " server_service_ns=2190000 conn=0\n");
    request_line_fields(
        fields, "req=7 service_ns=2190000 device_compute_ns=1920000"
                " product=ok steps=64 Upper=3 half=1x gap=-5 big=99999999999999999999"
                " a-b=2 =4 conn=1\r\n");
    json_t *want =
        json_pack("{s:I, s:i, s:I, s:I, s:i, s:i}", "server_service_ns",
                  (json_int_t)2190000, "conn", 1, "service_ns", (json_int_t)2190000,
                  "device_compute_ns", (json_int_t)1920000, "steps", 64, "gap", -5);
    char *got = json_dumps(fields, JSON_SORT_KEYS);
    if (!json_equal(fields, want))
        fail_msg("fields %s", got);
    free(got);
    json_decref(want);
    json_decref(fields);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_field_is_read_by_its_key_and_only_as_a_whole_key),
        cmocka_unit_test(test_a_field_is_a_whole_integer_or_malformed),
        cmocka_unit_test(test_every_other_numeric_field_is_a_named_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
