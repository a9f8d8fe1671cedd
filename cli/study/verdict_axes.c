/*
 * verdict_axes.c - the roles of a study's knobs in the verdict and how its
 * text writes their values (verdict_axes.h).
 */
#include "verdict_axes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Value `i` of knob `k` as a number, or NAN. */
static double declared(const study_knob *k, size_t i)
{
    json_t *text = json_string(k->values[i]);
    double x;
    int rc = study_knob_number(k, text, &x);
    json_decref(text);
    return rc ? NAN : x;
}

static double series_reference(const study *st, const study_knob *k)
{
    double x;
    for (size_t i = 0; k && i < st->nparts; i++)
        if (!study_knob_number(k, json_object_get(st->parts[i].set, k->name), &x))
            return x;
    return k && k->nvalues ? declared(k, 0) : NAN;
}

static double load_reference(const study_knob *k)
{
    double lo = NAN;
    for (size_t i = 0; k && i < k->nvalues; i++) {
        double x = declared(k, i);
        if (!isnan(x) && (isnan(lo) || x < lo))
            lo = x;
    }
    return lo;
}

verdict_axes verdict_axes_of(const study *st)
{
    verdict_axes ax = {.x = st->nknobs > 0 ? &st->knobs[0] : NULL,
                       .series = st->nknobs > 1 ? &st->knobs[1] : NULL,
                       .load = st->load.name ? &st->load : NULL};
    ax.series_at = ax.series ? series_reference(st, ax.series) : NAN;
    ax.load_at = load_reference(ax.load);
    return ax;
}

/* A unit as the sentences write it: its symbol where it has one. */
static const char *unit_symbol(const char *unit)
{
    if (!strcmp(unit, "us"))
        return VERDICT_US;
    return !strcmp(unit, "x") ? "\u00d7" : unit;
}

const char *verdict_unit_words(const study_knob *k, char *buf, size_t size)
{
    const char *unit = k && k->unit ? k->unit : "";
    snprintf(buf, size, "%s%s", strlen(unit) > 1 ? " " : "", unit_symbol(unit));
    return buf;
}

int verdict_columns(const char *s)
{
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xC0) != 0x80; /* a continuation byte: no column of its own */
    return n;
}

int verdict_pad(const char *s, int width)
{
    return width + (int)strlen(s) - verdict_columns(s);
}

const char *verdict_knob_head(const study_knob *k, char *buf, size_t size)
{
    if (!k)
        snprintf(buf, size, "-");
    else if (k->unit && k->unit[0])
        snprintf(buf, size, "%s(%s)", k->label, unit_symbol(k->unit));
    else
        snprintf(buf, size, "%s", k->label);
    return buf;
}
