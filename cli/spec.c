/*
 * spec.c - experiment specs: bases, variables, --set overrides, validation.
 * See spec.h for the format and docs/experiments.md for the reference.
 */
#include "errbuf.h"
#include "spec.h"

#include <ctype.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/log.h"
#include "mortar/runtime.h"
#include "mortar/time.h"
#include "sims/registry.h"

#define MAX_BASE_DEPTH 8


/* ---- bases --------------------------------------------------------------- */

static const char *elem_name(json_t *e)
{
    return json_string_value(json_object_get(e, "name"));
}

/* Appends `over`'s elements to `base`'s array; {"name", "remove": true}
 * removes the base's element of that name. */
static void merge_array(json_t *base, json_t *over)
{
    size_t i;
    json_t *e;
    json_array_foreach(over, i, e) {
        const char *name = elem_name(e);
        if (name && json_is_true(json_object_get(e, "remove"))) {
            for (size_t k = 0; k < json_array_size(base); k++) {
                const char *bn = elem_name(json_array_get(base, k));
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

static json_t *load_with_bases(const char *path, int depth, char *err, size_t size)
{
    if (depth > MAX_BASE_DEPTH) {
        errbuf_fail(err, size, "%s: bases nested more than %d deep (a cycle?)", path, MAX_BASE_DEPTH);
        return NULL;
    }
    json_error_t je;
    json_t *spec = json_load_file(path, 0, &je);
    if (!spec) {
        errbuf_fail(err, size, "%s:%d:%d: %s", path, je.line, je.column, je.text);
        return NULL;
    }
    if (!json_is_object(spec)) {
        errbuf_fail(err, size, "%s: expected a JSON object", path);
        json_decref(spec);
        return NULL;
    }
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

/* "2.5us" stays a string; "3", "0.5", "true" become JSON scalars. */
static json_t *parse_value(const char *text)
{
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    if (v && (json_is_number(v) || json_is_boolean(v) || json_is_string(v)))
        return v;
    json_decref(v);
    return json_string(text);
}

static int set_path(json_t *spec, const char *path, json_t *value, char *err, size_t size)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *node = spec;
    char *save, *part = strtok_r(buf, ".", &save);
    while (part) {
        char *next = strtok_r(NULL, ".", &save);
        json_t *child = json_is_array(node) ? json_array_get(node, strtoul(part, NULL, 10))
                                            : json_object_get(node, part);
        if (!next) {
            if (json_is_object(node))
                json_object_set(node, part, value);
            else if (child)
                json_array_set(node, strtoul(part, NULL, 10), value);
            else
                return errbuf_fail(err, size, "--set %s: no such place in the spec", path);
            return 0;
        }
        if (!child)
            return errbuf_fail(err, size, "--set %s: '%s' is not in the spec", path, part);
        node = child;
        part = next;
    }
    return errbuf_fail(err, size, "--set %s: empty path", path);
}

static int apply_sets(json_t *spec, char *const sets[], size_t n, char *err, size_t size)
{
    json_t *vars = json_object_get(spec, "vars");
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(sets[i], '=');
        if (!eq || eq == sets[i])
            return errbuf_fail(err, size, "--set %s: expected key=value", sets[i]);
        char key[256];
        snprintf(key, sizeof key, "%.*s", (int)(eq - sets[i]), sets[i]);
        json_t *value = parse_value(eq + 1);
        int rc = 0;
        if (json_is_object(vars) && json_object_get(vars, key))
            json_object_set(vars, key, value);
        else
            rc = set_path(spec, key, value, err, size);
        json_decref(value);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- variables ------------------------------------------------------------------ */

static int var_text(json_t *v, char *buf, size_t size)
{
    if (json_is_string(v))
        snprintf(buf, size, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, size, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, size, "%.17g", json_real_value(v));
    else if (json_is_boolean(v))
        snprintf(buf, size, "%s", json_is_true(v) ? "true" : "false");
    else
        return -1;
    return 0;
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

/* Replaces $name and ${name} in `in`; returns a new string or NULL. */
static char *substitute(const char *in, json_t *vars, const char *where, char *err, size_t size)
{
    size_t cap = strlen(in) + 256, len = 0;
    char *out = malloc(cap);
    for (const char *p = in; *p;) {
        if (*p != '$' || p[1] == '(') { /* "$(...)" is the guest shell's */
            if (len + 2 > cap)
                out = realloc(out, cap *= 2);
            out[len++] = *p++;
            continue;
        }
        int braced = p[1] == '{';
        const char *name = p + 1 + braced;
        size_t n = braced ? strcspn(name, "}") : var_name_len(name);
        char key[256], val[512];
        snprintf(key, sizeof key, "%.*s", (int)n, name);
        json_t *v = json_object_get(vars, key);
        if (n == 0 || !v || var_text(v, val, sizeof val)) {
            errbuf_fail(err, size, "%s: unknown variable '$%s' (not in \"vars\")", where, key);
            free(out);
            return NULL;
        }
        size_t vl = strlen(val);
        while (len + vl + 2 > cap)
            out = realloc(out, cap *= 2);
        memcpy(out + len, val, vl);
        len += vl;
        p = name + n + braced;
    }
    out[len] = '\0';
    return out;
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

json_t *spec_load(const char *path, char *const sets[], size_t nsets, char *err,
                  size_t err_size)
{
    json_t *spec = load_with_bases(path, 0, err, err_size);
    if (!spec)
        return NULL;
    if (!json_object_get(spec, "vars"))
        json_object_set_new(spec, "vars", json_object());
    if (!json_is_object(json_object_get(spec, "vars"))) {
        errbuf_fail(err, err_size, "%s: vars: expected an object", path);
        json_decref(spec);
        return NULL;
    }
    if (apply_sets(spec, sets, nsets, err, err_size)) {
        json_decref(spec);
        return NULL;
    }
    json_t *vars = json_deep_copy(json_object_get(spec, "vars"));
    json_t *body = json_deep_copy(spec);
    json_object_del(body, "vars");
    char where[512] = "";
    int rc = resolve(body, vars, where, sizeof where, err, err_size);
    json_decref(spec);
    if (rc) {
        json_decref(vars);
        json_decref(body);
        return NULL;
    }
    json_object_set_new(body, "vars", vars);
    return body;
}

const char *spec_var_text(json_t *spec, const char *name, char *buf, size_t size)
{
    json_t *v = json_object_get(json_object_get(spec, "vars"), name);
    return v && var_text(v, buf, size) == 0 ? buf : NULL;
}

/* ---- validation ------------------------------------------------------------------ */

typedef struct port_use {
    char ref[160];
    char where[64];
} port_use;

static int check_time(json_t *obj, const char *key, int required, const char *where,
                      char *err, size_t size)
{
    json_t *v = json_object_get(obj, key);
    uint64_t ps;
    if (!v)
        return required ? errbuf_fail(err, size, "%s.%s: required", where, key) : 0;
    if (!json_is_string(v) || mortar_time_parse(json_string_value(v), &ps))
        return errbuf_fail(err, size, "%s.%s: '%s' is not a duration with a unit (ns, us, ms)", where,
                    key, json_is_string(v) ? json_string_value(v) : "(not a string)");
    if (ps == 0)
        return errbuf_fail(err, size, "%s.%s: must be greater than 0", where, key);
    return 0;
}

static int validate_hosts(json_t *hosts, char *err, size_t size)
{
    if (!json_is_array(hosts) || json_array_size(hosts) == 0)
        return errbuf_fail(err, size, "hosts: expected a non-empty array");
    size_t i;
    json_t *h;
    json_array_foreach(hosts, i, h) {
        const char *name = elem_name(h);
        if (!name)
            return errbuf_fail(err, size, "hosts[%zu].name: required", i);
        if (!json_is_string(json_object_get(h, "run")))
            return errbuf_fail(err, size, "hosts[%zu].run: required (the guest's command)", i);
        for (size_t k = 0; k < i; k++)
            if (!strcmp(elem_name(json_array_get(hosts, k)), name))
                return errbuf_fail(err, size, "hosts[%zu].name: '%s' is used twice", i, name);
        json_t *shift = json_object_get(h, "cpu_shift");
        if (shift && (!json_is_integer(shift) || json_integer_value(shift) < -4 ||
                      json_integer_value(shift) > 10))
            return errbuf_fail(err, size, "hosts[%zu].cpu_shift: an integer from -4 to 10", i);
    }
    return 0;
}

/* Creates every component in a scratch loop: the models check their own
 * parameters, and we learn their ports. */
static int validate_components(json_t *comps, mortar_loop *loop, char *err, size_t size)
{
    if (!json_is_array(comps))
        return errbuf_fail(err, size, "components: expected an array");
    size_t i;
    json_t *c;
    json_array_foreach(comps, i, c) {
        const char *name = elem_name(c), *kind = json_string_value(json_object_get(c, "kind"));
        if (!name || !kind)
            return errbuf_fail(err, size, "components[%zu]: needs \"name\" and \"kind\"", i);
        const mortar_component_ops *ops = mortar_registry_find(kind);
        if (!ops)
            return errbuf_fail(err, size, "components[%zu].kind: unknown component kind '%s' "
                        "(mortar-sim --list shows them)", i, kind);
        json_t *pj = json_object_get(c, "params");
        if (pj && !json_is_object(pj))
            return errbuf_fail(err, size, "components[%zu].params: expected an object", i);
        char path[64];
        snprintf(path, sizeof path, "components[%zu].params", i);
        char *text = json_dumps(pj ? pj : json_object(), JSON_COMPACT);
        mortar_params *params = mortar_params_parse(text, path, err, size);
        free(text);
        if (!params)
            return -1;
        int rc = mortar_loop_add(loop, ops, name, params, NULL);
        mortar_params_free(params);
        if (rc)
            return errbuf_fail(err, size, "%s", mortar_loop_errmsg(loop));
    }
    return 0;
}

static int use_port(port_use *uses, size_t *n, mortar_loop *loop, const char *ref,
                    const char *where, char *err, size_t size)
{
    char comp[128];
    snprintf(comp, sizeof comp, "%s", ref ? ref : "");
    char *dot = strrchr(comp, '.');
    unsigned port = 0;
    if (dot) {
        port = (unsigned)strtoul(dot + 1, NULL, 10);
        *dot = '\0';
    }
    mortar_component *c = mortar_loop_find(loop, comp);
    if (!c)
        return errbuf_fail(err, size, "%s: no component named '%s'", where, comp);
    if (port >= mortar_component_port_count(c))
        return errbuf_fail(err, size, "%s: component '%s' has no port %u", where, comp, port);
    char full[160];
    snprintf(full, sizeof full, "%s.%u", comp, port);
    for (size_t k = 0; k < *n; k++)
        if (!strcmp(uses[k].ref, full))
            return errbuf_fail(err, size, "%s: port %s is already bound by %s", where, full,
                        uses[k].where);
    snprintf(uses[*n].ref, sizeof uses[*n].ref, "%s", full);
    snprintf(uses[*n].where, sizeof uses[*n].where, "%s", where);
    (*n)++;
    return 0;
}

static int validate_links(json_t *spec, mortar_loop *loop, char *err, size_t size)
{
    json_t *links = json_object_get(spec, "links"), *hosts = json_object_get(spec, "hosts");
    if (!json_is_array(links))
        return errbuf_fail(err, size, "links: expected an array");
    port_use *uses = calloc(2 * json_array_size(links) + 1, sizeof *uses);
    size_t n = 0, i;
    json_t *l;
    int rc = 0;
    json_array_foreach(links, i, l) {
        char where[64];
        snprintf(where, sizeof where, "links[%zu]", i);
        const char *host = json_string_value(json_object_get(l, "host"));
        const char *comp = json_string_value(json_object_get(l, "component"));
        const char *a = json_string_value(json_object_get(l, "a"));
        const char *b = json_string_value(json_object_get(l, "b"));
        if ((rc = check_time(l, "latency", 1, where, err, size)) ||
            (rc = check_time(l, "sync_interval", 0, where, err, size)))
            break;
        json_t *bw = json_object_get(l, "bandwidth");
        uint64_t bps;
        if (bw && (!json_is_string(bw) || mortar_bandwidth_parse(json_string_value(bw), &bps))) {
            rc = errbuf_fail(err, size, "%s.bandwidth: not a bandwidth with a unit (Mbps, Gbps)", where);
            break;
        }
        if (host && comp) {
            int found = 0;
            for (size_t k = 0; k < json_array_size(hosts); k++)
                found |= !strcmp(elem_name(json_array_get(hosts, k)), host);
            if (!found) {
                rc = errbuf_fail(err, size, "%s.host: no host named '%s'", where, host);
                break;
            }
            if ((rc = use_port(uses, &n, loop, comp, where, err, size)))
                break;
        } else if (a && b) {
            if ((rc = use_port(uses, &n, loop, a, where, err, size)) ||
                (rc = use_port(uses, &n, loop, b, where, err, size)))
                break;
        } else {
            rc = errbuf_fail(err, size, "%s: needs \"host\" and \"component\", or \"a\" and \"b\"", where);
            break;
        }
    }
    /* every declared port must be bound */
    for (size_t ci = 0; !rc && ci < json_array_size(json_object_get(spec, "components")); ci++) {
        const char *name = elem_name(json_array_get(json_object_get(spec, "components"), ci));
        mortar_component *c = mortar_loop_find(loop, name);
        for (unsigned p = 0; !rc && p < mortar_component_port_count(c); p++) {
            char full[160];
            snprintf(full, sizeof full, "%s.%u", name, p);
            int bound = 0;
            for (size_t k = 0; k < n; k++)
                bound |= !strcmp(uses[k].ref, full);
            if (!bound)
                rc = errbuf_fail(err, size, "components[%zu]: port %s is not connected by any link",
                          ci, full);
        }
    }
    free(uses);
    return rc;
}

int spec_validate(json_t *spec, char *err, size_t err_size)
{
    if (validate_hosts(json_object_get(spec, "hosts"), err, err_size))
        return -1;
    mortar_loop *loop;
    if (mortar_loop_create(&loop))
        return errbuf_fail(err, err_size, "out of memory");
    mortar_log_level saved = mortar_log_get_level();
    mortar_log_set_level(MORTAR_LOG_ERROR); /* the models' own lines are not needed here */
    int rc = validate_components(json_object_get(spec, "components"), loop, err, err_size);
    if (!rc)
        rc = validate_links(spec, loop, err, err_size);
    mortar_log_set_level(saved);
    mortar_loop_destroy(loop);
    json_t *m = json_object_get(spec, "measure");
    if (!rc && m && !json_is_string(json_object_get(m, "host")))
        rc = errbuf_fail(err, err_size, "measure.host: expected the name of the host that reports");
    return rc;
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

/* The component element named `name` in the spec, or NULL. */
static json_t *find_component(json_t *spec, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(spec, "components"), i, c) {
        const char *n = elem_name(c);
        if (n && !strcmp(n, name))
            return c;
    }
    return NULL;
}

/* The fastest rate the component at `ref` ("name.port") sends at, 0 when
 * its model declares none; its name and kind in *comp and *kind. */
static uint64_t end_rate_bps(json_t *spec, const char *ref, char *comp, size_t size,
                             const char **kind)
{
    snprintf(comp, size, "%s", ref);
    char *dot = strrchr(comp, '.');
    if (!dot)
        return 0;
    *dot = '\0';
    unsigned port = (unsigned)strtoul(dot + 1, NULL, 10);
    json_t *c = find_component(spec, comp);
    *kind = json_string_value(json_object_get(c, "kind"));
    const mortar_component_ops *ops = *kind ? mortar_registry_find(*kind) : NULL;
    if (!ops || !ops->port_rate_bps)
        return 0;
    json_t *pj = json_object_get(c, "params");
    char *text = json_dumps(pj ? pj : json_object(), JSON_COMPACT);
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
             elem_name(link) ? elem_name(link) : "?", format_rate(link_bps, a, sizeof a),
             comp, kind, format_rate(bps, b, sizeof b));
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
