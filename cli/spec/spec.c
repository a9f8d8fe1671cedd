/*
 * spec.c - experiment specs: bases, variables, --set overrides, validation.
 * See spec.h for the format and docs/experiments.md for the reference.
 */
#include "errbuf.h"
#include "spec.h"

#include <ctype.h>
#include <stdbool.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/log.h"
#include "mortar/runtime.h"
#include "mortar/time.h"
#include "sim_check.h"

#define MAX_BASE_DEPTH 8


/* ---- bases --------------------------------------------------------------- */

const char *spec_elem_name(json_t *elem)
{
    return json_string_value(json_object_get(elem, "name"));
}

json_t *spec_find_named(json_t *array, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(array, i, e) {
        const char *n = spec_elem_name(e);
        if (n && !strcmp(n, name))
            return e;
    }
    return NULL;
}

/* Appends `over`'s elements to `base`'s array; {"name", "remove": true}
 * removes the base's element of that name. */
static void merge_array(json_t *base, json_t *over)
{
    size_t i;
    json_t *e;
    json_array_foreach(over, i, e) {
        const char *name = spec_elem_name(e);
        if (name && json_is_true(json_object_get(e, "remove"))) {
            for (size_t k = 0; k < json_array_size(base); k++) {
                const char *bn = spec_elem_name(json_array_get(base, k));
                if (bn && !strcmp(bn, name)) {
                    json_array_remove(base, k);
                    break;
                }
            }
            continue;
        }
        json_array_append(base, e);
    }
}

/* Merges `over` into `base` (both objects). */
static void merge(json_t *base, json_t *over)
{
    const char *key;
    json_t *v;
    json_object_foreach(over, key, v) {
        json_t *b = json_object_get(base, key);
        if (json_is_object(b) && json_is_object(v))
            merge(b, v);
        else if (json_is_array(b) && json_is_array(v))
            merge_array(b, v);
        else
            json_object_set(base, key, v);
    }
}

/* A host's "programs" name files relative to the spec that lists them:
 * made absolute here, while that spec's directory is known (bases merge
 * files of several directories). */
static void resolve_programs(json_t *spec, const char *path)
{
    char dir[PATH_MAX], real[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    const char *d = realpath(dirname(dir), real) ? real : ".";
    size_t i, k;
    json_t *h, *p;
    json_array_foreach(json_object_get(spec, "hosts"), i, h) {
        json_array_foreach(json_object_get(h, "programs"), k, p) {
            const char *file = json_string_value(p);
            if (!file || file[0] == '/' || !file[0])
                continue;
            char abs[2 * PATH_MAX + 2];
            snprintf(abs, sizeof abs, "%s/%s", d, file);
            json_array_set_new(json_object_get(h, "programs"), k, json_string(abs));
        }
    }
}

static json_t *load_with_bases(const char *path, int depth, char *err, size_t size)
{
    if (depth > MAX_BASE_DEPTH) {
        errbuf_fail(err, size, "%s: bases nested more than %d deep (a cycle?)", path, MAX_BASE_DEPTH);
        return NULL;
    }
    json_error_t je;
    json_t *spec = json_load_file(path, 0, &je);
    if (!spec && je.line < 0) /* not read at all: jansson's text names the file */
        errbuf_fail(err, size, "%s", je.text);
    else if (!spec)
        errbuf_fail(err, size, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    if (!spec)
        return NULL;
    if (!json_is_object(spec)) {
        errbuf_fail(err, size, "%s: expected a JSON object", path);
        json_decref(spec);
        return NULL;
    }
    resolve_programs(spec, path);
    json_t *b = json_object_get(spec, "base");
    if (!b)
        return spec;
    if (!json_is_string(b)) {
        errbuf_fail(err, size, "%s: base: expected a file name", path);
        json_decref(spec);
        return NULL;
    }
    char dir[1024], base_path[2048];
    snprintf(dir, sizeof dir, "%s", path);
    const char *bname = json_string_value(b);
    if (bname[0] == '/')
        snprintf(base_path, sizeof base_path, "%s", bname);
    else
        snprintf(base_path, sizeof base_path, "%s/%s", dirname(dir), bname);
    json_t *base = load_with_bases(base_path, depth + 1, err, size);
    if (!base) {
        json_decref(spec);
        return NULL;
    }
    json_object_del(spec, "base");
    merge(base, spec);
    json_decref(spec);
    return base;
}

/* ---- --set ------------------------------------------------------------------ */

int spec_value_text(json_t *v, char *buf, size_t size)
{
    if (json_is_string(v) && json_string_length(v) > 0 && json_string_length(v) < size) {
        snprintf(buf, size, "%s", json_string_value(v));
    } else if (json_is_integer(v)) {
        snprintf(buf, size, "%lld", (long long)json_integer_value(v));
    } else if (json_is_real(v)) {
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(buf, size, "%.*g", digits, json_real_value(v));
            if (strtod(buf, NULL) == json_real_value(v))
                break;
        }
    } else if (json_is_boolean(v)) {
        snprintf(buf, size, "%s", json_is_true(v) ? "true" : "false");
    } else {
        return -1;
    }
    return 0;
}

#define MAX_SET_PATH 512

/* "2.5us" stays a string; "3", "0.5", "true" become JSON scalars. */
static json_t *parse_value(const char *text)
{
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    if (v && (json_is_number(v) || json_is_boolean(v) || json_is_string(v)))
        return v;
    json_decref(v);
    return json_string(text);
}

/* Reads a non-negative array index; false if `s` is not one. */
static bool parse_index(const char *s, size_t *out)
{
    char *end;
    if (!isdigit((unsigned char)*s))
        return false;
    unsigned long v = strtoul(s, &end, 10);
    *out = v;
    return *end == '\0';
}

/* Follows `path` (dotted, array indexes as numbers; split into `buf`) to
 * the container of its last step: returns the container (NULL if a step
 * before the last is missing), with the last step in *last and the key
 * that led to the container in *container_key ("" for the spec). */
static json_t *walk_to_container(json_t *spec, const char *path, char *buf, size_t size,
                                 const char **last, const char **container_key)
{
    snprintf(buf, size, "%s", path);
    json_t *node = spec;
    *container_key = "";
    char *save, *key = strtok_r(buf, ".", &save);
    *last = key;
    while (key) {
        char *next = strtok_r(NULL, ".", &save);
        if (!next) {
            *last = key;
            return node;
        }
        size_t idx;
        node = json_is_array(node) ? (parse_index(key, &idx) ? json_array_get(node, idx) : NULL)
                                   : json_object_get(node, key);
        if (!node)
            return NULL;
        *container_key = key;
        key = next;
    }
    return NULL; /* an empty path */
}

/* The element of `container` at step `key`, or NULL. */
static json_t *child_at(json_t *container, const char *key)
{
    size_t idx;
    if (json_is_array(container))
        return parse_index(key, &idx) ? json_array_get(container, idx) : NULL;
    return json_object_get(container, key);
}

/* The names of the spec's variables, for the error message. */
static void list_vars(json_t *spec, char *buf, size_t size)
{
    const char *key;
    json_t *v;
    size_t len = 0;
    buf[0] = '\0';
    json_object_foreach(json_object_get(spec, "vars"), key, v) {
        int n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", key);
        if (n < 0 || (size_t)n >= size - len)
            break;
        len += (size_t)n;
    }
}

int spec_check_set(json_t *spec, const char *path, char *err, size_t err_size)
{
    if (json_object_get(json_object_get(spec, "vars"), path))
        return 0;
    char buf[MAX_SET_PATH], vars[600];
    const char *last, *container_key;
    json_t *container = strlen(path) < sizeof buf
                            ? walk_to_container(spec, path, buf, sizeof buf, &last,
                                                &container_key)
                            : NULL;
    if (container && (child_at(container, last) || spec_key_allowed(spec, container, last) ||
                      (json_is_object(container) && !strcmp(container_key, "params"))))
        return 0;
    list_vars(spec, vars, sizeof vars);
    return errbuf_fail(err, err_size,
                       "'%.200s' is neither a variable of the spec nor a place in it "
                       "(its variables: %s)", path, vars);
}

/* Sets the value at `path`, which spec_check_set accepted. */
static void set_path(json_t *spec, const char *path, json_t *value)
{
    char buf[MAX_SET_PATH];
    const char *last, *container_key;
    json_t *container = walk_to_container(spec, path, buf, sizeof buf, &last, &container_key);
    size_t idx;
    if (json_is_array(container) && parse_index(last, &idx))
        json_array_set(container, idx, value);
    else if (json_is_object(container))
        json_object_set(container, last, value);
}

static int apply_sets(json_t *spec, char *const sets[], size_t n, char *err, size_t size)
{
    json_t *vars = json_object_get(spec, "vars");
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(sets[i], '=');
        if (!eq || eq == sets[i])
            return errbuf_fail(err, size, "--set %s: expected key=value", sets[i]);
        char key[MAX_SET_PATH];
        if ((size_t)(eq - sets[i]) >= sizeof key)
            return errbuf_fail(err, size, "--set: a path longer than %d characters",
                               MAX_SET_PATH - 1);
        snprintf(key, sizeof key, "%.*s", (int)(eq - sets[i]), sets[i]);
        char why[1024];
        if (spec_check_set(spec, key, why, sizeof why))
            return errbuf_fail(err, size, "--set %.600s: %s", sets[i], why);
        json_t *value = parse_value(eq + 1);
        if (json_object_get(vars, key))
            json_object_set(vars, key, value);
        else
            set_path(spec, key, value);
        json_decref(value);
    }
    return 0;
}

/* ---- variables ------------------------------------------------------------------ */

/* A scalar variable's text ("1us", "3", "true"), to free; NULL for an
 * object, an array or null. */
static char *var_text_new(json_t *v)
{
    char num[64];
    if (json_is_string(v))
        return strdup(json_string_value(v));
    if (json_is_integer(v))
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(num, sizeof num, "%.17g", json_real_value(v));
    else if (json_is_boolean(v))
        snprintf(num, sizeof num, "%s", json_is_true(v) ? "true" : "false");
    else
        return NULL;
    return strdup(num);
}

static size_t var_name_len(const char *s)
{
    size_t n = 0;
    while (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '.')
        n++;
    while (n > 0 && s[n - 1] == '.') /* a sentence's full stop is not part of it */
        n--;
    return n;
}

/* A growing output string. */
typedef struct text_out {
    char *s;
    size_t len, cap;
} text_out;

static int text_append(text_out *o, const char *s, size_t n)
{
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 64;
        while (o->len + n + 1 > cap)
            cap *= 2;
        char *grown = realloc(o->s, cap);
        if (!grown)
            return -1;
        o->s = grown;
        o->cap = cap;
    }
    memcpy(o->s + o->len, s, n);
    o->len += n;
    o->s[o->len] = '\0';
    return 0;
}

/* The variable reference at `p` ("$name" or "${name}", p[0] == '$'):
 * its name's start and length, and the length of the whole reference.
 * Returns -1 for "${" without its "}". */
static int var_ref(const char *p, const char **name, size_t *name_len, size_t *ref_len)
{
    int braced = p[1] == '{';
    *name = p + 1 + braced;
    if (!braced) {
        *name_len = var_name_len(*name);
        *ref_len = 1 + *name_len;
        return 0;
    }
    const char *close = strchr(*name, '}');
    if (!close)
        return -1;
    *name_len = (size_t)(close - *name);
    *ref_len = *name_len + 3;
    return 0;
}

/* Replaces $name and ${name} in `in`; returns a new string or NULL. */
static char *substitute(const char *in, json_t *vars, const char *where, char *err, size_t size)
{
    text_out out = {0};
    if (text_append(&out, "", 0))
        goto oom;
    for (const char *p = in; *p;) {
        if (*p != '$' || p[1] == '(') { /* "$(...)" is the guest shell's */
            size_t n = strcspn(p + 1, "$") + 1;
            if (text_append(&out, p, n))
                goto oom;
            p += n;
            continue;
        }
        const char *name;
        size_t n, ref_len;
        if (var_ref(p, &name, &n, &ref_len)) {
            errbuf_fail(err, size, "%s: '${' without its '}'", where);
            free(out.s);
            return NULL;
        }
        char key[256];
        json_t *v = NULL;
        if (n > 0 && n < sizeof key) {
            memcpy(key, name, n);
            key[n] = '\0';
            v = json_object_get(vars, key);
        }
        char *val = v ? var_text_new(v) : NULL;
        if (!val) {
            errbuf_fail(err, size, "%s: unknown variable '$%.*s' (not in \"vars\")", where,
                        (int)(n < 200 ? n : 200), name);
            free(out.s);
            return NULL;
        }
        int rc = text_append(&out, val, strlen(val));
        free(val);
        if (rc)
            goto oom;
        p += ref_len;
    }
    return out.s;
oom:
    errbuf_fail(err, size, "%s: out of memory", where);
    free(out.s);
    return NULL;
}

/* Walks the spec and resolves every string; `path` names the place. */
static int resolve(json_t *node, json_t *vars, char *path, size_t plen, char *err, size_t size)
{
    if (json_is_object(node)) {
        const char *key;
        json_t *v;
        void *tmp;
        json_object_foreach_safe(node, tmp, key, v) {
            size_t l = strlen(path);
            snprintf(path + l, plen - l, "%s%s", l ? "." : "", key);
            if (json_is_string(v) && json_string_value(v)[0] == '$' &&
                json_object_get(vars, json_string_value(v) + 1)) {
                /* exactly "$name": keep the variable's type */
                json_object_set(node, key, json_object_get(vars, json_string_value(v) + 1));
            } else if (json_is_string(v)) {
                char *s = substitute(json_string_value(v), vars, path, err, size);
                if (!s)
                    return -1;
                json_object_set_new(node, key, json_string(s));
                free(s);
            } else if (resolve(v, vars, path, plen, err, size)) {
                return -1;
            }
            path[l] = '\0';
        }
    } else if (json_is_array(node)) {
        size_t i;
        json_t *v;
        json_array_foreach(node, i, v) {
            size_t l = strlen(path);
            snprintf(path + l, plen - l, "[%zu]", i);
            if (json_is_string(v)) {
                char *s = substitute(json_string_value(v), vars, path, err, size);
                if (!s)
                    return -1;
                json_array_set_new(node, i, json_string(s));
                free(s);
            } else if (resolve(v, vars, path, plen, err, size)) {
                return -1;
            }
            path[l] = '\0';
        }
    }
    return 0;
}

json_t *spec_resolve(json_t *spec, char *const sets[], size_t nsets, char *err,
                     size_t err_size)
{
    if (!json_object_get(spec, "vars"))
        json_object_set_new(spec, "vars", json_object());
    if (!json_is_object(json_object_get(spec, "vars"))) {
        errbuf_fail(err, err_size, "vars: expected an object");
        return NULL;
    }
    if (apply_sets(spec, sets, nsets, err, err_size))
        return NULL;
    json_t *vars = json_deep_copy(json_object_get(spec, "vars"));
    json_t *body = json_deep_copy(spec);
    json_object_del(body, "vars");
    char where[512] = "";
    if (resolve(body, vars, where, sizeof where, err, err_size)) {
        json_decref(vars);
        json_decref(body);
        return NULL;
    }
    json_object_set_new(body, "vars", vars);
    return body;
}

json_t *spec_load(const char *path, char *const sets[], size_t nsets, char *err,
                  size_t err_size)
{
    json_t *spec = load_with_bases(path, 0, err, err_size);
    if (!spec)
        return NULL;
    char why[1024];
    json_t *resolved = spec_resolve(spec, sets, nsets, why, sizeof why);
    json_decref(spec);
    if (!resolved)
        errbuf_fail(err, err_size, "%s: %s", path, why);
    return resolved;
}

const char *spec_var_text(json_t *spec, const char *name, char *buf, size_t size)
{
    char *text = var_text_new(json_object_get(json_object_get(spec, "vars"), name));
    bool fits = text && strlen(text) < size;
    if (fits)
        memcpy(buf, text, strlen(text) + 1);
    free(text);
    return fits ? buf : NULL;
}

/* ---- line-rate warnings ---------------------------------------------------- */

/* "10 Gbit/s", "2.5 Gbit/s", "100 Mbit/s". */
static const char *format_rate(uint64_t bps, char *buf, size_t size)
{
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1e9, "Gbit/s"}, {1e6, "Mbit/s"}, {1e3, "Kbit/s"}, {1, "bit/s"}};
    size_t i = 0;
    while (i < 3 && (double)bps < units[i].scale)
        i++;
    snprintf(buf, size, "%g %s", (double)bps / units[i].scale, units[i].unit);
    return buf;
}

/* The fastest rate the component at `ref` ("name.port") sends at, 0 when
 * its model declares none; its name and kind in *comp and *kind. */
static uint64_t end_rate_bps(json_t *spec, const char *ref, char *comp, size_t size,
                             const char **kind)
{
    unsigned port;
    if (spec_port_ref(ref, comp, size, &port))
        return 0;
    json_t *c = spec_find_named(json_object_get(spec, "components"), comp);
    *kind = json_string_value(json_object_get(c, "kind"));
    char why[2048];
    const mortar_component_ops *ops = *kind ? sim_check_kind(*kind, "", why, sizeof why) : NULL;
    if (!ops || !ops->port_rate_bps)
        return 0;
    json_t *pj = json_object_get(c, "params");
    /* no params: an empty object */
    char *text = pj ? json_dumps(pj, JSON_COMPACT) : strdup("{}");
    mortar_params *params = text ? mortar_params_parse(text, "params", NULL, 0) : NULL;
    free(text);
    uint64_t bps = params ? ops->port_rate_bps(params, port) : 0;
    mortar_params_free(params);
    return bps;
}

static void warn_end(json_t *out, json_t *spec, json_t *link, const char *ref, uint64_t link_bps)
{
    char comp[160], a[32], b[32], text[512];
    const char *kind = NULL;
    uint64_t bps = ref ? end_rate_bps(spec, ref, comp, sizeof comp, &kind) : 0;
    if (bps == 0 || link_bps <= bps)
        return;
    snprintf(text, sizeof text, "link %s is %s but %s (%s) sends at most %s",
             spec_elem_name(link) ? spec_elem_name(link) : "?",
             format_rate(link_bps, a, sizeof a), comp, kind,
             format_rate(bps, b, sizeof b));
    json_array_append_new(out, json_string(text));
}

json_t *spec_rate_warnings(json_t *spec)
{
    json_t *out = json_array();
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(spec, "links"), i, l) {
        uint64_t bps;
        const char *bw = json_string_value(json_object_get(l, "bandwidth"));
        if (!bw || mortar_bandwidth_parse(bw, &bps) || bps == 0)
            continue;
        warn_end(out, spec, l, json_string_value(json_object_get(l, "a")), bps);
        warn_end(out, spec, l, json_string_value(json_object_get(l, "b")), bps);
        warn_end(out, spec, l, json_string_value(json_object_get(l, "component")), bps);
    }
    return out;
}
