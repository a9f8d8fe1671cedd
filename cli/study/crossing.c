/*
 * crossing.c - crossings of two measured curves, the intervals a
 * refinement still bisects, and the stretches between grid points where a
 * curve is not monotonic (crossing.h). Each is one pass over a sorted array: O(N), N the
 * points of one series (a grid's and a refinement's: tens).
 */
#include "crossing.h"

#include <math.h>

#include "knob_scale.h"

int cross_side(double diff)
{
    return diff < 0 ? -1 : diff > 0 ? 1 : 0;
}

/* The nearest grid x at or below p[i] (searching down), or NAN. */
static double grid_below(const cross_point *p, size_t i)
{
    for (size_t k = i + 1; k-- > 0;)
        if (p[k].grid)
            return p[k].x;
    return NAN;
}

static double grid_above(const cross_point *p, size_t n, size_t i)
{
    for (size_t k = i; k < n; k++)
        if (p[k].grid)
            return p[k].x;
    return NAN;
}

/* The estimate between p[lo] and p[hi]: the first tie between them, else
 * the straight line's zero. */
static double estimate(const cross_point *p, size_t lo, size_t hi)
{
    if (hi > lo + 1)
        return p[lo + 1].x;
    const cross_point *a = &p[lo], *b = &p[hi];
    return a->x + a->diff / (a->diff - b->diff) * (b->x - a->x);
}

size_t crossings_find(const cross_point *p, size_t n, crossing *out)
{
    size_t count = 0;
    bool have_last = false;
    size_t last = 0; /* the last point where a side won */
    for (size_t i = 0; i < n; i++) {
        int side = cross_side(p[i].diff);
        if (side == 0)
            continue;
        if (have_last && side != cross_side(p[last].diff))
            out[count++] = (crossing){.lo = last,
                                      .hi = i,
                                      .below = cross_side(p[last].diff),
                                      .above = side,
                                      .x = estimate(p, last, i),
                                      .measured = !p[last].grid || !p[i].grid,
                                      .grid_lo = grid_below(p, last),
                                      .grid_hi = grid_above(p, n, i)};
        have_last = true;
        last = i;
    }
    return count;
}

size_t crossings_open(const cross_point *p, size_t n, double resolution, size_t *out)
{
    size_t count = 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (cross_side(p[i].diff) != cross_side(p[i + 1].diff) &&
            !knob_scale_resolved(p[i + 1].x - p[i].x, resolution))
            out[count++] = i;
    return count;
}

/* Whether the curve both rises and falls between successive points of
 * p[lo..hi]. */
static bool turns(const curve_point *p, size_t lo, size_t hi)
{
    bool rises = false, falls = false;
    for (size_t i = lo; i < hi; i++) {
        rises |= p[i + 1].y > p[i].y;
        falls |= p[i + 1].y < p[i].y;
    }
    return rises && falls;
}

size_t curve_turns(const curve_point *p, size_t n, curve_stretch *out)
{
    size_t count = 0;
    bool have_lo = false;
    size_t lo = 0; /* the last grid point */
    for (size_t i = 0; i < n; i++) {
        if (!p[i].grid)
            continue;
        if (have_lo && i > lo + 1 && turns(p, lo, i))
            out[count++] = (curve_stretch){.lo = lo, .hi = i};
        have_lo = true;
        lo = i;
    }
    return count;
}
