/*
 * trace_otlp.c - a joined request (trace_join.h) as OTLP/JSON: the
 * protobuf JSON mapping of an ExportTraceServiceRequest, which Jaeger and
 * Grafana Tempo take at /v1/traces. The layout is in docs/traces.md.
 *
 * One resource per component (service.name), one trace per request. The
 * root span is the client's request; every slice is a span whose parent is
 * the innermost slice that encloses it on its own component, else on
 * another component of its host (a model counts with the host that drives
 * it), else the root. An instant is an event of the span found the same
 * way (with its component as an attribute); a component with instants only
 * has no resource. Flow arrows become span links between the spans that
 * hold their ends. Every key but service.* is namespaced ("mortar.").
 *
 * Ids are hashes of the machine's id, the database's path, the run's id
 * and the request (span ids also of the event), so exporting a run twice
 * gives the same trace, and two runs, or runs on two machines, never share
 * one by accident. They are not secret and not cryptographic.
 */
#include "trace_export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_join.h"

#define NONE SIZE_MAX

/* ---- ids ------------------------------------------------------------------------ */

/* splitmix64's finalizer: spreads every input bit over the output. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* FNV-1a over `s` and its terminating zero (so "ab","c" and "a","bc"
 * differ), continuing from `h`. */
static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (;; s++) {
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
        if (!*s)
            return h;
    }
}

typedef struct otlp_ids {
    char trace[33];
    uint64_t seed;
} otlp_ids;

static void make_ids(const trace_join *j, const trace_run *run, otlp_ids *ids)
{
    char numbers[48];
    snprintf(numbers, sizeof numbers, "%lld/%lld", (long long)run->id,
             (long long)j->request);
    uint64_t h = 0xcbf29ce484222325ull; /* FNV's offset basis */
    h = fnv1a(h, run->machine_id ? run->machine_id : "");
    h = fnv1a(h, run->db_path ? run->db_path : "");
    h = fnv1a(h, numbers);
    uint64_t hi = mix(h), lo = mix(hi ^ 0x6f746c70ull); /* "otlp" */
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

void trace_machine_id(char *out, size_t size)
{
    static const char *const files[] = {"/etc/machine-id", "/var/lib/dbus/machine-id"};
    out[0] = '\0';
    for (size_t i = 0; i < 2 && !out[0]; i++) {
        FILE *f = fopen(files[i], "r");
        if (!f)
            continue;
        if (!fgets(out, (int)size, f))
            out[0] = '\0';
        out[strcspn(out, "\r\n")] = '\0';
        fclose(f);
    }
}

/* ---- the tree ------------------------------------------------------------------- */

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

/* What every span needs. */
typedef struct otlp_ctx {
    const trace_join *j;
    const trace_run *run;
    otlp_ids ids;
    size_t *parent; /* per event: its parent span (NONE for the root) */
    size_t *holder; /* per event: the span it is (a slice, the root) or is an event of */
} otlp_ctx;

static bool is_span(const trace_join *j, size_t i)
{
    return i == j->root || j->events[i].slice;
}

static int build_tree(otlp_ctx *c)
{
    const trace_join *j = c->j;
    size_t n = j->nevents + 1, nslices = 0;
    size_t *slices = malloc(n * sizeof *slices);
    c->parent = malloc(n * sizeof *c->parent);
    c->holder = malloc(n * sizeof *c->holder);
    if (!slices || !c->parent || !c->holder) {
        free(slices);
        return -1;
    }
    for (size_t i = 0; i < j->nevents; i++)
        if (j->events[i].slice)
            slices[nslices++] = i;
    for (size_t i = 0; i < j->nevents; i++) {
        c->parent[i] = i == j->root ? NONE : parent_of(j, slices, nslices, i);
        c->holder[i] = is_span(j, i) ? i : c->parent[i];
    }
    free(slices);
    return 0;
}

/* ---- attributes ----------------------------------------------------------------- */

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

/* The event's decoded arguments as attributes "mortar.arg.<name>". */
static void add_args(const trace_join *j, size_t i, json_t *out)
{
    json_t *args = tj_event_args(j, &j->events[i]), *v;
    const char *name;
    json_object_foreach(args, name, v) {
        char key[128];
        snprintf(key, sizeof key, "mortar.arg.%s", name);
        json_array_append_new(out, attribute(key, json_incref(v)));
    }
    json_decref(args);
}

static json_t *span_attributes(const otlp_ctx *c, size_t i)
{
    const trace_join *j = c->j;
    json_t *out = json_array();
    add_args(j, i, out);
    if (i == j->root) {
        json_array_append_new(out, attribute("mortar.run.id", json_integer(c->run->id)));
        json_array_append_new(out, attribute("mortar.run.dir", json_string(j->run_dir)));
        json_array_append_new(
            out, attribute("mortar.request.index", json_integer(j->request)));
        json_array_append_new(
            out, attribute("mortar.request.latency_ps",
                           json_integer((json_int_t)(j->end_ps - j->start_ps))));
    }
    return out;
}

static json_t *time_ns(uint64_t epoch_ns, uint64_t ps)
{
    char s[24];
    snprintf(s, sizeof s, "%llu", (unsigned long long)(epoch_ns + ps / 1000));
    return json_string(s);
}

/* The instants held by span `s`, as span events. */
static json_t *events_of(const otlp_ctx *c, size_t s)
{
    const trace_join *j = c->j;
    json_t *out = json_array();
    for (size_t i = 0; i < j->nevents; i++) {
        if (is_span(j, i) || c->holder[i] != s)
            continue;
        const tj_event *e = &j->events[i];
        json_t *attrs = json_array();
        json_array_append_new(attrs,
                              attribute("mortar.component", json_string(e->component)));
        add_args(j, i, attrs);
        json_array_append_new(out, json_pack("{s:o, s:s, s:o}", "timeUnixNano",
                                             time_ns(c->run->epoch_unix_ns, e->start_ps),
                                             "name", e->name, "attributes", attrs));
    }
    return out;
}

/* Links to the spans whose arrows end in span `s` (at it, or at one of
 * its events); an arrow within one span has none. */
static json_t *links_of(const otlp_ctx *c, size_t s)
{
    const trace_join *j = c->j;
    json_t *links = json_array();
    for (size_t f = 0; f < j->nflows; f++) {
        size_t from = j->flows[f].from, to = j->flows[f].to;
        if (c->holder[to] != s || c->holder[from] == s)
            continue;
        char id[17];
        span_id(&c->ids, c->holder[from], id);
        json_t *attrs = json_array();
        json_array_append_new(attrs,
                              attribute("mortar.flow", json_string(j->flows[f].name)));
        json_array_append_new(
            attrs, attribute("mortar.flow.from", json_string(j->events[from].name)));
        json_array_append_new(
            attrs, attribute("mortar.flow.to", json_string(j->events[to].name)));
        json_array_append_new(links, json_pack("{s:s, s:s, s:o}", "traceId", c->ids.trace,
                                               "spanId", id, "attributes", attrs));
    }
    return links;
}

/* Sets `key` to `list` when it is not empty. */
static void set_list(json_t *obj, const char *key, json_t *list)
{
    if (json_array_size(list))
        json_object_set_new(obj, key, list);
    else
        json_decref(list);
}

static json_t *span_of(const otlp_ctx *c, size_t i)
{
    const trace_join *j = c->j;
    const tj_event *e = &j->events[i];
    uint64_t epoch_ns = c->run->epoch_unix_ns;
    char id[17], name[64];
    span_id(&c->ids, i, id);
    if (i == j->root)
        snprintf(name, sizeof name, "request %lld", (long long)j->request);
    json_t *span =
        json_pack("{s:s, s:s, s:s, s:i, s:o, s:o, s:o}", "traceId", c->ids.trace,
                  "spanId", id, "name", i == j->root ? name : e->name, "kind", 1,
                  "startTimeUnixNano", time_ns(epoch_ns, e->start_ps), "endTimeUnixNano",
                  time_ns(epoch_ns, e->end_ps), "attributes", span_attributes(c, i));
    if (c->parent[i] != NONE) {
        char parent[17];
        span_id(&c->ids, c->parent[i], parent);
        json_object_set_new(span, "parentSpanId", json_string(parent));
    }
    set_list(span, "events", events_of(c, i));
    set_list(span, "links", links_of(c, i));
    return span;
}

/* ---- the document --------------------------------------------------------------- */

static json_t *resource_of(const otlp_ctx *c, const tj_track *k)
{
    json_t *attrs = json_array();
    json_array_append_new(attrs, attribute("service.name", json_string(k->name)));
    json_array_append_new(attrs, attribute("service.namespace", json_string("mortar")));
    json_array_append_new(attrs, attribute("mortar.component", json_string(k->name)));
    json_array_append_new(attrs, attribute("mortar.host", json_string(k->group)));
    json_array_append_new(attrs, attribute("mortar.run.id", json_integer(c->run->id)));
    return json_pack("{s:o}", "attributes", attrs);
}

static json_t *otlp_of(const trace_join *j, const trace_run *run)
{
    otlp_ctx c = {.j = j, .run = run};
    make_ids(j, run, &c.ids);
    json_t *resources = NULL;
    if (build_tree(&c) != 0)
        goto done;
    resources = json_array();
    for (size_t t = 0; t < j->ntracks; t++) {
        const tj_track *k = &j->tracks[t];
        json_t *spans = json_array();
        for (size_t i = k->first; i < k->first + k->count; i++)
            if (is_span(j, i))
                json_array_append_new(spans, span_of(&c, i));
        if (!json_array_size(spans)) { /* only instants: events of other spans */
            json_decref(spans);
            continue;
        }
        json_array_append_new(resources,
                              json_pack("{s:o, s:[{s:{s:s}, s:o}]}", "resource",
                                        resource_of(&c, k), "scopeSpans", "scope", "name",
                                        "mortar", "spans", spans));
    }
done:
    free(c.parent);
    free(c.holder);
    return resources ? json_pack("{s:o}", "resourceSpans", resources) : NULL;
}

json_t *trace_otlp(const char *run_dir, int64_t request, const trace_run *run, char *err,
                   size_t err_size)
{
    trace_join *j;
    if (trace_join_open(&j, run_dir, request, err, err_size) != 0)
        return NULL;
    json_t *out = otlp_of(j, run);
    trace_join_free(j);
    if (!out)
        snprintf(err, err_size, "out of memory writing the OTLP trace");
    return out;
}
