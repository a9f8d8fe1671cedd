/*
 * xalloc.c - allocations that abort when memory runs out (see xalloc.h).
 */
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* `p`, or an abort when an allocation gave none. */
static void *or_abort(void *p)
{
    if (!p)
        abort();
    return p;
}

char *xstrdup(const char *s)
{
    return or_abort(strdup(s));
}

void *xcalloc(size_t n, size_t size)
{
    return or_abort(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t size)
{
    return or_abort(realloc(p, size ? size : 1));
}
