/*
 * test_serve_host.c - which Host headers `mortar serve` answers to
 * (cli/explorer/serve_host.h): its own address with its port, the names
 * given with --allow-host, and nothing else (421, DNS rebinding).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "serve_host.h"

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

static void test_reads_name_and_port_lower_cased(void **state)
{
    (void)state;
    serve_host h;
    assert_int_equal(serve_host_parse("LocalHost:8080", &h), 0);
    assert_string_equal(h.name, "localhost");
    assert_int_equal(h.port, 8080);
    assert_int_equal(serve_host_parse("evil.example.com", &h), 0);
    assert_string_equal(h.name, "evil.example.com");
    assert_int_equal(h.port, 0);
    assert_int_equal(serve_host_parse("[::1]:65535", &h), 0);
    assert_string_equal(h.name, "[::1]");
    assert_int_equal(h.port, 65535);
}

static void test_refuses_what_is_not_name_or_name_port(void **state)
{
    (void)state;
    const char *bad[] = {"",         ":80",  "x:",        "x:0",     "x:65536",
                         "x:123456", "x:-1", "x:+80",     "x:80:80", "x y",
                         "user@x",   "x/y",  "x#y",       "[::1",    "[]",
                         "[::1]x",   "[x]",  "x\r\nY: z", "x:8 0",   "x:0x50"};
    serve_host h;
    for (size_t i = 0; i < COUNT(bad); i++)
        if (serve_host_parse(bad[i], &h) != -1)
            fail_msg("'%s' was read as a Host", bad[i]);
    char longest[SERVE_HOST_NAME_MAX + 2];
    memset(longest, 'a', sizeof longest - 1);
    longest[sizeof longest - 1] = '\0';
    assert_int_equal(serve_host_parse(longest, &h), -1);
    longest[SERVE_HOST_NAME_MAX] = '\0';
    assert_int_equal(serve_host_parse(longest, &h), 0);
}

static void test_answers_its_own_address_on_its_port_only(void **state)
{
    (void)state;
    serve_hosts hosts = {.port = 8080};
    const char *own[] = {"127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080",
                         "localhost:08080"};
    for (size_t i = 0; i < COUNT(own); i++)
        if (!serve_hosts_allow(&hosts, own[i]))
            fail_msg("Host %s refused", own[i]);
    const char *other[] = {NULL,
                           "",
                           "evil.example.com",
                           "evil.example.com:8080",
                           "127.0.0.1:8081",
                           "127.0.0.1",
                           "localhost",
                           "127.0.0.2:8080",
                           "[::1]:8080",
                           "localhost.:8080",
                           "localhost:8080.evil.example.com",
                           "127.0.0.1:8080@evil.example.com"};
    for (size_t i = 0; i < COUNT(other); i++)
        if (serve_hosts_allow(&hosts, other[i]))
            fail_msg("Host %s answered", other[i] ? other[i] : "(none)");
}

static void test_a_host_without_port_is_on_port_80(void **state)
{
    (void)state;
    serve_hosts hosts = {.port = 80};
    assert_true(serve_hosts_allow(&hosts, "localhost"));
    assert_true(serve_hosts_allow(&hosts, "127.0.0.1:80"));
    assert_false(serve_hosts_allow(&hosts, "localhost:8080"));
}

static void test_allowed_name_on_any_port_name_port_on_that_one(void **state)
{
    (void)state;
    serve_host allowed[2];
    assert_int_equal(serve_host_parse("Evil.Example.com", &allowed[0]), 0);
    assert_int_equal(serve_host_parse("proxy.lan:9000", &allowed[1]), 0);
    serve_hosts hosts = {.port = 8080, .allowed = allowed, .n_allowed = COUNT(allowed)};
    const char *yes[] = {"evil.example.com", "evil.example.com:8080",
                         "EVIL.example.com:1", "proxy.lan:9000", "127.0.0.1:8080"};
    for (size_t i = 0; i < COUNT(yes); i++)
        if (!serve_hosts_allow(&hosts, yes[i]))
            fail_msg("Host %s refused", yes[i]);
    const char *no[] = {
        "proxy.lan",   "proxy.lan:8080",       "proxy.lan:9001",
        "example.com", "www.evil.example.com", "evil.example.com.attacker.net"};
    for (size_t i = 0; i < COUNT(no); i++)
        if (serve_hosts_allow(&hosts, no[i]))
            fail_msg("Host %s answered", no[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_name_and_port_lower_cased),
        cmocka_unit_test(test_refuses_what_is_not_name_or_name_port),
        cmocka_unit_test(test_answers_its_own_address_on_its_port_only),
        cmocka_unit_test(test_a_host_without_port_is_on_port_80),
        cmocka_unit_test(test_allowed_name_on_any_port_name_port_on_that_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
