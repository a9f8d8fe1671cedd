/*
 * verdict_axes.c - the roles of a study's knobs in the verdict and how its
 * text writes their values (verdict_axes.h).
 */
#include "verdict_axes.h"

#include <stdio.h>
#include <string.h>

verdict_axes verdict_axes_of(const study *st)
{
    return (verdict_axes){.x = st->nknobs > 0 ? &st->knobs[0] : NULL,
                          .series = st->nknobs > 1 ? &st->knobs[1] : NULL,
                          .load = st->load.name ? &st->load : NULL};
}

const char *verdict_unit_suffix(const study_knob *k, char *buf, size_t size)
{
    const char *unit = k && k->unit ? k->unit : "";
    snprintf(buf, size, "%s%s", strlen(unit) > 1 ? " " : "", unit);
    return buf;
}

const char *verdict_knob_head(const study_knob *k, char *buf, size_t size)
{
    if (!k)
        snprintf(buf, size, "-");
    else if (k->unit && k->unit[0])
        snprintf(buf, size, "%s(%s)", k->label, k->unit);
    else
        snprintf(buf, size, "%s", k->label);
    return buf;
}
