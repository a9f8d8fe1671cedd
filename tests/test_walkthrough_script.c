/*
 * test_walkthrough_script.c - the walkthrough's narration
 * (cli/explorer/private/walkthrough_script.h): every number comes from the verdict
 * and every name from the study, so another verdict or another study gives
 * another script, and the same verdict the same one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "scratch_files.h"
#include "study.h"
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
    if (study_load(&nic, matmul("../nic/study.json"), err, sizeof err))
        fail_msg("%s", err);
    walkthrough_script nic_script;
    assert_int_equal(walkthrough_script_build(&nic, v, &nic_script, err, sizeof err), 0);
    assert_string_not_equal(nic_script.scenes[0].text, s.scenes[0].text);
    study_free(&nic);
    json_decref(v);
    study_free(&st);
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
        cmocka_unit_test(test_speech_spells_the_symbols_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
