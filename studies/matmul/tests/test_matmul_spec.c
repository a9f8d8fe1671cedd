/*
 * test_matmul_spec.c - experiment specs: the case study's specs resolve and
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
    snprintf(path_buf, sizeof path_buf, "%s/studies/matmul/experiments/%s", src ? src : ".", name);
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

/* ---- names, keys, ranges (issue 13) ----------------------------------------- */

/* Writes `text` to a temporary spec file; returns its path (static). */
static const char *temp_spec(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/mortar-spec-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* Loads and validates the spec `text`; returns the error ("" when valid). */
static const char *check_text(const char *text, char *const sets[], size_t n)
{
    static char err[1024];
    err[0] = '\0';
    const char *path = temp_spec(text);
    json_t *spec = spec_load(path, sets, n, err, sizeof err);
    if (spec && spec_validate(spec, err, sizeof err) == 0)
        err[0] = '\0';
    unlink(path);
    json_decref(spec);
    return err;
}

/* A spec on top of design-a.json with `extra` merged in. */
static const char *check_over_design_a(const char *extra, char *const sets[], size_t n)
{
    char text[4096];
    snprintf(text, sizeof text, "{\"base\": \"%s\"%s%s}", spec_path("design-a.json"),
             extra[0] ? ", " : "", extra);
    return check_text(text, sets, n);
}

static void expect_in(const char *err, const char *needle)
{
    if (!strstr(err, needle))
        fail_msg("expected '%s' in: '%s'", needle, err);
}

static void test_rejects_a_link_name_that_leaves_the_socket_directory(void **state)
{
    (void)state;
    char *sets[] = {"links.0.name=../../somewhere/victim"};
    expect_error(sets, 1, "links[0].name: '../../somewhere/victim' is not a valid name");
    char *slash[] = {"links.0.name=a/b"};
    expect_error(slash, 1, "links[0].name: 'a/b' is not a valid name");
}

static void test_rejects_bad_spec_host_component_and_process_names(void **state)
{
    (void)state;
    char *spec_name[] = {"name=../outside"};
    expect_error(spec_name, 1, "name: '../outside' is not a valid name");
    char *host[] = {"hosts.0.name=../h"};
    expect_error(host, 1, "hosts[0].name: '../h' is not a valid name");
    char *comma[] = {"components.3.name=accel,bus=x"};
    expect_error(comma, 1, "components[3].name: 'accel,bus=x' is not a valid name");
    char *process[] = {"components.3.process=../p"};
    expect_error(process, 1, "components[3].process: '../p' is not a valid name");
    char *same[] = {"components.3.process=server"};
    expect_error(same, 1, "components[3].process: 'server' is taken");
    char *spec_json[] = {"components.3.process=spec"};
    expect_error(spec_json, 1, "components[3].process: 'spec' is taken");
}

static void test_set_of_an_unknown_variable_or_place_is_an_error(void **state)
{
    (void)state;
    char *typo[] = {"requets=3"};
    expect_error(typo, 1, "--set requets=3: 'requets' is neither a variable");
    char *index[] = {"components.abc.kind=switch"};
    expect_error(index, 1, "'components.abc.kind' is neither");
    char *new_key[] = {"hosts.0.memroy_mib=1024"};
    expect_error(new_key, 1, "'hosts.0.memroy_mib' is neither");
    /* a new key of a model's params is the model's to check */
    char *param[] = {"components.3.params.corrupt=true"};
    char err[1024];
    if (check("design-a.json", param, 1, err, sizeof err))
        fail_msg("%s", err);
}

static void test_rejects_unknown_keys_with_their_path(void **state)
{
    (void)state;
    expect_in(check_over_design_a("\"hosts\": [{\"name\": \"third\", \"run\": \"true\", "
                                  "\"memroy_mib\": 1024}]", NULL, 0),
              "hosts[2].memroy_mib: unknown key");
    expect_in(check_over_design_a("\"mesure\": {\"host\": \"client\"}", NULL, 0),
              "mesure: unknown key");
    expect_in(check_over_design_a("\"measure\": {\"hots\": \"client\"}", NULL, 0),
              "measure.hots: unknown key");
    expect_in(check_over_design_a("\"links\": [{\"name\": \"x\", \"a\": \"accel.0\", \"b\": "
                                  "\"nic_client.1\", \"latency\": \"1us\", \"latncy\": 1}]",
                                  NULL, 0),
              "links[5].latncy: unknown key");
    expect_in(check_over_design_a("\"components\": [{\"name\": \"x\", \"kind\": \"switch\", "
                                  "\"parms\": {}}]", NULL, 0),
              "components[4].parms: unknown key");
}

static void test_rejects_host_values_out_of_range(void **state)
{
    (void)state;
    char *mem[] = {"hosts.0.memory_mib=1"};
    expect_error(mem, 1, "hosts[0].memory_mib: expected an integer from 64");
    char *mem_text[] = {"hosts.0.memory_mib=lots"};
    expect_error(mem_text, 1, "hosts[0].memory_mib: expected an integer");
    char *mtu[] = {"mtu=20"};
    expect_error(mtu, 1, "hosts[0].mtu: expected an integer from 68 to 9000");
    char *shift[] = {"cpu_shift=11"};
    expect_error(shift, 1, "hosts[0].cpu_shift: expected an integer from -4 to 10");
    char *skip[] = {"hosts.0.skip_spin=no"};
    expect_error(skip, 1, "hosts[0].skip_spin: expected true or false");
    char *ip[] = {"hosts.0.ip=10.0.0.1"};
    expect_error(ip, 1, "hosts[0].ip: expected an IPv4 address with a prefix");
    char *ip_space[] = {"hosts.0.ip=10.0.0.1/24 init=/bin/sh"};
    expect_error(ip_space, 1, "hosts[0].ip");
    char *ip_bad[] = {"hosts.0.ip=10.0.0.300/24"};
    expect_error(ip_bad, 1, "hosts[0].ip: '10.0.0.300' is not an IPv4 address");
    static char long_run[70000 + 16] = "hosts.0.run=";
    memset(long_run + strlen(long_run), 'x', 65537);
    char *run[] = {long_run};
    expect_error(run, 1, "hosts[0].run: longer than 65536 bytes");
    /* an empty command once dropped the guest to a shell until --timeout */
    char *empty[] = {"hosts.0.run="};
    expect_error(empty, 1, "hosts[0].run: empty (the guest's command)");
    char *blank[] = {"hosts.0.run= \t "};
    expect_error(blank, 1, "hosts[0].run: empty");
}

static void test_rejects_link_values_out_of_range(void **state)
{
    (void)state;
    expect_in(check_over_design_a("\"links\": [{\"name\": \"x\", \"a\": \"accel.0\", \"b\": "
                                  "\"nic_client.1\", \"latency\": \"1us\", "
                                  "\"sync_interval\": \"2us\"}]", NULL, 0),
              "sync interval must not exceed the latency");
    char *bw[] = {"links.2.bandwidth=0Gbps"};
    expect_error(bw, 1, "links[2].bandwidth: must be greater than 0");
    char *dup[] = {"links.1.name=pcie_client_nic"};
    expect_error(dup, 1, "links[1].name: 'pcie_client_nic' is used twice");
    char *port[] = {"links.0.component=nic_client.zz"};
    expect_error(port, 1, "links[0]: 'nic_client.zz' is not a port");
    char *no_number[] = {"links.0.component=nic_client."};
    expect_error(no_number, 1, "links[0]: 'nic_client.' is not a port");
    char *measure[] = {"measure.host=nobody"};
    expect_error(measure, 1, "measure.host: no host named 'nobody'");
}

static void test_rejects_more_hosts_than_supported(void **state)
{
    (void)state;
    char text[8192];
    size_t len = (size_t)snprintf(text, sizeof text, "{\"hosts\": [");
    for (int i = 0; i < 17; i++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "%s{\"name\": \"h%d\", \"run\": \"true\"}", i ? ", " : "", i);
    snprintf(text + len, sizeof text - len, "], \"components\": [], \"links\": []}");
    expect_in(check_text(text, NULL, 0), "hosts: 17 hosts, at most 16 are supported");
}

static void test_unclosed_brace_is_an_error_not_an_overread(void **state)
{
    (void)state;
    char *sets[] = {"hosts.0.run=echo ${requests"};
    expect_error(sets, 1, "hosts[0].run: '${' without its '}'");
    char *at_end[] = {"hosts.0.run=echo ${"};
    expect_error(at_end, 1, "hosts[0].run: '${' without its '}'");
}

static void test_long_variable_values_are_not_cut(void **state)
{
    (void)state;
    char value[2000 + 16] = "design=";
    size_t start = strlen(value);
    memset(value + start, 'v', 2000);
    value[start + 2000] = '\0';
    char *sets[] = {value, "hosts.0.run=echo ${design}!"};
    char err[1024];
    json_t *spec = spec_load(spec_path("design-a.json"), sets, 2, err, sizeof err);
    assert_non_null(spec);
    const char *run =
        json_string_value(json_object_get(json_array_get(json_object_get(spec, "hosts"), 0), "run"));
    assert_int_equal(strlen(run), 5 + 2000 + 1);
    assert_int_equal(run[5 + 2000], '!');
    json_decref(spec);
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

/* ---- host programs ----------------------------------------------------------- */

/* A directory with the spec `text` as spec.json and an empty file named
 * `program`; loads and validates the spec. Returns the error ("" when
 * valid); the loaded spec's first host's programs in *programs (a new
 * reference, NULL on error). */
static const char *check_in_dir(const char *text, const char *program, json_t **programs)
{
    static char err[1024];
    char dir[] = "/tmp/mortar-spec-programs-XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/%s", dir, program);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(path, sizeof path, "%s/spec.json", dir);
    f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    err[0] = '\0';
    *programs = NULL;
    json_t *spec = spec_load(path, NULL, 0, err, sizeof err);
    if (spec && spec_validate(spec, err, sizeof err) == 0) {
        err[0] = '\0';
        *programs = json_incref(
            json_object_get(json_array_get(json_object_get(spec, "hosts"), 0), "programs"));
    }
    json_decref(spec);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    return err;
}

#define PROGRAM_SPEC(programs)                                                            \
    "{\"hosts\": [{\"name\": \"h0\", \"run\": \"true\", \"programs\": " programs "}],"    \
    " \"components\": [{\"name\": \"dev\", \"kind\": \"pcitest\"}],"                      \
    " \"links\": [{\"name\": \"p\", \"host\": \"h0\", \"component\": \"dev.0\"}]}"

static void test_host_programs_resolve_next_to_their_spec(void **state)
{
    (void)state;
    json_t *programs;
    const char *err = check_in_dir(PROGRAM_SPEC("[\"my-driver\"]"), "my-driver", &programs);
    assert_string_equal(err, "");
    const char *path = json_string_value(json_array_get(programs, 0));
    assert_non_null(path);
    assert_true(path[0] == '/');
    assert_non_null(strstr(path, "/mortar-spec-programs-"));
    assert_string_equal(strrchr(path, '/'), "/my-driver");
    json_decref(programs);
}

static void test_rejects_bad_host_programs(void **state)
{
    (void)state;
    json_t *p;
    expect_in(check_in_dir(PROGRAM_SPEC("[\"other\"]"), "my-driver", &p),
              "hosts[0].programs[0]: ");
    expect_in(check_in_dir(PROGRAM_SPEC("[\"other\"]"), "my-driver", &p), "no such file");
    expect_in(check_in_dir(PROGRAM_SPEC("[\".hidden\"]"), ".hidden", &p),
              "hosts[0].programs[0]: '.hidden': a program's file name");
    expect_in(check_in_dir(PROGRAM_SPEC("[\"a b\"]"), "a b", &p), "a program's file name");
    expect_in(check_in_dir(PROGRAM_SPEC("[\"x\", \"./x\"]"), "x", &p),
              "hosts[0].programs[1]: a second program named 'x'");
    expect_in(check_in_dir(PROGRAM_SPEC("\"x\""), "x", &p),
              "hosts[0].programs: expected an array");
    expect_in(check_in_dir(PROGRAM_SPEC("[7]"), "x", &p),
              "hosts[0].programs[0]: expected a file name");
    expect_in(check_in_dir(PROGRAM_SPEC("[\".\"]"), "x", &p), "a program's file name");
}

/* spec_elem_name and spec_find_named: the one reading of an element's name
 * (spec.c and spec_check.c each had their own). */
static void test_elements_are_found_by_name(void **state)
{
    (void)state;
    json_t *hosts = json_loads("[{\"name\": \"client\"}, {\"ip\": \"x\"},"
                               " {\"name\": 7}, {\"name\": \"server\"}]",
                               0, NULL);
    assert_non_null(hosts);
    assert_string_equal(spec_elem_name(json_array_get(hosts, 0)), "client");
    assert_null(spec_elem_name(json_array_get(hosts, 1))); /* none */
    assert_null(spec_elem_name(json_array_get(hosts, 2))); /* not a string */
    assert_null(spec_elem_name(NULL));
    assert_ptr_equal(spec_find_named(hosts, "server"), json_array_get(hosts, 3));
    assert_ptr_equal(spec_find_named(hosts, "client"), json_array_get(hosts, 0));
    assert_null(spec_find_named(hosts, "switch"));
    assert_null(spec_find_named(NULL, "client")); /* no such array */
    json_decref(hosts);
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
        cmocka_unit_test(test_rejects_a_link_name_that_leaves_the_socket_directory),
        cmocka_unit_test(test_rejects_bad_spec_host_component_and_process_names),
        cmocka_unit_test(test_set_of_an_unknown_variable_or_place_is_an_error),
        cmocka_unit_test(test_rejects_unknown_keys_with_their_path),
        cmocka_unit_test(test_rejects_host_values_out_of_range),
        cmocka_unit_test(test_rejects_link_values_out_of_range),
        cmocka_unit_test(test_rejects_more_hosts_than_supported),
        cmocka_unit_test(test_unclosed_brace_is_an_error_not_an_overread),
        cmocka_unit_test(test_long_variable_values_are_not_cut),
        cmocka_unit_test(test_host_programs_resolve_next_to_their_spec),
        cmocka_unit_test(test_rejects_bad_host_programs),
        cmocka_unit_test(test_elements_are_found_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
