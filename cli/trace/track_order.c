/*
 * track_order.c - tracks along the run's topology (see track_order.h).
 */
#include "track_order.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The nodes and links of a spec, as indexes. */
typedef struct topology {
    const char **nodes;
    size_t nnodes;
    size_t (*links)[2];
    size_t nlinks;
} topology;

static size_t node_index(const topology *t, const char *name, size_t len)
{
    for (size_t i = 0; i < t->nnodes; i++)
        if (strlen(t->nodes[i]) == len && !strncmp(t->nodes[i], name, len))
            return i;
    return SIZE_MAX;
}

/* A link end's node: a host's name, or a component's before ".<port>". */
static size_t end_node(const topology *t, json_t *end)
{
    const char *s = json_string_value(end);
    return s ? node_index(t, s, strcspn(s, ".")) : SIZE_MAX;
}

static void add_nodes(topology *t, json_t *list)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e) {
        const char *name = json_string_value(json_object_get(e, "name"));
        if (name && node_index(t, name, strlen(name)) == SIZE_MAX)
            t->nodes[t->nnodes++] = name;
    }
}

static void add_links(topology *t, json_t *list)
{
    size_t i;
    json_t *l;
    json_array_foreach(list, i, l) {
        bool to_host = json_object_get(l, "host") != NULL;
        size_t a = end_node(t, json_object_get(l, to_host ? "host" : "a"));
        size_t b = end_node(t, json_object_get(l, to_host ? "component" : "b"));
        if (a != SIZE_MAX && b != SIZE_MAX) {
            t->links[t->nlinks][0] = a;
            t->links[t->nlinks++][1] = b;
        }
    }
}

/* Breadth first from `start`, into o->path. */
static int walk(const topology *t, size_t start, track_order *o)
{
    size_t *queue = malloc(t->nnodes * sizeof *queue);
    bool *seen = calloc(t->nnodes, sizeof *seen);
    o->path = calloc(t->nnodes, sizeof *o->path);
    if (!queue || !seen || !o->path) {
        free(queue);
        free(seen);
        return -1;
    }
    size_t head = 0, tail = 0;
    queue[tail++] = start;
    seen[start] = true;
    int rc = 0;
    while (head < tail && rc == 0) {
        size_t at = queue[head++];
        if (!(o->path[o->n++] = strdup(t->nodes[at])))
            rc = -1;
        for (size_t l = 0; l < t->nlinks; l++)
            for (int side = 0; side < 2; side++)
                if (t->links[l][side] == at && !seen[t->links[l][!side]]) {
                    seen[t->links[l][!side]] = true;
                    queue[tail++] = t->links[l][!side];
                }
    }
    free(queue);
    free(seen);
    return rc;
}

int track_order_read(track_order *o, const char *run_dir, const char *origin)
{
    *o = (track_order){0};
    char path[4096];
    snprintf(path, sizeof path, "%s/spec.json", run_dir);
    json_t *spec = json_load_file(path, 0, NULL);
    json_t *hosts = json_object_get(spec, "hosts"), *comps = json_object_get(spec, "components");
    json_t *links = json_object_get(spec, "links");
    size_t most = json_array_size(hosts) + json_array_size(comps);
    topology t = {.nodes = calloc(most ? most : 1, sizeof *t.nodes),
                  .links = calloc(json_array_size(links) + 1, sizeof *t.links)};
    int rc = t.nodes && t.links ? 0 : -1;
    if (rc == 0) {
        add_nodes(&t, hosts);
        add_nodes(&t, comps);
        add_links(&t, links);
        size_t start = origin ? node_index(&t, origin, strlen(origin)) : SIZE_MAX;
        if (start != SIZE_MAX)
            rc = walk(&t, start, o);
    }
    free(t.nodes);
    free(t.links);
    json_decref(spec);
    if (rc)
        track_order_free(o);
    return rc;
}

static size_t place(const track_order *o, const char *name, size_t len)
{
    for (size_t i = 0; i < o->n; i++)
        if (strlen(o->path[i]) == len && !strncmp(o->path[i], name, len))
            return i;
    return SIZE_MAX;
}

size_t track_order_rank(const track_order *o, const char *name)
{
    size_t after = 2 * o->n + 1;
    size_t whole = place(o, name, strlen(name));
    if (whole != SIZE_MAX)
        return 2 * whole;
    const char *dot = strchr(name, '.');
    if (!dot)
        return after;
    size_t a = place(o, name, (size_t)(dot - name)), b = place(o, dot + 1, strlen(dot + 1));
    return a == SIZE_MAX || b == SIZE_MAX ? after : a + b; /* halfway: (2a + 2b) / 2 */
}

void track_order_free(track_order *o)
{
    for (size_t i = 0; i < o->n; i++)
        free(o->path[i]);
    free(o->path);
    *o = (track_order){0};
}
