/*
 * test_spec.c - experiment specs: the case study's specs resolve and
 * validate; overrides with units land where they should; every kind of bad
 * spec is rejected before anything starts, with the JSON path of the error.
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

#include "spec.h"

static char path_buf[1024];

static const char *spec_path(const char *name)
{
    const char *src = getenv("MORTAR_SOURCE");
    snprintf(path_buf, sizeof path_buf, "%s/experiments/matmul/%s", src ? src : ".", name);
    return path_buf;
}

/* Loads a case-study spec with overrides and validates it; returns the
 * error text (empty when valid) in err. */
static int check(const char *name, char *const sets[], size_t n, char *err, size_t size)
{
    err[0] = '\0';
    json_t *spec = spec_load(spec_path(name), sets, n, err, size);
    int rc = spec ? spec_validate(spec, err, size) : -1;
    json_decref(spec);
    return rc;
}

static void test_case_study_specs_are_valid(void **state)
{
    (void)state;
    const char *names[] = {"design-a.json", "design-b.json", "design-regcopy.json",
                           "software.json"};
    char err[1024];
    for (int i = 0; i < 4; i++) {
        if (check(names[i], NULL, 0, err, sizeof err))
            fail_msg("%s: %s", names[i], err);
    }
}

static void test_set_with_units_reaches_every_link(void **state)
{
    (void)state;
    char *sets[] = {"pcie.latency=2.5us", "speed=0.5"};
    char err[1024];
    json_t *spec = spec_load(spec_path("design-b.json"), sets, 2, err, sizeof err);
    assert_non_null(spec);
    size_t i;
    json_t *l;
    int pcie = 0;
    json_array_foreach(json_object_get(spec, "links"), i, l) {
        if (json_object_get(l, "host")) {
            assert_string_equal(json_string_value(json_object_get(l, "latency")), "2.5us");
            pcie++;
        }
    }
    assert_int_equal(pcie, 3);
    json_t *accel = json_array_get(json_object_get(spec, "components"), 3);
    assert_string_equal(json_string_value(json_object_get(accel, "name")), "accel");
    assert_true(json_real_value(json_object_get(json_object_get(accel, "params"), "speed")) == 0.5);
    json_decref(spec);
}

static void expect_error(char *const sets[], size_t n, const char *needle)
{
    char err[1024];
    assert_int_not_equal(check("design-a.json", sets, n, err, sizeof err), 0);
    if (!strstr(err, needle))
        fail_msg("expected '%s' in: %s", needle, err);
}

static void test_rejects_zero_latency_with_its_path(void **state)
{
    (void)state;
    char *sets[] = {"pcie.latency=0ns"};
    expect_error(sets, 1, "links[0].latency: must be greater than 0");
}

static void test_rejects_unreadable_unit(void **state)
{
    (void)state;
    char *sets[] = {"eth.latency=5 furlongs"};
    expect_error(sets, 1, "links[2].latency");
}

static void test_rejects_unknown_component_kind(void **state)
{
    (void)state;
    char *sets[] = {"components.3.kind=fpga"};
    expect_error(sets, 1, "components[3].kind: unknown component kind 'fpga'");
}

static void test_rejects_unknown_parameter(void **state)
{
    (void)state;
    char *sets[] = {"components.3.params.frequency=800"};
    expect_error(sets, 1, "components[3].params.frequency: unknown parameter");
}

static void test_rejects_a_port_bound_twice(void **state)
{
    (void)state;
    char *sets[] = {"links.1.component=nic_client.0"};
    expect_error(sets, 1, "links[1]: port nic_client.0 is already bound by links[0]");
}

static void test_rejects_a_missing_link(void **state)
{
    (void)state;
    char path[] = "/tmp/mortar-spec-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "{\"base\": \"%s\", \"links\": [{\"name\": \"pcie_server_accel\", "
               "\"remove\": true}]}", spec_path("design-a.json"));
    fclose(f);
    char err[1024];
    json_t *spec = spec_load(path, NULL, 0, err, sizeof err);
    unlink(path);
    assert_non_null(spec);
    assert_int_not_equal(spec_validate(spec, err, sizeof err), 0);
    json_decref(spec);
    if (!strstr(err, "components[3]: port accel.0 is not connected by any link"))
        fail_msg("unexpected: %s", err);
    char *sets[] = {"links.4.host=nobody"};
    expect_error(sets, 1, "links[4].host: no host named 'nobody'");
}

static void test_rejects_unknown_variable_and_bad_set(void **state)
{
    (void)state;
    char *sets[] = {"hosts.0.run=mortar-matmul-client $nonsense"};
    expect_error(sets, 1, "hosts[0].run: unknown variable '$nonsense'");
    char *sets2[] = {"no.such.place=1"};
    expect_error(sets2, 1, "--set no.such.place");
    char *sets3[] = {"novalue"};
    expect_error(sets3, 1, "expected key=value");
}

/* The warnings `mortar spec` prints for design-b.json with `sets`. */
static json_t *rate_warnings(char *const sets[], size_t n)
{
    char err[1024];
    json_t *spec = spec_load(spec_path("design-b.json"), sets, n, err, sizeof err);
    assert_non_null(spec);
    assert_int_equal(spec_validate(spec, err, sizeof err), 0);
    json_t *w = spec_rate_warnings(spec);
    json_decref(spec);
    return w;
}

static void test_warns_when_a_link_is_faster_than_its_nic(void **state)
{
    (void)state;
    char *sets[] = {"eth.bandwidth=10Gbps", "components.0.kind=e1000",
                    "components.1.kind=e1000"};
    json_t *w = rate_warnings(sets, 3);
    assert_int_equal(json_array_size(w), 2);
    assert_string_equal(json_string_value(json_array_get(w, 0)),
                        "link eth_client is 10 Gbit/s but nic_client (e1000) sends at most "
                        "1 Gbit/s");
    assert_string_equal(json_string_value(json_array_get(w, 1)),
                        "link eth_server is 10 Gbit/s but nic_server (e1000) sends at most "
                        "1 Gbit/s");
    json_decref(w);
}

static void test_no_warning_when_links_match_what_they_attach(void **state)
{
    (void)state;
    char *sets[] = {"eth.bandwidth=1Gbps", "components.0.kind=e1000",
                    "components.1.kind=e1000"};
    json_t *w = rate_warnings(sets, 3);
    assert_int_equal(json_array_size(w), 0);
    json_decref(w);
}

static void test_warns_when_a_link_is_faster_than_the_switch_port(void **state)
{
    (void)state;
    char *sets[] = {"eth.bandwidth=1Gbps", "components.0.kind=e1000",
                    "components.1.kind=e1000", "components.2.params.bandwidth=100Mbps"};
    json_t *w = rate_warnings(sets, 4);
    assert_int_equal(json_array_size(w), 2);
    assert_string_equal(json_string_value(json_array_get(w, 0)),
                        "link eth_client is 1 Gbit/s but switch (switch) sends at most "
                        "100 Mbit/s");
    json_decref(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_study_specs_are_valid),
        cmocka_unit_test(test_warns_when_a_link_is_faster_than_its_nic),
        cmocka_unit_test(test_no_warning_when_links_match_what_they_attach),
        cmocka_unit_test(test_warns_when_a_link_is_faster_than_the_switch_port),
        cmocka_unit_test(test_set_with_units_reaches_every_link),
        cmocka_unit_test(test_rejects_zero_latency_with_its_path),
        cmocka_unit_test(test_rejects_unreadable_unit),
        cmocka_unit_test(test_rejects_unknown_component_kind),
        cmocka_unit_test(test_rejects_unknown_parameter),
        cmocka_unit_test(test_rejects_a_port_bound_twice),
        cmocka_unit_test(test_rejects_a_missing_link),
        cmocka_unit_test(test_rejects_unknown_variable_and_bad_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
