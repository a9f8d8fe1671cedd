/*
 * errbuf.h - the command's error messages: every step that can fail writes
 * its reason into a caller's buffer (err, size) and returns -1.
 */
#ifndef MORTAR_CLI_ERRBUF_H
#define MORTAR_CLI_ERRBUF_H

#include <stddef.h>

/* Formats the message into err (size bytes) and returns -1. */
int errbuf_fail(char *err, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
