/*
 * knob_scale.c - the points of a knob between two of its values
 * (knob_scale.h). Time knobs work in integer picoseconds, as the platform
 * does (include/mortar/time.h), so a midpoint is exact and its text names
 * it exactly; other knobs in doubles.
 */
#include "knob_scale.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "mortar/time.h"

/* The default resolution of a time knob, in ps: 0.05 us. */
#define DEFAULT_TIME_RESOLUTION_PS 50000.0

double knob_time_unit_ps(const char *unit)
{
    static const struct {
        const char *name;
        double ps;
    } units[] = {{"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (unit && !strcmp(unit, units[i].name))
            return units[i].ps;
    return 0;
}

static bool declares_integers(const study_knob *k)
{
    for (size_t i = 0; i < k->nvalues; i++) {
        json_t *text = json_string(k->values[i]);
        double x;
        bool integer = !study_knob_number(k, text, &x) && x == floor(x);
        json_decref(text);
        if (!integer)
            return false;
    }
    return k->nvalues > 0;
}

knob_scale knob_scale_of(const study_knob *k)
{
    knob_scale s = {.unit_ps = knob_time_unit_ps(k->unit)};
    s.integers = s.unit_ps == 0 && declares_integers(k);
    return s;
}

double knob_scale_default_resolution(const knob_scale *s)
{
    return s->unit_ps > 0 ? DEFAULT_TIME_RESOLUTION_PS / s->unit_ps : NAN;
}

int knob_scale_resolution(const knob_scale *s, json_t *value, double *out, char *err,
                          size_t size)
{
    const char *text = json_string_value(value);
    if (s->unit_ps > 0) {
        uint64_t ps;
        if (!text || mortar_time_parse(text, &ps) || ps == 0)
            return errbuf_fail(err, size,
                               "expected a duration above 0 such as \"0.05us\" (the knob "
                               "is a time)");
        *out = (double)ps / s->unit_ps;
        return 0;
    }
    char *end = NULL;
    double x = json_is_number(value) ? json_number_value(value) : NAN;
    if (text) {
        errno = 0;
        x = strtod(text, &end);
        if (errno || end == text || *end)
            x = NAN;
    }
    if (!isfinite(x) || x <= 0)
        return errbuf_fail(err, size, "expected a number above 0 (in the knob's unit)");
    *out = x;
    return 0;
}

/* The shortest "%.*g" text of x that reads back as x. */
static void shortest_text(double x, char *text, size_t size)
{
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(text, size, "%.*g", digits, x);
        if (strtod(text, NULL) == x)
            return;
    }
}

static int time_midpoint(const knob_scale *s, double lo, double hi, double *mid,
                         char *text, size_t size)
{
    double lo_ps = round(lo * s->unit_ps), hi_ps = round(hi * s->unit_ps);
    if (lo_ps < 0 || hi_ps > (double)UINT64_MAX / 2 || hi_ps - lo_ps < 2)
        return -1;
    uint64_t m = (uint64_t)lo_ps + ((uint64_t)hi_ps - (uint64_t)lo_ps) / 2;
    mortar_time_format(m, text, size);
    *mid = (double)m / s->unit_ps;
    return 0;
}

int knob_scale_midpoint(const knob_scale *s, double lo, double hi, double *mid,
                        char *text, size_t size)
{
    if (!(lo < hi))
        return -1;
    if (s->unit_ps > 0)
        return time_midpoint(s, lo, hi, mid, text, size);
    double m = s->integers ? floor(lo + (hi - lo) / 2) : lo + (hi - lo) / 2;
    if (!(m > lo && m < hi))
        return -1;
    if (s->integers)
        snprintf(text, size, "%.0f", m);
    else
        shortest_text(m, text, size);
    *mid = strtod(text, NULL);
    return 0;
}

bool knob_scale_resolved(double width, double resolution)
{
    return width <= resolution * (1 + 1e-9);
}

unsigned knob_scale_halvings(double width, double resolution)
{
    unsigned n = 0;
    while (!knob_scale_resolved(width, resolution) && n < 64) {
        width /= 2;
        n++;
    }
    return n;
}
