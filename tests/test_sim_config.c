/*
 * test_sim_config.c - mortar-sim's description loader applies the same
 * name rule as `mortar spec` (mortar/name.h): a description written by
 * hand cannot name a component or link with a path or an option string.
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

#include "mortar/runtime.h"
#include "sim_config.h"

static void expect_refused(const char *text, const char *needle)
{
    sim_config cfg;
    char err[512] = "";
    assert_int_not_equal(sim_config_build(text, &cfg, err, sizeof err), 0);
    assert_null(cfg.loop);
    if (!strstr(err, needle))
        fail_msg("expected '%s' in: %s", needle, err);
}

static void test_refuses_a_component_name_that_is_a_path(void **state)
{
    (void)state;
    expect_refused("{\"components\": [{\"name\": \"../sw\", \"kind\": \"switch\"}]}",
                   "components[0].name: '../sw' is not a valid name");
}

static void test_refuses_a_link_name_with_a_comma(void **state)
{
    (void)state;
    expect_refused("{\"components\": [{\"name\": \"sw\", \"kind\": \"switch\", "
                   "\"params\": {\"ports\": 2}}],"
                   " \"links\": [{\"name\": \"l,x\", \"port\": \"sw.0\", \"peer\": \"sw.1\"}]}",
                   "links[0].name: 'l,x' is not a valid name");
}

static void test_accepts_good_names(void **state)
{
    (void)state;
    sim_config cfg;
    char err[512] = "";
    int rc = sim_config_build("{\"components\": [{\"name\": \"sw-0\", \"kind\": \"switch\", "
                              "\"params\": {\"ports\": 2}}], \"links\": [{\"name\": \"l_0-a\", "
                              "\"port\": \"sw-0.0\", \"peer\": \"sw-0.1\"}]}",
                              &cfg, err, sizeof err);
    if (rc)
        fail_msg("%s", err);
    mortar_loop_destroy(cfg.loop);
}

/* sim_config_parse builds and checks but reaches nothing outside: no
 * trace file, no socket listened on. */
static void test_parse_only_opens_no_file_and_no_socket(void **state)
{
    (void)state;
    char dir[] = "/tmp/mortar-simcfg-XXXXXX", text[1024], sock[64], trace[64];
    assert_non_null(mkdtemp(dir));
    snprintf(sock, sizeof sock, "%s/l0.sock", dir);
    snprintf(trace, sizeof trace, "%s/t.trace", dir);
    snprintf(text, sizeof text,
             "{\"trace\": \"%s\", \"components\": [{\"name\": \"sw\", \"kind\": "
             "\"switch\", \"params\": {\"ports\": 2}}], \"links\": [{\"name\": \"l0\", "
             "\"port\": \"sw.0\", \"listen\": \"%s\"}]}",
             trace, sock);
    sim_config cfg;
    char err[512] = "";
    if (sim_config_parse(text, &cfg, err, sizeof err))
        fail_msg("%s", err);
    mortar_loop_destroy(cfg.loop);
    assert_int_not_equal(access(sock, F_OK), 0);
    assert_int_not_equal(access(trace, F_OK), 0);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refuses_a_component_name_that_is_a_path),
        cmocka_unit_test(test_refuses_a_link_name_with_a_comma),
        cmocka_unit_test(test_accepts_good_names),
        cmocka_unit_test(test_parse_only_opens_no_file_and_no_socket),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
