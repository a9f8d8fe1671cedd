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

#include "sentence.h"
#include "study.h"
#include "verdict_axes.h"

/* Sets the entry's "text" (one sentence) and "notes" (an array of
 * sentences, empty when both curves are monotonic between the grid points
 * and the ranking flips at most once between any two). */
void crossing_text_set(const study *st, const verdict_axes *ax, json_t *crossover);

/* Appends how a crossing `k` (an entry of "crossings") was found, as the
 * verdict's sentence says it in parentheses and the explorer's answer under
 * its flip ("measured between runs at 1 and 1.03125 µs"), `x_unit` after
 * the x values (verdict_unit_words). */
void crossing_how_add(sentence *b, const json_t *k, const char *x_unit);

#endif
