/*
 * quantile.c - medians and percentiles of a run's values (see quantile.h).
 */
#include "quantile.h"

#include <math.h>
#include <stdlib.h>

static int ascending(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

void quantile_sort_i64(int64_t *v, size_t n)
{
    if (n > 1) /* v may be NULL when there is nothing (qsort wants an array) */
        qsort(v, n, sizeof *v, ascending);
}

size_t quantile_lower_median_index(size_t n)
{
    return n ? (n - 1) / 2 : 0;
}

double quantile_median_sorted(const int64_t *v, size_t n)
{
    if (n == 0)
        return NAN;
    size_t mid = quantile_lower_median_index(n);
    return n % 2 ? (double)v[mid] : ((double)v[mid] + (double)v[mid + 1]) / 2;
}

int64_t quantile_nearest_rank_sorted(const int64_t *v, size_t n, double q)
{
    size_t rank = (size_t)ceil(q * (double)n); /* 1-based */
    return v[rank ? rank - 1 : 0];
}
