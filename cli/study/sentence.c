/*
 * sentence.c - building a sentence in a fixed buffer (sentence.h).
 */
#include "sentence.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sentence_add(sentence *b, const char *fmt, ...)
{
    if (b->n >= sizeof b->s - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
    va_end(ap);
    b->n = strlen(b->s);
}

void sentence_append_to(json_t *to, const sentence *b)
{
    if (b->n)
        json_array_append_new(to, json_string(b->s));
}
