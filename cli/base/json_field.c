/*
 * json_field.c - a JSON object's fields as a number or a string (see
 * json_field.h).
 */
#include "json_field.h"

#include <math.h>

double jnum(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *jstr(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}
