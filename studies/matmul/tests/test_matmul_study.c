/*
 * test_matmul_study.c - the study file: the case study's study.json read whole
 * (variants and their specs, the compared pair and the baselines, the
 * knobs, the load axis, the metric's per-request contract, the alone
 * benchmarks, the parts); `--set design=rtl-b` picking the variant's spec
 * and nothing else; every kind of mistake named with the file and field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec.h"
#include "study.h"
#include "scratch_files.h"

static char tmp_dir[] = "/tmp/mortar-test-study-XXXXXX";

static const char *tmp_file(const char *name)
{
    return scratch_file(tmp_dir, name);
}

static void load_ok(study *st, const char *path)
{
    char err[2048] = "";
    if (study_load(st, path, err, sizeof err))
        fail_msg("%s: %s", path, err);
}

/* ---- the case study's study file -------------------------------------------- */

static void test_case_study_declares_variants_compared_and_baselines(void **state)
{
    (void)state;
    study st;
    load_ok(&st, matmul("study.json"));
    assert_string_equal(st.name, "matmul");
    assert_string_equal(st.axis, "design");
    const char *names[] = {"a", "b", "regcopy", "software", "a-x8", "b-x8", "rtl-b"};
    const char *specs[] = {"design-a.json",     "design-b.json",     "design-regcopy.json",
                           "software.json",     "design-a-x8.json",  "design-b-x8.json",
                           "design-rtl-b.json"};
    assert_int_equal(st.nvariants, 7);
    for (size_t i = 0; i < 7; i++) {
        assert_string_equal(st.variants[i].name, names[i]);
        assert_string_equal(st.variants[i].spec_path, matmul(specs[i]));
    }
    assert_string_equal(st.variants[st.compared[0]].name, "a");
    assert_string_equal(st.variants[st.compared[1]].name, "b");
    assert_string_equal(st.variants[st.compared[0]].label, "A");
    assert_string_equal(study_variant_named(&st, "regcopy")->label, "regcopy");
    assert_string_equal(study_variant_named(&st, "regcopy")->phrase, "register copy");
    assert_string_equal(study_variant_named(&st, "a")->phrase, "A");
    assert_int_equal(st.nbaselines, 4);
    assert_string_equal(st.variants[st.baselines[0]].name, "software");
    assert_string_equal(st.variants[st.baselines[1]].name, "regcopy");
    assert_string_equal(st.variants[st.baselines[2]].name, "a-x8");
    assert_string_equal(study_variant_named(&st, "b-x8")->label, "B at x8");
    study_free(&st);
}

static void test_case_study_declares_knobs_load_and_metric(void **state)
{
    (void)state;
    study st;
    load_ok(&st, matmul("study.json"));
    assert_int_equal(st.nknobs, 2);
    assert_string_equal(st.knobs[0].name, "pcie.latency");
    assert_string_equal(st.knobs[0].label, "L");
    assert_int_equal(st.knobs[0].nvalues, 5);
    assert_string_equal(st.knobs[0].values[0], "0.5us");
    assert_string_equal(st.knobs[1].name, "speed");
    assert_string_equal(st.knobs[1].values[0], "0.25");
    assert_string_equal(st.load.name, "inflight");
    assert_int_equal(st.load.nvalues, 4);
    assert_ptr_equal(study_knob_named(&st, "inflight"), &st.load);
    assert_null(study_knob_named(&st, "design"));
    const study_metric *m = &st.metric;
    assert_true(m->lower_is_better);
    assert_string_equal(m->id_field, "req");
    assert_string_equal(m->value_field, "latency_ns");
    assert_string_equal(m->start_field, "start_ns");
    assert_string_equal(m->verified_field, "verified");
    assert_int_equal(m->nparts, 2);
    assert_string_equal(m->parts[1].name, "compute");
    assert_string_equal(m->parts[1].field, "device_compute_ns");
    study_free(&st);
}

static void test_case_study_alone_benchmarks_are_per_variant(void **state)
{
    (void)state;
    study st;
    load_ok(&st, matmul("study.json"));
    assert_string_equal(study_variant_named(&st, "a")->alone.command,
                        "mortar-matmul-alone --design a --speed $speed");
    assert_string_equal(study_variant_named(&st, "b")->alone.result, "alone_us");
    assert_string_equal(study_variant_named(&st, "rtl-b")->alone.command,
                        "mortar-matmul-alone --design rtl-b --speed 1");
    assert_null(study_variant_named(&st, "software")->alone.command);
    assert_int_equal(st.nparts, 4);
    assert_int_equal(st.parts[1].nvariants, 2);
    assert_string_equal(st.parts[1].variants[0], "software");
    study_free(&st);
}

/* ---- picking a variant ------------------------------------------------------ */

static void test_set_design_rtl_b_picks_its_spec_and_keeps_the_rest(void **state)
{
    (void)state;
    study st;
    char err[1024] = "", *kept[3];
    char *sets[] = {"pcie.latency=0.5us", "design=rtl-b", "requests=5"};
    const char *spec_path = NULL;
    size_t nkept = 0;
    assert_int_equal(study_resolve_spec(&st, matmul("study.json"), sets, 3, &spec_path,
                                        kept, &nkept, err, sizeof err),
                     1);
    assert_string_equal(spec_path, matmul("design-rtl-b.json"));
    assert_int_equal(nkept, 2);
    assert_string_equal(kept[0], "pcie.latency=0.5us");
    assert_string_equal(kept[1], "requests=5");
    study_free(&st);
}

/* The variant's run is exactly the run of its spec with the other sets. */
static void test_variant_resolves_to_the_same_spec_as_its_file(void **state)
{
    (void)state;
    const char *variants[] = {"a", "b", "regcopy", "software", "rtl-b"};
    const char *specs[] = {"design-a.json", "design-b.json", "design-regcopy.json",
                           "software.json", "design-rtl-b.json"};
    for (size_t i = 0; i < 5; i++) {
        study st;
        char err[1024] = "", set[64], *kept[2];
        snprintf(set, sizeof set, "design=%s", variants[i]);
        char *sets[] = {set, "speed=0.5"};
        const char *spec_path;
        size_t nkept;
        assert_int_equal(study_resolve_spec(&st, matmul("study.json"), sets, 2,
                                            &spec_path, kept, &nkept, err, sizeof err),
                         1);
        json_t *via_study = spec_load(spec_path, kept, nkept, err, sizeof err);
        char *direct_sets[] = {"speed=0.5"};
        json_t *direct = spec_load(matmul(specs[i]), direct_sets, 1, err, sizeof err);
        assert_non_null(via_study);
        assert_non_null(direct);
        assert_true(json_equal(via_study, direct));
        json_decref(via_study);
        json_decref(direct);
        study_free(&st);
    }
}

static void test_a_spec_is_not_a_study_and_passes_through(void **state)
{
    (void)state;
    study st;
    char err[256], *kept[1], *sets[] = {"design=b"};
    const char *spec_path;
    size_t nkept;
    assert_int_equal(study_resolve_spec(&st, matmul("design-a.json"), sets, 1, &spec_path,
                                        kept, &nkept, err, sizeof err),
                     0);
    assert_string_equal(spec_path, matmul("design-a.json"));
    assert_int_equal(nkept, 1);
    assert_ptr_equal(kept[0], sets[0]);
    assert_false(study_is_study_file(matmul("sweep.json")));
    assert_true(study_is_study_file(matmul("study.json")));
    study_free(&st);
}

static void pick_fails(char *const sets[], size_t nsets, const char *expected)
{
    study st;
    char err[1024] = "", *kept[4];
    const char *spec_path;
    size_t nkept;
    int rc = study_resolve_spec(&st, matmul("study.json"), sets, nsets, &spec_path, kept,
                                &nkept, err, sizeof err);
    study_free(&st);
    if (rc >= 0)
        fail_msg("accepted (expected an error with '%s')", expected);
    if (!strstr(err, expected) || !strstr(err, "study.json"))
        fail_msg("error '%s' does not contain '%s' and the file", err, expected);
}

static void test_a_study_run_without_or_with_a_wrong_variant_is_refused(void **state)
{
    (void)state;
    char *none[] = {"speed=1"};
    pick_fails(none, 1, "--set design=VARIANT (one of a, b, regcopy, software, a-x8, b-x8, rtl-b)");
    char *unknown[] = {"design=c"};
    pick_fails(unknown, 1, "--set design=c: not a variant of the study");
    char *twice[] = {"design=a", "design=b"};
    pick_fails(twice, 2, "--set design= is given twice");
    char *prefix[] = {"designs=a"}; /* another variable, not the axis */
    pick_fails(prefix, 1, "--set design=VARIANT");
}

/* ---- mistakes --------------------------------------------------------------- */

/* A valid study file with one piece replaced: `from` by `to`. */
static const char *good_study =
    "{\"name\": \"s\",\n"
    " \"variants\": {\"axis\": \"design\", \"compare\": [\"a\", \"b\"],"
    " \"baselines\": [\"sw\"],\n"
    "   \"values\": {\"a\": {\"spec\": \"SPEC_A\", \"label\": \"A\","
    " \"alone\": {\"command\": \"run-a $speed\", \"result\": \"alone_us\"}},\n"
    "              \"b\": {\"spec\": \"SPEC_B\"}, \"sw\": {\"spec\": \"SPEC_B\"}}},\n"
    " \"knobs\": {\"speed\": {\"values\": [0.5, 1]}},\n"
    " \"load\": {\"knob\": \"inflight\", \"values\": [1, 2]},\n"
    " \"metric\": {\"name\": \"latency\", \"unit\": \"ns\", \"better\": \"lower\",\n"
    "   \"report\": {\"id\": \"req\", \"value\": \"latency_ns\", \"start\": \"start_ns\","
    " \"verified\": \"verified\", \"parts\": {\"service\": \"service_ns\"}}},\n"
    " \"parts\": [{\"variants\": [\"a\", \"b\"], \"grid\": {\"speed\": [0.5, 1]},"
    " \"set\": {\"inflight\": 1}}]}\n";

static void replace(char *out, size_t size, const char *text, const char *from,
                    const char *to)
{
    const char *at = strstr(text, from);
    assert_non_null(at);
    snprintf(out, size, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
}

/* The good study with the specs filled in and one replacement. */
static const char *write_study(const char *from, const char *to)
{
    char a[8192], b[8192], c[8192];
    replace(a, sizeof a, good_study, "SPEC_A", matmul("design-a.json"));
    replace(b, sizeof b, a, "SPEC_B", matmul("design-b.json"));
    replace(c, sizeof c, b, "SPEC_B", matmul("software.json"));
    if (from)
        replace(a, sizeof a, c, from, to);
    else
        snprintf(a, sizeof a, "%s", c);
    const char *path = tmp_file("study.json");
    write_file(path, a);
    return path;
}

static void study_fails(const char *from, const char *to, const char *expected)
{
    study st;
    char err[2048] = "";
    const char *path = write_study(from, to);
    int rc = study_load(&st, path, err, sizeof err);
    study_free(&st);
    if (rc == 0)
        fail_msg("'%s' -> '%s' was accepted (expected '%s')", from, to, expected);
    if (!strstr(err, expected) || strncmp(err, path, strlen(path)))
        fail_msg("'%s' -> '%s': error '%s' does not name the file and '%s'", from, to,
                 err, expected);
}

static void test_a_missing_study_file_is_named(void **state)
{
    (void)state;
    study st;
    char err[1024] = "";
    assert_int_equal(study_load(&st, tmp_file("nonexistent.json"), err, sizeof err), -1);
    study_free(&st);
    if (!strstr(err, "nonexistent.json: No such file or directory"))
        fail_msg("error '%s'", err);
}

static void test_the_small_study_loads(void **state)
{
    (void)state;
    study st;
    load_ok(&st, write_study(NULL, NULL));
    assert_string_equal(st.variants[1].label, "b");
    assert_string_equal(st.knobs[0].unit, "");
    study_free(&st);
}

static void test_study_mistakes_are_named_with_their_field(void **state)
{
    (void)state;
    study_fails("\"name\": \"s\"", "\"name\": \"s\", \"nmae\": 1",
                "study: unknown key 'nmae'");
    study_fails("\"name\": \"s\"", "\"name\": \"../s\"", "name: ");
    study_fails("\"axis\": \"design\", ", "", "variants.axis: missing");
    study_fails("\"compare\": [\"a\", \"b\"]", "\"compare\": [\"a\", \"c\"]",
                "variants.compare[1]: 'c' is not one of variants.values");
    study_fails("\"compare\": [\"a\", \"b\"]", "\"compare\": [\"a\"]",
                "variants.compare: expected two variant names");
    study_fails("\"compare\": [\"a\", \"b\"]", "\"compare\": [\"a\", \"a\"]",
                "variants.compare[1]: 'a' is named twice");
    study_fails("\"baselines\": [\"sw\"]", "\"baselines\": [\"a\"]",
                "variants.baselines: 'a' is compared");
    study_fails("\"spec\": \"/", "\"spec\": \"/nonexistent/", "variants.values.a.spec: ");
    study_fails("\"label\": \"A\"", "\"label\": 3",
                "variants.values.a.label: expected a string");
    study_fails("\"label\": \"A\"", "\"label\": \"A\", \"phrase\": \"\"",
                "variants.values.a.phrase: expected 1 to");
    study_fails("\"result\": \"alone_us\"", "\"result\": \"Alone-us\"",
                "variants.values.a.alone.result: 'Alone-us'");
    study_fails("run-a $speed", "run-a $sped",
                "variants.values.a.alone.command: '$sped' is not a knob");
    study_fails("run-a $speed", "run-a ${speed",
                "variants.values.a.alone.command: '${speed' is not a knob");
    study_fails("\"knobs\": {\"speed\"",
                "\"knobs\": {\"design\": {\"values\": [1]}, \"speed\"",
                "knobs: 'design' is the variant axis");
    study_fails("\"values\": [0.5, 1]}}", "\"values\": [0.5, 0.5]}}",
                "knobs.speed.values[1]: '0.5' is given twice");
    study_fails("\"knob\": \"inflight\"", "\"knob\": \"speed\"",
                "load.knob: 'speed' is a knob already");
    study_fails("\"unit\": \"ns\"", "\"unit\": \"us\"", "metric.unit: 'us'");
    study_fails("\"better\": \"lower\"", "\"better\": \"less\"",
                "metric.better: expected");
    study_fails("\"value\": \"latency_ns\"", "\"value\": \"latency ns\"",
                "metric.report.value: 'latency ns'");
    study_fails("\"value\": \"latency_ns\"", "\"value\": \"time_ns\"",
                "metric.report.value: 'time_ns': mortar run reads the per-request "
                "contract's key 'latency_ns'");
    study_fails("\"service\": \"service_ns\"", "\"service\": 3",
                "metric.report.parts.service: expected a string");
    study_fails(
        "\"grid\": {\"speed\": [0.5, 1]}", "\"grid\": {\"speed\": [0.5, 2]}",
        "parts[0].grid.speed[1]: '2' is not one of the values knob speed declares");
    study_fails("\"grid\": {\"speed\": [0.5, 1]}", "\"grid\": {\"mtu\": [1500]}",
                "parts[0].grid.mtu: not a knob of the study");
    study_fails("\"set\": {\"inflight\": 1}", "\"set\": {\"design\": \"a\"}",
                "parts[0].set.design: the variants of a part are its \"variants\"");
    study_fails("\"set\": {\"inflight\": 1}", "\"set\": {\"speed\": 1}",
                "parts[0].set: 'speed' is both in the grid and fixed");
    study_fails("\"variants\": [\"a\", \"b\"], \"grid\"",
                "\"variants\": [\"a\", \"b\", \"sw\", \"b\", \"a\"], \"grid\"",
                "parts[0].variants[3]: 'b' is named twice");
    study_fails("\"variants\": [\"a\", \"b\"], \"grid\"", "\"variants\": [], \"grid\"",
                "parts[0].variants: expected at least one variant");
    study_fails("\"parts\": [", "\"parts\": [7, ",
                "parts[0]: expected an object with \"variants\"");
    study_fails("\"name\": \"s\"", "\"name\": \"s\", \"name\": \"t\"",
                "duplicate object key");
    study_fails("\"parts\": [", "\"refine\": {}, \"parts\": [",
                "refine.resolution: missing: knob speed is not a time");
    study_fails("\"parts\": [", "\"refine\": {\"resolution\": \"0.1us\"}, \"parts\": [",
                "refine.resolution: speed: expected a number above 0");
    study_fails("\"parts\": [", "\"refine\": {\"resolution\": 0}, \"parts\": [",
                "refine.resolution: speed: expected a number above 0");
    study_fails("\"parts\": [", "\"refine\": {\"step\": 1}, \"parts\": [",
                "refine: unknown key 'step'");
    study_fails("\"parts\": [", "\"refine\": true, \"parts\": [",
                "refine: expected an object");
}

/* "refine": a resolution in the x knob's unit; none, no refinement. */
static void test_refine_takes_a_resolution_in_the_x_knobs_unit(void **state)
{
    (void)state;
    study st;
    load_ok(&st, write_study(NULL, NULL));
    assert_false(st.refine.on);
    study_free(&st);
    load_ok(&st, write_study("\"parts\": [", "\"refine\": {\"resolution\": \"0.125\"}, \"parts\": ["));
    assert_true(st.refine.on);
    assert_true(st.refine.resolution == 0.125);
    study_free(&st);
    /* a time knob: a duration, in the knob's unit; 0.05 us by default */
    load_ok(&st, write_study("\"speed\": {\"values\": [0.5, 1]}}",
                             "\"speed\": {\"unit\": \"ns\", \"values\": [0.5, 1]}}, "
                             "\"refine\": {}"));
    assert_true(st.refine.on && fabs(st.refine.resolution - 50) < 1e-9);
    study_free(&st);
    load_ok(&st, write_study("\"speed\": {\"values\": [0.5, 1]}}",
                             "\"speed\": {\"unit\": \"ns\", \"values\": [0.5, 1]}}, "
                             "\"refine\": {\"resolution\": \"2ps\"}"));
    assert_true(fabs(st.refine.resolution - 0.002) < 1e-12);
    study_free(&st);
    /* the case study refines its crossings to 0.05 us (its main job does) */
    load_ok(&st, matmul("study.json"));
    assert_true(st.refine.on && fabs(st.refine.resolution - 0.05) < 1e-12);
    study_free(&st);
}

/* ---- setup ------------------------------------------------------------------ */

/* What reports name a knob, a part and the load share by (issue 14). */
static void test_case_study_names_its_knobs_parts_and_load_share(void **state)
{
    (void)state;
    study st;
    load_ok(&st, matmul("study.json"));
    assert_string_equal(st.knobs[0].phrase, "latency");
    assert_string_equal(st.knobs[0].title, "one-way PCIe latency");
    assert_string_equal(st.knobs[1].phrase, "speed"); /* the label by default */
    assert_string_equal(st.load.phrase, "requests in flight");
    assert_string_equal(st.load_share.label, "next queued");
    assert_string_equal(st.load_share.of, "queued_on_finish");
    assert_string_equal(st.load_share.per, "requests");
    assert_string_equal(st.metric.parts[0].field, "service_ns");
    assert_string_equal(st.metric.parts[0].short_label, "svc");
    assert_string_equal(st.metric.parts[1].short_label, "comp");
    study_free(&st);
    load_ok(&st, write_study(NULL, NULL));
    assert_string_equal(st.metric.parts[0].short_label, "service"); /* the name */
    assert_string_equal(st.metric.parts[0].description, "");
    assert_null(st.load_share.label);
    study_free(&st);
}

/* A run's knob value as a number in the knob's unit. */
static void test_knob_values_read_in_the_knobs_unit(void **state)
{
    (void)state;
    study_knob us = {.unit = "us"}, ns = {.unit = "ns"}, none = {.unit = ""};
    struct {
        const study_knob *k;
        const char *json;
        double want;
    } good[] = {{&us, "\"0.5us\"", 0.5},  {&ns, "\"0.5us\"", 500}, {&us, "\"2500ns\"", 2.5},
                {&us, "1.5", 1.5},        {&none, "9000", 9000},   {&none, "\"0.25\"", 0.25},
                {&none, "true", 1}};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        json_t *v = json_loads(good[i].json, JSON_DECODE_ANY, NULL);
        double x = -1;
        assert_int_equal(study_knob_number(good[i].k, v, &x), 0);
        assert_true(fabs(x - good[i].want) < 1e-12);
        json_decref(v);
    }
    const char *bad[] = {"\"fast\"", "\"\"", "null", "[1]", "\"1e999\"", "\"nan\""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_t *v = json_loads(bad[i], JSON_DECODE_ANY, NULL);
        double x;
        assert_int_equal(study_knob_number(&none, v, &x), -1);
        json_decref(v);
    }
    assert_int_equal(study_knob_number(&us, NULL, &(double){0}), -1);
}

static void test_names_and_share_mistakes_are_named(void **state)
{
    (void)state;
    study_fails("\"values\": [0.5, 1]}}", "\"values\": [0.5, 1], \"phrase\": 3}}",
                "knobs.speed.phrase: expected a string");
    study_fails("\"parts\": {\"service\": \"service_ns\"}",
                "\"parts\": {\"service\": {\"short\": \"svc\"}}",
                "metric.report.parts.service.field: missing");
    study_fails("\"parts\": {\"service\": \"service_ns\"}",
                "\"parts\": {\"service\": {\"field\": \"service_ns\", \"shrt\": 1}}",
                "metric.report.parts.service: unknown key 'shrt'");
    study_fails("\"values\": [1, 2]}", "\"values\": [1, 2], \"share\": {\"label\": \"q\"}}",
                "load.share.of: missing");
    study_fails("\"values\": [1, 2]}",
                "\"values\": [1, 2], \"share\": {\"label\": \"q\", \"of\": \"Q\", \"per\": \"n\","
                " \"description\": \"d\", \"phrase\": \"p\"}}",
                "load.share.of: 'Q': expected lower-case");
}

/* The default study is found at run time: MORTAR_STUDY, else the path
 * that <data dir>/default-study names (relative or absolute). */
static void test_the_default_study_is_found_at_run_time(void **state)
{
    (void)state;
    study st;
    char err[2048] = "", data[512], pointer[600];
    snprintf(data, sizeof data, "%s/data", tmp_dir);
    mkdir(data, 0755);
    setenv("MORTAR_DATA", data, 1);
    unsetenv("MORTAR_STUDY");
    assert_int_equal(study_load_default(&st, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "/data/default-study is missing or empty"));
    study_free(&st);

    snprintf(pointer, sizeof pointer, "%s/default-study", data);
    FILE *f = fopen(pointer, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", matmul("study.json"));
    fclose(f);
    if (study_load_default(&st, NULL, err, sizeof err))
        fail_msg("%s", err);
    assert_string_equal(st.name, "matmul");
    study_free(&st);

    f = fopen(pointer, "w");
    fprintf(f, "no/such/study.json\n");
    fclose(f);
    assert_int_equal(study_load_default(&st, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "the default one (no/such/study.json, from"));
    study_free(&st);

    setenv("MORTAR_STUDY", matmul("study.json"), 1); /* over the pointer */
    if (study_load_default(&st, NULL, err, sizeof err))
        fail_msg("%s", err);
    assert_string_equal(st.name, "matmul");
    study_free(&st);
    unsetenv("MORTAR_STUDY");
    unsetenv("MORTAR_DATA");
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmp_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_study_declares_variants_compared_and_baselines),
        cmocka_unit_test(test_case_study_declares_knobs_load_and_metric),
        cmocka_unit_test(test_case_study_alone_benchmarks_are_per_variant),
        cmocka_unit_test(test_set_design_rtl_b_picks_its_spec_and_keeps_the_rest),
        cmocka_unit_test(test_variant_resolves_to_the_same_spec_as_its_file),
        cmocka_unit_test(test_a_spec_is_not_a_study_and_passes_through),
        cmocka_unit_test(test_a_study_run_without_or_with_a_wrong_variant_is_refused),
        cmocka_unit_test(test_a_missing_study_file_is_named),
        cmocka_unit_test(test_the_small_study_loads),
        cmocka_unit_test(test_study_mistakes_are_named_with_their_field),
        cmocka_unit_test(test_refine_takes_a_resolution_in_the_x_knobs_unit),
        cmocka_unit_test(test_case_study_names_its_knobs_parts_and_load_share),
        cmocka_unit_test(test_knob_values_read_in_the_knobs_unit),
        cmocka_unit_test(test_names_and_share_mistakes_are_named),
        cmocka_unit_test(test_the_default_study_is_found_at_run_time),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
