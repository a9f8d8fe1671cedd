/*
 * grow.h - the command's one rule for an array that grows as it is filled:
 * the capacity doubles (from 64), so n appends cost O(n) copies in all.
 */
#ifndef MORTAR_CLI_GROW_H
#define MORTAR_CLI_GROW_H

#include <stddef.h>

/* Makes the array *p (of *cap elements of `size` bytes, *p NULL when *cap
 * is 0) hold at least `need` elements: realloc'ed, *cap updated. 0, or -1
 * out of memory with *p and *cap as they were (the caller still frees *p). */
int grow(void *p, size_t *cap, size_t need, size_t size);

#endif
