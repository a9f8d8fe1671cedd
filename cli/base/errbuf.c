/*
 * errbuf.c - see errbuf.h.
 */
#include "errbuf.h"

#include <stdarg.h>
#include <stdio.h>

int errbuf_fail(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
    return -1;
}
