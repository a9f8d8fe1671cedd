/*
 * refine_plan.c - a refinement's next runs in one series, from the runs in
 * the database (refine_plan.h). The intervals to bisect are
 * crossings_open()'s, the same rule the verdict's crossings come from.
 */
#include "refine_plan.h"

#include <math.h>
#include <stdlib.h>

#include "crossing.h"

static const char *compared(const study_runs *rs, int d)
{
    return rs->st->variants[rs->st->compared[d]].name;
}

/* The needs of one open interval (p[i], p[i + 1]); how many were added. */
static size_t bisect(const study_runs *rs, const knob_scale *scale, double resolution,
                     double series, const cross_point *p, refine_need *needs,
                     refine_status *st)
{
    refine_need n = {.series = series, .lo = p[0].x, .hi = p[1].x};
    if (knob_scale_midpoint(scale, n.lo, n.hi, &n.x, n.x_text, sizeof n.x_text))
        return 0; /* nothing the knob takes lies between: as narrow as it gets */
    st->open++;
    size_t added = 0;
    for (int d = 0; d < 2; d++) {
        if (study_runs_cell(rs, compared(rs, d), n.x, series))
            continue;
        n.variant = d;
        needs[added++] = n;
    }
    st->runs_left += 2 * knob_scale_halvings(n.hi - n.lo, resolution) - (2 - added);
    return added;
}

size_t refine_plan_series(const study_runs *rs, const knob_scale *scale, double resolution,
                          double series, refine_need *needs, refine_status *status)
{
    *status = (refine_status){.widest = NAN};
    size_t room = rs->n ? rs->n : 1, count = 0;
    cross_point *p = calloc(room, sizeof *p);
    crossing *k = calloc(room, sizeof *k);
    size_t *open = calloc(room, sizeof *open);
    if (p && k && open) {
        status->points = study_runs_cross_points(rs, series, p);
        status->crossings = crossings_find(p, status->points, k);
        for (size_t i = 0; i < status->crossings; i++) {
            double width = p[k[i].hi].x - p[k[i].lo].x;
            status->widest = isnan(status->widest) || width > status->widest ? width
                                                                             : status->widest;
        }
        size_t nopen = crossings_open(p, status->points, resolution, open);
        for (size_t i = 0; i < nopen; i++)
            count += bisect(rs, scale, resolution, series, &p[open[i]], needs + count, status);
    }
    free(p);
    free(k);
    free(open);
    return count;
}
