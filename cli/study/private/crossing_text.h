/*
 * crossing_text.h - the sentences about where the two compared variants
 * cross along the x knob in one series, written from the verdict's
 * crossover entry (docs/experiments.md, "The verdict"; verdict.c computes
 * it): who wins below and above each crossing, whether each was measured
 * between runs or estimated on a straight line, and where a curve is not
 * monotonic between two grid points. Names, labels, phrases and units are
 * the study's.
 */
#ifndef MORTAR_CLI_CROSSING_TEXT_H
#define MORTAR_CLI_CROSSING_TEXT_H

#include <jansson.h>

#include "study.h"
#include "verdict_axes.h"

/* Sets the entry's "text" (one sentence), "notes" (an array of
 * sentences, empty when both curves are monotonic between the grid points
 * and the ranking flips at most once between any two), and each crossing's
 * "how": how it was found, as the sentence says it in parentheses
 * ("measured between runs at 1 and 1.03125 µs"; the explorer's crossings
 * table and its answer's flip show it as it is). */
void crossing_text_set(const study *st, const verdict_axes *ax, json_t *crossover);

#endif
