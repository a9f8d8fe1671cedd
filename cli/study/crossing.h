/*
 * crossing.h - where two measured curves cross, read from their points
 * along the x knob: every change of the winner, bracketed by the measured
 * points around it; which neighbouring points a refinement must still
 * bisect; and where one curve is not monotonic between two grid points.
 * The verdict (verdict.c) reports crossings with it and the refinement of a
 * sweep (refine_plan.c) chooses its next runs with it, so the two agree on
 * what a crossing is. Numbers only: no text, no database.
 *
 * A grid point is an x value the study's knob declares; other points are
 * extra runs (a refinement's). The winner at a point is the side with the
 * lower median (docs/experiments.md, "The verdict"): the sign of the
 * difference first - second.
 */
#ifndef MORTAR_CLI_CROSSING_H
#define MORTAR_CLI_CROSSING_H

#include <stdbool.h>
#include <stddef.h>

/* An x where both compared variants ran: the first's median minus the
 * second's there, and whether x is a grid value. Arrays of them are sorted
 * by x, each x once. */
typedef struct cross_point {
    double x, diff;
    bool grid;
} cross_point;

/* Who wins where the difference is `diff`: -1 the first variant (lower), +1
 * the second, 0 a tie. */
int cross_side(double diff);

/* A change of the winner. */
typedef struct crossing {
    size_t lo, hi;    /* its bracket: the last point before it where `below`
                         wins, the first after it where `above` wins */
    int below, above; /* cross_side of the two */
    double x;         /* its estimate: the first tie between lo and hi when
                         there is one, else where the straight line between
                         the two points is 0 */
    bool measured;    /* an end of the bracket is an extra point: runs between
                         the grid points narrowed it */
    double grid_lo, grid_hi; /* the grid points around it (NAN when none): the
                                interval of the grid it lies in */
} crossing;

/* Every change of the winner along the points, in order, into out (room for
 * n). Ties are no side: the winners on either side of them decide. Returns
 * how many. */
size_t crossings_find(const cross_point *p, size_t n, crossing *out);

/* The intervals a refinement still bisects: neighbouring points whose
 * winners differ (a tie counting as a winner of its own) more than
 * `resolution` apart (knob_scale_resolved). Their left points' indexes go
 * into out (room for n); returns how many. */
size_t crossings_open(const cross_point *p, size_t n, double resolution, size_t *out);

/* A point of one variant's curve: x, its median, whether x is a grid value. */
typedef struct curve_point {
    double x, y;
    bool grid;
} curve_point;

/* A stretch of one curve between two neighbouring grid points (indexes
 * into the curve's points) with extra points in between. */
typedef struct curve_stretch {
    size_t lo, hi;
} curve_stretch;

/* The stretches of a curve (sorted by x) between neighbouring grid points
 * along which it is not monotonic: it rises between some two successive
 * points of the stretch and falls between others (an extra point outside
 * the range of the grid points around it is one such). Into out (room for
 * n); returns how many. */
size_t curve_turns(const curve_point *p, size_t n, curve_stretch *out);

#endif
