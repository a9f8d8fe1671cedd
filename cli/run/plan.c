/*
 * plan.c - turning a resolved spec into simulator descriptions and QEMU
 * command lines (see plan.h).
 */
#include "dirs.h"
#include "errbuf.h"
#include "files_digest.h"
#include "mortar/params.h"
#include "mortar/runtime.h"
#include "owner.h"
#include "params_file.h"
#include "plan.h"
#include "sim_check.h"
#include "snapshot_id.h"
#include "spec.h"

#include <limits.h>
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
    for (int k = 0; sim_check_link_keys[k]; k++)
        if (json_object_get(l, sim_check_link_keys[k]))
            json_object_set(e, sim_check_link_keys[k], json_object_get(l, sim_check_link_keys[k]));
    return e;
}

/* A snapshot pass starts only the hosts whose snapshot is missing; the
 * models of the others wait for them (their handshake) until the pass ends
 * and kills them, instead of failing after the usual 30 s. */
#define IDLE_HOST_LINK_TIMEOUT "3600s"

static bool host_idle(const plan *p, const char *name)
{
    for (int i = 0; i < p->nhosts; i++)
        if (!strcmp(p->hosts[i].name, name))
            return p->hosts[i].idle;
    return false;
}

static int add_listener(plan *p, plan_sim *s, json_t *l, const char *port, char *sock,
                        size_t sock_size)
{
    if (s->nsockets == PLAN_MAX)
        return -1;
    snprintf(sock, sock_size, "%s/%s.sock", p->sock_dir, str(l, "name", "link"));
    json_t *e = link_entry(l, port);
    if (json_object_get(l, "host") && host_idle(p, str(l, "host", "")))
        json_object_set_new(e, "timeout", json_string(IDLE_HOST_LINK_TIMEOUT));
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
        snprintf(path, sizeof path, "%s/%s.profile.json", p->run_dir, s->name);
        json_object_set_new(s->desc, "profile", json_string(path));
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

/*
 * The guest's kernel command line: the same for every run (a snapshot keeps
 * it); the run's parameters come in the fw_cfg file.
 *
 * acpi=noirq: the kernel routes legacy interrupts by the BIOS's PCI routing
 * table, not by ACPI. QEMU's pc machine has no static ACPI routing table:
 * its _PRT is an AML method that builds all 128 entries in a loop, and the
 * kernel runs it whenever a device with an interrupt pin is enabled or
 * disabled. That cost about 80 M guest instructions (20 ms at 4 per ns)
 * each time a guest program opened or closed its device: a QEMU artefact,
 * not what a server's firmware costs (docs/hosts.md).
 */
#define GUEST_APPEND "console=ttyS0 quiet panic=-1 acpi=noirq"
#define PARAMS_FW_CFG_NAME "opt/mortar/params"
#define PROGRAMS_FW_CFG_DIR "opt/mortar/bin/" /* + the program's file name */

/* The memory backend of a host that builds or restores a snapshot. */
#define SNAPSHOT_RAM_ID "mortar-ram"

static const char *const fixed_args[] = {
    "-M", "pc", "-smp", "1", "-nodefaults", "-vga", "none", "-display", "none", "-no-reboot",
    "-serial", "stdio", "-rtc", "base=2026-01-01T00:00:00,clock=vm", NULL};

static long long host_int(json_t *host, const char *key, long long def)
{
    json_t *v = json_object_get(host, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : def;
}

/* The first element of the spec's array `list` whose string `field` is
 * `value`, or NULL. */
static json_t *element_where(json_t *spec, const char *list, const char *field,
                             const char *value)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(spec, list), i, e)
        if (!strcmp(str(e, field, ""), value))
            return e;
    return NULL;
}

/* The device a host link gives the host: named after its component
 * ("dev" of "dev.0"). */
static void link_device(json_t *l, char *device, size_t size)
{
    unsigned port;
    if (spec_port_ref(str(l, "component", ""), device, size, &port))
        device[0] = '\0';
}

/*
 * What QEMU learns of a device: the intro its model sends on `port` (IDs,
 * class, BARs, interrupts), as hex, from the model built here with the
 * spec's parameters. Parameters that do not change the intro (a compute
 * rate, a MAC address) thus leave the snapshot alone. NULL when the model cannot
 * be built here (the caller keys on its parameters instead).
 */
static json_t *device_identity(const char *kind, json_t *params, unsigned port)
{
    char err[2048];
    const mortar_component_ops *ops = sim_check_kind(kind, "", err, sizeof err);
    char *text = params ? json_dumps(params, JSON_COMPACT) : strdup("{}");
    mortar_params *mp = ops && text ? mortar_params_parse(text, "params", err, sizeof err) : NULL;
    free(text);
    mortar_loop *loop = NULL;
    mortar_component *c = NULL;
    json_t *hex = NULL;
    if (mp && mortar_loop_create(&loop) == 0 && mortar_loop_add(loop, ops, "id", mp, &c) == 0 &&
        port < mortar_component_port_count(c)) {
        uint32_t size = 0;
        const unsigned char *intro = mortar_component_port_intro(c, port, &size);
        char *out = malloc(2 * (size_t)size + 1);
        for (uint32_t i = 0; out && i < size; i++)
            snprintf(out + 2 * i, 3, "%02x", intro[i]);
        if (out) {
            out[2 * (size_t)size] = '\0';
            hex = json_string(out);
        }
        free(out);
    }
    if (loop)
        mortar_loop_destroy(loop);
    mortar_params_free(mp);
    return hex;
}

json_t *plan_machine(json_t *spec, json_t *host, const plan_tools *t)
{
    json_t *args = json_array(), *firmware = json_array(), *devices = json_array();
    for (int i = 0; fixed_args[i]; i++)
        json_array_append_new(args, json_string(fixed_args[i]));
    for (int i = 0; t->firmware[i]; i++)
        json_array_append_new(firmware, json_string(t->firmware[i]));
    const char *name = str(host, "name", "host");
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(spec, "links"), i, l) {
        if (strcmp(str(l, "host", ""), name))
            continue;
        char device[MORTAR_NAME_MAX + 1];
        unsigned port = 0;
        if (spec_port_ref(str(l, "component", ""), device, sizeof device, &port))
            device[0] = '\0';
        json_t *c = element_where(spec, "components", "name", device), *params = json_object_get(c, "params");
        json_t *identity = device_identity(str(c, "kind", ""), params, port);
        json_t *d = json_pack("{s:s, s:s, s:I}", "device", device, "kind", str(c, "kind", ""),
                              "port", (json_int_t)port);
        if (identity)
            json_object_set_new(d, "intro", identity);
        else
            json_object_set(d, "params", params ? params : json_null());
        json_array_append_new(devices, d);
    }
    return json_pack("{s:o, s:o, s:I, s:s, s:I, s:s, s:o}", "args", args, "firmware",
                     firmware, "memory_mib", (json_int_t)host_int(host, "memory_mib", 512),
                     "memory_backend", SNAPSHOT_RAM_ID, "cpu_shift",
                     (json_int_t)host_int(host, "cpu_shift", 0), "append", GUEST_APPEND,
                     "devices", devices);
}

/* The host's programs (checked by spec_check.c: absolute paths, names of
 * at most 40 characters), one fw_cfg file each; mortar-params copies them
 * into the guest after the snapshot point, so they are not part of the
 * snapshot's key. */
static void host_programs(plan_host *h, json_t *host)
{
    size_t k;
    json_t *v;
    json_array_foreach(json_object_get(host, "programs"), k, v) {
        const char *path = json_string_value(v), *name = strrchr(path, '/');
        char epath[2 * PATH_MAX];
        arg(h, "-fw_cfg");
        arg(h, "name=%s%s,file=%s", PROGRAMS_FW_CFG_DIR, name ? name + 1 : path,
            qemu_opt_value(path, epath, sizeof epath));
    }
}

static void host_devices(plan_host *h, json_t *spec, const plan_tools *t, const plan *p)
{
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(spec, "links"), i, l) {
        if (strcmp(str(l, "host", ""), h->name))
            continue;
        char device[MORTAR_NAME_MAX + 1], sock[512], rendezvous[512], devname[2 * sizeof device],
            ehost[2 * sizeof h->name], esock[2 * sizeof sock],
            erendezvous[2 * sizeof rendezvous], esnap[2 * sizeof h->snapshot_tmp];
        link_device(l, device, sizeof device);
        snprintf(sock, sizeof sock, "%s/%s.sock", p->sock_dir, str(l, "name", ""));
        snprintf(rendezvous, sizeof rendezvous, "%s/rendezvous", p->sock_dir);
        arg(h, "-device");
        arg(h, "mortar-pci,socket=%s,name=%s,rendezvous=%s,hosts=%d,host=%s%s%s",
            qemu_opt_value(sock, esock, sizeof esock),
            qemu_opt_value(device, devname, sizeof devname),
            qemu_opt_value(rendezvous, erendezvous, sizeof erendezvous), p->nhosts_total,
            qemu_opt_value(h->name, ehost, sizeof ehost),
            t->boot == PLAN_BOOT_SNAPSHOT ? ",snapshot=" : "",
            t->boot == PLAN_BOOT_SNAPSHOT
                ? qemu_opt_value(h->snapshot_tmp, esnap, sizeof esnap) : "");
    }
}

/*
 * The guest's RAM in a file of its own (docs/snapshots.md, "The guest's
 * RAM"): the QEMU that builds a snapshot runs the guest in it, shared, so
 * the file holds the RAM at the snapshot point and the migration leaves it
 * out (the hub sets x-ignore-shared); a restoring QEMU maps it privately,
 * copy-on-write: pages come from the page cache as the guest touches them
 * instead of being copied from the migration into fresh memory.
 */
static void snapshot_ram(plan_host *h, json_t *host, bool build)
{
    const char *path = build ? h->snapshot_tmp_ram : h->snapshot_ram;
    char epath[2 * sizeof h->snapshot_tmp_ram];
    arg(h, "-object");
    arg(h, "memory-backend-file,id=%s,size=%lldM,mem-path=%s,share=%s", SNAPSHOT_RAM_ID,
        host_int(host, "memory_mib", 512), qemu_opt_value(path, epath, sizeof epath),
        build ? "on" : "off");
    arg(h, "-machine");
    arg(h, "memory-backend=%s", SNAPSHOT_RAM_ID);
}

static void host_cmdline(plan_host *h, json_t *host, json_t *spec, const plan_tools *t,
                         const plan *p)
{
    arg(h, "%s", t->qemu);
    for (int i = 0; t->firmware[i]; i++) {
        arg(h, "-L");
        arg(h, "%s", t->firmware[i]);
    }
    for (int i = 0; fixed_args[i]; i++)
        arg(h, "%s", fixed_args[i]);
    arg(h, "-m");
    arg(h, "%lld", host_int(host, "memory_mib", 512));
    arg(h, "-icount");
    arg(h, "shift=%lld,sleep=off", host_int(host, "cpu_shift", 0));
    arg(h, "-kernel");
    arg(h, "%s", t->kernel);
    arg(h, "-initrd");
    arg(h, "%s", t->initrd);
    arg(h, "-append");
    arg(h, "%s", GUEST_APPEND);
    char eparams[2 * sizeof h->params];
    arg(h, "-fw_cfg");
    arg(h, "name=%s,file=%s", PARAMS_FW_CFG_NAME,
        qemu_opt_value(h->params, eparams, sizeof eparams));
    host_programs(h, host);
    host_devices(h, spec, t, p);
    plan_boot boot = h->boots ? PLAN_BOOT_COLD : t->boot;
    if (boot != PLAN_BOOT_COLD)
        snapshot_ram(h, host, boot == PLAN_BOOT_SNAPSHOT);
    if (boot == PLAN_BOOT_SNAPSHOT) {
        /* the saved machine is paused; without its run state in the file,
         * the restoring QEMU starts the guest once the file is loaded */
        arg(h, "-global");
        arg(h, "migration.store-global-state=off");
    }
    if (boot == PLAN_BOOT_RESTORE) {
        /* QEMU 7.2 has no file: migration, but reads a file at an fd: the
         * launcher opens the snapshot there (no cat, and no pipe) */
        arg(h, "-incoming");
        arg(h, "fd:3");
        h->restores = true;
    }
    h->argv[h->argc] = NULL;
}

/* plan_host.kept_key: what must match for a kept QEMU to take the run. */
static int kept_host_key(plan_host *h, json_t *host, const plan *p, char *err, size_t size)
{
    json_t *names = json_array();
    size_t k;
    json_t *v;
    json_array_foreach(json_object_get(host, "programs"), k, v) {
        const char *path = json_string_value(v), *name = strrchr(path, '/');
        json_array_append_new(names, json_string(name ? name + 1 : path));
    }
    json_t *m = json_pack("{s:s, s:o, s:s, s:i}", "snapshot", h->snapshot_key, "programs",
                          names, "host", h->name, "hosts", p->nhosts_total);
    int rc = snapshot_key(m, NULL, h->kept_key, err, size);
    json_decref(m);
    return rc;
}

/* A host without a mortar device never reaches a snapshot point that
 * stops it (mortar-params finds no device to tell): it boots. */
static bool host_has_device(json_t *spec, const char *name)
{
    return element_where(spec, "links", "host", name) != NULL;
}

/* The digest of the files every host's snapshot depends on, as a key. */
static int files_key(const plan_tools *t, char key[SNAPSHOT_KEY_HEX + 1], char *err,
                     size_t size)
{
    const char *files[] = {t->qemu, t->kernel, t->initrd, t->sim_bin, NULL};
    return files_digest(files, t->snapshot_dir, key, err, size);
}

static int host_snapshot(plan_host *h, json_t *host, json_t *spec, const plan_tools *t,
                         const char *files, char *err, size_t size)
{
    json_t *m = plan_machine(spec, host, t);
    json_object_set_new(m, "files", json_string(files));
    int rc = snapshot_key(m, NULL, h->snapshot_key, err, size);
    json_decref(m);
    if (rc)
        return -1;
    if (strchr(t->snapshot_dir, '\'') || strchr(t->snapshot_dir, ','))
        return errbuf_fail(err, size, "the snapshot directory %s holds a quote or a comma",
                           t->snapshot_dir);
    char file[sizeof h->snapshot];
    snprintf(file, sizeof file, "%s/%s.vm", t->snapshot_dir, h->snapshot_key);
    snprintf(h->snapshot, sizeof h->snapshot, "%s", file);
    snprintf(h->snapshot_tmp, sizeof h->snapshot_tmp, "%s.%ld.tmp", file, (long)getpid());
    snapshot_ram_path(file, h->snapshot_ram, sizeof h->snapshot_ram);
    snprintf(h->snapshot_tmp_ram, sizeof h->snapshot_tmp_ram, "%s.%ld.tmp.ram", file,
             (long)getpid());
    return 0;
}

int plan_build(plan *p, json_t *spec, const char *run_dir, const plan_tools *t, char *err,
               size_t size)
{
    memset(p, 0, sizeof *p);
    p->boot = t->boot;
    snprintf(p->run_dir, sizeof p->run_dir, "%s", run_dir);
    snprintf(p->sock_dir, sizeof p->sock_dir, "/tmp/mortar-run-XXXXXX");
    if (!mkdtemp(p->sock_dir))
        return errbuf_fail(err, size, "cannot create a private directory in /tmp");
    char rv[300];
    snprintf(rv, sizeof rv, "%s/rendezvous", p->sock_dir);
    if (mkdir(rv, 0700) != 0)
        return errbuf_fail(err, size, "cannot create %s", rv);
    if (owner_mark_private_dir(p->sock_dir) != 0)
        return errbuf_fail(err, size, "cannot write the owner of %s", p->sock_dir);
    p->nhosts_total = (int)json_array_size(json_object_get(spec, "hosts"));
    json_t *hosts = json_object_get(spec, "hosts");
    char files[SNAPSHOT_KEY_HEX + 1] = "";
    if (t->boot != PLAN_BOOT_COLD && files_key(t, files, err, size))
        return -1;
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
        snprintf(ph->params, sizeof ph->params, "%s/%s.params", dir, name);
        if (params_file_write(ph->params, name, h, err, size))
            return -1;
        ph->boots = t->boot != PLAN_BOOT_COLD && !host_has_device(spec, name);
        ph->no_skip = json_is_false(json_object_get(h, "skip_spin"));
        if (t->boot != PLAN_BOOT_COLD && !ph->boots &&
            host_snapshot(ph, h, spec, t, files, err, size))
            return -1;
        ph->idle = t->boot == PLAN_BOOT_SNAPSHOT &&
                   (ph->boots || access(ph->snapshot, R_OK) == 0);
        host_cmdline(ph, h, spec, t, p);
        if (ph->restores && kept_host_key(ph, h, p, err, size))
            return -1;
    }
    return plan_sims(p, spec, t, err, size);
}

void plan_free(plan *p)
{
    for (int i = 0; i < p->nsims; i++)
        json_decref(p->sims[i].desc);
    for (int i = 0; i < p->nhosts; i++)
        for (int k = 0; k < p->hosts[i].argc; k++)
            free(p->hosts[i].argv[k]);
    if (p->sock_dir[0])
        owner_remove_private_dir(p->sock_dir);
}
