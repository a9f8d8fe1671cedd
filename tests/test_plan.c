/*
 * test_plan.c - planning a run writes only new files inside the run's
 * directory: an existing file or a symbolic link where a description goes
 * fails the plan instead of being overwritten or followed, the QEMU
 * device options carry the names as they are, and a host restored from a
 * snapshot gets the same kernel command line as any other, its parameters
 * in its fw_cfg file, and a host without a mortar device boots.
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

#include "cli_util.h"
#include "plan.h"
#include "spec.h"

static const plan_tools tools = {
    .qemu = "/bin/false", .firmware = {NULL}, .kernel = "vmlinuz", .initrd = "initrd"};

static json_t *pcitest_spec(void)
{
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/experiments/examples/pcitest.json", source_dir());
    json_t *spec = spec_load(path, NULL, 0, err, sizeof err);
    if (!spec || spec_validate(spec, err, sizeof err))
        fail_msg("%s", err);
    return spec;
}

static void test_a_symlink_where_a_description_goes_is_not_followed(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char victim[128], link[128], err[1024];
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(link, sizeof link, "%s/sim0.json", dir);
    write_text(victim, "keep me\n");
    assert_int_equal(symlink(victim, link), 0);
    json_t *spec = pcitest_spec();
    plan p;
    assert_int_not_equal(plan_build(&p, spec, dir, &tools, err, sizeof err), 0);
    assert_non_null(strstr(err, "sim0.json"));
    plan_free(&p);
    char *text = read_text(victim);
    assert_string_equal(text, "keep me\n");
    free(text);
    json_decref(spec);
    remove_tree(dir);
}

static void test_device_options_name_the_component_and_link(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char err[1024];
    json_t *spec = pcitest_spec();
    plan p;
    if (plan_build(&p, spec, dir, &tools, err, sizeof err))
        fail_msg("%s", err);
    const char *device = NULL;
    for (int i = 0; i + 1 < p.hosts[0].argc; i++)
        if (!strcmp(p.hosts[0].argv[i], "-device"))
            device = p.hosts[0].argv[i + 1];
    assert_non_null(device);
    char expected[512];
    snprintf(expected, sizeof expected, "mortar-pci,socket=%s/pcie0.sock,name=dev,",
             p.sock_dir);
    if (strncmp(device, expected, strlen(expected)))
        fail_msg("device option: %s", device);
    plan_free(&p);
    json_decref(spec);
    remove_tree(dir);
}

/* The switch's description in the plan's mortar-sim processes, or NULL. */
static json_t *switch_params(const plan *p)
{
    for (int s = 0; s < p->nsims; s++) {
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(p->sims[s].desc, "components"), i, c)
        {
            if (!strcmp(json_string_value(json_object_get(c, "kind")), "switch"))
                return json_object_get(c, "params");
        }
    }
    return NULL;
}

/* Two hosts, each with an e1000, joined by a switch. */
static const char switched_spec[] =
    "{\"name\": \"switched\",\n"
    " \"hosts\": [{\"name\": \"h0\", \"ip\": \"10.0.0.1/24\", \"run\": \"true\"},\n"
    "           {\"name\": \"h1\", \"ip\": \"10.0.0.2/24\", \"run\": \"true\"}],\n"
    " \"components\": [{\"name\": \"nic0\", \"kind\": \"e1000\"}, {\"name\": \"nic1\", \"kind\": \"e1000\"},\n"
    "                {\"name\": \"switch\", \"kind\": \"switch\", \"params\": {\"ports\": 2}}],\n"
    " \"links\": [{\"name\": \"p0\", \"host\": \"h0\", \"component\": \"nic0.0\"},\n"
    "           {\"name\": \"p1\", \"host\": \"h1\", \"component\": \"nic1.0\"},\n"
    "           {\"name\": \"e0\", \"a\": \"nic0.1\", \"b\": \"switch.0\"},\n"
    "           {\"name\": \"e1\", \"a\": \"nic1.1\", \"b\": \"switch.1\"}]}\n";

static void test_switches_get_the_runs_wall_clock_start_for_their_pcap(void **state)
{
    (void)state;
    char path[512], err[1024];
    const char *spec_dir = scratch_dir();
    snprintf(path, sizeof path, "%s/switched.json", spec_dir);
    write_text(path, switched_spec);
    json_t *spec = spec_load(path, NULL, 0, err, sizeof err);
    if (!spec || spec_validate(spec, err, sizeof err))
        fail_msg("%s", err);
    remove_tree(spec_dir);
    for (int trace = 0; trace < 2; trace++) {
        const char *dir = scratch_dir();
        plan_tools t = tools;
        t.trace = trace;
        t.epoch_unix_ns = 1764606049ull * 1000000000ull;
        plan p;
        if (plan_build(&p, spec, dir, &t, err, sizeof err))
            fail_msg("%s", err);
        json_t *params = switch_params(&p);
        assert_non_null(params);
        assert_int_equal(json_integer_value(json_object_get(params, "pcap_epoch_ns")),
                         (json_int_t)t.epoch_unix_ns);
        char pcap[640];
        snprintf(pcap, sizeof pcap, "%s/switch.pcap", dir);
        if (trace)
            assert_string_equal(json_string_value(json_object_get(params, "pcap")), pcap);
        else
            assert_null(json_object_get(params, "pcap"));
        plan_free(&p);
        remove_tree(dir);
    }
    json_decref(spec);
}

/* The argument after `option` on host 0's command line, or NULL. */
static const char *option_value(const plan *p, const char *option)
{
    for (int i = 0; i + 1 < p->hosts[0].argc; i++)
        if (!strcmp(p->hosts[0].argv[i], option))
            return p->hosts[0].argv[i + 1];
    return NULL;
}

static void test_a_restoring_host_gets_its_snapshot_and_parameters_apart(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char err[1024], snapshots[128], kernel[128];
    snprintf(snapshots, sizeof snapshots, "%s/snapshots", dir);
    snprintf(kernel, sizeof kernel, "%s/vmlinuz", dir);
    write_text(kernel, "kernel");
    plan_tools t = tools;
    t.kernel = t.initrd = t.sim_bin = kernel;
    t.boot = PLAN_BOOT_RESTORE;
    t.snapshot_dir = snapshots;
    json_t *spec = pcitest_spec();
    plan p;
    if (plan_build(&p, spec, dir, &t, err, sizeof err))
        fail_msg("%s", err);
    assert_string_equal(option_value(&p, "-append"), "console=ttyS0 quiet panic=-1 acpi=noirq");
    char expected[1024];
    snprintf(expected, sizeof expected, "name=opt/mortar/params,file=%s/h0.params", dir);
    assert_string_equal(option_value(&p, "-fw_cfg"), expected);
    assert_string_equal(option_value(&p, "-incoming"), "fd:3"); /* the launcher opens it */
    assert_true(p.hosts[0].restores);
    snprintf(expected, sizeof expected, "%s/%s.vm", snapshots, p.hosts[0].snapshot_key);
    assert_string_equal(p.hosts[0].snapshot, expected);
    char *params = read_text(p.hosts[0].params);
    assert_non_null(strstr(params, "mortar.hostname=h0\n"));
    assert_non_null(strstr(params, "mortar.run64="));
    free(params);
    plan_free(&p);
    json_decref(spec);
    remove_tree(dir);
}

static bool has_option(const plan_host *h, const char *option)
{
    for (int i = 0; i < h->argc; i++)
        if (!strcmp(h->argv[i], option))
            return true;
    return false;
}

static void test_a_host_without_a_device_boots_instead_of_restoring(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char err[1024], snapshots[128], kernel[128];
    snprintf(snapshots, sizeof snapshots, "%s/snapshots", dir);
    snprintf(kernel, sizeof kernel, "%s/vmlinuz", dir);
    write_text(kernel, "kernel");
    plan_tools t = tools;
    t.kernel = t.initrd = t.sim_bin = kernel;
    t.boot = PLAN_BOOT_RESTORE;
    t.snapshot_dir = snapshots;
    json_t *spec = pcitest_spec();
    json_array_append_new(json_object_get(spec, "hosts"),
                          json_pack("{s:s, s:s}", "name", "plain", "run", "true"));
    plan p;
    if (plan_build(&p, spec, dir, &t, err, sizeof err))
        fail_msg("%s", err);
    assert_false(p.hosts[0].boots);
    assert_true(has_option(&p.hosts[0], "-incoming"));
    assert_true(p.hosts[1].boots);
    assert_false(has_option(&p.hosts[1], "-incoming"));
    assert_true(has_option(&p.hosts[1], "-fw_cfg"));
    plan_free(&p);
    json_decref(spec);
    remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_symlink_where_a_description_goes_is_not_followed),
        cmocka_unit_test(test_device_options_name_the_component_and_link),
        cmocka_unit_test(test_switches_get_the_runs_wall_clock_start_for_their_pcap),
        cmocka_unit_test(test_a_restoring_host_gets_its_snapshot_and_parameters_apart),
        cmocka_unit_test(test_a_host_without_a_device_boots_instead_of_restoring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
