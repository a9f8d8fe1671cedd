/*
 * sim_check.c - the one checker of component and link descriptions (see
 * sim_check.h): each rule and each default lives here once, and mortar-sim
 * and the CLI both call it, so they cannot drift.
 */
#include "sim_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"
#include "mortar/name.h"
#include "mortar/pcie.h"
#include "mortar/time.h"
#include "sims/plugins.h"

#define SLOT_SIZE_PCIE 9216 /* a 4 KiB TLP payload and its header, twice */
#define SLOT_SIZE_ETH  9088 /* a 9000-byte jumbo frame and its header */
/* Slots of a ring of such large slots. A full ring only makes its sender
 * yield to the side that empties it, and changes no stamp (a run of two
 * hosts and 60 requests waited on one a few thousand times with 256
 * slots, none with 1024; with 128 its requests were the same to the
 * nanosecond). Both sides write every page of the region when they map
 * it, and on the test machine 1024 slots (19 MB a PCIe link) made that
 * run, with its three PCIe links, reach its common start after 1.09 s
 * against 0.88 s with 256. */
#define SLOT_COUNT_LARGE 256

const char *const sim_check_link_keys[] = {"latency",   "sync_interval", "bandwidth",
                                           "wait",      "spin",          "slot_size",
                                           "slot_count", "pcie",         NULL};

static int fail(char *err, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
    return MORTAR_EINVAL;
}

/* "components[0]" + "name" -> "components[0].name"; "" + "name" -> "name" */
static const char *dot(const char *where)
{
    return where[0] ? "." : "";
}

int sim_check_name(json_t *obj, const char *key, bool required, const char *where,
                   char *err, size_t size)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return required ? fail(err, size, "%s%s%s: required", where, dot(where), key) : 0;
    if (!json_is_string(v))
        return fail(err, size, "%s%s%s: expected a string", where, dot(where), key);
    char why[200];
    if (mortar_name_check(json_string_value(v), why, sizeof why))
        return fail(err, size, "%s%s%s: %s", where, dot(where), key, why);
    return 0;
}

const mortar_component_ops *sim_check_kind(const char *kind, const char *where, char *err,
                                           size_t size)
{
    char installed[1024], why[1536];
    mortar_plugin_installed_dir(installed, sizeof installed);
    const mortar_component_ops *ops = mortar_model_find(kind, installed, why, sizeof why);
    if (!ops)
        fail(err, size, "%s.kind: %s", where, why);
    return ops;
}

/* The model's parameters: "params" (an object) as JSON text; absent: {}. */
static mortar_params *component_params(json_t *c, const char *where, char *err, size_t size)
{
    json_t *pj = json_object_get(c, "params");
    if (pj && !json_is_object(pj)) {
        fail(err, size, "%s.params: expected an object", where);
        return NULL;
    }
    char path[96];
    snprintf(path, sizeof path, "%s.params", where);
    char *text = pj ? json_dumps(pj, JSON_COMPACT) : strdup("{}");
    if (!text) {
        fail(err, size, "%s: out of memory", where);
        return NULL;
    }
    mortar_params *params = mortar_params_parse(text, path, err, size);
    free(text);
    return params;
}

int sim_check_add_component(mortar_loop *loop, json_t *c, const char *where,
                            mortar_component **out, char *err, size_t size)
{
    if (!json_is_object(c))
        return fail(err, size, "%s: expected an object", where);
    if (sim_check_name(c, "name", true, where, err, size))
        return MORTAR_EINVAL;
    json_t *kind = json_object_get(c, "kind");
    if (!kind)
        return fail(err, size, "%s.kind: required", where);
    if (!json_is_string(kind))
        return fail(err, size, "%s.kind: expected a string", where);
    const mortar_component_ops *ops = sim_check_kind(json_string_value(kind), where, err, size);
    if (!ops)
        return MORTAR_EINVAL;
    mortar_params *params = component_params(c, where, err, size);
    if (!params)
        return MORTAR_EINVAL;
    const char *name = json_string_value(json_object_get(c, "name"));
    int rc = mortar_loop_add(loop, ops, name, params, out);
    mortar_params_free(params);
    return rc ? fail(err, size, "%s", mortar_loop_errmsg(loop)) : 0;
}

/* ---- ports ------------------------------------------------------------------ */

int sim_check_port_ref(const char *ref, char *comp, size_t size, unsigned *port)
{
    if (!ref || !ref[0])
        return -1;
    const char *d = strrchr(ref, '.');
    size_t name_len = d ? (size_t)(d - ref) : strlen(ref);
    const char *digits = d ? d + 1 : "0";
    if (name_len == 0 || name_len >= size || !digits[0] ||
        strspn(digits, "0123456789") != strlen(digits) || strlen(digits) > 4)
        return -1;
    snprintf(comp, size, "%.*s", (int)name_len, ref);
    *port = (unsigned)strtoul(digits, NULL, 10);
    return 0;
}

int sim_check_port(mortar_loop *loop, const char *ref, const char *where,
                   mortar_component **comp, unsigned *port, char *err, size_t size)
{
    char name[MORTAR_NAME_MAX + 1];
    if (sim_check_port_ref(ref, name, sizeof name, port))
        return fail(err, size, "%s: '%.80s' is not a port (\"component.N\")", where,
                    ref ? ref : "");
    *comp = mortar_loop_find(loop, name);
    if (!*comp)
        return fail(err, size, "%s: no component named '%s'", where, name);
    if (*port >= mortar_component_port_count(*comp))
        return fail(err, size, "%s: component '%s' has no port %u", where, name, *port);
    return 0;
}

/* ---- link options -------------------------------------------------------------- */

void sim_check_link_defaults(mortar_link_params *p, uint32_t protocol)
{
    mortar_link_params_init(p);
    p->protocol = protocol;
    if (protocol == MORTAR_PROTO_PCIE) {
        p->slot_size = SLOT_SIZE_PCIE;
        p->slot_count = SLOT_COUNT_LARGE;
        mortar_pcie_wire_init(&p->pcie);
    }
    if (protocol == MORTAR_PROTO_ETH) {
        p->slot_size = SLOT_SIZE_ETH;
        p->slot_count = SLOT_COUNT_LARGE;
    }
}

/* l[key], when present, is a duration with a unit of at most `max_ps`, and
 * more than 0 when `positive`. */
static int link_time(json_t *l, const char *key, bool positive, uint64_t max_ps,
                     uint64_t *out, const char *where, char *err, size_t size)
{
    json_t *v = json_object_get(l, key);
    if (!v)
        return 0;
    uint64_t t;
    if (!json_is_string(v) || mortar_time_parse(json_string_value(v), &t))
        return fail(err, size, "%s.%s: '%.80s' is not a duration with a unit, e.g. \"500ns\"",
                    where, key, json_is_string(v) ? json_string_value(v) : "(not a string)");
    if (positive && t == 0)
        return fail(err, size, "%s.%s: must be greater than 0", where, key);
    if (t > max_ps)
        return fail(err, size, "%s.%s: at most %llu s", where, key,
                    (unsigned long long)(max_ps / MORTAR_S(1)));
    *out = t;
    return 0;
}

static int link_bandwidth(json_t *l, mortar_link_params *p, const char *where, char *err,
                          size_t size)
{
    json_t *v = json_object_get(l, "bandwidth");
    if (!v)
        return 0;
    uint64_t bps;
    if (!json_is_string(v) || mortar_bandwidth_parse(json_string_value(v), &bps))
        return fail(err, size,
                    "%s.bandwidth: '%.80s' is not a bandwidth with a unit, e.g. \"10Gbps\"",
                    where, json_is_string(v) ? json_string_value(v) : "(not a string)");
    if (bps == 0)
        return fail(err, size, "%s.bandwidth: must be greater than 0", where);
    p->bandwidth_bps = bps;
    return 0;
}

/* One of `names` (NULL-terminated), its index in *out. */
static int link_choice(json_t *l, const char *key, const char *const names[], int *out,
                       const char *expected, const char *where, char *err, size_t size)
{
    json_t *v = json_object_get(l, key);
    if (!v)
        return 0;
    for (int i = 0; json_is_string(v) && names[i]; i++)
        if (!strcmp(names[i], json_string_value(v))) {
            *out = i;
            return 0;
        }
    return fail(err, size, "%s.%s: expected %s", where, key, expected);
}

static int link_count(json_t *l, const char *key, uint32_t *out, const char *where,
                      char *err, size_t size)
{
    json_t *v = json_object_get(l, key);
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) <= 0 ||
        json_integer_value(v) > UINT32_MAX)
        return fail(err, size, "%s.%s: expected a positive integer", where, key);
    *out = (uint32_t)json_integer_value(v);
    return 0;
}

static int link_choices(json_t *l, mortar_link_params *p, const char *where, char *err,
                        size_t size)
{
    static const char *const waits[] = {"spin", "yield", "block", NULL};
    static const char *const protocols[] = {"test", "pcie", "eth", "ethernet", NULL};
    static const uint32_t protocol_ids[] = {MORTAR_PROTO_TEST, MORTAR_PROTO_PCIE,
                                            MORTAR_PROTO_ETH, MORTAR_PROTO_ETH};
    int wait = (int)p->wait_policy, proto = -1;
    json_t *sync = json_object_get(l, "sync");
    if (sync && !json_is_boolean(sync))
        return fail(err, size, "%s.sync: expected true or false", where);
    if (sync)
        p->sync_mode = json_is_true(sync) ? MORTAR_SYNC_ON : MORTAR_SYNC_OFF;
    if (link_choice(l, "wait", waits, &wait, "\"spin\", \"yield\" or \"block\"", where, err,
                    size) ||
        link_choice(l, "protocol", protocols, &proto, "\"test\", \"pcie\" or \"eth\"", where,
                    err, size))
        return MORTAR_EINVAL;
    p->wait_policy = (mortar_wait_policy)wait;
    if (proto >= 0)
        p->protocol = protocol_ids[proto];
    return 0;
}

/* pcie[key], when present, an integer from 0 to 65535, into *out. */
static int pcie_number(json_t *pcie, const char *key, uint32_t max, uint32_t *out,
                       const char *where, char *err, size_t size)
{
    json_t *v = json_object_get(pcie, key);
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
        return fail(err, size, "%s.pcie.%s: expected an integer from 0 to %u", where, key,
                    max);
    *out = (uint32_t)json_integer_value(v);
    return 0;
}

/* The PCIe transaction layer: "pcie": {"gen", "lanes", "mps", "mrrs",
 * "rcb", "dma_read_host", "mmio_read_host"} over the defaults already in
 * p->pcie (the slot's), or false for none. */
static int link_pcie(json_t *l, mortar_link_params *p, const char *where, char *err,
                     size_t size)
{
    static const char *const keys[] = {"gen",  "lanes",         "mps",           "mrrs",
                                       "rcb",  "dma_read_host", "mmio_read_host", NULL};
    json_t *pcie = json_object_get(l, "pcie");
    if (!pcie)
        return 0;
    if (p->protocol != MORTAR_PROTO_PCIE)
        return fail(err, size, "%s.pcie: only a PCIe link has a transaction layer", where);
    if (json_is_false(pcie)) {
        p->pcie = (mortar_pcie_wire){0};
        return 0;
    }
    if (!json_is_object(pcie))
        return fail(err, size, "%s.pcie: expected an object or false", where);
    const char *key;
    json_t *v;
    json_object_foreach(pcie, key, v) {
        int k = 0;
        while (keys[k] && strcmp(keys[k], key))
            k++;
        if (!keys[k])
            return fail(err, size,
                        "%s.pcie.%.64s: unknown key (gen, lanes, mps, mrrs, rcb, "
                        "dma_read_host, mmio_read_host)",
                        where, key);
    }
    uint32_t gen = p->pcie.gen, lanes = p->pcie.lanes, mps = p->pcie.mps,
             mrrs = p->pcie.mrrs, rcb = p->pcie.rcb;
    char at[96];
    snprintf(at, sizeof at, "%s.pcie", where);
    if (pcie_number(pcie, "gen", 255, &gen, where, err, size) ||
        pcie_number(pcie, "lanes", 255, &lanes, where, err, size) ||
        pcie_number(pcie, "mps", 65535, &mps, where, err, size) ||
        pcie_number(pcie, "mrrs", 65535, &mrrs, where, err, size) ||
        pcie_number(pcie, "rcb", 65535, &rcb, where, err, size) ||
        link_time(pcie, "dma_read_host", false, MORTAR_MS(1), &p->pcie.dma_read_host_ps, at,
                  err, size) ||
        link_time(pcie, "mmio_read_host", false, MORTAR_MS(1), &p->pcie.mmio_read_host_ps, at,
                  err, size))
        return MORTAR_EINVAL;
    p->pcie.gen = (uint8_t)gen;
    p->pcie.lanes = (uint8_t)lanes;
    p->pcie.mps = (uint16_t)mps;
    p->pcie.mrrs = (uint16_t)mrrs;
    p->pcie.rcb = (uint16_t)rcb;
    char why[128];
    if (mortar_pcie_wire_check(&p->pcie, why, sizeof why))
        return fail(err, size, "%s.pcie.%s", where, why);
    if (p->pcie.gen && p->bandwidth_bps)
        return fail(err, size,
                    "%s: a PCIe link takes its rate from pcie.gen and pcie.lanes; give "
                    "\"bandwidth\" only with \"pcie\": false",
                    where);
    return 0;
}

int sim_check_link_options(json_t *l, const char *where, mortar_link_params *p, char *err,
                           size_t size)
{
    uint64_t spin_ps = MORTAR_NS(p->spin_ns), timeout_ps = MORTAR_MS(p->handshake_timeout_ms);
    if (link_time(l, "latency", true, MORTAR_LINK_MAX_LATENCY_PS, &p->latency_ps, where, err,
                  size) ||
        link_time(l, "sync_interval", true, MORTAR_LINK_MAX_LATENCY_PS, &p->sync_interval_ps,
                  where, err, size) ||
        /* the link keeps them in 32 bits: spin in ns, the timeout in ms */
        link_time(l, "spin", false, MORTAR_S(4), &spin_ps, where, err, size) ||
        link_time(l, "timeout", false, MORTAR_S(86400), &timeout_ps, where, err, size) ||
        link_bandwidth(l, p, where, err, size) || link_choices(l, p, where, err, size) ||
        link_pcie(l, p, where, err, size) ||
        link_count(l, "slot_size", &p->slot_size, where, err, size) ||
        link_count(l, "slot_count", &p->slot_count, where, err, size))
        return MORTAR_EINVAL;
    if (p->protocol != MORTAR_PROTO_PCIE || p->bandwidth_bps)
        p->pcie.gen = 0; /* not PCIe, or a PCIe link timed by a bandwidth */
    p->spin_ns = (uint32_t)(spin_ps / MORTAR_NS(1));
    p->handshake_timeout_ms = (uint32_t)(timeout_ps / MORTAR_MS(1));
    char why[256];
    if (mortar_link_params_check(p, why, sizeof why))
        return fail(err, size, "%s: %s", where, why);
    return 0;
}

void sim_check_link_train(mortar_link_params *p, const void *intro, uint32_t size)
{
    mortar_pcie_dev_intro dev;
    if (p->protocol != MORTAR_PROTO_PCIE || !intro || size < sizeof dev)
        return;
    memcpy(&dev, intro, sizeof dev);
    mortar_pcie_wire_train(&p->pcie, &dev);
}
