/*
 * verdict_answer.c - the three figures of a study's answer, picked from the
 * verdict's JSON (verdict_answer.h). It reads only what the verdict wrote:
 * the alone row, the grid cell and the crossover entry of the reference
 * series value; the winners are the verdict's, and the ratio of the two
 * medians is the one number added. Every lookup is a linear scan: a
 * verdict holds a few dozen cells.
 */
#include "verdict_answer.h"

#include "json_field.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define KEY_MAX 160

static const char *us_key(char *buf, const char *variant)
{
    snprintf(buf, KEY_MAX, "%s_us", variant);
    return buf;
}

/* Whether an entry's "series" is the series value `s` (null with one knob). */
static int same_series(const json_t *entry, const json_t *s)
{
    json_t *e = json_object_get(entry, "series");
    if (json_is_null(s) || !s)
        return !e || json_is_null(e);
    return json_is_number(e) && json_number_value(e) == json_number_value(s);
}

static json_t *entry_at(const json_t *list, const json_t *series)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e) {
        if (same_series(e, series))
            return e;
    }
    return NULL;
}

/* The slower of two medians over the faster; NAN when either is missing. */
static double times(double p, double q)
{
    if (isnan(p) || isnan(q) || p <= 0 || q <= 0)
        return NAN;
    return p > q ? p / q : q / p;
}

/* {"winner", "<first>_us", "<second>_us", "times"} from two medians and the
 * verdict's winner; NULL when either median or the winner is missing. */
static json_t *comparison(const char *first, double first_us, const char *second,
                          double second_us, const json_t *winner)
{
    double t = times(first_us, second_us);
    if (isnan(t) || !json_is_string(winner))
        return NULL;
    char k1[KEY_MAX], k2[KEY_MAX];
    return json_pack("{s:O, s:f, s:f, s:f}", "winner", winner, us_key(k1, first),
                     first_us, us_key(k2, second), second_us, "times", t);
}

static json_t *alone_figure(const json_t *v, const json_t *series, const char *first,
                            const char *second)
{
    json_t *row = entry_at(json_object_get(v, "alone"), series);
    char k1[KEY_MAX], k2[KEY_MAX];
    return comparison(first, jnum(row, us_key(k1, first)), second,
                      jnum(row, us_key(k2, second)), json_object_get(row, "winner"));
}

/* The cell at the largest x value where both variants were measured. */
static json_t *system_figure(const json_t *v, const json_t *series, const char *first,
                             const char *second)
{
    json_t *far = NULL, *fig = NULL;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(v, "cells"), i, e) {
        if (!same_series(e, series) || (far && jnum(e, "x") <= jnum(far, "x")))
            continue;
        json_t *c = comparison(first, jnum(json_object_get(e, first), "median_us"),
                               second, jnum(json_object_get(e, second), "median_us"),
                               json_object_get(e, "winner"));
        if (c) {
            json_decref(fig);
            far = e;
            fig = c;
        }
    }
    if (fig) {
        json_object_set(fig, "x", json_object_get(far, "x"));
        json_object_set(fig, "margin_us", json_object_get(far, "margin_us"));
    }
    return fig;
}

static json_t *flip_figure(const json_t *v, const json_t *series)
{
    json_t *c = entry_at(json_object_get(v, "crossovers"), series);
    json_t *crossings = json_object_get(c, "crossings");
    json_t *k = json_array_get(crossings, 0);
    if (!k || !json_is_number(json_object_get(k, "x")))
        return NULL;
    json_t *flip = json_object();
    const char *keys[] = {"x", "below", "above", "measured", "tied", "from_x", "to_x", "how"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        json_object_set(flip, keys[i], json_object_get(k, keys[i]));
    json_object_set_new(flip, "crossings",
                        json_integer((json_int_t)json_array_size(crossings)));
    return flip;
}

static json_t *or_null(json_t *x)
{
    return x ? x : json_null();
}

json_t *verdict_answer(const json_t *v, const char *first, const char *second)
{
    if (!json_is_object(v))
        return NULL;
    json_t *series = json_object_get(json_object_get(v, "axes"), "series_at");
    return json_pack("{s:O, s:o, s:o, s:o}", "series", series ? series : json_null(),
                     "alone", or_null(alone_figure(v, series, first, second)), "system",
                     or_null(system_figure(v, series, first, second)), "flip",
                     or_null(flip_figure(v, series)));
}
