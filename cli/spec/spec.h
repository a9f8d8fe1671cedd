/*
 * spec.h - experiment specs: loading, inheritance, variables, overrides and
 * validation, before anything starts.
 *
 * A spec is a JSON object (docs/experiments.md):
 *   {"base": "base.json",                   optional, relative to this file
 *    "vars": {"pcie.latency": "1us", ...},   knobs; "$name" or "${name}" in any
 *                                            string is replaced by the value
 *    "hosts": [...], "components": [...], "links": [...], "measure": {...}}
 * A spec with a base is merged into it: objects key by key, "vars" too; the
 * arrays "hosts", "components" and "links" are concatenated, and an element
 * with {"remove": true} and a name removes the base's element of that name.
 * `--set key=value` sets vars.key when the spec has such a var, otherwise
 * the value at that dotted JSON path. A string that is exactly "$name" takes
 * the variable's JSON type (a number stays a number).
 */
#ifndef MORTAR_CLI_SPEC_H
#define MORTAR_CLI_SPEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The most hosts, simulator processes, and links listening in one process
 * a spec may have (spec_validate); a run's plan (plan.h) has room for that
 * many. */
#define PLAN_MAX 16

/* Loads `path` with its bases, applies the `nsets` overrides ("key=value")
 * and resolves every variable. Returns the resolved spec (owned by the
 * caller) or NULL with a message in `err` that begins with the file (the
 * spec or the base at fault) and names the JSON path: print it as it is. */
json_t *spec_load(const char *path, char *const sets[], size_t nsets, char *err,
                  size_t err_size);

/* The part of spec_load after the bases: applies the overrides to `spec`
 * (an object, loaded; changed) and returns a new resolved copy, or NULL
 * with the message in `err`. */
json_t *spec_resolve(json_t *spec, char *const sets[], size_t nsets, char *err,
                     size_t err_size);

/* Checks the resolved spec completely (spec_check.c): no unknown keys;
 * every spec, host, component, link and process name by the one rule
 * (mortar/name.h), unique; hosts' memory_mib, cpu_shift, mtu and ip in
 * range; components of known kinds with parameters their model accepts;
 * links with existing ends ("component.N"), a port bound once, latency > 0,
 * 0 < sync_interval <= latency, bandwidth > 0, units readable; at most
 * PLAN_MAX hosts, processes, and links per host; measure.host naming a
 * host. Returns 0 or -1 with the JSON path of the first problem in `err`. */
int spec_validate(json_t *spec, char *err, size_t err_size);

/* Warnings about links faster than what is attached to them: for every link
 * with a bandwidth, each component end whose model declares a lower rate
 * for that port (port_rate_bps in mortar/component.h) gives "link L is 10
 * Gbit/s but C (kind) sends at most 1 Gbit/s". A new array of strings
 * (empty when none); call on a validated spec. */
json_t *spec_rate_warnings(json_t *spec);

/* Splits a port reference "component.N" into the component's name (in
 * `comp`, `size` bytes) and N. Returns -1 if `ref` is not of that form. */
int spec_port_ref(const char *ref, char *comp, size_t size, unsigned *port);

/* Whether `key` is one the spec may have in `obj`: the spec itself, a
 * host, a component, a link or "measure" (spec_check.c keeps the lists). */
bool spec_key_allowed(json_t *spec, json_t *obj, const char *key);

/* The text `--set` takes for a JSON value of a sweep or study file:
 * strings as they are (not empty, fitting `size`), numbers in their
 * shortest exact form, booleans as true/false. -1 for anything else. */
int spec_value_text(json_t *v, char *buf, size_t size);

/* Whether `--set path=...` would change something `spec` (loaded, not yet
 * overridden) has: a variable, a place that exists (array indexes are
 * numbers), a key the spec may have there (spec_key_allowed), or a new key
 * of a component's "params" (the model checks those). Returns 0, or -1
 * with "'path' is neither a variable ... (its variables: ...)" in `err`.
 * `mortar spec`, `run` and `sweep` all use it. */
int spec_check_set(json_t *spec, const char *path, char *err, size_t err_size);

/* The "name" of a spec's element (a host, a component, a link), or NULL
 * when it has none. */
const char *spec_elem_name(json_t *elem);

/* The element of `array` whose "name" is `name`, or NULL. */
json_t *spec_find_named(json_t *array, const char *name);

/* A variable of the resolved spec as text ("1us", "a", "1"); NULL if absent. */
const char *spec_var_text(json_t *spec, const char *name, char *buf, size_t size);

#endif
