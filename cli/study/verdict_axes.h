/*
 * verdict_axes.h - how the verdict reads a study's knobs: the first knob is
 * the axis along which crossings are found (x), the second, when the study
 * has one, makes the series, and the load axis the load; and how its text
 * writes a knob's value with its unit ("0.50 µs", "1×") and pads a unit's
 * symbol in a terminal table. Shared by the verdict (verdict.c), its text
 * (verdict_cmd.c), the sweep's lines and the results table (results.c).
 */
#ifndef MORTAR_CLI_VERDICT_AXES_H
#define MORTAR_CLI_VERDICT_AXES_H

#include <stddef.h>

#include "study.h"

/* The study's x knob (NULL when it has no knob), series knob and load
 * axis (NULL when it has none), and their reference values: the series
 * knob's is the value the study's parts fix it at (`set`), else its first
 * value (the baselines and the load table are read there); the load axis'
 * is its lowest value (the unloaded runs'). NAN without such a knob. */
typedef struct verdict_axes {
    const study_knob *x, *series, *load;
    double series_at, load_at;
} verdict_axes;

verdict_axes verdict_axes_of(const study *st);

/* The microsecond as the verdict's sentences write it, in UTF-8 as the
 * explorer's tables do. */
#define VERDICT_US "\u00b5s"

/* What follows a value of knob `k` in the verdict's sentences and tables
 * and the sweep's refinement lines: nothing without a unit, a unit of one
 * character right after it, a longer one after a space, with the symbols
 * the explorer writes: "0.50 µs" and "1×" for the units us and x. Every terminal mortar writes to is
 * taken to be UTF-8, as the verdict's sentences always were; the tables
 * pad a symbol by the columns it shows, not by its bytes. */
const char *verdict_unit_words(const study_knob *k, char *buf, size_t size);

/* How many columns `s` takes on a terminal: its characters, not its bytes
 * (a unit's symbol, µs or ×, shows in one column but takes two bytes of
 * UTF-8). */
int verdict_columns(const char *s);

/* The width to give printf's "%*s" for `s` to fill `width` columns (printf
 * counts bytes): the rule every terminal table with a unit's symbol pads
 * by. */
int verdict_pad(const char *s, int width);

/* "<label>(<unit>)", or the label alone without a unit: a column's head,
 * with the unit's symbol as verdict_unit_words writes it ("L(µs)"). */
const char *verdict_knob_head(const study_knob *k, char *buf, size_t size);

#endif
