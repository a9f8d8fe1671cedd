/*
 * loop_setup.c - building a loop: adding components, binding their ports to
 * external links or joining co-located ports, tracing, tearing down.
 */
#include "loop_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"

int mortar_loop_create(mortar_loop **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? MORTAR_OK : MORTAR_ENOMEM;
}

static void destroy_component(mortar_component *c)
{
    if (c->ops->destroy && c->state)
        c->ops->destroy(c->state);
    for (unsigned p = 0; p < MAX_PORTS; p++) {
        free(c->ports[p].intro);
        if (c->ports[p].binding == PORT_EXTERNAL)
            mortar_link_close(c->ports[p].link);
    }
    free(c->timers);
    free(c->free_timers);
    free(c);
}

void mortar_loop_destroy(mortar_loop *loop)
{
    if (!loop)
        return;
    for (uint32_t i = 0; i < loop->ncomps; i++)
        destroy_component(loop->comps[i]);
    free(loop->comps);
    free(loop->exts);
    free(loop->sync);
    for (uint16_t k = 0; k < loop->nkinds; k++)
        free(loop->kinds[k]);
    free(loop->kinds);
    heap_free(&loop->heap);
    free(loop->reach);
    free(loop->earliest);
    mortar_trace_writer_close(loop->trace);
    free(loop);
}

int mortar_loop_add(mortar_loop *loop, const mortar_component_ops *ops, const char *name,
                    const mortar_params *params, mortar_component **out)
{
    if (out)
        *out = NULL;
    if (mortar_loop_find(loop, name))
        return loop_set_error(loop, MORTAR_EINVAL, "two components are named '%s'", name);
    mortar_component **comps = realloc(loop->comps, (loop->ncomps + 1) * sizeof *comps);
    if (!comps)
        return MORTAR_ENOMEM;
    loop->comps = comps;
    mortar_component *c = calloc(1, sizeof *c);
    if (!c)
        return MORTAR_ENOMEM;
    c->loop = loop;
    c->ops = ops;
    c->index = loop->ncomps;
    snprintf(c->name, sizeof c->name, "%s", name);
    if (loop->trace)
        c->trace_id = mortar_trace_writer_component(loop->trace, c->name);
    mortar_params *empty = params ? NULL : mortar_params_empty("params");
    int rc = ops->create(c, params ? params : empty, &c->state);
    if (rc != 0) {
        const char *why = mortar_params_errmsg(params ? params : empty);
        loop_set_error(loop, rc, "component '%s' (%s): %s", name, ops->kind,
                       strcmp(why, "no error") ? why : mortar_strerror(rc));
        mortar_params_free(empty);
        c->state = NULL;
        destroy_component(c);
        return rc;
    }
    mortar_params_free(empty);
    loop->comps[loop->ncomps++] = c;
    if (out)
        *out = c;
    return MORTAR_OK;
}

mortar_component *mortar_loop_find(mortar_loop *loop, const char *name)
{
    for (uint32_t i = 0; i < loop->ncomps; i++)
        if (strcmp(loop->comps[i]->name, name) == 0)
            return loop->comps[i];
    return NULL;
}

unsigned mortar_component_port_count(const mortar_component *c)
{
    return c->nports;
}

uint32_t mortar_component_port_protocol(const mortar_component *c, unsigned port)
{
    return port < c->nports ? c->ports[port].protocol : 0;
}

const void *mortar_component_port_intro(const mortar_component *c, unsigned port,
                                        uint32_t *size)
{
    *size = port < c->nports ? c->ports[port].intro_size : 0;
    return port < c->nports ? c->ports[port].intro : NULL;
}

static int check_port(mortar_loop *loop, mortar_component *c, unsigned port)
{
    if (port >= c->nports || !c->ports[port].declared)
        return loop_set_error(loop, MORTAR_EINVAL, "component '%s' has no port %u", c->name,
                              port);
    if (c->ports[port].binding != PORT_UNBOUND)
        return loop_set_error(loop, MORTAR_EINVAL, "port %u of component '%s' is bound twice",
                              port, c->name);
    return MORTAR_OK;
}

int mortar_loop_bind(mortar_loop *loop, mortar_component *c, unsigned port, mortar_link *link)
{
    int rc = check_port(loop, c, port);
    if (rc != 0)
        return rc;
    if (mortar_link_protocol(link) != c->ports[port].protocol)
        return loop_set_error(loop, MORTAR_EINVAL,
                              "link '%s' speaks protocol %u but port %u of '%s' speaks %u",
                              mortar_link_name(link), mortar_link_protocol(link), port, c->name,
                              c->ports[port].protocol);
    ext_link *exts = realloc(loop->exts, (loop->nexts + 1) * sizeof *exts);
    if (!exts)
        return MORTAR_ENOMEM;
    loop->exts = exts;
    sync_link *sync = realloc(loop->sync, (loop->nexts + 1) * sizeof *sync);
    if (!sync)
        return MORTAR_ENOMEM;
    loop->sync = sync;
    loop->sync[loop->nexts] = (sync_link){
        .link = link, .synchronized = mortar_link_sync_mode(link) == MORTAR_SYNC_ON};
    loop->exts[loop->nexts++] = (ext_link){.link = link, .comp = c, .port = port};
    c->ports[port].binding = PORT_EXTERNAL;
    c->ports[port].link = link;
    return MORTAR_OK;
}

static void join_one_way(port_state *from, mortar_component *peer, unsigned peer_port,
                         const mortar_link_params *p)
{
    from->binding = PORT_INPROC;
    from->inproc.peer = peer;
    from->inproc.peer_port = peer_port;
    from->inproc.timing = (mortar_link_timing){
        .latency_ps = p->latency_ps, .bandwidth_bps = p->bandwidth_bps, .pcie = p->pcie};
    snprintf(from->inproc.name, sizeof from->inproc.name, "%s", p->name ? p->name : "inproc");
    from->inproc.max_payload = p->slot_size - MORTAR_SLOT_HEADER_SIZE;
}

int mortar_loop_connect(mortar_loop *loop, mortar_component *a, unsigned port_a,
                        mortar_component *b, unsigned port_b, const mortar_link_params *p)
{
    int rc = check_port(loop, a, port_a);
    if (rc == 0)
        rc = check_port(loop, b, port_b);
    if (rc != 0)
        return rc;
    if (a == b && port_a == port_b)
        return loop_set_error(loop, MORTAR_EINVAL, "port %u of '%s' joined to itself", port_a,
                              a->name);
    if (a->ports[port_a].protocol != b->ports[port_b].protocol)
        return loop_set_error(loop, MORTAR_EINVAL,
                              "'%s' port %u and '%s' port %u speak different protocols",
                              a->name, port_a, b->name, port_b);
    char why[256];
    if (mortar_link_params_check(p, why, sizeof why) != 0)
        return loop_set_error(loop, MORTAR_EINVAL, "%s", why);
    join_one_way(&a->ports[port_a], b, port_b, p);
    join_one_way(&b->ports[port_b], a, port_a, p);
    return MORTAR_OK;
}

int mortar_loop_trace_to(mortar_loop *loop, const char *path)
{
    if (loop->trace)
        return loop_set_error(loop, MORTAR_ESTATE, "trace already open");
    int rc = mortar_trace_writer_open(&loop->trace, path);
    if (rc != 0)
        return loop_set_error(loop, rc, "cannot write trace file %s", path);
    for (uint32_t i = 0; i < loop->ncomps; i++)
        loop->comps[i]->trace_id = mortar_trace_writer_component(loop->trace,
                                                                 loop->comps[i]->name);
    for (uint16_t k = 0; k < loop->nkinds; k++)
        mortar_trace_writer_kind(loop->trace, loop->kinds[k]); /* same ids, same order */
    loop->wire_kind = loop_trace_kind(loop, "pcie_wire");
    return MORTAR_OK;
}

uint16_t loop_trace_kind(mortar_loop *loop, const char *name)
{
    for (uint16_t k = 0; k < loop->nkinds; k++)
        if (strcmp(loop->kinds[k], name) == 0)
            return k;
    char **kinds = realloc(loop->kinds, (loop->nkinds + 1u) * sizeof *kinds);
    if (!kinds)
        return 0;
    loop->kinds = kinds;
    loop->kinds[loop->nkinds] = strdup(name);
    if (loop->trace)
        mortar_trace_writer_kind(loop->trace, name);
    return loop->nkinds++;
}
