/*
 * mortar/params.h - reading a component's parameters.
 *
 * Parameters come from a JSON object (the "params" of a component in an
 * experiment or mortar-sim description). Every getter takes a default that is
 * used when the key is absent, and fails with MORTAR_EINVAL when the value is
 * present but of the wrong type or out of range; the message then names the
 * full JSON path ("components[1].params.ports: expected a positive integer").
 */
#ifndef MORTAR_PARAMS_H
#define MORTAR_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mortar_params mortar_params;

/* Parses `json_text` (an object) and names it `path` in errors. The result
 * is owned by the caller. Returns NULL with a message in `err` on bad JSON. */
mortar_params *mortar_params_parse(const char *json_text, const char *path, char *err,
                                   size_t err_size);
/* An empty parameter set. */
mortar_params *mortar_params_empty(const char *path);
void mortar_params_free(mortar_params *p);

int mortar_params_u64(const mortar_params *p, const char *key, uint64_t def, uint64_t *out);
int mortar_params_double(const mortar_params *p, const char *key, double def, double *out);
int mortar_params_bool(const mortar_params *p, const char *key, bool def, bool *out);
/* The string stays valid as long as `p`. */
int mortar_params_string(const mortar_params *p, const char *key, const char *def,
                         const char **out);
/* A duration with a unit ("500ns"); see mortar_time_parse(). */
int mortar_params_time(const mortar_params *p, const char *key, uint64_t def_ps,
                       uint64_t *out_ps);
/* A bandwidth with a unit ("10Gbps"). */
int mortar_params_bandwidth(const mortar_params *p, const char *key, uint64_t def_bps,
                            uint64_t *out_bps);
/* A MAC address "02:00:00:00:00:01". */
int mortar_params_mac(const mortar_params *p, const char *key, const uint8_t def[6],
                      uint8_t out[6]);

/* Fails with MORTAR_EINVAL naming the first key of `p` that is not in the
 * NULL-terminated `known` list. */
int mortar_params_check_known(const mortar_params *p, const char *const known[]);

/* Records a component's own error about `key` ("must be between 1 and
 * 64"), so the runtime reports it with the JSON path. Returns MORTAR_EINVAL,
 * for `return mortar_params_error(p, "ports", "...")` in create(). */
int mortar_params_error(const mortar_params *p, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The last error's text, with the JSON path. */
const char *mortar_params_errmsg(const mortar_params *p);

/* The JSON path given at creation ("components[1].params"). */
const char *mortar_params_path(const mortar_params *p);

#endif
