/*
 * profile_data.c - a run's profile from its directory, checked, and as
 * text (see profile_data.h).
 */
#include "profile_data.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "spec.h"

#define SIM_SUFFIX  ".profile.json"
#define HOST_SUFFIX ".host.json"

/* ---- collecting ----------------------------------------------------------------- */

static bool has_component(json_t *comps, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(comps, i, c) {
        if (!strcmp(json_string_value(json_object_get(c, "name")) ?: "", name))
            return true;
    }
    return false;
}

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key)) ?: "";
}

/* The other end of link `name` of a process with components `comps`, from
 * the spec: "host H", or the component; "" when the spec does not say. */
static void peer_of(json_t *spec, const char *name, json_t *comps, char *buf, size_t size)
{
    size_t i;
    json_t *l;
    buf[0] = '\0';
    json_array_foreach(json_object_get(spec, "links"), i, l) {
        if (strcmp(str(l, "name"), name))
            continue;
        if (*str(l, "host")) {
            snprintf(buf, size, "host %s", str(l, "host"));
            return;
        }
        char a[128], b[128];
        unsigned port;
        if (spec_port_ref(str(l, "a"), a, sizeof a, &port) ||
            spec_port_ref(str(l, "b"), b, sizeof b, &port))
            return;
        snprintf(buf, size, "%s", has_component(comps, a) ? b : a);
        return;
    }
}

static void add_peers(json_t *sim, json_t *spec)
{
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(sim, "links"), i, l) {
        char peer[160];
        peer_of(spec, str(l, "link"), json_object_get(sim, "components"), peer,
                sizeof peer);
        json_object_set_new(l, "peer", json_string(peer));
    }
}

/* A host's links are named after their devices, which are the components
 * at the other end: each gets the spec's link name, and that component as
 * its peer. */
static void add_host_peers(json_t *host, const char *name, json_t *spec)
{
    size_t i, k;
    json_t *hl, *l;
    json_array_foreach(json_object_get(json_object_get(host, "profile"), "links"), i, hl) {
        json_array_foreach(json_object_get(spec, "links"), k, l) {
            char comp[128];
            unsigned port;
            if (strcmp(str(l, "host"), name) ||
                spec_port_ref(str(l, "component"), comp, sizeof comp, &port) ||
                strcmp(comp, str(hl, "link")))
                continue;
            json_object_set_new(hl, "peer", json_string(comp));
            json_object_set_new(hl, "link", json_string(str(l, "name")));
        }
    }
}

/* The process `name`'s entry from `path`; NULL when the file does not
 * hold a JSON object. */
static json_t *load_process(const char *path, const char *name, bool host, json_t *spec)
{
    json_t *j = json_load_file(path, 0, NULL);
    if (!json_is_object(j)) {
        json_decref(j);
        return NULL;
    }
    if (host) {
        add_host_peers(j, name, spec);
        return json_pack("{s:s, s:s, s:o}", "name", name, "kind", "host", "host", j);
    }
    json_object_set_new(j, "name", json_string(name));
    json_object_set_new(j, "kind", json_string("sim"));
    add_peers(j, spec);
    return j;
}

static bool ends_with(const char *s, const char *suffix, size_t *stem)
{
    size_t n = strlen(s), k = strlen(suffix);
    *stem = n > k ? n - k : 0;
    return n > k && !strcmp(s + n - k, suffix);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

json_t *profile_collect(const char *run_dir, char *err, size_t size)
{
    struct dirent **names;
    int n = scandir(run_dir, &names, NULL, by_name);
    if (n < 0) {
        errbuf_fail(err, size, "cannot read the run directory %s", run_dir);
        return NULL;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/spec.json", run_dir);
    json_t *spec = json_load_file(path, 0, NULL), *all = json_array();
    for (int i = 0; i < n; i++) {
        const char *f = names[i]->d_name;
        size_t stem;
        bool sim = ends_with(f, SIM_SUFFIX, &stem),
             host = !sim && ends_with(f, HOST_SUFFIX, &stem);
        if ((sim || host) && stem < 128) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)stem, f);
            snprintf(path, sizeof path, "%s/%s", run_dir, f);
            json_t *p = load_process(path, name, host, spec);
            if (p)
                json_array_append_new(all, p);
        }
        free(names[i]);
    }
    free(names);
    json_decref(spec);
    return all;
}

/* ---- checking ------------------------------------------------------------------- */

static const char *const sim_numbers[] = {"wall_ns",     "busy_ns",   "wait_ns",
                                          "wait_any_ns", "waits_any", "sim_time_ps",
                                          "events",      NULL};
static const char *const link_numbers[] = {
    "port",          "wait_ns",    "waits",          "msgs_sent",
    "msgs_received", "syncs_sent", "syncs_received", NULL};
static const char *const host_numbers[] = {"wall_ns", "vcpu_ns", "hub_ns", "wait_ns",
                                           NULL};
/* A host's links: a link's figures without a port (the host's side has
 * none). */
static const char *const *const host_link_numbers = link_numbers + 1;
static const char *const comp_numbers[] = {
    "events",     "wait_ns",        "msgs_sent", "msgs_received",
    "syncs_sent", "syncs_received", NULL};

static int check_numbers(json_t *o, const char *const *keys, const char *what, char *err,
                         size_t size)
{
    for (const char *const *k = keys; *k; k++) {
        json_t *v = json_object_get(o, *k);
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return errbuf_fail(err, size, "%s: \"%s\" is not an integer >= 0", what, *k);
    }
    return 0;
}

static int check_list(json_t *a, const char *list, const char *name_key,
                      const char *const *keys, const char *proc, char *err, size_t size)
{
    if (!json_is_array(a))
        return errbuf_fail(err, size, "process %s: \"%s\" is not an array", proc, list);
    size_t i;
    json_t *o;
    json_array_foreach(a, i, o) {
        char what[200];
        snprintf(what, sizeof what, "process %s: %s[%zu]", proc, list, i);
        if (!json_is_string(json_object_get(o, name_key)))
            return errbuf_fail(err, size, "%s: \"%s\" is not text", what, name_key);
        if (check_numbers(o, keys, what, err, size))
            return -1;
    }
    return 0;
}

/* A host's counters, and its wall-clock profile when it wrote one (hosts
 * before it did not). */
static int check_host(json_t *h, const char *name, char *err, size_t size)
{
    if (!json_is_object(h))
        return errbuf_fail(err, size, "host %s: \"host\" is not an object", name);
    json_t *prof = json_object_get(h, "profile");
    if (!prof)
        return 0;
    char what[160];
    snprintf(what, sizeof what, "host %s: profile", name);
    if (!json_is_object(prof))
        return errbuf_fail(err, size, "%s is not an object", what);
    return check_numbers(prof, host_numbers, what, err, size) ||
                   check_list(json_object_get(prof, "links"), "links", "link",
                              host_link_numbers, name, err, size)
               ? -1
               : 0;
}

static int check_process(json_t *p, size_t i, char *err, size_t size)
{
    const char *name = json_string_value(json_object_get(p, "name"));
    const char *kind = json_string_value(json_object_get(p, "kind"));
    if (!name || !kind)
        return errbuf_fail(err, size, "process %zu: wants \"name\" and \"kind\"", i);
    if (!strcmp(kind, "host"))
        return check_host(json_object_get(p, "host"), name, err, size);
    if (strcmp(kind, "sim"))
        return errbuf_fail(err, size, "process %s: kind is not sim or host", name);
    char what[160];
    snprintf(what, sizeof what, "process %s", name);
    return check_numbers(p, sim_numbers, what, err, size) ||
                   check_list(json_object_get(p, "links"), "links", "link", link_numbers,
                              name, err, size) ||
                   check_list(json_object_get(p, "components"), "components", "name",
                              comp_numbers, name, err, size)
               ? -1
               : 0;
}

int profile_check(json_t *profile, char *err, size_t size)
{
    if (!json_is_array(profile))
        return errbuf_fail(err, size, "the profile is not an array");
    size_t i;
    json_t *p;
    json_array_foreach(profile, i, p) {
        if (!json_is_object(p))
            return errbuf_fail(err, size, "process %zu is not an object", i);
        if (check_process(p, i, err, size))
            return -1;
    }
    return 0;
}

/* ---- printing ------------------------------------------------------------------- */

static uint64_t num(json_t *o, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(o, key));
    return v > 0 ? (uint64_t)v : 0;
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0;
}

static int by_wait_desc(const void *a, const void *b)
{
    uint64_t x = num(*(json_t *const *)a, "wait_ns"),
             y = num(*(json_t *const *)b, "wait_ns");
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The links of a process (`p` holds "links" and "wall_ns"), most waited on
 * first. */
static void print_link_table(FILE *f, json_t *p)
{
    json_t *links = json_object_get(p, "links");
    size_t n = json_array_size(links);
    json_t **sorted = calloc(n ? n : 1, sizeof *sorted);
    if (!sorted)
        return;
    for (size_t i = 0; i < n; i++)
        sorted[i] = json_array_get(links, i);
    qsort(sorted, n, sizeof *sorted, by_wait_desc);
    uint64_t wall = num(p, "wall_ns");
    fprintf(f, "  %-20s %-14s %10s %6s %9s %9s %10s %10s %10s %10s\n", "waiting on link",
            "peer", "wall s", "%", "waits", "slept", "msgs sent", "msgs recv",
            "syncs sent", "syncs recv");
    for (size_t i = 0; i < n; i++) {
        json_t *l = sorted[i];
        fprintf(f,
                "  %-20s %-14s %10.3f %5.1f%% %9llu %9llu %10llu %10llu %10llu %10llu\n",
                str(l, "link"), *str(l, "peer") ? str(l, "peer") : "?",
                (double)num(l, "wait_ns") / 1e9, pct(num(l, "wait_ns"), wall),
                (unsigned long long)num(l, "waits"),
                (unsigned long long)num(l, "waits_blocked"),
                (unsigned long long)num(l, "msgs_sent"),
                (unsigned long long)num(l, "msgs_received"),
                (unsigned long long)num(l, "syncs_sent"),
                (unsigned long long)num(l, "syncs_received"));
    }
    free(sorted);
}

static void print_links(FILE *f, json_t *p)
{
    print_link_table(f, p);
    uint64_t wall = num(p, "wall_ns");
    fprintf(f, "  %-20s %-14s %10.3f %5.1f%% %9llu\n", "(any input)", "",
            (double)num(p, "wait_any_ns") / 1e9, pct(num(p, "wait_any_ns"), wall),
            (unsigned long long)num(p, "waits_any"));
}

static void print_components(FILE *f, json_t *p)
{
    size_t i;
    json_t *c;
    fprintf(f, "  %-20s %12s %10s %10s %10s %10s\n", "component", "events", "msgs sent",
            "msgs recv", "syncs sent", "syncs recv");
    json_array_foreach(json_object_get(p, "components"), i, c) {
        fprintf(f, "  %-20s %12llu %10llu %10llu %10llu %10llu\n", str(c, "name"),
                (unsigned long long)num(c, "events"),
                (unsigned long long)num(c, "msgs_sent"),
                (unsigned long long)num(c, "msgs_received"),
                (unsigned long long)num(c, "syncs_sent"),
                (unsigned long long)num(c, "syncs_received"));
    }
}

static void print_sim(FILE *f, json_t *p)
{
    uint64_t wall = num(p, "wall_ns"), busy = num(p, "busy_ns"), wait = num(p, "wait_ns");
    fprintf(f, "process %s: simulated time reached %.3f us, %llu events\n",
            str(p, "name"), (double)num(p, "sim_time_ps") / 1e6,
            (unsigned long long)num(p, "events"));
    if (json_is_false(json_object_get(p, "enabled")))
        fprintf(f, "  wall times not measured (profiling was off: MORTAR_PROFILE=0)\n");
    else
        fprintf(f, "  wall %.3f s: busy %.3f s (%.1f%%), waiting %.3f s (%.1f%%)\n",
                (double)wall / 1e9, (double)busy / 1e9, pct(busy, wall),
                (double)wait / 1e9, pct(wait, wall));
    print_links(f, p);
    print_components(f, p);
}

/* What the model processes waited for host `name`: the waits charged to
 * the links whose peer it is. */
static void print_waited_for(FILE *f, json_t *profile, const char *name)
{
    char peer[160];
    snprintf(peer, sizeof peer, "host %s", name);
    size_t i, k;
    json_t *p, *l;
    json_array_foreach(profile, i, p) {
        json_array_foreach(json_object_get(p, "links"), k, l) {
            if (strcmp(str(l, "peer"), peer))
                continue;
            fprintf(f,
                    "  process %s waited %.3f s (%.1f%% of its wall) for it on link %s\n",
                    str(p, "name"), (double)num(l, "wait_ns") / 1e9,
                    pct(num(l, "wait_ns"), num(p, "wall_ns")), str(l, "link"));
        }
    }
}

/* Where a host's wall time went in its synchronized phase. */
static void print_host_wall(FILE *f, json_t *prof)
{
    if (!prof) {
        fprintf(f, "  wall times not recorded (a host built before host profiles)\n");
        return;
    }
    if (json_is_false(json_object_get(prof, "enabled"))) {
        fprintf(f, "  wall times not measured (profiling was off: MORTAR_PROFILE=0)\n");
        return;
    }
    uint64_t wall = num(prof, "wall_ns"), vcpu = num(prof, "vcpu_ns"),
             spin = num(prof, "spin_ns"), hub = num(prof, "hub_ns"), wait = num(prof, "wait_ns");
    fprintf(f,
            "  wall %.3f s: guest running %.3f s (%.1f%%; spinning in pure waits %.3f s, "
            "%.1f%%), hub working %.3f s (%.1f%%), waiting %.3f s (%.1f%%)\n",
            (double)wall / 1e9, (double)vcpu / 1e9, pct(vcpu, wall), (double)spin / 1e9,
            pct(spin, wall), (double)hub / 1e9, pct(hub, wall), (double)wait / 1e9,
            pct(wait, wall));
    print_link_table(f, prof);
}

/* The faults a host counts (0 unless the hub has one; docs/profile.md),
 * each with its warning. */
static const struct {
    const char *field, *text;
} host_faults[] = {
    {"late_messages", "messages handled after the vCPU had passed them (late_messages): a "
                      "fault of the hub's, the guest or a device may have seen something "
                      "too late"},
    {"bound_breaks", "messages stamped before where the links had let the host go "
                     "(bound_breaks): a promise did not hold"},
    {"horizon_overruns", "stops past the vCPU's horizon (horizon_overruns): it ran "
                         "instructions the links had not let it run"},
};

static void print_host_faults(FILE *f, json_t *h)
{
    for (size_t i = 0; i < sizeof host_faults / sizeof host_faults[0]; i++)
        if (num(h, host_faults[i].field))
            fprintf(f, "  warning: %llu %s (the host's QEMU log names the first)\n",
                    (unsigned long long)num(h, host_faults[i].field), host_faults[i].text);
}

static void print_host(FILE *f, json_t *profile, json_t *p)
{
    json_t *h = json_object_get(p, "host");
    fprintf(f,
            "host %s: simulated time reached %.3f us (synchronized from %.3f us: %s)\n",
            str(p, "name"), (double)num(h, "virtual_time_ps") / 1e6,
            (double)num(h, "sync_start_ps") / 1e6,
            json_is_true(json_object_get(h, "synchronized")) ? "yes" : "no");
    fprintf(f,
            "  mmio reads %llu (%llu answered from a device's hold; stalled %.3f us "
            "simulated), services %llu, waits %llu, messages %llu, idle skips %llu\n",
            (unsigned long long)num(h, "mmio_reads"),
            (unsigned long long)num(h, "mmio_reads_held"),
            (double)num(h, "mmio_stall_ps") / 1e6, (unsigned long long)num(h, "services"),
            (unsigned long long)num(h, "waits"), (unsigned long long)num(h, "messages"),
            (unsigned long long)num(h, "idle_skips"));
    if (json_object_get(h, "spin_skips"))
        fprintf(f,
                "  spinning: %llu pure waits found, %llu skips over %.3f us simulated "
                "(%llu instructions not executed), %llu loops refused, %llu device reads "
                "answered while waiting\n",
                (unsigned long long)num(h, "spin_verified"),
                (unsigned long long)num(h, "spin_skips"),
                (double)num(h, "spin_skipped_ps") / 1e6,
                (unsigned long long)num(h, "spin_skipped_insns"),
                (unsigned long long)num(h, "spin_refused"),
                (unsigned long long)num(h, "spin_reads_served"));
    if (json_object_get(h, "guest_insns"))
        fprintf(f,
                "  guest instructions executed %llu; translation blocks run whole past a "
                "horizon %llu; I/O instructions in blocks of their own %llu\n",
                (unsigned long long)num(h, "guest_insns"),
                (unsigned long long)num(h, "blocks_whole"),
                (unsigned long long)num(h, "io_insns_apart"));
    print_host_faults(f, h);
    print_host_wall(f, json_object_get(h, "profile"));
    print_waited_for(f, profile, str(p, "name"));
}

void profile_print(FILE *f, json_t *profile)
{
    size_t i;
    json_t *p;
    if (!json_array_size(profile)) {
        fprintf(f, "no profile recorded for this run\n");
        return;
    }
    json_array_foreach(profile, i, p) {
        if (i)
            fputc('\n', f);
        if (!strcmp(str(p, "kind"), "host"))
            print_host(f, profile, p);
        else
            print_sim(f, p);
    }
}

json_t *profile_collect_checked(const char *run_dir, char *err, size_t size)
{
    json_t *profile = profile_collect(run_dir, err, size);
    if (profile && profile_check(profile, err, size)) {
        json_decref(profile);
        profile = NULL;
    }
    return profile;
}
