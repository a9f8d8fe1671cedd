/*
 * verdict_answer.h - the study's answer in three figures, picked from a
 * verdict (verdict.h) at the series knob's reference value: how much
 * faster the variant that wins alone is, alone; how the two compare in the
 * whole system at the far end of the x knob's range; and where along x the
 * ranking flips. The explorer opens with them (docs/explorer.md, "The
 * answer"). Everything comes from the verdict's own entries (alone, cells,
 * crossovers); the only arithmetic is each comparison's ratio.
 */
#ifndef MORTAR_CLI_VERDICT_ANSWER_H
#define MORTAR_CLI_VERDICT_ANSWER_H

#include <jansson.h>

#include "study.h"

/* The answer for the verdict `v` of a study comparing variants `first`
 * and `second` (new reference):
 *
 *   {"series": the series value (null with one knob),
 *    "alone":  {"winner", "<first>_us", "<second>_us", "times"} or null,
 *    "system": {"x", "winner", "<first>_us", "<second>_us", "margin_us",
 *               "times"} or null,
 *    "flip":   {"x", "below", "above", "measured", "tied", "from_x",
 *               "to_x", "how", "crossings"} or null}
 *
 * "winner" is the verdict's: a variant's name or "tie"; "times" is the
 * slower median over the faster. "alone" is null when either variant has no
 * alone time at the series value; "system" is the cell at the largest x
 * value where both were measured (the grid's far end), null when there is
 * none;
 * "flip" is the first crossing of that series (how many in "crossings"),
 * null when the ranking does not flip in the measured range. NULL when `v`
 * is not a verdict object. */
json_t *verdict_answer(const json_t *v, const char *first, const char *second);

/* The answer of the study `st` for its verdict `v`, as the explorer's data
 * and mortar serve's /api/verdict carry it: verdict_answer's figures for
 * the study's compared pair, worded once with the study's names and the
 * explorer's units (verdict_answer_text.c), for the page to show as given:
 *
 *   "text":    the answer in one sentence ("At clock 1×, Engine P is 1.33×
 *              faster alone, but 1.23× slower in the whole system at
 *              L = 2 µs: the ranking flips at L ≈ 1.01 µs."), null when
 *              there is neither an alone nor a system figure;
 *   "figures": the figures under it, [{"figure": "alone", "system" or
 *              "flip", "title", "value", "what", "detail"}] ("Alone",
 *              "1.33×", "Engine P faster", "2,641.8 µs (P) against
 *              3,520.1 µs (Q)"), empty without a sentence.
 *
 * A new reference; NULL when `v` is not a verdict object. */
json_t *verdict_answer_of_study(const json_t *v, const study *st);

/* The alone figure of `answer` (verdict_answer_of_study's) in one clause,
 * as the answer's sentence says it and with the medians its figure shows:
 * "Engine P is 1.33× faster alone: 2,641.8 µs (P) against 3,520.1 µs (Q)"
 * (the walkthrough's alone scene says it). "" when the answer has no alone
 * figure (no compared variant wins alone). Returns `buf`. */
const char *verdict_answer_alone_words(const study *st, const json_t *answer, char *buf,
                                       size_t size);

#endif
