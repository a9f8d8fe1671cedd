/*
 * grow.c - arrays that grow as they are filled (see grow.h).
 */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>

int grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 32;
    do {
        if (n > SIZE_MAX / 2 / size) /* n * 2 * size would wrap */
            return -1;
        n *= 2;
    } while (n < need);
    void *q = realloc(*(void **)p, n * size);
    if (!q)
        return -1;
    *(void **)p = q;
    *cap = n;
    return 0;
}
