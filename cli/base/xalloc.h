/*
 * xalloc.h - allocations that do not fail: out of memory, the process
 * aborts. For the command's small structures built from a file (a study,
 * a sweep plan), where a half-built one would be worth nothing and every
 * caller would only pass the failure up.
 */
#ifndef MORTAR_CLI_XALLOC_H
#define MORTAR_CLI_XALLOC_H

#include <stddef.h>

/* strdup(s), never NULL. */
char *xstrdup(const char *s);

/* calloc(n, size), never NULL, also for n 0 (where calloc may give NULL). */
void *xcalloc(size_t n, size_t size);

/* realloc(p, size), never NULL, also for size 0. */
void *xrealloc(void *p, size_t size);

#endif
