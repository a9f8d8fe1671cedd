/*
 * json_field.h - reading a field of a JSON object the way the verdict's
 * code and its text both do: a number, or NAN when it is null or missing
 * (the verdict writes null where a figure does not exist); a string, or
 * NULL.
 */
#ifndef MORTAR_CLI_JSON_FIELD_H
#define MORTAR_CLI_JSON_FIELD_H

#include <jansson.h>

/* The number under `key`, or NAN when it is null, missing or not a number. */
double jnum(const json_t *obj, const char *key);

/* The string under `key`, or NULL when it is missing or not a string. */
const char *jstr(const json_t *obj, const char *key);

#endif
