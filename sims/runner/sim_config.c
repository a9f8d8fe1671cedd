/*
 * sim_config.c - building an event loop from a mortar-sim description.
 *
 * The description (JSON) names components and links:
 *   {"start": "3s", "until": "1ms", "trace": "t.bin", "stats": "s.json",
 *    "profile": "p.json",
 *    "components": [{"name": "sw", "kind": "switch", "params": {...}}],
 *    "links": [{"name": "l0", "port": "sw.0", "peer": "nic.0", ...},      in-process
 *              {"name": "l1", "port": "sw.1", "listen": "/run/x.sock"},  we listen
 *              {"name": "l2", "port": "nic.0", "connect": "/run/y.sock"}]}
 * Link options: protocol ("test", "pcie", "eth"; default: the port's),
 * latency, sync_interval, bandwidth, sync (bool), wait ("spin", "yield",
 * "block"), spin ("20us"), slot_size, slot_count, timeout ("30s").
 *
 * External links are set up in parallel threads: two processes that each
 * listen on one link and connect on another must not wait on each other.
 */
#include "sim_config.h"

#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"
#include "mortar/name.h"
#include "mortar/runtime.h"
#include "sims/plugins.h"

typedef struct pending_link {
    char path_in_spec[64]; /* "links[3]" */
    char name[64];
    char socket[256];
    bool listen;
    mortar_link_params params;
    mortar_component *comp;
    unsigned port;
    mortar_link *link;
    int rc;
    char err[512];
} pending_link;

static int fail(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
    return MORTAR_EINVAL;
}

static int get_time(json_t *obj, const char *key, uint64_t def, uint64_t *out, const char *where,
                    char *err, size_t size)
{
    json_t *v = json_object_get(obj, key);
    *out = def;
    if (!v)
        return 0;
    if (!json_is_string(v) || mortar_time_parse(json_string_value(v), out) != 0)
        return fail(err, size, "%s.%s: expected a duration with a unit, e.g. \"500ns\"", where, key);
    return 0;
}

static int add_components(mortar_loop *loop, json_t *comps, char *err, size_t size)
{
    if (!json_is_array(comps) || json_array_size(comps) == 0)
        return fail(err, size, "components: expected a non-empty array");
    size_t i;
    json_t *c;
    json_array_foreach(comps, i, c) {
        const char *name = json_string_value(json_object_get(c, "name"));
        const char *kind = json_string_value(json_object_get(c, "kind"));
        if (!name || !kind)
            return fail(err, size, "components[%zu]: needs \"name\" and \"kind\" strings", i);
        char why[200];
        if (mortar_name_check(name, why, sizeof why))
            return fail(err, size, "components[%zu].name: %s", i, why);
        char installed[1024], not_found[1536];
        mortar_model_installed_dir(installed, sizeof installed);
        const mortar_component_ops *ops =
            mortar_model_find(kind, installed, not_found, sizeof not_found);
        if (!ops)
            return fail(err, size, "components[%zu].kind: %s", i, not_found);
        json_t *pj = json_object_get(c, "params");
        if (pj && !json_is_object(pj))
            return fail(err, size, "components[%zu].params: expected an object", i);
        char path[64];
        snprintf(path, sizeof path, "components[%zu].params", i);
        /* no params: an empty object */
        char *text = pj ? json_dumps(pj, JSON_COMPACT) : strdup("{}");
        mortar_params *params = mortar_params_parse(text, path, err, size);
        free(text);
        if (!params)
            return MORTAR_EINVAL;
        int rc = mortar_loop_add(loop, ops, name, params, NULL);
        mortar_params_free(params);
        if (rc != 0)
            return fail(err, size, "%s", mortar_loop_errmsg(loop));
    }
    return 0;
}

/* "comp.N" or "comp" (port 0) */
static int resolve_port(mortar_loop *loop, const char *ref, const char *where,
                        mortar_component **comp, unsigned *port, char *err, size_t size)
{
    char name[128];
    snprintf(name, sizeof name, "%s", ref ? ref : "");
    char *dot = strrchr(name, '.');
    *port = 0;
    if (dot) {
        char *end;
        unsigned long n = strtoul(dot + 1, &end, 10);
        if (*end == '\0' && end != dot + 1) {
            *port = (unsigned)n;
            *dot = '\0';
        }
    }
    *comp = mortar_loop_find(loop, name);
    if (!*comp)
        return fail(err, size, "%s: no component named '%s'", where, name);
    if (*port >= mortar_component_port_count(*comp))
        return fail(err, size, "%s: component '%s' has no port %u", where, name, *port);
    return 0;
}

static int parse_protocol(const char *s, uint32_t *out)
{
    if (!strcmp(s, "test")) *out = MORTAR_PROTO_TEST;
    else if (!strcmp(s, "pcie")) *out = MORTAR_PROTO_PCIE;
    else if (!strcmp(s, "eth") || !strcmp(s, "ethernet")) *out = MORTAR_PROTO_ETH;
    else return MORTAR_EINVAL;
    return 0;
}

static int parse_wait(const char *s, mortar_wait_policy *out)
{
    if (!strcmp(s, "spin")) *out = MORTAR_WAIT_SPIN;
    else if (!strcmp(s, "yield")) *out = MORTAR_WAIT_YIELD;
    else if (!strcmp(s, "block")) *out = MORTAR_WAIT_BLOCK;
    else return MORTAR_EINVAL;
    return 0;
}

static int link_options(json_t *l, const char *where, mortar_link_params *p, char *err,
                        size_t size)
{
    static const char *const known[] = {"name", "port", "peer", "listen", "connect", "protocol",
                                        "latency", "sync_interval", "bandwidth", "sync", "wait",
                                        "spin", "slot_size", "slot_count", "timeout", NULL};
    const char *key;
    json_t *v;
    json_object_foreach(l, key, v) {
        bool ok = false;
        for (int k = 0; known[k] && !ok; k++)
            ok = !strcmp(known[k], key);
        if (!ok)
            return fail(err, size, "%s.%s: unknown link option", where, key);
    }
    uint64_t t;
    if (get_time(l, "latency", p->latency_ps, &p->latency_ps, where, err, size) ||
        get_time(l, "sync_interval", 0, &p->sync_interval_ps, where, err, size) ||
        get_time(l, "spin", MORTAR_NS(p->spin_ns), &t, where, err, size))
        return MORTAR_EINVAL;
    p->spin_ns = (uint32_t)(t / 1000);
    if (get_time(l, "timeout", MORTAR_MS(p->handshake_timeout_ms), &t, where, err, size))
        return MORTAR_EINVAL;
    p->handshake_timeout_ms = (uint32_t)(t / 1000000000ull);
    if ((v = json_object_get(l, "bandwidth")) &&
        (!json_is_string(v) || mortar_bandwidth_parse(json_string_value(v), &p->bandwidth_bps)))
        return fail(err, size, "%s.bandwidth: expected a bandwidth with a unit, e.g. \"10Gbps\"", where);
    if ((v = json_object_get(l, "sync"))) {
        if (!json_is_boolean(v))
            return fail(err, size, "%s.sync: expected true or false", where);
        p->sync_mode = json_is_true(v) ? MORTAR_SYNC_ON : MORTAR_SYNC_OFF;
    }
    if ((v = json_object_get(l, "wait")) &&
        (!json_is_string(v) || parse_wait(json_string_value(v), &p->wait_policy)))
        return fail(err, size, "%s.wait: expected \"spin\", \"yield\" or \"block\"", where);
    if ((v = json_object_get(l, "protocol")) &&
        (!json_is_string(v) || parse_protocol(json_string_value(v), &p->protocol)))
        return fail(err, size, "%s.protocol: expected \"test\", \"pcie\" or \"eth\"", where);
    if ((v = json_object_get(l, "slot_size"))) {
        if (!json_is_integer(v) || json_integer_value(v) <= 0)
            return fail(err, size, "%s.slot_size: expected a positive integer", where);
        p->slot_size = (uint32_t)json_integer_value(v);
    }
    if ((v = json_object_get(l, "slot_count"))) {
        if (!json_is_integer(v) || json_integer_value(v) <= 0)
            return fail(err, size, "%s.slot_count: expected a positive integer", where);
        p->slot_count = (uint32_t)json_integer_value(v);
    }
    char why[256];
    if (mortar_link_params_check(p, why, sizeof why) != 0)
        return fail(err, size, "%s: %s", where, why);
    return 0;
}

static void *setup_thread(void *arg)
{
    pending_link *pl = arg;
    if (pl->listen) {
        pl->rc = mortar_link_accept(pl->link);
        if (pl->rc != 0)
            snprintf(pl->err, sizeof pl->err, "%s", mortar_link_errmsg(pl->link));
    } else {
        pl->rc = mortar_link_connect(&pl->link, pl->socket, &pl->params, pl->err, sizeof pl->err);
    }
    return NULL;
}

/* Binds every listener first, then completes all handshakes in parallel. */
static int setup_external(mortar_loop *loop, pending_link *pls, size_t n, char *err, size_t size)
{
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        if (pls[i].listen &&
            mortar_link_listen(&pls[i].link, pls[i].socket, &pls[i].params, pls[i].err,
                               sizeof pls[i].err) != 0)
            rc = fail(err, size, "%s: %s", pls[i].path_in_spec, pls[i].err);
    pthread_t *threads = calloc(n ? n : 1, sizeof *threads);
    size_t started = 0;
    for (size_t i = 0; i < n && !rc; i++, started++)
        pthread_create(&threads[i], NULL, setup_thread, &pls[i]);
    for (size_t i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    for (size_t i = 0; i < n && !rc; i++)
        if (pls[i].rc != 0)
            rc = fail(err, size, "%s: %s", pls[i].path_in_spec, pls[i].err);
    for (size_t i = 0; i < n; i++) {
        if (!rc && mortar_loop_bind(loop, pls[i].comp, pls[i].port, pls[i].link) != 0)
            rc = fail(err, size, "%s: %s", pls[i].path_in_spec, mortar_loop_errmsg(loop));
        else if (rc)
            mortar_link_close(pls[i].link);
        pls[i].link = NULL;
    }
    return rc;
}

static int one_link(mortar_loop *loop, json_t *l, size_t i, pending_link *pl, bool *external,
                    char *err, size_t size)
{
    char where[64];
    snprintf(where, sizeof where, "links[%zu]", i);
    const char *name = json_string_value(json_object_get(l, "name"));
    const char *portref = json_string_value(json_object_get(l, "port"));
    const char *peer = json_string_value(json_object_get(l, "peer"));
    const char *lsn = json_string_value(json_object_get(l, "listen"));
    const char *con = json_string_value(json_object_get(l, "connect"));
    if (!json_is_object(l) || !portref)
        return fail(err, size, "%s: needs a \"port\" (\"component.N\")", where);
    char why[200];
    if (json_object_get(l, "name") && mortar_name_check(name, why, sizeof why))
        return fail(err, size, "%s.name: %s", where, why);
    if (!!peer + !!lsn + !!con != 1)
        return fail(err, size, "%s: needs exactly one of \"peer\", \"listen\", \"connect\"", where);
    mortar_component *comp;
    unsigned port;
    int rc = resolve_port(loop, portref, where, &comp, &port, err, size);
    if (rc)
        return rc;
    mortar_link_params p;
    mortar_link_params_init(&p);
    p.protocol = mortar_component_port_protocol(comp, port);
    if (p.protocol == MORTAR_PROTO_PCIE)
        p.slot_size = 9216;
    if (p.protocol == MORTAR_PROTO_ETH)
        p.slot_size = 9088;
    snprintf(pl->name, sizeof pl->name, "%s", name ? name : where);
    p.name = pl->name;
    if ((rc = link_options(l, where, &p, err, size)))
        return rc;
    if (peer) {
        mortar_component *pc;
        unsigned pp;
        if ((rc = resolve_port(loop, peer, where, &pc, &pp, err, size)))
            return rc;
        if (mortar_loop_connect(loop, comp, port, pc, pp, &p) != 0)
            return fail(err, size, "%s: %s", where, mortar_loop_errmsg(loop));
        *external = false;
        return 0;
    }
    *external = true;
    snprintf(pl->path_in_spec, sizeof pl->path_in_spec, "%s", where);
    snprintf(pl->socket, sizeof pl->socket, "%s", lsn ? lsn : con);
    pl->listen = lsn != NULL;
    pl->comp = comp;
    pl->port = port;
    pl->params = p;
    pl->params.name = pl->name;
    pl->params.upper_intro = mortar_component_port_intro(comp, port, &pl->params.upper_intro_size);
    return 0;
}

static int add_links(mortar_loop *loop, json_t *links, char *err, size_t size)
{
    if (links && !json_is_array(links))
        return fail(err, size, "links: expected an array");
    size_t n = json_array_size(links);
    pending_link *pls = calloc(n ? n : 1, sizeof *pls);
    size_t next = 0;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        bool external = false;
        rc = one_link(loop, json_array_get(links, i), i, &pls[next], &external, err, size);
        if (!rc && external)
            next++;
    }
    if (!rc)
        rc = setup_external(loop, pls, next, err, size);
    free(pls);
    return rc;
}

int sim_config_build(const char *text, sim_config *cfg, char *err, size_t size)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->until_ps = MORTAR_TIME_MAX;
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    if (!root || !json_is_object(root)) {
        fail(err, size, root ? "description: expected a JSON object"
                             : "description: line %d: %s", je.line, je.text);
        json_decref(root);
        return MORTAR_EINVAL;
    }
    uint64_t start_ps = 0;
    int rc = get_time(root, "until", MORTAR_TIME_MAX, &cfg->until_ps, "description", err, size);
    if (!rc)
        rc = get_time(root, "start", 0, &start_ps, "description", err, size);
    const char *s;
    if ((s = json_string_value(json_object_get(root, "trace"))))
        snprintf(cfg->trace_path, sizeof cfg->trace_path, "%s", s);
    if ((s = json_string_value(json_object_get(root, "stats"))))
        snprintf(cfg->stats_path, sizeof cfg->stats_path, "%s", s);
    if ((s = json_string_value(json_object_get(root, "profile"))))
        snprintf(cfg->profile_path, sizeof cfg->profile_path, "%s", s);
    if ((s = json_string_value(json_object_get(root, "progress"))))
        snprintf(cfg->progress_path, sizeof cfg->progress_path, "%s", s);
    if (!rc && mortar_loop_create(&cfg->loop) != 0)
        rc = fail(err, size, "out of memory");
    if (!rc)
        mortar_loop_set_start(cfg->loop, start_ps);
    json_t *promises = json_object_get(root, "promises");
    if (!rc && promises && !json_is_boolean(promises))
        rc = fail(err, size, "description: \"promises\" must be true or false");
    if (!rc)
        mortar_loop_set_promises(cfg->loop, !promises || json_is_true(promises));
    if (!rc && cfg->trace_path[0] && mortar_loop_trace_to(cfg->loop, cfg->trace_path) != 0)
        rc = fail(err, size, "%s", mortar_loop_errmsg(cfg->loop));
    if (!rc)
        rc = add_components(cfg->loop, json_object_get(root, "components"), err, size);
    if (!rc)
        rc = add_links(cfg->loop, json_object_get(root, "links"), err, size);
    json_decref(root);
    if (rc) {
        mortar_loop_destroy(cfg->loop);
        cfg->loop = NULL;
    }
    return rc;
}
