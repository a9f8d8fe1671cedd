/*
 * test_nic_study.c - the NIC study's files (studies/nic/experiments/, docs/studies.md
 * "The NIC study") as `mortar spec` and `mortar sweep --dry-run` read them:
 * each variant's spec runs that variant's NIC model on both hosts, with
 * Ethernet links no faster than the NIC sends (no line-rate warning); every
 * MTU the study declares is accepted with every variant; the sweep plans
 * every variant over the whole grid. The variants, knobs and grid are read
 * from the study file, not written here. Nothing here reaches QEMU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>

#include "cli_util.h"

static const char *study_path(void)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/studies/nic/experiments/study.json", source_dir());
    return path;
}

static json_t *load_study(void)
{
    json_error_t error;
    json_t *st = json_load_file(study_path(), 0, &error);
    if (!st)
        fail_msg("%s: %s", study_path(), error.text);
    return st;
}

/* `mortar spec STUDY --set AXIS=VARIANT [extra]`: the resolved spec, after
 * checking the command succeeded without a word on stderr. */
static json_t *resolved_spec(const char *dir, const char *axis, const char *variant,
                             const char *extra)
{
    char args[2048];
    snprintf(args, sizeof args, "spec '%s' --set %s=%s %s", study_path(), axis, variant,
             extra);
    cli_result r = run_program(dir, "mortar", args);
    if (r.status != 0 || r.err[0])
        fail_msg("mortar %s: status %d, stderr: %s", args, r.status, r.err);
    json_error_t error;
    json_t *spec = json_loads(r.out, 0, &error);
    if (!spec)
        fail_msg("mortar %s: not JSON: %s", args, error.text);
    cli_result_free(&r);
    return spec;
}

static void test_each_variant_puts_its_nic_on_both_hosts_at_its_line_rate(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    json_t *st = load_study();
    const char *axis = json_string_value(json_object_get(json_object_get(st, "variants"), "axis"));
    assert_non_null(axis);
    json_t *values = json_object_get(json_object_get(st, "variants"), "values");
    assert_true(json_object_size(values) >= 2);
    const char *variant;
    json_t *v;
    json_object_foreach(values, variant, v) {
        json_t *spec = resolved_spec(dir, axis, variant, "");
        assert_string_equal(json_string_value(json_object_get(json_object_get(spec, "vars"), axis)),
                            variant);
        size_t i, nics = 0;
        json_t *c;
        json_array_foreach(json_object_get(spec, "components"), i, c) {
            const char *name = json_string_value(json_object_get(c, "name"));
            if (strncmp(name, "nic_", 4))
                continue;
            assert_string_equal(json_string_value(json_object_get(c, "kind")), variant);
            nics++;
        }
        assert_int_equal(nics, 2);
        json_decref(spec);
    }
    json_decref(st);
    remove_tree(dir);
}

static void test_every_declared_mtu_is_accepted_by_every_variant(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    json_t *st = load_study();
    const char *axis = json_string_value(json_object_get(json_object_get(st, "variants"), "axis"));
    json_t *values = json_object_get(json_object_get(st, "variants"), "values");
    json_t *mtus = json_object_get(json_object_get(json_object_get(st, "knobs"), "mtu"), "values");
    assert_true(json_array_size(mtus) >= 2);
    const char *variant;
    json_t *v;
    json_object_foreach(values, variant, v) {
        size_t i;
        json_t *mtu;
        json_array_foreach(mtus, i, mtu) {
            char extra[64];
            snprintf(extra, sizeof extra, "--set mtu=%lld", (long long)json_integer_value(mtu));
            json_t *spec = resolved_spec(dir, axis, variant, extra);
            size_t h;
            json_t *host;
            json_array_foreach(json_object_get(spec, "hosts"), h, host)
                assert_int_equal(json_integer_value(json_object_get(host, "mtu")),
                                 json_integer_value(mtu));
            json_decref(spec);
        }
    }
    json_decref(st);
    remove_tree(dir);
}

/* The points a part has: its variants times each grid path's values. */
static size_t part_points(json_t *part)
{
    size_t n = json_array_size(json_object_get(part, "variants"));
    const char *path;
    json_t *vals;
    json_object_foreach(json_object_get(part, "grid"), path, vals)
        n *= json_array_size(vals);
    return n;
}

static void test_the_sweep_plans_every_variant_over_the_grid(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    json_t *st = load_study();
    size_t want = 0, i;
    json_t *part;
    json_array_foreach(json_object_get(st, "parts"), i, part)
        want += part_points(part);
    assert_true(want >= 2);
    char args[1200];
    snprintf(args, sizeof args, "sweep '%s' --dry-run --db plan.db", study_path());
    cli_result r = run_program(dir, "mortar", args);
    if (r.status != 0)
        fail_msg("mortar %s: status %d, stderr: %s", args, r.status, r.err);
    size_t lines = 0;
    for (const char *p = r.out; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, want);
    json_t *values = json_object_get(json_object_get(st, "variants"), "values");
    const char *variant;
    json_t *v;
    json_object_foreach(values, variant, v) {
        char word[128];
        snprintf(word, sizeof word, " %s ", variant);
        if (!strstr(r.out, word))
            fail_msg("the plan has no point of variant %s: %s", variant, r.out);
    }
    cli_result_free(&r);
    json_decref(st);
    remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_variant_puts_its_nic_on_both_hosts_at_its_line_rate),
        cmocka_unit_test(test_every_declared_mtu_is_accepted_by_every_variant),
        cmocka_unit_test(test_the_sweep_plans_every_variant_over_the_grid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
