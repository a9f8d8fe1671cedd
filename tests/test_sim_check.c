/*
 * test_sim_check.c - one checker of components and links: the same bad
 * component or link, written once as an experiment spec (`mortar spec`,
 * spec_validate) and once as a mortar-sim description (sim_config_build),
 * gets the same verdict and the same error text from both, and the same
 * good one passes both. A rule changed on one side only fails here. Kinds
 * are resolved alike too: built in, then MORTAR_PLUGIN_PATH (the plugins of
 * tests/plugins/).
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

#include "cli_util.h"
#include "mortar/runtime.h"
#include "sim_check.h"
#include "sim_config.h"
#include "spec.h"

/* One case: a component (JSON), and a link's two ends and options (JSON
 * members, may be ""); `expected` is a part of the error both must give,
 * NULL when both must accept. */
typedef struct check_case {
    const char *component;
    const char *a, *b;
    const char *options;
    const char *expected;
} check_case;

#define SWITCH "{\"name\": \"sw\", \"kind\": \"switch\", \"params\": {\"ports\": 2}}"

static const check_case cases[] = {
    /* components */
    {"{\"kind\": \"switch\"}", "sw.0", "sw.1", "", "components[0].name: required"},
    {"{\"name\": 5, \"kind\": \"switch\"}", "sw.0", "sw.1", "",
     "components[0].name: expected a string"},
    {"{\"name\": \"../sw\", \"kind\": \"switch\"}", "sw.0", "sw.1", "",
     "components[0].name: '../sw' is not a valid name"},
    {"{\"name\": \"sw\"}", "sw.0", "sw.1", "", "components[0].kind: required"},
    {"{\"name\": \"sw\", \"kind\": 3}", "sw.0", "sw.1", "",
     "components[0].kind: expected a string"},
    {"{\"name\": \"sw\", \"kind\": \"fpga\"}", "sw.0", "sw.1", "",
     "components[0].kind: unknown component kind 'fpga'"},
    {"{\"name\": \"sw\", \"kind\": \"../switch\"}", "sw.0", "sw.1", "", "components[0].kind: "},
    {"{\"name\": \"sw\", \"kind\": \"switch\", \"params\": [1]}", "sw.0", "sw.1", "",
     "components[0].params: expected an object"},
    {"{\"name\": \"sw\", \"kind\": \"switch\", \"params\": {\"ports\": \"two\"}}", "sw.0",
     "sw.1", "", "components[0].params.ports"},
    {"7", "sw.0", "sw.1", "", "components[0]: expected an object"},
    /* link ends */
    {SWITCH, "sw.9", "sw.1", "", "links[0]: component 'sw' has no port 9"},
    {SWITCH, "nope.0", "sw.1", "", "links[0]: no component named 'nope'"},
    {SWITCH, "sw.zz", "sw.1", "", "links[0]: 'sw.zz' is not a port"},
    {SWITCH, "sw.", "sw.1", "", "links[0]: 'sw.' is not a port"},
    {SWITCH, "sw.0", "sw.7", "", "links[0]: component 'sw' has no port 7"},
    /* link options */
    {SWITCH, "sw.0", "sw.1", "\"latency\": \"5\"",
     "links[0].latency: '5' is not a duration with a unit"},
    {SWITCH, "sw.0", "sw.1", "\"latency\": 5", "links[0].latency: '(not a string)'"},
    {SWITCH, "sw.0", "sw.1", "\"latency\": \"0ns\"", "links[0].latency: must be greater than 0"},
    {SWITCH, "sw.0", "sw.1", "\"latency\": \"18446744073709551615ps\"",
     "links[0].latency: at most 1 s"},
    {SWITCH, "sw.0", "sw.1", "\"latency\": \"18446744073709us\"",
     "links[0].latency: at most 1 s"},
    {SWITCH, "sw.0", "sw.1", "\"sync_interval\": \"0ps\"",
     "links[0].sync_interval: must be greater than 0"},
    {SWITCH, "sw.0", "sw.1", "\"latency\": \"1us\", \"sync_interval\": \"2us\"",
     "links[0]: link 'l0': sync interval must not exceed the latency"},
    {SWITCH, "sw.0", "sw.1", "\"sync_interval\": \"1us\"",
     "sync interval must not exceed the latency"}, /* the default latency is 500 ns */
    {SWITCH, "sw.0", "sw.1", "\"bandwidth\": \"fast\"",
     "links[0].bandwidth: 'fast' is not a bandwidth with a unit"},
    {SWITCH, "sw.0", "sw.1", "\"bandwidth\": \"0Gbps\"",
     "links[0].bandwidth: must be greater than 0"},
    {SWITCH, "sw.0", "sw.1", "\"wait\": \"sometimes\"",
     "links[0].wait: expected \"spin\", \"yield\" or \"block\""},
    {SWITCH, "sw.0", "sw.1", "\"spin\": \"5s\"", "links[0].spin: at most 4 s"},
    {SWITCH, "sw.0", "sw.1", "\"slot_size\": 100",
     "links[0]: link 'l0': slot size must be a multiple of 64"},
    {SWITCH, "sw.0", "sw.1", "\"slot_size\": -64",
     "links[0].slot_size: expected a positive integer"},
    {SWITCH, "sw.0", "sw.1", "\"slot_count\": 1", "links[0]: link 'l0': slot count must be"},
    {SWITCH, "sw.0", "sw.1", "\"slot_count\": \"many\"",
     "links[0].slot_count: expected a positive integer"},
    {SWITCH, "sw.0", "sw.1", "\"pcie\": {\"gen\": 3}",
     "links[0].pcie: only a PCIe link has a transaction layer"},
    /* good ones */
    {SWITCH, "sw.0", "sw.1", "", NULL},
    {SWITCH, "sw", "sw.1", "", NULL}, /* "component" is port 0 */
    {SWITCH, "sw.0", "sw.1",
     "\"latency\": \"1us\", \"sync_interval\": \"250ns\", \"bandwidth\": \"10Gbps\", "
     "\"wait\": \"spin\", \"spin\": \"0ns\", \"slot_size\": 4096, \"slot_count\": 64",
     NULL},
};

/* The case as an experiment spec: one host, the component, the link. */
static json_t *as_spec(const char *component, const char *a, const char *b,
                       const char *options)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"hosts\": [{\"name\": \"h\", \"run\": \"true\"}], \"components\": [%s], "
             "\"links\": [{\"name\": \"l0\", \"a\": \"%s\", \"b\": \"%s\"%s%s}]}",
             component, a, b, options[0] ? ", " : "", options);
    json_error_t je;
    json_t *spec = json_loads(text, 0, &je);
    if (!spec)
        fail_msg("bad test spec: %s: %s", je.text, text);
    return spec;
}

/* The verdict of `mortar spec`: its error, "" when it accepts. */
static void spec_verdict(const char *component, const char *a, const char *b,
                         const char *options, char *err, size_t size)
{
    json_t *spec = as_spec(component, a, b, options);
    if (spec_validate(spec, err, size) == 0)
        err[0] = '\0';
    json_decref(spec);
}

/* The verdict of mortar-sim: its error, "" when it accepts. */
static void sim_verdict(const char *component, const char *a, const char *b,
                        const char *options, char *err, size_t size)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"components\": [%s], \"links\": [{\"name\": \"l0\", \"port\": \"%s\", "
             "\"peer\": \"%s\"%s%s}]}",
             component, a, b, options[0] ? ", " : "", options);
    sim_config cfg;
    if (sim_config_build(text, &cfg, err, size) == 0) {
        err[0] = '\0';
        mortar_loop_destroy(cfg.loop);
    }
}

static void expect_same_verdict(const char *component, const char *a, const char *b,
                                const char *options, const char *expected)
{
    char spec_err[2048] = "", sim_err[2048] = "";
    spec_verdict(component, a, b, options, spec_err, sizeof spec_err);
    sim_verdict(component, a, b, options, sim_err, sizeof sim_err);
    if (strcmp(spec_err, sim_err))
        fail_msg("%s / %s %s %s:\n  mortar spec: '%s'\n  mortar-sim:  '%s'", component, a, b,
                 options, spec_err, sim_err);
    if (!expected && spec_err[0])
        fail_msg("%s / %s %s %s: refused: %s", component, a, b, options, spec_err);
    if (expected && !strstr(spec_err, expected))
        fail_msg("%s / %s %s %s: expected '%s' in: '%s'", component, a, b, options, expected,
                 spec_err);
}

static void test_spec_and_sim_give_the_same_verdict_for_each_rule(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_same_verdict(cases[i].component, cases[i].a, cases[i].b, cases[i].options,
                            cases[i].expected);
}

static void test_links_default_alike(void **state)
{
    (void)state;
    mortar_link_params p;
    sim_check_link_defaults(&p, MORTAR_PROTO_PCIE);
    assert_int_equal(p.latency_ps, MORTAR_NS(500));
    assert_int_equal(p.slot_size, 9216);
    assert_int_equal(p.slot_count, 256);
    sim_check_link_defaults(&p, MORTAR_PROTO_ETH);
    assert_int_equal(p.slot_size, 9088);
    assert_int_equal(p.slot_count, 256);
    sim_check_link_defaults(&p, MORTAR_PROTO_TEST);
    assert_int_equal(p.slot_size, 2048);
    assert_int_equal(p.slot_count, 1024);
}

/* The options of a PCIe link `text` (a JSON object) over the defaults; the
 * error in `err` ("" when accepted). */
static mortar_link_params pcie_options(const char *text, char *err, size_t size)
{
    mortar_link_params p;
    sim_check_link_defaults(&p, MORTAR_PROTO_PCIE);
    p.name = "l0";
    json_t *l = json_loads(text, 0, NULL);
    assert_non_null(l);
    err[0] = '\0';
    sim_check_link_options(l, "links[0]", &p, err, size);
    json_decref(l);
    return p;
}

static void test_a_pcie_link_reads_its_transaction_layer_and_trains(void **state)
{
    (void)state;
    char err[512];
    mortar_link_params p = pcie_options("{}", err, sizeof err);
    assert_string_equal(err, ""); /* the default: a PCIe 3.0 x16 slot */
    assert_int_equal(p.pcie.gen, 3);
    assert_int_equal(p.pcie.lanes, 16);
    assert_int_equal(p.pcie.mps, 256);
    assert_int_equal(p.pcie.mrrs, 512);
    assert_int_equal(p.pcie.rcb, 64);
    p = pcie_options("{\"pcie\": {\"gen\": 2, \"lanes\": 4, \"mps\": 512, \"mrrs\": "
                     "1024, \"rcb\": 128, \"dma_read_host\": \"400ns\", \"mmio_read_host\": "
                     "\"1us\"}}",
                     err, sizeof err);
    assert_string_equal(err, "");
    assert_int_equal(p.pcie.gen, 2);
    assert_int_equal(p.pcie.lanes, 4);
    assert_int_equal(p.pcie.mps, 512);
    assert_int_equal(p.pcie.mrrs, 1024);
    assert_int_equal(p.pcie.rcb, 128);
    assert_int_equal(p.pcie.dma_read_host_ps, MORTAR_NS(400));
    assert_int_equal(p.pcie.mmio_read_host_ps, MORTAR_US(1));
    p = pcie_options("{\"pcie\": false}", err, sizeof err);
    assert_string_equal(err, "");
    assert_int_equal(p.pcie.gen, 0);
    /* a bandwidth alone times the link as before; with a layer it is refused */
    p = pcie_options("{\"bandwidth\": \"10Gbps\"}", err, sizeof err);
    assert_string_equal(err, "");
    assert_int_equal(p.pcie.gen, 0);
    pcie_options("{\"bandwidth\": \"10Gbps\", \"pcie\": {\"lanes\": 8}}", err, sizeof err);
    assert_non_null(strstr(err, "links[0]: a PCIe link takes its rate from pcie.gen"));
    pcie_options("{\"pcie\": {\"lanes\": 3}}", err, sizeof err);
    assert_non_null(strstr(err, "links[0].pcie.lanes: 3 is not one of 1, 2, 4, 8, 16"));
    pcie_options("{\"pcie\": {\"width\": 8}}", err, sizeof err);
    assert_non_null(strstr(err, "links[0].pcie.width: unknown key"));
    pcie_options("{\"pcie\": {\"gen\": \"3\"}}", err, sizeof err);
    assert_non_null(strstr(err, "links[0].pcie.gen: expected an integer"));
    pcie_options("{\"pcie\": {\"dma_read_host\": \"400\"}}", err, sizeof err);
    assert_non_null(strstr(err, "links[0].pcie.dma_read_host: '400' is not a duration"));
    pcie_options("{\"pcie\": 16}", err, sizeof err);
    assert_non_null(strstr(err, "links[0].pcie: expected an object or false"));

    /* the XL710 states 3.0 x8: the default slot trains to it */
    p = pcie_options("{}", err, sizeof err);
    mortar_loop *loop;
    assert_int_equal(mortar_loop_create(&loop), 0);
    json_t *c = json_loads("{\"name\": \"nic\", \"kind\": \"i40e\"}", 0, NULL);
    mortar_component *nic;
    assert_int_equal(sim_check_add_component(loop, c, "components[0]", &nic, err, sizeof err),
                     0);
    uint32_t size;
    const void *intro = mortar_component_port_intro(nic, 0, &size);
    sim_check_link_train(&p, intro, size);
    assert_int_equal(p.pcie.gen, 3);
    assert_int_equal(p.pcie.lanes, 8);
    json_decref(c);
    mortar_loop_destroy(loop);
}

/* ---- plugins ------------------------------------------------------------------ */

#define ECHO "{\"name\": \"e\", \"kind\": \"test-echo\"}"

static void test_spec_and_sim_find_plugins_alike(void **state)
{
    (void)state;
    setenv("MORTAR_PLUGIN_PATH", TEST_PLUGIN_DIR, 1);
    char spec_err[2048] = "";
    /* the echo plugin's one port, joined to a testgen's */
    json_t *spec = json_loads(
        "{\"hosts\": [{\"name\": \"h\", \"run\": \"true\"}], \"components\": [" ECHO
        ", {\"name\": \"g\", \"kind\": \"testgen\"}], \"links\": [{\"name\": \"l0\", "
        "\"a\": \"e.0\", \"b\": \"g.0\"}]}",
        0, NULL);
    if (spec_validate(spec, spec_err, sizeof spec_err))
        fail_msg("mortar spec refuses a plugin's kind: %s", spec_err);
    json_decref(spec);
    expect_same_verdict("{\"name\": \"e\", \"kind\": \"test-missing\"}", "e.0", "e.0", "",
                        "unknown component kind 'test-missing'");
    expect_same_verdict("{\"name\": \"e\", \"kind\": \"test-missing\"}", "e.0", "e.0", "",
                        TEST_PLUGIN_DIR);
    expect_same_verdict("{\"name\": \"e\", \"kind\": \"test-other-abi\"}", "e.0", "e.0", "",
                        "plugin ABI");
    unsetenv("MORTAR_PLUGIN_PATH");
    expect_same_verdict(ECHO, "e.0", "e.0", "", "unknown component kind 'test-echo'");
}

/* `mortar spec` itself, the command: a plugin's kind, found through
 * MORTAR_PLUGIN_PATH, is a known kind. */
static void test_mortar_spec_accepts_a_plugin_kind(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char path[256], cmd[1024];
    snprintf(path, sizeof path, "%s/plugin.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"hosts\": [{\"name\": \"h\", \"run\": \"true\"}], \"components\": [" ECHO
          ", {\"name\": \"g\", \"kind\": \"testgen\"}], \"links\": [{\"name\": \"l0\", "
          "\"a\": \"e.0\", \"b\": \"g.0\"}]}",
          f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s/mortar' spec plugin.json", bin_dir());
    cli_result r = run_command(dir, cmd);
    assert_int_equal(r.status, 1);
    if (!strstr(r.err, "unknown component kind 'test-echo'"))
        fail_msg("without the plugin path: %s", r.err);
    free(r.out);
    free(r.err);
    snprintf(cmd, sizeof cmd, "MORTAR_PLUGIN_PATH='%s' '%s/mortar' spec plugin.json",
             TEST_PLUGIN_DIR, bin_dir());
    r = run_command(dir, cmd);
    if (r.status != 0)
        fail_msg("mortar spec with the plugin path: %d: %s", r.status, r.err);
    free(r.out);
    free(r.err);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_and_sim_give_the_same_verdict_for_each_rule),
        cmocka_unit_test(test_links_default_alike),
        cmocka_unit_test(test_a_pcie_link_reads_its_transaction_layer_and_trains),
        cmocka_unit_test(test_spec_and_sim_find_plugins_alike),
        cmocka_unit_test(test_mortar_spec_accepts_a_plugin_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
