/*
 * plan.c - turning a resolved spec into simulator descriptions and QEMU
 * command lines (see plan.h).
 */
#include "dirs.h"
#include "errbuf.h"
#include "plan.h"
#include "spec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>


static const char *str(json_t *o, const char *key, const char *def)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : def;
}

static const char *process_of(json_t *spec, const char *ref)
{
    char name[MORTAR_NAME_MAX + 1];
    unsigned port;
    if (spec_port_ref(ref, name, sizeof name, &port))
        return "sim0";
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(spec, "components"), i, c)
        if (!strcmp(str(c, "name", ""), name))
            return str(c, "process", "sim0");
    return "sim0";
}

static plan_sim *sim_named(plan *p, const char *name)
{
    for (int i = 0; i < p->nsims; i++)
        if (!strcmp(p->sims[i].name, name))
            return &p->sims[i];
    if (p->nsims == PLAN_MAX)
        return NULL;
    plan_sim *s = &p->sims[p->nsims++];
    snprintf(s->name, sizeof s->name, "%s", name);
    s->desc = json_pack("{s:[], s:[]}", "components", "links");
    return s;
}

/* Link options copied into the mortar-sim description. */
static json_t *link_entry(json_t *l, const char *port)
{
    json_t *e = json_pack("{s:s, s:s}", "name", str(l, "name", "link"), "port", port);
    const char *keys[] = {"latency", "sync_interval", "bandwidth", NULL};
    for (int k = 0; keys[k]; k++)
        if (json_object_get(l, keys[k]))
            json_object_set(e, keys[k], json_object_get(l, keys[k]));
    return e;
}

static int add_listener(plan *p, plan_sim *s, json_t *l, const char *port, char *sock,
                        size_t sock_size)
{
    if (s->nsockets == PLAN_MAX)
        return -1;
    snprintf(sock, sock_size, "%s/%s.sock", p->sock_dir, str(l, "name", "link"));
    json_t *e = link_entry(l, port);
    json_object_set_new(e, "listen", json_string(sock));
    json_array_append_new(json_object_get(s->desc, "links"), e);
    snprintf(s->sockets[s->nsockets++], sizeof s->sockets[0], "%s", sock);
    return 0;
}

/* A switch's params: a traced run's switches write their frames too
 * (<run dir>/<name>.pcap, docs/traces.md), unless the spec names a pcap
 * file itself; and a pcap's times start at the run's wall-clock start,
 * unless the spec sets pcap_epoch_ns. Only the pcap's timestamps depend on
 * the start: what the switch simulates does not. */
static void add_switch_pcap(const plan *p, const plan_tools *t, json_t *component)
{
    if (strcmp(str(component, "kind", ""), "switch"))
        return;
    json_t *params = json_object_get(component, "params");
    if (!params) {
        params = json_object();
        json_object_set_new(component, "params", params);
    }
    if (t->epoch_unix_ns && !json_object_get(params, "pcap_epoch_ns"))
        json_object_set_new(params, "pcap_epoch_ns",
                            json_integer((json_int_t)t->epoch_unix_ns));
    if (!t->trace || json_object_get(params, "pcap"))
        return;
    char path[640];
    snprintf(path, sizeof path, "%s/%s.pcap", p->run_dir, str(component, "name", "switch"));
    json_object_set_new(params, "pcap", json_string(path));
}

static int plan_sims(plan *p, json_t *spec, const plan_tools *t, char *err, size_t size)
{
    size_t i;
    json_t *c, *l;
    json_array_foreach(json_object_get(spec, "components"), i, c) {
        plan_sim *s = sim_named(p, str(c, "process", "sim0"));
        if (!s)
            return errbuf_fail(err, size, "more than %d simulator processes", PLAN_MAX);
        json_t *e = json_pack("{s:s, s:s}", "name", str(c, "name", ""), "kind", str(c, "kind", ""));
        json_t *params = json_object_get(c, "params");
        if (params)
            json_object_set_new(e, "params", json_deep_copy(params));
        add_switch_pcap(p, t, e);
        json_array_append_new(json_object_get(s->desc, "components"), e);
    }
    json_array_foreach(json_object_get(spec, "links"), i, l) {
        const char *a = str(l, "a", NULL), *b = str(l, "b", NULL);
        char sock[256];
        if (!a) { /* a host link: the model listens */
            const char *comp = str(l, "component", "");
            if (add_listener(p, sim_named(p, process_of(spec, comp)), l, comp, sock, sizeof sock))
                return errbuf_fail(err, size, "more than %d links listen in one process", PLAN_MAX);
            continue;
        }
        plan_sim *sa = sim_named(p, process_of(spec, a)), *sb = sim_named(p, process_of(spec, b));
        if (sa == sb) {
            json_t *e = link_entry(l, a);
            json_object_set_new(e, "peer", json_string(b));
            json_array_append_new(json_object_get(sa->desc, "links"), e);
            continue;
        }
        if (add_listener(p, sa, l, a, sock, sizeof sock))
            return errbuf_fail(err, size, "more than %d links listen in one process", PLAN_MAX);
        json_t *e = link_entry(l, b);
        json_object_set_new(e, "connect", json_string(sock));
        json_array_append_new(json_object_get(sb->desc, "links"), e);
    }
    for (int k = 0; k < p->nsims; k++) {
        plan_sim *s = &p->sims[k];
        char path[640];
        snprintf(path, sizeof path, "%s/%s.stats.json", p->run_dir, s->name);
        json_object_set_new(s->desc, "stats", json_string(path));
        snprintf(s->progress, sizeof s->progress, "%s/%s.progress", p->run_dir, s->name);
        json_object_set_new(s->desc, "progress", json_string(s->progress));
        if (t->trace) {
            snprintf(path, sizeof path, "%s/%s.trace", p->run_dir, s->name);
            json_object_set_new(s->desc, "trace", json_string(path));
        }
        snprintf(s->desc_path, sizeof s->desc_path, "%s/%s.json", p->run_dir, s->name);
        if (dirs_write_new_json(s->desc, s->desc_path) != 0)
            return errbuf_fail(err, size, "cannot create %s (it must not exist)", s->desc_path);
    }
    return 0;
}

static void arg(plan_host *h, const char *fmt, ...)
{
    if (h->argc + 1 >= (int)(sizeof h->argv / sizeof h->argv[0]))
        return;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&h->argv[h->argc], fmt, ap) >= 0)
        h->argc++;
    va_end(ap);
}

/* A value inside a QEMU option string ("a=v,b=w"): QEMU reads ",," as a
 * comma of the value. Names cannot hold one (mortar/name.h); paths might. */
static const char *qemu_opt_value(const char *in, char *out, size_t size)
{
    size_t o = 0;
    for (; *in && o + 2 < size; in++) {
        if (*in == ',')
            out[o++] = ',';
        out[o++] = *in;
    }
    out[o] = '\0';
    return out;
}

static void base64(const char *in, char *out, size_t size)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(in), o = 0;
    for (size_t i = 0; i < n && o + 5 < size; i += 3) {
        unsigned v = (unsigned char)in[i] << 16;
        if (i + 1 < n) v |= (unsigned char)in[i + 1] << 8;
        if (i + 2 < n) v |= (unsigned char)in[i + 2];
        out[o++] = tab[(v >> 18) & 63];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? tab[v & 63] : '=';
    }
    out[o] = '\0';
}

static void host_cmdline(plan_host *h, json_t *host, json_t *spec, const plan_tools *t,
                         const plan *p)
{
    char append[8192], run64[6144];
    base64(str(host, "run", "true"), run64, sizeof run64);
    int n = snprintf(append, sizeof append, "console=ttyS0 quiet panic=-1 mortar.hostname=%s",
                     h->name);
    if (json_object_get(host, "ip"))
        n += snprintf(append + n, sizeof append - n, " mortar.ip=%s", str(host, "ip", ""));
    if (json_is_integer(json_object_get(host, "mtu")))
        n += snprintf(append + n, sizeof append - n, " mortar.mtu=%lld",
                      (long long)json_integer_value(json_object_get(host, "mtu")));
    snprintf(append + n, sizeof append - n, " mortar.run64=%s", run64);

    json_t *mem = json_object_get(host, "memory_mib"), *shift = json_object_get(host, "cpu_shift");
    arg(h, "%s", t->qemu);
    for (int i = 0; t->firmware[i]; i++) {
        arg(h, "-L");
        arg(h, "%s", t->firmware[i]);
    }
    const char *fixed[] = {"-M", "pc", "-smp", "1", "-nodefaults", "-vga", "none", "-display",
                           "none", "-no-reboot", "-serial", "stdio", "-rtc",
                           "base=2026-01-01T00:00:00,clock=vm", NULL};
    for (int i = 0; fixed[i]; i++)
        arg(h, "%s", fixed[i]);
    arg(h, "-m");
    arg(h, "%lld", json_is_integer(mem) ? (long long)json_integer_value(mem) : 512LL);
    arg(h, "-icount");
    arg(h, "shift=%lld,sleep=off", json_is_integer(shift) ? (long long)json_integer_value(shift) : 0LL);
    arg(h, "-kernel");
    arg(h, "%s", t->kernel);
    arg(h, "-initrd");
    arg(h, "%s", t->initrd);
    arg(h, "-append");
    arg(h, "%s", append);
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(spec, "links"), i, l) {
        if (strcmp(str(l, "host", ""), h->name))
            continue;
        arg(h, "-device");
        /* the device is named after its component ("accel" of "accel.0") */
        char device[MORTAR_NAME_MAX + 1], sock[512], rendezvous[512], devname[2 * sizeof device],
            ehost[2 * sizeof h->name];
        unsigned port;
        if (spec_port_ref(str(l, "component", ""), device, sizeof device, &port))
            device[0] = '\0';
        snprintf(sock, sizeof sock, "%s/%s.sock", p->sock_dir, str(l, "name", ""));
        snprintf(rendezvous, sizeof rendezvous, "%s/rendezvous", p->sock_dir);
        char esock[2 * sizeof sock], erendezvous[2 * sizeof rendezvous];
        arg(h, "mortar-pci,socket=%s,name=%s,rendezvous=%s,hosts=%d,host=%s",
            qemu_opt_value(sock, esock, sizeof esock),
            qemu_opt_value(device, devname, sizeof devname),
            qemu_opt_value(rendezvous, erendezvous, sizeof erendezvous), p->nhosts_total,
            qemu_opt_value(h->name, ehost, sizeof ehost));
    }
    h->argv[h->argc] = NULL;
}

int plan_build(plan *p, json_t *spec, const char *run_dir, const plan_tools *t, char *err,
               size_t size)
{
    memset(p, 0, sizeof *p);
    snprintf(p->run_dir, sizeof p->run_dir, "%s", run_dir);
    snprintf(p->sock_dir, sizeof p->sock_dir, "/tmp/mortar-run-XXXXXX");
    if (!mkdtemp(p->sock_dir))
        return errbuf_fail(err, size, "cannot create a private directory in /tmp");
    char rv[300];
    snprintf(rv, sizeof rv, "%s/rendezvous", p->sock_dir);
    if (mkdir(rv, 0700) != 0)
        return errbuf_fail(err, size, "cannot create %s", rv);
    p->nhosts_total = (int)json_array_size(json_object_get(spec, "hosts"));
    if (plan_sims(p, spec, t, err, size))
        return -1;
    json_t *hosts = json_object_get(spec, "hosts");
    char dir[512];
    snprintf(dir, sizeof dir, "%s", run_dir);
    size_t i;
    json_t *h;
    json_array_foreach(hosts, i, h) {
        if (p->nhosts == PLAN_MAX)
            return errbuf_fail(err, size, "more than %d hosts", PLAN_MAX);
        plan_host *ph = &p->hosts[p->nhosts++];
        const char *name = str(h, "name", "host");
        snprintf(ph->name, sizeof ph->name, "%s", name);
        snprintf(ph->console, sizeof ph->console, "%s/%s.console.log", dir, name);
        snprintf(ph->qemu_log, sizeof ph->qemu_log, "%s/%s.qemu.log", dir, name);
        snprintf(ph->stats, sizeof ph->stats, "%s/%s.host.json", dir, name);
        snprintf(ph->progress, sizeof ph->progress, "%s/%s.progress", dir, name);
        host_cmdline(ph, h, spec, t, p);
    }
    return 0;
}

void plan_free(plan *p)
{
    for (int i = 0; i < p->nsims; i++)
        json_decref(p->sims[i].desc);
    for (int i = 0; i < p->nhosts; i++)
        for (int k = 0; k < p->hosts[i].argc; k++)
            free(p->hosts[i].argv[k]);
    if (p->sock_dir[0]) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", p->sock_dir);
        if (system(cmd) != 0)
            fprintf(stderr, "mortar: could not remove %s\n", p->sock_dir);
    }
}
