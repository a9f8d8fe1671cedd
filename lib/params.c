/*
 * params.c - a component's parameters, read from a JSON object (jansson),
 * with errors that carry the JSON path of the offending value.
 */
#include "mortar/params.h"
#include "mortar/error.h"
#include "mortar/time.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mortar_params {
    json_t *obj;
    char path[256];
    char err[512];
};

/* The one way an error about a parameter is kept, the library's own
 * ("expected a number") and a component's alike: "<path>.<key>: <text>". */
int mortar_params_error(const mortar_params *cp, const char *key, const char *fmt, ...)
{
    mortar_params *p = (mortar_params *)cp; /* the error text is mutable state */
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(p->err, sizeof p->err, "%s.%s: %s", p->path, key, msg);
    return MORTAR_EINVAL;
}

static mortar_params *alloc_params(json_t *obj, const char *path)
{
    mortar_params *p = calloc(1, sizeof *p);
    if (!p) {
        json_decref(obj);
        return NULL;
    }
    p->obj = obj;
    snprintf(p->path, sizeof p->path, "%s", path ? path : "params");
    return p;
}

mortar_params *mortar_params_parse(const char *json_text, const char *path, char *err,
                                   size_t err_size)
{
    json_error_t je;
    json_t *obj = json_loads(json_text, 0, &je);
    if (!obj || !json_is_object(obj)) {
        if (err)
            snprintf(err, err_size, "%s: %s", path ? path : "params",
                     obj ? "expected a JSON object" : je.text);
        json_decref(obj);
        return NULL;
    }
    return alloc_params(obj, path);
}

mortar_params *mortar_params_empty(const char *path)
{
    return alloc_params(json_object(), path);
}

void mortar_params_free(mortar_params *p)
{
    if (!p)
        return;
    json_decref(p->obj);
    free(p);
}

const char *mortar_params_errmsg(const mortar_params *p)
{
    return p->err[0] ? p->err : "no error";
}

const char *mortar_params_path(const mortar_params *p)
{
    return p->path;
}

int mortar_params_u64(const mortar_params *p, const char *key, uint64_t def, uint64_t *out)
{
    json_t *v = json_object_get(p->obj, key);
    if (!v) {
        *out = def;
        return MORTAR_OK;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return mortar_params_error(p, key, "expected a non-negative integer");
    *out = (uint64_t)json_integer_value(v);
    return MORTAR_OK;
}

int mortar_params_double(const mortar_params *p, const char *key, double def, double *out)
{
    json_t *v = json_object_get(p->obj, key);
    if (!v) {
        *out = def;
        return MORTAR_OK;
    }
    if (!json_is_number(v))
        return mortar_params_error(p, key, "expected a number");
    *out = json_number_value(v);
    return MORTAR_OK;
}

int mortar_params_bool(const mortar_params *p, const char *key, bool def, bool *out)
{
    json_t *v = json_object_get(p->obj, key);
    if (!v) {
        *out = def;
        return MORTAR_OK;
    }
    if (!json_is_boolean(v))
        return mortar_params_error(p, key, "expected true or false");
    *out = json_is_true(v);
    return MORTAR_OK;
}

int mortar_params_string(const mortar_params *p, const char *key, const char *def,
                         const char **out)
{
    json_t *v = json_object_get(p->obj, key);
    if (!v) {
        *out = def;
        return MORTAR_OK;
    }
    if (!json_is_string(v))
        return mortar_params_error(p, key, "expected a string");
    *out = json_string_value(v);
    return MORTAR_OK;
}

int mortar_params_time(const mortar_params *p, const char *key, uint64_t def_ps,
                       uint64_t *out_ps)
{
    json_t *v = json_object_get(p->obj, key);
    if (!v) {
        *out_ps = def_ps;
        return MORTAR_OK;
    }
    if (!json_is_string(v) || mortar_time_parse(json_string_value(v), out_ps) != 0)
        return mortar_params_error(
            p, key,
            "expected a duration with a unit (ps, ns, us, ms, s), e.g. \"500ns\"");
    return MORTAR_OK;
}

int mortar_params_bandwidth(const mortar_params *p, const char *key, uint64_t def_bps,
                            uint64_t *out_bps)
{
    json_t *v = json_object_get(p->obj, key);
    if (!v) {
        *out_bps = def_bps;
        return MORTAR_OK;
    }
    if (!json_is_string(v) || mortar_bandwidth_parse(json_string_value(v), out_bps) != 0)
        return mortar_params_error(
            p, key,
            "expected a bandwidth with a unit (bps, Kbps, Mbps, Gbps), e.g. \"10Gbps\"");
    return MORTAR_OK;
}

int mortar_params_mac(const mortar_params *p, const char *key, const uint8_t def[6],
                      uint8_t out[6])
{
    json_t *v = json_object_get(p->obj, key);
    if (!v) {
        memcpy(out, def, 6);
        return MORTAR_OK;
    }
    unsigned b[6];
    char tail;
    if (!json_is_string(v) ||
        sscanf(json_string_value(v), "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
               &b[4], &b[5], &tail) != 6)
        return mortar_params_error(p, key,
                                   "expected a MAC address like \"02:00:00:00:00:01\"");
    for (int i = 0; i < 6; i++)
        out[i] = (uint8_t)b[i];
    return MORTAR_OK;
}

int mortar_params_check_known(const mortar_params *p, const char *const known[])
{
    const char *key;
    json_t *v;
    json_object_foreach(p->obj, key, v) {
        bool ok = false;
        for (int i = 0; known[i] && !ok; i++)
            ok = strcmp(known[i], key) == 0;
        if (!ok)
            return mortar_params_error(p, key, "unknown parameter");
    }
    return MORTAR_OK;
}
