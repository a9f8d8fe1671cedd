/*
 * knob_scale.h - the values a knob can take between two of its values, for
 * refining a study's grid by bisection (docs/studies.md, "Refining the
 * crossing"): a knob in a time unit ("ps" to "s") is a duration, and its
 * points between two values are whole picoseconds, written exactly as
 * --set text ("1.125us", mortar_time_format); a knob whose declared values
 * are all integers takes integers; any other knob takes decimal numbers,
 * written in their shortest exact form ("0.375").
 *
 * Values are numbers in the knob's unit, as study_knob_number() reads them
 * ("0.5us" is 0.5 for a knob in us).
 */
#ifndef MORTAR_CLI_KNOB_SCALE_H
#define MORTAR_CLI_KNOB_SCALE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "study.h"

/* Room for a point's --set text. */
#define KNOB_TEXT_MAX 64

typedef struct knob_scale {
    double unit_ps; /* > 0: a time knob, one unit being this many ps */
    bool integers;  /* not a time knob, and every declared value is an integer */
} knob_scale;

/* Picoseconds in one `unit` ("ps", "ns", "us", "ms", "s"), or 0 when it is
 * not a time unit (or NULL). */
double knob_time_unit_ps(const char *unit);

/* How knob `k`'s values between two of its values are chosen. */
knob_scale knob_scale_of(const study_knob *k);

/* The resolution a refinement stops at when none is stated: 0.05 us for a
 * time knob (in its unit), NAN for any other (it must be stated). */
double knob_scale_default_resolution(const knob_scale *s);

/* Reads a stated resolution into *out, in the knob's unit: a duration
 * ("0.05us") for a time knob, a positive number (or its text) for another.
 * -1 with why it is not one in `err` (no file or field: the caller names
 * them). */
int knob_scale_resolution(const knob_scale *s, json_t *value, double *out, char *err,
                          size_t size);

/* The point halfway between lo < hi, rounded down to what the knob takes
 * (a picosecond, an integer): 0 with *mid and its --set text (at most
 * KNOB_TEXT_MAX bytes), or -1 when no such point lies strictly between. */
int knob_scale_midpoint(const knob_scale *s, double lo, double hi, double *mid,
                        char *text, size_t size);

/* Whether an interval `width` wide is narrow enough for `resolution`
 * (with a relative slack of 1e-9 for the numbers' rounding). */
bool knob_scale_resolved(double width, double resolution);

/* How many halvings narrow an interval `width` wide to `resolution`. */
unsigned knob_scale_halvings(double width, double resolution);

#endif
