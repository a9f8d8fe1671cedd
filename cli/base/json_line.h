/*
 * json_line.h - a JSON document as the commands print it: dumped with the
 * caller's flags and ended by a newline (`results --json`, `verdict
 * --json`, `trace`), so that `mortar serve` and `mortar report` give the
 * same bytes.
 */
#ifndef MORTAR_CLI_JSON_LINE_H
#define MORTAR_CLI_JSON_LINE_H

#include <jansson.h>
#include <stddef.h>

/* `doc` dumped with `flags`, then a newline: a NUL-terminated string of
 * *len bytes that the caller frees, or NULL when memory runs out. */
char *json_line(const json_t *doc, size_t flags, size_t *len);

#endif
