/*
 * spec_check.c - checking a resolved spec completely before anything
 * starts (spec_validate in spec.h): every key known, every name following
 * the one rule (mortar/name.h), every value the platform interprets in its
 * range, every reference pointing at something that exists. The first
 * problem is reported with its JSON path ("hosts[1].memory_mib: ...").
 *
 * The platform checks only what it interprets itself: hosts, components,
 * links, processes and measure.host. The study's variables ("vars") are
 * the study's; the models check their own "params".
 */
#include "errbuf.h"
#include "spec.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mortar/link.h"
#include "mortar/log.h"
#include "mortar/name.h"
#include "mortar/runtime.h"
#include "mortar/time.h"
#include "sim_check.h"

/* What QEMU is given per host (plan.c), and why the bounds. */
#define HOST_MEMORY_MIB_MIN 64    /* the guest kernel and its initramfs */
#define HOST_MEMORY_MIB_MAX 16384 /* several hosts share one machine */
#define HOST_MTU_MIN        68    /* the least IPv4 allows (RFC 791) */
#define HOST_MTU_MAX        9000  /* a jumbo frame must fit an eth link's slot */
#define HOST_CPU_SHIFT_MIN  -4
#define HOST_CPU_SHIFT_MAX  10
#define HOST_RUN_MAX        65536 /* in the fw_cfg parameter file (cli/spec/params_file.h) */
#define HOST_PROGRAMS_MAX   16
#define PROGRAM_NAME_MAX    40       /* "opt/mortar/bin/" + name fits fw_cfg's 55 */
#define PROGRAM_BYTES_MAX   (16 << 20) /* read byte by byte through fw_cfg's port */

static const char *const top_keys[] = {"name",       "description", "vars",    "hosts",
                                       "components", "links",       "measure", NULL};
static const char *const host_keys[] = {"name", "run",      "memory_mib", "cpu_shift",
                                        "ip",   "mtu",      "programs",   "skip_spin",
                                        NULL};
static const char *const component_keys[] = {"name", "kind", "params", "process", NULL};
/* a link's place; its options are sim_check_link_keys (sims/runner/sim_check.h) */
static const char *const link_keys[] = {"name", "host", "component", "a", "b", NULL};
static const char *const measure_keys[] = {"host", NULL};

typedef struct port_use {
    char ref[MORTAR_NAME_MAX + 16];
    char where[64];
} port_use;

/* ---- keys and names ------------------------------------------------------------ */

static bool listed(const char *const list[], const char *key)
{
    for (size_t i = 0; list[i]; i++)
        if (!strcmp(list[i], key))
            return true;
    return false;
}

/* Every key of `obj` is in `known`; `where` is the object's path ("" for
 * the spec itself). */
static int check_keys(json_t *obj, const char *const known[], const char *const more[],
                      const char *where, char *err, size_t size)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        if (listed(known, key) || (more && listed(more, key)))
            continue;
        char list[512] = "";
        size_t len = 0;
        for (size_t i = 0; known[i] && len < sizeof list; i++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                    known[i]);
        for (size_t i = 0; more && more[i] && len < sizeof list; i++)
            len += (size_t)snprintf(list + len, sizeof list - len, ", %s", more[i]);
        return errbuf_fail(err, size, "%s%s%.80s: unknown key (known: %s)", where,
                           where[0] ? "." : "", key, list);
    }
    return 0;
}

/* obj[key] is a name by the one rule; absent is fine unless `required`. */
static int check_name(json_t *obj, const char *key, bool required, const char *where,
                      char *err, size_t size)
{
    return sim_check_name(obj, key, required, where, err, size) ? -1 : 0;
}

static int check_object(json_t *v, const char *where, char *err, size_t size)
{
    return json_is_object(v) ? 0
                             : errbuf_fail(err, size, "%s: expected an object", where);
}

static bool element_of(json_t *spec, const char *array, json_t *obj)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(spec, array), i, e)
        if (e == obj)
            return true;
    return false;
}

bool spec_key_allowed(json_t *spec, json_t *obj, const char *key)
{
    const char *const *known = obj == spec                               ? top_keys
                               : element_of(spec, "hosts", obj)          ? host_keys
                               : element_of(spec, "components", obj)     ? component_keys
                               : element_of(spec, "links", obj)          ? link_keys
                               : obj == json_object_get(spec, "measure") ? measure_keys
                                                                         : NULL;
    return known && (listed(known, key) ||
                     (known == link_keys && listed(sim_check_link_keys, key)));
}

/* ---- hosts --------------------------------------------------------------------- */

static int check_int_range(json_t *h, const char *key, long long lo, long long hi,
                           const char *where, char *err, size_t size)
{
    json_t *v = json_object_get(h, key);
    if (v &&
        (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi))
        return errbuf_fail(err, size, "%s.%s: expected an integer from %lld to %lld",
                           where, key, lo, hi);
    return 0;
}

/* "10.0.0.1/24": an IPv4 address with a prefix length from 1 to 32. */
static int check_ip(json_t *h, const char *where, char *err, size_t size)
{
    json_t *v = json_object_get(h, "ip");
    if (!v)
        return 0;
    const char *text = json_string_value(v);
    char addr[32];
    const char *slash = text ? strchr(text, '/') : NULL;
    struct in_addr in;
    char *end;
    long prefix = slash ? strtol(slash + 1, &end, 10) : 0;
    if (!slash || (size_t)(slash - text) >= sizeof addr || slash[1] < '0' ||
        slash[1] > '9' || *end || prefix < 1 || prefix > 32)
        return errbuf_fail(err, size,
                           "%s.ip: expected an IPv4 address with a prefix, "
                           "e.g. \"10.0.0.1/24\"",
                           where);
    snprintf(addr, sizeof addr, "%.*s", (int)(slash - text), text);
    if (inet_pton(AF_INET, addr, &in) != 1)
        return errbuf_fail(err, size, "%s.ip: '%s' is not an IPv4 address", where, addr);
    return 0;
}

/* A program's name in the guest (its file's name): letters, digits and
 * "._+-", not starting with a dot or a dash. */
static bool program_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > PROGRAM_NAME_MAX || !isalnum((unsigned char)name[0]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && !strchr("._+-", name[i]))
            return false;
    return true;
}

static int check_program(json_t *list, size_t k, const char *where, char *err, size_t size)
{
    const char *path = json_string_value(json_array_get(list, k));
    if (!path || !path[0])
        return errbuf_fail(err, size, "%s.programs[%zu]: expected a file name", where, k);
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    const char *name = basename(copy);
    if (!program_name_ok(name))
        return errbuf_fail(err, size,
                           "%s.programs[%zu]: '%.80s': a program's file name has 1 to %d "
                           "letters, digits or ._+- and starts with a letter or digit",
                           where, k, name, PROGRAM_NAME_MAX);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return errbuf_fail(err, size, "%s.programs[%zu]: %.200s: no such file", where, k,
                           path);
    if (st.st_size > PROGRAM_BYTES_MAX)
        return errbuf_fail(err, size, "%s.programs[%zu]: %.200s: %lld bytes (at most %d)",
                           where, k, path, (long long)st.st_size, PROGRAM_BYTES_MAX);
    for (size_t j = 0; j < k; j++) {
        char other[PATH_MAX];
        snprintf(other, sizeof other, "%s",
                 json_string_value(json_array_get(list, j)));
        if (!strcmp(basename(other), name))
            return errbuf_fail(err, size, "%s.programs[%zu]: a second program named '%s'",
                               where, k, name);
    }
    return 0;
}

/* "programs": files copied into the guest's /usr/local/bin after the
 * snapshot point (docs/guest-programs.md). */
static int check_programs(json_t *h, const char *where, char *err, size_t size)
{
    json_t *list = json_object_get(h, "programs");
    if (!list)
        return 0;
    if (!json_is_array(list) || json_array_size(list) > HOST_PROGRAMS_MAX)
        return errbuf_fail(err, size, "%s.programs: expected an array of at most %d files",
                           where, HOST_PROGRAMS_MAX);
    for (size_t k = 0; k < json_array_size(list); k++)
        if (check_program(list, k, where, err, size))
            return -1;
    return 0;
}

static int check_host(json_t *hosts, size_t i, char *err, size_t size)
{
    json_t *h = json_array_get(hosts, i);
    char where[32];
    snprintf(where, sizeof where, "hosts[%zu]", i);
    if (check_object(h, where, err, size) || check_keys(h, host_keys, NULL, where, err, size) ||
        check_name(h, "name", true, where, err, size))
        return -1;
    const char *run = json_string_value(json_object_get(h, "run"));
    if (!run)
        return errbuf_fail(err, size, "%s.run: required (the guest's command)", where);
    if (!run[strspn(run, " \t\r\n")]) /* the guest would drop to a shell and wait */
        return errbuf_fail(err, size, "%s.run: empty (the guest's command)", where);
    if (json_string_length(json_object_get(h, "run")) > HOST_RUN_MAX)
        return errbuf_fail(err, size,
                           "%s.run: longer than %d bytes",
                           where, HOST_RUN_MAX);
    for (size_t k = 0; k < i; k++)
        if (!strcmp(spec_elem_name(json_array_get(hosts, k)), spec_elem_name(h)))
            return errbuf_fail(err, size, "%s.name: '%s' is used twice", where,
                               spec_elem_name(h));
    if (check_int_range(h, "memory_mib", HOST_MEMORY_MIB_MIN, HOST_MEMORY_MIB_MAX, where,
                        err, size) ||
        check_int_range(h, "cpu_shift", HOST_CPU_SHIFT_MIN, HOST_CPU_SHIFT_MAX, where,
                        err, size) ||
        check_int_range(h, "mtu", HOST_MTU_MIN, HOST_MTU_MAX, where, err, size) ||
        check_programs(h, where, err, size))
        return -1;
    json_t *skip = json_object_get(h, "skip_spin");
    if (skip && !json_is_boolean(skip))
        return errbuf_fail(err, size, "%s.skip_spin: expected true or false", where);
    return check_ip(h, where, err, size);
}

static int validate_hosts(json_t *hosts, char *err, size_t size)
{
    if (!json_is_array(hosts) || json_array_size(hosts) == 0)
        return errbuf_fail(err, size, "hosts: expected a non-empty array");
    if (json_array_size(hosts) > PLAN_MAX)
        return errbuf_fail(err, size, "hosts: %zu hosts, at most %d are supported",
                           json_array_size(hosts), PLAN_MAX);
    for (size_t i = 0; i < json_array_size(hosts); i++)
        if (check_host(hosts, i, err, size))
            return -1;
    return 0;
}

static bool is_host(json_t *spec, const char *name)
{
    return spec_find_named(json_object_get(spec, "hosts"), name) != NULL;
}

/* ---- components ------------------------------------------------------------------ */

/* A process's files (<process>.json, .log, .progress, .trace) share the run
 * directory with the hosts' (<host>.progress, .trace) and spec.json. */
static int check_process(json_t *spec, json_t *c, const char *where, char *err,
                         size_t size)
{
    if (check_name(c, "process", false, where, err, size))
        return -1;
    const char *process = json_string_value(json_object_get(c, "process"));
    if (process && (is_host(spec, process) || !strcmp(process, "spec")))
        return errbuf_fail(err, size, "%s.process: '%s' is taken (%s)", where, process,
                           strcmp(process, "spec") ? "a host's name"
                                                   : "the run's spec.json");
    return 0;
}

static int count_processes(json_t *comps, char *err, size_t size)
{
    const char *seen[PLAN_MAX];
    size_t n = 0, i;
    json_t *c;
    json_array_foreach(comps, i, c) {
        const char *p = json_string_value(json_object_get(c, "process"));
        p = p ? p : "sim0";
        bool known = false;
        for (size_t k = 0; k < n && !known; k++)
            known = !strcmp(seen[k], p);
        if (known)
            continue;
        if (n == PLAN_MAX)
            return errbuf_fail(err, size,
                               "components[%zu].process: more than %d simulator "
                               "processes",
                               i, PLAN_MAX);
        seen[n++] = p;
    }
    return 0;
}

/* Creates every component in a scratch loop: the models check their own
 * parameters, and we learn their ports. */
static int validate_components(json_t *spec, mortar_loop *loop, char *err, size_t size)
{
    json_t *comps = json_object_get(spec, "components");
    if (!json_is_array(comps))
        return errbuf_fail(err, size, "components: expected an array");
    size_t i;
    json_t *c;
    json_array_foreach(comps, i, c) {
        char where[32];
        snprintf(where, sizeof where, "components[%zu]", i);
        if (check_object(c, where, err, size) ||
            check_keys(c, component_keys, NULL, where, err, size) ||
            check_name(c, "name", true, where, err, size) ||
            check_process(spec, c, where, err, size))
            return -1;
        if (sim_check_add_component(loop, c, where, NULL, err, size))
            return -1;
    }
    return count_processes(comps, err, size);
}

/* ---- links ----------------------------------------------------------------------- */

int spec_port_ref(const char *ref, char *comp, size_t size, unsigned *port)
{
    return sim_check_port_ref(ref, comp, size, port);
}

static int use_port(port_use *uses, size_t *n, mortar_loop *loop, const char *ref,
                    const char *where, char *err, size_t size)
{
    mortar_component *c;
    unsigned port;
    if (sim_check_port(loop, ref, where, &c, &port, err, size))
        return -1;
    char full[sizeof uses[0].ref];
    snprintf(full, sizeof full, "%s.%u", mortar_component_name(c), port);
    for (size_t k = 0; k < *n; k++)
        if (!strcmp(uses[k].ref, full))
            return errbuf_fail(err, size, "%s: port %s is already bound by %s", where,
                               full, uses[k].where);
    snprintf(uses[*n].ref, sizeof uses[*n].ref, "%s", full);
    snprintf(uses[*n].where, sizeof uses[*n].where, "%s", where);
    (*n)++;
    return 0;
}

/* The link's options, with mortar-sim's defaults for a port of `protocol`
 * and by its rules (sim_check_link_options). */
static int check_link_options(json_t *l, uint32_t protocol, const char *where, char *err,
                              size_t size)
{
    mortar_link_params p;
    sim_check_link_defaults(&p, protocol);
    p.name = spec_elem_name(l);
    return sim_check_link_options(l, where, &p, err, size) ? -1 : 0;
}

/* The link's own checks: keys, name, a host that exists. */
static int check_link(json_t *spec, json_t *links, size_t i, char *err, size_t size)
{
    json_t *l = json_array_get(links, i);
    char where[32];
    snprintf(where, sizeof where, "links[%zu]", i);
    if (check_object(l, where, err, size) || check_keys(l, link_keys, sim_check_link_keys, where, err, size) ||
        check_name(l, "name", true, where, err, size))
        return -1;
    for (size_t k = 0; k < i; k++)
        if (!strcmp(spec_elem_name(json_array_get(links, k)), spec_elem_name(l)))
            return errbuf_fail(err, size, "%s.name: '%s' is used twice", where,
                               spec_elem_name(l));
    const char *host = json_string_value(json_object_get(l, "host"));
    if (host && !is_host(spec, host))
        return errbuf_fail(err, size, "%s.host: no host named '%s'", where, host);
    return 0;
}

/* A host gets one QEMU device per link to it. */
static int check_host_link_count(json_t *links, const char *host, size_t i, char *err,
                                 size_t size)
{
    size_t n = 0, k;
    json_t *l;
    json_array_foreach(links, k, l) {
        const char *h = json_string_value(json_object_get(l, "host"));
        n += h && !strcmp(h, host);
    }
    if (n > PLAN_MAX)
        return errbuf_fail(err, size,
                           "links[%zu].host: '%s' has %zu links, at most %d are "
                           "supported",
                           i, host, n, PLAN_MAX);
    return 0;
}

static int bind_link(json_t *spec, json_t *links, size_t i, port_use *uses, size_t *n,
                     mortar_loop *loop, char *err, size_t size)
{
    json_t *l = json_array_get(links, i);
    char where[32];
    snprintf(where, sizeof where, "links[%zu]", i);
    const char *host = json_string_value(json_object_get(l, "host"));
    const char *comp = json_string_value(json_object_get(l, "component"));
    const char *a = json_string_value(json_object_get(l, "a"));
    const char *b = json_string_value(json_object_get(l, "b"));
    const char *first = host && comp && !a && !b ? comp : a && b && !host && !comp ? a : NULL;
    if (!first)
        return errbuf_fail(err, size,
                           "%s: needs \"host\" and \"component\", or \"a\" and \"b\"",
                           where);
    /* its options before its ports' use: they take the first end's protocol */
    mortar_component *c;
    unsigned port;
    if (sim_check_port(loop, first, where, &c, &port, err, size) ||
        check_link_options(l, mortar_component_port_protocol(c, port), where, err, size))
        return -1;
    if (host)
        return check_host_link_count(links, host, i, err, size) ||
                       use_port(uses, n, loop, comp, where, err, size)
                   ? -1
                   : 0;
    return use_port(uses, n, loop, a, where, err, size) ||
                   use_port(uses, n, loop, b, where, err, size)
               ? -1
               : 0;
}

/* Every declared port must be bound. */
static int check_ports_bound(json_t *spec, mortar_loop *loop, const port_use *uses,
                             size_t n, char *err, size_t size)
{
    json_t *comps = json_object_get(spec, "components");
    for (size_t ci = 0; ci < json_array_size(comps); ci++) {
        const char *name = spec_elem_name(json_array_get(comps, ci));
        mortar_component *c = mortar_loop_find(loop, name);
        for (unsigned p = 0; p < mortar_component_port_count(c); p++) {
            char full[sizeof uses[0].ref];
            snprintf(full, sizeof full, "%s.%u", name, p);
            bool bound = false;
            for (size_t k = 0; k < n && !bound; k++)
                bound = !strcmp(uses[k].ref, full);
            if (!bound)
                return errbuf_fail(err, size,
                                   "components[%zu]: port %s is not connected by "
                                   "any link",
                                   ci, full);
        }
    }
    return 0;
}

static int validate_links(json_t *spec, mortar_loop *loop, char *err, size_t size)
{
    json_t *links = json_object_get(spec, "links");
    if (!json_is_array(links))
        return errbuf_fail(err, size, "links: expected an array");
    port_use *uses = calloc(2 * json_array_size(links) + 1, sizeof *uses);
    if (!uses)
        return errbuf_fail(err, size, "out of memory");
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; !rc && i < json_array_size(links); i++)
        rc = check_link(spec, links, i, err, size) ||
                     bind_link(spec, links, i, uses, &n, loop, err, size)
                 ? -1
                 : 0;
    if (!rc)
        rc = check_ports_bound(spec, loop, uses, n, err, size);
    free(uses);
    return rc;
}

/* ---- the spec -------------------------------------------------------------------- */

static int validate_measure(json_t *spec, char *err, size_t size)
{
    json_t *m = json_object_get(spec, "measure");
    if (!m)
        return 0;
    if (check_object(m, "measure", err, size) ||
        check_keys(m, measure_keys, NULL, "measure", err, size))
        return -1;
    const char *host = json_string_value(json_object_get(m, "host"));
    if (!host)
        return errbuf_fail(err, size,
                           "measure.host: expected the name of the host that reports");
    if (!is_host(spec, host))
        return errbuf_fail(err, size, "measure.host: no host named '%s'", host);
    return 0;
}

static int validate_top(json_t *spec, char *err, size_t size)
{
    if (check_keys(spec, top_keys, NULL, "", err, size) ||
        check_name(spec, "name", false, "", err, size))
        return -1;
    json_t *d = json_object_get(spec, "description");
    if (d && !json_is_string(d))
        return errbuf_fail(err, size, "description: expected a string");
    return 0;
}

int spec_validate(json_t *spec, char *err, size_t err_size)
{
    if (validate_top(spec, err, err_size) ||
        validate_hosts(json_object_get(spec, "hosts"), err, err_size))
        return -1;
    mortar_loop *loop;
    if (mortar_loop_create(&loop))
        return errbuf_fail(err, err_size, "out of memory");
    mortar_log_level saved = mortar_log_get_level();
    mortar_log_set_level(
        MORTAR_LOG_ERROR); /* the models' own lines are not needed here */
    int rc = validate_components(spec, loop, err, err_size);
    if (!rc)
        rc = validate_links(spec, loop, err, err_size);
    mortar_log_set_level(saved);
    mortar_loop_destroy(loop);
    if (!rc)
        rc = validate_measure(spec, err, err_size);
    return rc;
}
