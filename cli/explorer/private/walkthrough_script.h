/*
 * walkthrough_script.h - the narration of a study's one-minute walkthrough
 * (`mortar report --video`), generated from its verdict and its study's
 * labels, never typed in: another database or another study gives another
 * script, and the same database the same one.
 *
 * Scenes, each shown on a part of the explorer page (a CSS selector of
 * web/src/index.html) while its sentence is spoken and shown as its
 * subtitle: the question, the two variants alone (as the page's answer
 * words its alone figure: verdict_answer_alone_words), in the system along
 * the first knob, where the ranking flips (the verdict's own sentence), the
 * map of who wins where (the verdict's first summary sentence), and where
 * the time of a traced request goes in each variant at the far end of the
 * range. A scene whose numbers the verdict lacks is left out.
 */
#ifndef MORTAR_CLI_WALKTHROUGH_SCRIPT_H
#define MORTAR_CLI_WALKTHROUGH_SCRIPT_H

#include <jansson.h>
#include <stddef.h>

#include "study.h"

#define WALKTHROUGH_MAX_SCENES 8
#define WALKTHROUGH_TEXT_MAX   480

typedef struct walkthrough_scene {
    char id[24];       /* "alone" */
    char selector[48]; /* where on the page: "#answer" */
    char text[WALKTHROUGH_TEXT_MAX]; /* the subtitle, with µs and × */
} walkthrough_scene;

typedef struct walkthrough_script {
    walkthrough_scene scenes[WALKTHROUGH_MAX_SCENES];
    size_t n;
} walkthrough_script;

/* The script of the study `st` from its verdict `verdict` (verdict_compute's
 * JSON). 0, or -1 with `err` set when the verdict has nothing to tell (no
 * cell where both variants ran). */
int walkthrough_script_build(const study *st, const json_t *verdict, walkthrough_script *out,
                             char *err, size_t err_size);

/* `text` as the speech synthesizer should read it: "µs" as
 * "microseconds", "×" as "times", "%" as "percent". */
void walkthrough_speech(const char *text, char *out, size_t size);

/* The script as JSON: [{"id", "selector", "text", "speech"}]. */
json_t *walkthrough_script_json(const walkthrough_script *s);

#endif
