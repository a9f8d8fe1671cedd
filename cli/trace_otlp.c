/*
 * trace_otlp.c - a joined request (trace_join.h) as OTLP/JSON: the
 * protobuf JSON mapping of an ExportTraceServiceRequest, which Jaeger and
 * Grafana Tempo take at /v1/traces. The layout is in docs/traces.md.
 *
 * One resource per component (service.name), one trace per request. The
 * root span is the client's request; every other event is a span (an
 * instant one with no duration) whose parent is the innermost slice that
 * encloses it on its own component, else on another component of its host
 * (a model counts with the host that drives it), else the root. Ids are
 * hashes of the run directory, the request and the event, so exporting
 * twice gives the same trace. Flow arrows become span links.
 */
#include "trace_export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_join.h"

#define NONE SIZE_MAX

/* splitmix64's finalizer: spreads every input bit over the output. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

typedef struct otlp_ids {
    char trace[33];
    uint64_t seed;
} otlp_ids;

static void make_ids(const trace_join *j, otlp_ids *ids)
{
    uint64_t hi = mix(fnv1a(j->run_dir) ^ mix((uint64_t)j->request));
    uint64_t lo = mix(hi);
    if (hi == 0 && lo == 0)
        hi = 1;
    snprintf(ids->trace, sizeof ids->trace, "%016llx%016llx", (unsigned long long)hi,
             (unsigned long long)lo);
    ids->seed = mix(lo ^ 0x6d6f72746172ull); /* "mortar" */
}

static void span_id(const otlp_ids *ids, size_t event, char out[17])
{
    uint64_t id = mix(ids->seed + event);
    snprintf(out, 17, "%016llx", (unsigned long long)(id ? id : 1));
}

static bool encloses(const tj_event *outer, const tj_event *inner)
{
    return outer->start_ps <= inner->start_ps && inner->end_ps <= outer->end_ps;
}

/* Whether `a` may be an ancestor of `b`: the root is above everything,
 * then longer before shorter, then the earlier event. No cycles. */
static bool above(const trace_join *j, size_t a, size_t b)
{
    if (a == j->root || b == j->root)
        return a == j->root && b != j->root;
    uint64_t da = j->events[a].end_ps - j->events[a].start_ps;
    uint64_t db = j->events[b].end_ps - j->events[b].start_ps;
    return da != db ? da > db : a < b;
}

/* The parent of event `i` (see the top of the file); `slices` lists the
 * slices' indices. */
static size_t parent_of(const trace_join *j, const size_t *slices, size_t nslices,
                        size_t i)
{
    const tj_event *e = &j->events[i];
    const tj_track *k = &j->tracks[e->track];
    size_t own = NONE, group = NONE;
    for (size_t n = 0; n < nslices; n++) {
        size_t s = slices[n];
        const tj_event *c = &j->events[s];
        if (s == i || s == j->root || !encloses(c, e) || !above(j, s, i))
            continue;
        if (c->track == e->track) {
            if (own == NONE || above(j, own, s))
                own = s;
        } else if (j->tracks[c->track].group == k->group) {
            if (group == NONE || above(j, group, s))
                group = s;
        }
    }
    return own != NONE ? own : group != NONE ? group : j->root;
}

static json_t *time_ns(uint64_t epoch_ns, uint64_t ps)
{
    char s[24];
    snprintf(s, sizeof s, "%llu", (unsigned long long)(epoch_ns + ps / 1000));
    return json_string(s);
}

static json_t *attribute(const char *key, json_t *value)
{
    json_t *v;
    char num[24];
    if (json_is_integer(value)) {
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(value));
        v = json_pack("{s:s}", "intValue", num); /* 64-bit integers are strings */
    } else if (json_is_real(value)) {
        v = json_pack("{s:f}", "doubleValue", json_real_value(value));
    } else if (json_is_boolean(value)) {
        v = json_pack("{s:b}", "boolValue", json_is_true(value));
    } else {
        v = json_pack("{s:s}", "stringValue", json_string_value(value) ?: "");
    }
    json_decref(value);
    return json_pack("{s:s, s:o}", "key", key, "value", v);
}

static json_t *attributes_of(const trace_join *j, size_t i)
{
    json_t *args = tj_event_args(j, &j->events[i]), *out = json_array(), *v;
    const char *key;
    json_object_foreach(args, key, v)
    {
        json_array_append_new(out, attribute(key, json_incref(v)));
    }
    json_decref(args);
    if (i == j->root) {
        json_array_append_new(out, attribute("mortar.request", json_integer(j->request)));
        json_array_append_new(
            out, attribute("mortar.latency_ps",
                           json_integer((json_int_t)(j->end_ps - j->start_ps))));
        json_array_append_new(out, attribute("mortar.run_dir", json_string(j->run_dir)));
    }
    return out;
}

/* Links to the spans whose arrows end at event i. */
static json_t *links_of(const trace_join *j, const otlp_ids *ids, size_t i)
{
    json_t *links = json_array();
    for (size_t f = 0; f < j->nflows; f++) {
        if (j->flows[f].to != i)
            continue;
        char from[17];
        span_id(ids, j->flows[f].from, from);
        json_t *attrs = json_array();
        json_array_append_new(attrs,
                              attribute("mortar.flow", json_string(j->flows[f].name)));
        json_array_append_new(links, json_pack("{s:s, s:s, s:o}", "traceId", ids->trace,
                                               "spanId", from, "attributes", attrs));
    }
    return links;
}

/* What every span needs. */
typedef struct otlp_ctx {
    const trace_join *j;
    otlp_ids ids;
    uint64_t epoch_ns;
    size_t *slices, nslices;
} otlp_ctx;

static json_t *span_of(const otlp_ctx *c, size_t i)
{
    const trace_join *j = c->j;
    const otlp_ids *ids = &c->ids;
    uint64_t epoch_ns = c->epoch_ns;
    const tj_event *e = &j->events[i];
    char id[17], name[64];
    span_id(ids, i, id);
    if (i == j->root)
        snprintf(name, sizeof name, "request %lld", (long long)j->request);
    json_t *span =
        json_pack("{s:s, s:s, s:s, s:i, s:o, s:o, s:o}", "traceId", ids->trace, "spanId",
                  id, "name", i == j->root ? name : e->name, "kind", 1,
                  "startTimeUnixNano", time_ns(epoch_ns, e->start_ps), "endTimeUnixNano",
                  time_ns(epoch_ns, e->end_ps), "attributes", attributes_of(j, i));
    if (i != j->root) {
        char parent[17];
        span_id(ids, parent_of(j, c->slices, c->nslices, i), parent);
        json_object_set_new(span, "parentSpanId", json_string(parent));
    }
    json_t *links = links_of(j, ids, i);
    if (json_array_size(links))
        json_object_set_new(span, "links", links);
    else
        json_decref(links);
    return span;
}

static json_t *otlp_of(const trace_join *j, uint64_t epoch_ns)
{
    otlp_ctx c = {.j = j,
                  .epoch_ns = epoch_ns,
                  .slices = malloc((j->nevents + 1) * sizeof(size_t))};
    if (!c.slices)
        return NULL;
    make_ids(j, &c.ids);
    for (size_t i = 0; i < j->nevents; i++)
        if (j->events[i].slice)
            c.slices[c.nslices++] = i;
    json_t *resources = json_array();
    for (size_t t = 0; t < j->ntracks; t++) {
        const tj_track *k = &j->tracks[t];
        json_t *spans = json_array();
        for (size_t i = k->first; i < k->first + k->count; i++)
            json_array_append_new(spans, span_of(&c, i));
        json_array_append_new(resources,
                              json_pack("{s:{s:[{s:s, s:{s:s}}]}, s:[{s:{s:s}, s:o}]}",
                                        "resource", "attributes", "key", "service.name",
                                        "value", "stringValue", k->name, "scopeSpans",
                                        "scope", "name", "mortar", "spans", spans));
    }
    free(c.slices);
    return json_pack("{s:o}", "resourceSpans", resources);
}

json_t *trace_otlp(const char *run_dir, int64_t request, uint64_t epoch_unix_ns,
                   char *err, size_t err_size)
{
    trace_join *j;
    if (trace_join_open(&j, run_dir, request, err, err_size) != 0)
        return NULL;
    json_t *out = otlp_of(j, epoch_unix_ns);
    trace_join_free(j);
    if (!out)
        snprintf(err, err_size, "out of memory writing the OTLP trace");
    return out;
}
