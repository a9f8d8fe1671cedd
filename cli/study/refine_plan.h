/*
 * refine_plan.h - the next runs of a refinement: where the compared
 * ranking changes between two neighbouring points along the x knob of a
 * series, both compared variants are run at the midpoint, until every such
 * interval is no wider than the resolution (docs/studies.md, "Refining the
 * crossing"). Nothing is remembered between calls: the plan is read from
 * the runs in the database every time (study_runs.h, as the verdict reads
 * them), so an interrupted refinement continues where its runs stopped.
 */
#ifndef MORTAR_CLI_REFINE_PLAN_H
#define MORTAR_CLI_REFINE_PLAN_H

#include <stddef.h>

#include "knob_scale.h"
#include "study_runs.h"

/* A run the refinement needs next. */
typedef struct refine_need {
    int variant;                /* which compared variant: 0 or 1 */
    double series;              /* the series value (NAN without a series knob) */
    double x;                   /* the midpoint, in the x knob's unit */
    char x_text[KNOB_TEXT_MAX]; /* the same as --set text ("1.25us") */
    double lo, hi;              /* the interval it halves */
} refine_need;

/* Where one series' refinement stands. */
typedef struct refine_status {
    size_t points;    /* x values where both compared variants ran */
    size_t crossings; /* changes of the winner among them */
    size_t open;      /* intervals still to bisect */
    size_t runs_left; /* the runs those take, at most (2 per halving, less the
                         ones already there) */
    double widest;    /* the widest bracket of a crossing (NAN: no crossing) */
} refine_status;

/* The runs series `series` needs next, into `needs` (room for 2 x rs->n:
 * both variants at the midpoint of every open interval, less the ones
 * with a run there already), and where it stands. Returns how many. */
size_t refine_plan_series(const study_runs *rs, const knob_scale *scale, double resolution,
                          double series, refine_need *needs, refine_status *status);

#endif
