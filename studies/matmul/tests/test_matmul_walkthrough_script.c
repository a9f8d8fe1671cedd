/*
 * test_matmul_walkthrough_script.c - the walkthrough's narration
 * (cli/explorer/private/walkthrough_script.h): every number comes from the verdict
 * and every name from the study, so another verdict or another study gives
 * another script, and the same verdict the same one. Besides verdicts
 * written here, the scripts of two databases: the NIC study's, made here
 * and read by verdict_compute as `mortar report --video` reads it, and the
 * case study's synthetic grid (the verdict test_verdict.c computes from
 * it, studies/matmul/tests/golden/verdict-grid.json); the web test makes the video of a
 * third (tests/web/make_db.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "db.h"
#include "scratch_files.h"
#include "study.h"
#include "verdict.h"
#include "verdict_answer.h"
#include "walkthrough_script.h"

/* A verdict of the case study's shape with numbers of its own. */
static json_t *verdict(double a_alone, double a_far)
{
    json_t *v = json_pack(
        "{s:{s:f}, s:[{s:f, s:f, s:s}], s:[{s:f, s:f, s:f, s:s}],"
        " s:[{s:s, s:f, s:f, s:f, s:f, s:f}, {s:s, s:f, s:f, s:f, s:f, s:f}],"
        " s:[{s:f, s:s}], s:[s, s],"
        " s:[{s:s, s:f, s:f, s:f, s:[{s:s, s:f, s:f}, {s:s, s:f, s:f}]},"
        "    {s:s, s:f, s:f, s:f, s:[{s:s, s:f, s:f}]}]}",
        "axes", "series_at", 1.0, "cells", "x", 0.5, "series", 1.0, "winner", "a", "alone",
        "series", 1.0, "a_us", a_alone, "b_us", 2560.0, "winner", "a", "movement", "variant", "a", "series", 1.0, "from_x", 0.5, "to_x", 2.5,
        "from_median_us", 2641.8, "to_median_us", a_far, "variant", "b", "series", 1.0,
        "from_x", 0.5, "to_x", 2.5, "from_median_us", 2832.7, "to_median_us", 2937.0,
        "crossovers", "series", 1.0, "text", "At 1\u00d7, A wins below 0.89 \u00b5s and B above (estimated).",
        "summary", "A wins 1 and B 1 of the 2 cells.", "At 1\u00d7, A wins below 0.89 \u00b5s.",
        "splits", "variant", "a", "x", 2.5, "series", 1.0, "latency_us", a_far, "parts",
        "label", "host interface and link", "ps", 1.5e9, "us", 1500.0, "label", "compute",
        "ps", 1.9e9, "us", 1920.0, "variant", "b", "x", 2.5, "series", 1.0, "latency_us",
        2937.0, "parts", "label", "compute", "ps", 2.56e9, "us", 2560.0);
    assert_non_null(v);
    return v;
}

static const char *text_of(const walkthrough_script *s, const char *id)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->scenes[i].id, id))
            return s->scenes[i].text;
    fail_msg("no scene %s", id);
    return NULL;
}

static void test_the_numbers_are_the_verdicts(void **state)
{
    (void)state;
    study st;
    char err[1024];
    if (study_load(&st, matmul("study.json"), err, sizeof err))
        fail_msg("%s", err);
    json_t *v = verdict(1920.0, 3731.6);
    walkthrough_script s;
    assert_int_equal(walkthrough_script_build(&st, v, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 7);
    /* the alone figure as the page's answer words it */
    json_t *answer = verdict_answer_of_study(v, &st);
    char alone[WALKTHROUGH_TEXT_MAX];
    verdict_answer_alone_words(&st, answer, alone, sizeof alone);
    json_decref(answer);
    assert_string_equal(alone, "Design A is 1.33\u00d7 faster alone: 1,920.0 \u00b5s (A) against "
                               "2,560.0 \u00b5s (B)");
    assert_string_equal(text_of(&s, "alone"),
                        "At a speed of 1\u00d7, Design A is 1.33\u00d7 faster alone: 1,920.0 "
                        "\u00b5s (A) against 2,560.0 \u00b5s (B).");
    assert_non_null(strstr(text_of(&s, "system"), "A goes from 2642 to 3732 \u00b5s"));
    assert_string_equal(text_of(&s, "flip"), "At 1\u00d7, A wins below 0.89 \u00b5s and B above.");
    assert_string_equal(text_of(&s, "map"), "Over the whole grid, A wins 1 and B 0 of 1 settings.");
    assert_string_equal(text_of(&s, "trace-first"),
                        "In a traced request of A at 2.5 \u00b5s, compute takes 1920 of 3732 "
                        "\u00b5s.");
    assert_string_equal(s.scenes[0].selector, "#verdict");

    /* the same verdict, the same script; another verdict, another one */
    walkthrough_script again, other;
    assert_int_equal(walkthrough_script_build(&st, v, &again, err, sizeof err), 0);
    assert_memory_equal(&s, &again, sizeof s);
    json_t *v2 = verdict(1800.0, 3700.0);
    assert_int_equal(walkthrough_script_build(&st, v2, &other, err, sizeof err), 0);
    assert_string_not_equal(text_of(&s, "alone"), text_of(&other, "alone"));
    json_decref(v2);

    /* another study's labels: the NIC study compares other variants */
    study nic;
    if (study_load(&nic, matmul("../../nic/experiments/study.json"), err, sizeof err))
        fail_msg("%s", err);
    walkthrough_script nic_script;
    assert_int_equal(walkthrough_script_build(&nic, v, &nic_script, err, sizeof err), 0);
    assert_string_not_equal(nic_script.scenes[0].text, s.scenes[0].text);
    study_free(&nic);
    json_decref(v);
    study_free(&st);
}

/* A database of the NIC study (studies/nic/experiments/study.json: i40e against
 * e1000 over the PCIe latency and the MTU): one finished run per cell,
 * whose median is `median_us`; the XL710 (i40e) is faster at 0.5 us and
 * the 82540EM (e1000) at 2.5 us. */
static double nic_median_us(const char *nic, double latency_us, int mtu)
{
    double shift = mtu == 9000 ? -5 : 0;
    return !strcmp(nic, "i40e") ? 100 + 40 * latency_us + shift : 120 + 10 * latency_us + shift;
}

static void make_nic_db(const char *path)
{
    db_conn *db;
    char err[512];
    if (db_open(&db, path, err, sizeof err))
        fail_msg("%s", err);
    const char *nics[] = {"i40e", "e1000"};
    const double latencies_us[] = {0.5, 2.5};
    const int mtus[] = {1500, 9000};
    for (int n = 0; n < 2; n++)
        for (int l = 0; l < 2; l++)
            for (int m = 0; m < 2; m++) {
                json_t *spec = json_pack("{s:{s:s, s:o, s:i}}", "vars", "nic", nics[n],
                                         "pcie.latency", json_sprintf("%gus", latencies_us[l]),
                                         "mtu", mtus[m]);
                db_run_info info = {.name = "nic", .run_dir = "/tmp/mortar-no-trace",
                                    .spec = spec};
                int64_t id = db_begin_run(db, &info);
                json_decref(spec);
                assert_true(id > 0);
                double median = nic_median_us(nics[n], latencies_us[l], mtus[m]);
                db_request one = {.latency_ns = (int64_t)(median * 1000), .verified = 1};
                db_summary sum = {.requests = 1, .verified = 1, .median_us = median,
                                  .p99_us = median, .mean_us = median, .min_us = median,
                                  .max_us = median, .throughput_rps = 1e6 / median};
                assert_int_equal(db_finish_run(db, id, "ok", NULL, 1.0, NULL, NULL, &one, 1,
                                               &sum),
                                 0);
            }
    db_close(db);
}

static json_t *golden_verdict(void)
{
    const char *path = golden("verdict-grid.json");
    json_error_t e;
    json_t *v = json_load_file(path, 0, &e);
    if (!v)
        fail_msg("%s: %s", path, e.text);
    return v;
}

/* The scripts of two databases: each scene from its own verdict and study,
 * so no scene of one is a scene of the other. */
static void test_another_database_or_study_gives_another_script(void **state)
{
    (void)state;
    char err[1024];
    study nic, st;
    if (study_load(&nic, matmul("../../nic/experiments/study.json"), err, sizeof err) ||
        study_load(&st, matmul("study.json"), err, sizeof err))
        fail_msg("%s", err);
    const char *dir = scratch_dir();
    char db_path[256];
    snprintf(db_path, sizeof db_path, "%s/nic.db", dir);
    make_nic_db(db_path);
    db_conn *db;
    if (db_open_read(&db, db_path, err, sizeof err))
        fail_msg("%s", err);
    json_t *nic_verdict = verdict_compute(db, &nic, err, sizeof err);
    db_close(db);
    if (!nic_verdict)
        fail_msg("%s", err);
    walkthrough_script nic_script, grid_script;
    assert_int_equal(walkthrough_script_build(&nic, nic_verdict, &nic_script, err, sizeof err), 0);
    json_t *grid = golden_verdict();
    assert_int_equal(walkthrough_script_build(&st, grid, &grid_script, err, sizeof err), 0);

    /* the NIC study's: its variants' labels and phrases, its verdict's
     * crossing, its database's medians; no alone scene (no alone bench) */
    assert_non_null(strstr(text_of(&nic_script, "question"), "XL710"));
    assert_non_null(strstr(text_of(&nic_script, "question"), "82540EM"));
    const char *flip = text_of(&nic_script, "flip");
    assert_non_null(strstr(flip, "XL710 wins below 0.67 \u00b5s and 82540EM above"));
    char moved[128];
    snprintf(moved, sizeof moved, "XL710 goes from %.0f to %.0f \u00b5s",
             nic_median_us("i40e", 0.5, 1500), nic_median_us("i40e", 2.5, 1500));
    assert_non_null(strstr(text_of(&nic_script, "system"), moved));
    for (size_t i = 0; i < nic_script.n; i++)
        assert_string_not_equal(nic_script.scenes[i].id, "alone");

    /* the case study's grid: its own crossing and alone figure */
    assert_string_equal(text_of(&grid_script, "flip"),
                        "At 1\u00d7, A wins below 0.83 \u00b5s and B above.");
    assert_non_null(strstr(text_of(&grid_script, "alone"), "Design A is 1.33\u00d7 faster alone"));

    /* no scene of one script is a scene of the other */
    for (size_t i = 0; i < nic_script.n; i++)
        for (size_t j = 0; j < grid_script.n; j++)
            assert_string_not_equal(nic_script.scenes[i].text, grid_script.scenes[j].text);
    json_decref(grid);
    json_decref(nic_verdict);
    remove_tree(dir);
    study_free(&st);
    study_free(&nic);
}

static void test_speech_spells_the_symbols_out(void **state)
{
    (void)state;
    char out[256];
    walkthrough_speech("At 1\u00d7, 0.89 \u00b5s and 7.2%.", out, sizeof out);
    assert_string_equal(out, "At 1 times, 0.89 microseconds and 7.2 percent.");
    walkthrough_speech("abc", out, 3);
    assert_string_equal(out, "ab");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_numbers_are_the_verdicts),
        cmocka_unit_test(test_another_database_or_study_gives_another_script),
        cmocka_unit_test(test_speech_spells_the_symbols_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
