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
 * "block"), spin ("20us"), slot_size, slot_count, timeout ("30s"), pcie
 * (the slot's transaction layer; the link trains with the device's intro).
 * Components, ports and link options are checked, and the links' defaults
 * set, by sim_check.c, the checker `mortar spec` uses too.
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
#include "mortar/log.h"
#include "mortar/runtime.h"
#include "sim_check.h"

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
        char where[64];
        snprintf(where, sizeof where, "components[%zu]", i);
        if (sim_check_add_component(loop, c, where, NULL, err, size))
            return MORTAR_EINVAL;
    }
    return 0;
}

/* The keys of a link: its place, then its options (sim_check.h). */
static int link_keys(json_t *l, const char *where, char *err, size_t size)
{
    static const char *const own[] = {"name",     "port", "peer",    "listen", "connect",
                                      "protocol", "sync", "timeout", NULL};
    const char *key;
    json_t *v;
    json_object_foreach(l, key, v) {
        bool ok = false;
        for (int k = 0; own[k] && !ok; k++)
            ok = !strcmp(own[k], key);
        for (int k = 0; sim_check_link_keys[k] && !ok; k++)
            ok = !strcmp(sim_check_link_keys[k], key);
        if (!ok)
            return fail(err, size, "%s.%s: unknown link option", where, key);
    }
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

/* Says what a PCIe link trained to (MORTAR_LOG=info shows it). */
static void log_pcie_link(const mortar_link_params *p)
{
    const mortar_pcie_wire *w = &p->pcie;
    if (w->gen)
        mortar_log(MORTAR_LOG_INFO, "mortar-sim",
                   "link '%s': PCIe %u.0 x%u, MPS %u, MRRS %u, RCB %u", p->name, w->gen,
                   w->lanes, w->mps, w->mrrs, w->rcb);
}

static int one_link(mortar_loop *loop, json_t *l, size_t i, pending_link *pl, bool *external,
                    char *err, size_t size)
{
    char where[64];
    snprintf(where, sizeof where, "links[%zu]", i);
    if (!json_is_object(l))
        return fail(err, size, "%s: expected an object", where);
    const char *name = json_string_value(json_object_get(l, "name"));
    const char *portref = json_string_value(json_object_get(l, "port"));
    const char *peer = json_string_value(json_object_get(l, "peer"));
    const char *lsn = json_string_value(json_object_get(l, "listen"));
    const char *con = json_string_value(json_object_get(l, "connect"));
    if (!portref)
        return fail(err, size, "%s: needs a \"port\" (\"component.N\")", where);
    if (sim_check_name(l, "name", false, where, err, size) || link_keys(l, where, err, size))
        return MORTAR_EINVAL;
    if (!!peer + !!lsn + !!con != 1)
        return fail(err, size, "%s: needs exactly one of \"peer\", \"listen\", \"connect\"", where);
    mortar_component *comp;
    unsigned port;
    int rc = sim_check_port(loop, portref, where, &comp, &port, err, size);
    if (rc)
        return rc;
    mortar_link_params p;
    sim_check_link_defaults(&p, mortar_component_port_protocol(comp, port));
    snprintf(pl->name, sizeof pl->name, "%s", name ? name : where);
    p.name = pl->name;
    if ((rc = sim_check_link_options(l, where, &p, err, size)))
        return rc;
    uint32_t isize;
    const void *intro = mortar_component_port_intro(comp, port, &isize);
    sim_check_link_train(&p, intro, isize);
    if (peer) {
        mortar_component *pc;
        unsigned pp;
        if ((rc = sim_check_port(loop, peer, where, &pc, &pp, err, size)))
            return rc;
        intro = mortar_component_port_intro(pc, pp, &isize);
        sim_check_link_train(&p, intro, isize);
        log_pcie_link(&p);
        if (mortar_loop_connect(loop, comp, port, pc, pp, &p) != 0)
            return fail(err, size, "%s: %s", where, mortar_loop_errmsg(loop));
        *external = false;
        return 0;
    }
    log_pcie_link(&p);
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

/* `outside`: also set up the external links (sockets, peers); without it
 * they are only checked. */
static int add_links(mortar_loop *loop, json_t *links, bool outside, char *err,
                     size_t size)
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
    if (!rc && outside)
        rc = setup_external(loop, pls, next, err, size);
    free(pls);
    return rc;
}

static int build(const char *text, sim_config *cfg, bool outside, char *err, size_t size)
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
    if (!rc && outside && cfg->trace_path[0] &&
        mortar_loop_trace_to(cfg->loop, cfg->trace_path) != 0)
        rc = fail(err, size, "%s", mortar_loop_errmsg(cfg->loop));
    if (!rc)
        rc = add_components(cfg->loop, json_object_get(root, "components"), err, size);
    if (!rc)
        rc = add_links(cfg->loop, json_object_get(root, "links"), outside, err, size);
    json_decref(root);
    if (rc) {
        mortar_loop_destroy(cfg->loop);
        cfg->loop = NULL;
    }
    return rc;
}

int sim_config_build(const char *text, sim_config *cfg, char *err, size_t size)
{
    return build(text, cfg, true, err, size);
}

int sim_config_parse(const char *text, sim_config *cfg, char *err, size_t size)
{
    return build(text, cfg, false, err, size);
}
