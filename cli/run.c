/*
 * run.c - `mortar run SPEC [--set key=value]... [--db FILE] [--out DIR]
 * [--trace] [--stall-timeout S] [--timeout S] [--cold-boot]`: one
 * experiment, end to end.
 *
 * Validates the spec before anything starts, plans the processes, builds
 * the booted-guest snapshots the run lacks (docs/snapshots.md; not with
 * --cold-boot), starts the simulators and then the QEMU hosts (restored
 * from their snapshots, or booting; they run unsynchronized and meet at
 * the common start), watches every process, and writes one run record
 * into the results database: the resolved spec, versions, per-request
 * results, their summary, every component's stats and the wall time. A
 * crashed process or a stall ends the run, kills every process of it and
 * names the culprit with the last lines of its log; Ctrl-C does the same.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "mortar/progress.h"
#include "db.h"
#include "dirs.h"
#include "errbuf.h"
#include "guest_console.h"
#include "run_progress.h"
#include "status_line.h"
#include "host_tools.h"
#include "host_faults.h"
#include "losses.h"
#include "owner.h"
#include "paths.h"
#include "plan.h"
#include "snapshot_cache.h"
#include "proc_end.h"
#include "snapshot_id.h"
#include "procs.h"
#include "request_read.h"
#include "request_summary.h"
#include "profile_data.h"
#include "run.h"
#include "run_record.h"
#include "spec.h"
#include "study.h"
#include "usage.h"

#define MAX_REQUESTS 100000
/* Tries at the final database write, each waiting up to DB_BUSY_TIMEOUT_MS. */
#define RECORD_ATTEMPTS 3
/* Wall time allowed for booting the hosts to their snapshot point. */
#define SNAPSHOT_BUILD_TIMEOUT_S 900

typedef struct run_opts {
    const char *spec_path, *db_path, *out_dir;
    char *sets[64];
    size_t nsets;
    bool trace, cold_boot;
    int stall_s, timeout_s;
} run_opts;

typedef struct tools {
    char sim_bin[PATH_MAX];
    char qemu[PATH_MAX], image[PATH_MAX], kernel[PATH_MAX + 32], initrd[PATH_MAX + 32];
    char firmware[2][PATH_MAX];
    char kernel_version[64], qemu_version[128];
} tools;

static volatile sig_atomic_t interrupted; /* the signal that ends the run, or 0 */

static void on_signal(int sig)
{
    interrupted = sig;
}

/* Ctrl-C, SIGTERM (a sweep ending its runs) and SIGHUP (the terminal
 * closed) end the run the same way: it kills its processes and records
 * itself "interrupted". */
static void install_signals(void)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A whole number of seconds, 1 or more: "5x" or "0" is refused. */
static int parse_seconds(const char *text, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 1 || v > 1000000)
        return -1;
    *out = (int)v;
    return 0;
}

/* Returns CLI_PARSED, or the exit status after --help, --version or a usage
 * error. */
static int parse_args(int argc, char **argv, run_opts *o)
{
    *o = (run_opts){.db_path = "mortar.db", .out_dir = "runs", .stall_s = 120,
                    .timeout_s = 3600};
    const cli_command *cmd = &mortar_cmd_run;
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    for (int key; (key = cli_next(&p)) != CLI_DONE;) {
        int *seconds = key == CLI_KEY_STALL_TIMEOUT ? &o->stall_s
                       : key == CLI_KEY_TIMEOUT     ? &o->timeout_s
                                                    : NULL;
        if (key == CLI_KEY_SET) {
            if (o->nsets == 64)
                return cli_usage_error(cmd, "more than 64 --set options");
            o->sets[o->nsets++] = (char *)p.value;
        } else if (key == CLI_KEY_DB)
            o->db_path = p.value;
        else if (key == CLI_KEY_OUT)
            o->out_dir = p.value;
        else if (key == CLI_KEY_TRACE)
            o->trace = true;
        else if (key == CLI_KEY_COLD_BOOT)
            o->cold_boot = true;
        else if (seconds) {
            if (parse_seconds(p.value, seconds))
                return cli_usage_error(cmd, "'%s' is not a number of seconds (1 to 1000000)",
                                       p.value);
        } else
            return cli_stop_status(key);
    }
    if (argc - p.first_operand != 1)
        return cli_usage_error(cmd, "one SPEC or STUDY, please");
    o->spec_path = argv[p.first_operand];
    return CLI_PARSED;
}

/* ---- the tools: QEMU build, guest image, firmware ---------------------------- */

static void say_note(const char *what)
{
    fprintf(stderr, "[mortar] %s\n", what);
}

/* The first line of a small file, or "" (no process for it: a sweep's runs
 * each look). */
static void first_line(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f && fgets(out, (int)size, f))
        out[strcspn(out, "\n")] = '\0';
    if (f)
        fclose(f);
}

/* The build's directory name in .../qemu/<debian version>-<hash>/bin/
 * qemu-system-x86_64: what the runs record as QEMU's version. */
static void qemu_build_name(const char *qemu, char *out, size_t size)
{
    const char *end = qemu + strlen(qemu), *start;
    for (int slashes = 0; end > qemu && slashes < 2; end--)
        slashes += end[-1] == '/';
    start = end;
    while (start > qemu && start[-1] != '/')
        start--;
    snprintf(out, size, "%.*s", (int)(end - start), start);
}

/* mortar-sim, QEMU and the guest image (paths.h and host_tools.h say where
 * they are looked for). */
static int find_tools(tools *t, char *err, size_t size)
{
    host_tools found;
    if (paths_sim_bin(t->sim_bin, sizeof t->sim_bin, err, size))
        return -1;
    if (host_tools_find(&found, say_note, err, size))
        return -1;
    snprintf(t->qemu, sizeof t->qemu, "%s", found.qemu);
    snprintf(t->image, sizeof t->image, "%s", found.image);
    char path[PATH_MAX + 32];
    snprintf(t->kernel, sizeof t->kernel, "%s", found.kernel);
    snprintf(t->initrd, sizeof t->initrd, "%s", found.initrd);
    snprintf(path, sizeof path, "%s/kernel-version", t->image);
    first_line(path, t->kernel_version, sizeof t->kernel_version);
    qemu_build_name(t->qemu, t->qemu_version, sizeof t->qemu_version);
    snprintf(t->firmware[0], PATH_MAX, "/usr/share/seabios");
    snprintf(t->firmware[1], PATH_MAX, "/usr/share/qemu");
    return 0;
}

/* ---- watching ----------------------------------------------------------------- */

static bool file_has_line(const char *path, const char *prefix)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f))
        found = !strncmp(line, prefix, strlen(prefix));
    if (f)
        fclose(f);
    return found;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : 0;
}

static int wait_for_sockets(procs *ps, proc *pr, const plan_sim *s, char *err, size_t size)
{
    double end = wall_now() + 30;
    for (int i = 0; i < s->nsockets; i++) {
        while (access(s->sockets[i], F_OK) != 0) {
            proc *done = procs_poll(ps);
            if (done == pr || !pr->running) {
                snprintf(err, size, "simulator '%s' exited with %d while starting", s->name,
                         pr->status);
                return -1;
            }
            if (wall_now() > end || interrupted) {
                snprintf(err, size, "simulator '%s' did not open %s", s->name, s->sockets[i]);
                return -1;
            }
            usleep(10000);
        }
    }
    return 0;
}

/*
 * A sweep that keeps its hosts (MORTAR_PARK_DIR, docs/snapshots.md, "Kept
 * hosts"): a restoring host runs on a kept QEMU through `mortar
 * host-attach`, watched as QEMU would be. Else QEMU's own command line.
 */
static char *const *kept_host_argv(plan_host *h, char *out[PLAN_ARGV_MAX + 5])
{
    const char *dir = getenv("MORTAR_PARK_DIR");
    if (!dir || !*dir)
        return h->argv;
    int k = 0;
    /* this very binary, also after a rebuild replaced its file mid-sweep */
    out[k++] = "/proc/self/exe";
    out[k++] = "host-attach";
    out[k++] = (char *)dir;
    out[k++] = h->kept_key;
    for (int i = 0; h->argv[i]; i++)
        out[k++] = h->argv[i];
    out[k] = NULL;
    return out;
}

static int start_all(procs *ps, plan *p, const char *sim_bin, bool trace, char *err,
                     size_t size)
{
    for (int i = 0; i < p->nsims; i++) {
        plan_sim *s = &p->sims[i];
        char name[80], log[600];
        snprintf(name, sizeof name, "sim %s", s->name);
        snprintf(log, sizeof log, "%s/%s.log", p->run_dir, s->name);
        char *argv[] = {(char *)sim_bin, s->desc_path, NULL};
        proc *pr = procs_start(ps, name, argv, NULL, log, NULL, NULL);
        if (!pr || wait_for_sockets(ps, pr, s, err, size))
            return -1;
    }
    for (int i = 0; i < p->nhosts; i++) {
        plan_host *h = &p->hosts[i];
        if (h->idle)
            continue; /* a snapshot pass, and no snapshot to build for it */
        char name[80], env[600], trace_file[700], trace_host[200], progress[600];
        snprintf(name, sizeof name, "host %s", h->name);
        snprintf(env, sizeof env, "MORTAR_HOST_STATS=%s", h->stats);
        /* the host adapter's trace: PCIe events and the guest's marks */
        snprintf(trace_file, sizeof trace_file, "MORTAR_TRACE=%s/%s.trace", p->run_dir, h->name);
        snprintf(trace_host, sizeof trace_host, "MORTAR_TRACE_HOST=%s", h->name);
        snprintf(progress, sizeof progress, "MORTAR_PROGRESS=%s", h->progress);
        char no_skip[] = "MORTAR_SKIP=0"; /* the spec's "skip_spin": false */
        char *envs[6] = {env, progress, NULL, NULL, NULL, NULL};
        int n = 2;
        if (trace) {
            envs[n++] = trace_file;
            envs[n++] = trace_host;
        }
        if (h->no_skip)
            envs[n++] = no_skip;
        char *attach[PLAN_ARGV_MAX + 5];
        char *const *argv = h->restores ? kept_host_argv(h, attach) : h->argv;
        if (!procs_start(ps, name, argv, h->console, h->qemu_log, envs,
                         h->restores ? h->snapshot : NULL)) {
            snprintf(err, size, "cannot start QEMU for host '%s'", h->name);
            return -1;
        }
    }
    return 0;
}

static void show_failure(const plan *p, const proc *pr)
{
    if (!pr)
        return;
    fprintf(stderr, "[mortar] last lines of %s (%s):\n", pr->name, pr->log);
    procs_print_tail(pr->log, 12);
    for (int i = 0; i < p->nhosts; i++)
        if (!strcmp(pr->name + 5, p->hosts[i].name)) {
            fprintf(stderr, "[mortar] last lines of its console (%s):\n", p->hosts[i].console);
            procs_print_tail(p->hosts[i].console, 12);
        }
}

/* The console log of the host process `pr` ("host <name>"); NULL for a
 * simulator. */
static const char *console_of(const plan *p, const proc *pr)
{
    for (int i = 0; i < p->nhosts; i++)
        if (!strncmp(pr->name, "host ", 5) && !strcmp(pr->name + 5, p->hosts[i].name))
            return p->hosts[i].console;
    return NULL;
}

/* The last `lines` lines of every host's console, under the status line. */
static void show_consoles(const plan *p, int lines, status_line *line)
{
    status_line_clear(line);
    for (int i = 0; i < p->nhosts; i++) {
        fprintf(stderr, "[mortar] %s console:\n", p->hosts[i].name);
        procs_print_tail(p->hosts[i].console, lines);
    }
}

/*
 * Reaps the processes that ended. When one ended other than as it should
 * (proc_end.h), names the cause in `err` and returns -1: the process that
 * was killed, else one that ended for a reason of its own, else one that
 * only followed a peer that left; a follower alone waits up to
 * END_GRACE_S for the peer it followed to be reaped. `guests` says
 * whether a host's guest must have ended its command (not while building
 * snapshots, where QEMU quits at the snapshot point).
 */
#define END_GRACE_S 0.5
static int reap_ended(procs *ps, const plan *p, bool guests, status_line *line, char *err,
                      size_t size)
{
    proc_end cause = {.kind = PROC_END_FINISHED}, e;
    const proc *culprit = NULL;
    double deadline = 0;
    for (;;) {
        proc *pr;
        while ((pr = procs_poll(ps))) {
            proc_end_judge(pr, guests ? console_of(p, pr) : NULL, &e);
            if (e.kind > cause.kind) {
                cause = e;
                culprit = pr;
            }
            if (!guests && e.kind == PROC_END_FINISHED && console_of(p, pr))
                fprintf(stderr, "[mortar] snapshot of %s saved\n", pr->name);
        }
        if (cause.kind == PROC_END_FINISHED)
            return 0;
        if (cause.kind != PROC_END_PEER_LEFT)
            break;
        if (deadline == 0)
            deadline = wall_now() + END_GRACE_S;
        else if (wall_now() > deadline)
            break;
        usleep(20000);
    }
    snprintf(err, size, "%s", cause.what);
    if (line)
        status_line_clear(line);
    show_failure(p, culprit);
    return -1;
}

/* A guest that crashed, could not be set up, or whose program failed
 * cannot finish its part: the others would wait for it until the stall
 * watch. Looks for the kernel's crash reports, "MORTAR-FAIL <why>" and
 * "MORTAR-EXIT <nonzero>" (guest/init). */
static bool guest_failed(const plan *p, char *err, size_t size)
{
    char what[400];
    for (int i = 0; i < p->nhosts; i++) {
        FILE *f = fopen(p->hosts[i].console, "r");
        if (!f)
            continue;
        bool failed = guest_console_failure(f, what, sizeof what);
        fclose(f);
        if (failed) {
            snprintf(err, size, "host %s: %s", p->hosts[i].name, what);
            return true;
        }
    }
    return false;
}

/* The simulated time every process reported (mortar/progress.h), summed:
 * it moves as long as any clock moves. Names the lowest clock in `who`. */
static uint64_t clocks(const plan *p, char *who, size_t size, uint64_t *lowest)
{
    uint64_t sum = 0, t;
    *lowest = UINT64_MAX;
    snprintf(who, size, "no process reported its clock");
    for (int i = 0; i < p->nsims + p->nhosts; i++) {
        bool sim = i < p->nsims;
        const char *path = sim ? p->sims[i].progress : p->hosts[i - p->nsims].progress;
        if (mortar_progress_read(path, &t) != 0)
            continue;
        sum += t;
        if (t < *lowest) {
            *lowest = t;
            snprintf(who, size, "%s %s", sim ? "sim" : "host",
                     sim ? p->sims[i].name : p->hosts[i - p->nsims].name);
        }
    }
    return sum;
}

/* Names what holds the run back: a process the kernel keeps stopped if
 * there is one (progress reports are up to a second old, so the lowest
 * reported clock can point at a peer that merely waits for it), else the
 * lowest clock. */
static void stall_message(const procs *ps, const run_opts *o, const char *who,
                          uint64_t lowest, char *err, size_t size)
{
    const proc *stopped = procs_find_stopped(ps);
    char culprit[160];
    if (stopped)
        snprintf(culprit, sizeof culprit, "%s is stopped (SIGSTOP or a debugger)",
                 stopped->name);
    else
        snprintf(culprit, sizeof culprit, "the lowest clock is %s at %.6f s", who,
                 lowest == UINT64_MAX ? 0 : (double)lowest / 1e12);
    snprintf(err, size,
             "stalled: no simulated time passed and no guest output for %d s"
             " (--stall-timeout); %s",
             o->stall_s, culprit);
}

/* What the progress line of a run needs (run_progress.h). */
typedef struct run_view {
    long long id;
    const char *measured_console; /* NULL: no host is measured */
    size_t requests;              /* the spec's `requests`, 0 if it has none */
    status_line line;             /* on a terminal: redrawn in place */
    request_counter counter;
    double started_at;      /* wall_now() when the run began */
    double expected_wall_s; /* past ok runs of its spec name, 0: none */
    double synced_at, last_plain;
} run_view;

/* Without a terminal, a plain progress line at most this often (a log
 * reader wants a sign of life, not a line per look). */
#define PLAIN_PROGRESS_EVERY_S 10.0

/* Shows how far the run got: redraws the line on a terminal, or prints a
 * plain line now and then. Call it after the common start. */
static void show_progress(run_view *v, uint64_t lowest)
{
    double now = wall_now();
    if (!v->line.tty && now - v->last_plain < PLAIN_PROGRESS_EVERY_S)
        return;
    size_t done = v->measured_console
                      ? request_counter_update(&v->counter, v->measured_console)
                      : 0;
    double sim_s = lowest == UINT64_MAX ? -1 : (double)lowest / 1e12;
    char text[256];
    double eta = done < v->requests ? run_eta_s(done, v->requests, now - v->synced_at) : -1;
    if (eta < 0)
        eta = run_eta_past_s(v->expected_wall_s, now - v->started_at);
    run_progress_text(text, sizeof text, v->id, sim_s, done, v->requests, now - v->synced_at,
                      eta);
    if (v->line.tty) {
        status_line_show(&v->line, text);
    } else {
        fprintf(stderr, "%s\n", text);
        v->last_plain = now;
    }
}

static int watch_hosts(procs *ps, plan *p, const run_opts *o, double run_start,
                       run_view *v, char *err, size_t size);

/* How many requests the spec asks for: its `requests` variable (a whole
 * number, or text holding one), else 0 (unknown: no ETA). */
static size_t spec_requests(json_t *spec)
{
    json_t *v = json_object_get(json_object_get(spec, "vars"), "requests");
    long long n = json_is_integer(v)  ? json_integer_value(v)
                  : json_is_string(v) ? strtoll(json_string_value(v), NULL, 10)
                                      : 0;
    return n > 0 ? (size_t)n : 0;
}

/* The console of the host the spec measures (`measure.host`), or NULL. */
static const char *measured_console(json_t *spec, const plan *p)
{
    const char *host =
        json_string_value(json_object_get(json_object_get(spec, "measure"), "host"));
    for (int i = 0; host && i < p->nhosts; i++)
        if (strcmp(p->hosts[i].name, host) == 0)
            return p->hosts[i].console;
    return NULL;
}

/* Watches until every host powered off and every simulator ended, showing
 * the progress after the common start. Returns 0, or -1 with the reason
 * (and the culprit's log shown, after the progress line is gone). */
static int watch(procs *ps, plan *p, const run_opts *o, double run_start, run_view *v,
                 char *err, size_t size)
{
    int rc = watch_hosts(ps, p, o, run_start, v, err, size);
    status_line_clear(&v->line);
    return rc;
}

static int watch_hosts(procs *ps, plan *p, const run_opts *o, double run_start,
                       run_view *v, char *err, size_t size)
{
    double start = wall_now(), last_progress = start;
    long last_out = -1;
    uint64_t last_clocks = 0, lowest;
    char who[128];
    bool synced = false;
    for (;;) {
        if (reap_ended(ps, p, true, &v->line, err, size))
            return -1;
        /* every process ended: a guest whose program failed still fails the
         * run, and says why (a short run can end between two looks) */
        if (!procs_any_running(ps, "host ") && !procs_any_running(ps, "sim ")) {
            if (!guest_failed(p, err, size))
                return 0;
            show_consoles(p, 8, &v->line);
            return -1;
        }
        long out = 0;
        bool all_synced = true;
        for (int i = 0; i < p->nhosts; i++) {
            out += file_size(p->hosts[i].console);
            all_synced &= file_has_line(p->hosts[i].console, "MORTAR-SYNCHRONIZED");
        }
        if (all_synced && !synced) {
            synced = true;
            v->synced_at = v->last_plain = wall_now();
            fprintf(stderr,
                    "[mortar] hosts synchronized at the common start after %.2f s (%s)\n",
                    wall_now() - run_start, o->cold_boot ? "cold boot" : "from snapshots");
        }
        uint64_t now_clocks = clocks(p, who, sizeof who, &lowest);
        if (out != last_out || now_clocks != last_clocks) {
            last_out = out;
            last_clocks = now_clocks;
            last_progress = wall_now();
        }
        if (interrupted) {
            snprintf(err, size, "interrupted by %s",
                     interrupted == SIGINT    ? "SIGINT (Ctrl-C)"
                     : interrupted == SIGHUP  ? "SIGHUP (the terminal closed)"
                                              : "SIGTERM");
            return -1;
        }
        if (guest_failed(p, err, size)) {
            show_consoles(p, 8, &v->line);
            return -1;
        }
        if (wall_now() - last_progress > o->stall_s) {
            stall_message(ps, o, who, lowest, err, size);
            show_consoles(p, 6, &v->line);
            return -1;
        }
        if (wall_now() - start > o->timeout_s) {
            snprintf(err, size, "timed out after %d s (--timeout)", o->timeout_s);
            return -1;
        }
        if (synced)
            show_progress(v, lowest);
        /* the common start is looked for closely; a process that ends wakes
         * the loop at once (the run's end is not 100 ms late) */
        procs_wait(ps, synced ? 100 : 20);
    }
}

/* ---- booted-guest snapshots (docs/snapshots.md) ------------------------------- */

/* The snapshot cache: $MORTAR_SNAPSHOTS, else <cache>/snapshots with the
 * cache of hosts/qemu/build.sh: $MORTAR_CACHE, else $XDG_CACHE_HOME/mortar,
 * else ~/.cache/mortar. */
static int snapshot_dir(char *dir, size_t size, char *err, size_t err_size)
{
    const char *cache = getenv("MORTAR_CACHE"), *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME"), *own = getenv("MORTAR_SNAPSHOTS");
    if (own && own[0])
        snprintf(dir, size, "%s", own);
    else if (cache && cache[0])
        snprintf(dir, size, "%s/snapshots", cache);
    else if (xdg && xdg[0])
        snprintf(dir, size, "%s/mortar/snapshots", xdg);
    else
        snprintf(dir, size, "%s/.cache/mortar/snapshots", home ? home : "/tmp");
    char why[PATH_MAX + 64];
    if (dirs_make(dir, why, sizeof why) != 0)
        return errbuf_fail(err, err_size, "cannot create the snapshot cache %s: %s", dir, why);
    return 0;
}

/* The snapshot `vm` is in the cache, with its guest RAM and its identity. */
static bool snapshot_cached(const char *vm)
{
    char id[SNAPSHOT_ID_HEX + 1], ram[PATH_MAX];
    snapshot_ram_path(vm, ram, sizeof ram);
    return access(vm, R_OK) == 0 && access(ram, R_OK) == 0 && snapshot_id_of(vm, id) == 0;
}

/* Says which snapshot each host starts from; true when one is missing. */
static bool snapshots_missing(const plan *p)
{
    bool missing = false;
    for (int i = 0; i < p->nhosts; i++) {
        if (p->hosts[i].boots) {
            fprintf(stderr, "[mortar] host %s: no mortar device, so no snapshot: it boots\n",
                    p->hosts[i].name);
            continue;
        }
        bool have = snapshot_cached(p->hosts[i].snapshot);
        fprintf(stderr, "[mortar] host %s: snapshot %s (%s)\n", p->hosts[i].name,
                p->hosts[i].snapshot_key, have ? "cached" : "to build");
        missing |= !have;
    }
    return missing;
}

/* The run's snapshots are in use: the cache keeps the recently used. */
static void mark_snapshots_used(const plan *p)
{
    for (int i = 0; i < p->nhosts; i++)
        if (!p->hosts[i].boots)
            snapshot_cache_touch(p->hosts[i].snapshot);
}

/* New snapshots were stored: old ones beyond the cache's limit go, never
 * this run's. A failure here costs disk space only, so it is said, not
 * returned. */
static void prune_snapshot_cache(const plan *p, const char *dir)
{
    char err[512];
    uint64_t limit;
    if (snapshot_cache_limit(&limit, err, sizeof err) != 0) {
        fprintf(stderr, "[mortar] snapshot cache not pruned: %s\n", err);
        return;
    }
    const char *keep[PLAN_MAX];
    size_t nkeep = 0;
    for (int i = 0; i < p->nhosts && nkeep < PLAN_MAX; i++)
        keep[nkeep++] = p->hosts[i].snapshot;
    snapshot_prune_result r;
    if (snapshot_cache_prune(dir, limit, (int64_t)time(NULL),
                             SNAPSHOT_CACHE_GRACE_S, keep, nkeep, &r, err, sizeof err)) {
        fprintf(stderr, "[mortar] snapshot cache not pruned: %s\n", err);
        return;
    }
    if (r.removed)
        fprintf(stderr,
                "[mortar] snapshot cache: removed %u unused snapshot(s), %.0f MiB; %.0f MiB "
                "kept (limit %.0f MiB, MORTAR_SNAPSHOT_CACHE_MB)\n",
                r.removed, (double)r.removed_bytes / 1048576, (double)r.kept_bytes / 1048576,
                (double)limit / 1048576);
}

/* Where the QEMU building h's snapshot writes its identity. */
static void snapshot_tmp_id(const plan_host *h, char *out, size_t size)
{
    snprintf(out, size, "%s.sha256", h->snapshot_tmp);
}

/* The QEMU building h's snapshot saved it and its identity. */
static bool snapshot_written(const plan_host *h)
{
    char path[sizeof h->snapshot_tmp + 16], id[SNAPSHOT_ID_HEX + 1];
    snapshot_tmp_id(h, path, sizeof path);
    return access(h->snapshot_tmp, R_OK) == 0 && access(h->snapshot_tmp_ram, R_OK) == 0 &&
           snapshot_id_read(path, id) == 0;
}

/* The files of h's snapshot pass go (what was stored has moved). */
static void discard_snapshot(const plan_host *h)
{
    char tmp_id[sizeof h->snapshot_tmp + 16];
    snapshot_tmp_id(h, tmp_id, sizeof tmp_id);
    unlink(tmp_id);
    unlink(h->snapshot_tmp);
    unlink(h->snapshot_tmp_ram);
}

/* Stores h's new snapshot under its key, its RAM and identity first: a
 * <key>.vm is complete only beside its <key>.ram and <key>.sha256. A
 * snapshot another run stored meanwhile is kept (the same key, the same
 * machine). */
static int store_snapshot(const plan_host *h, char *err, size_t size)
{
    char tmp_id[sizeof h->snapshot_tmp + 16], id[sizeof h->snapshot + 16];
    snapshot_tmp_id(h, tmp_id, sizeof tmp_id);
    snapshot_id_path(h->snapshot, id, sizeof id);
    int rc = 0;
    if (!snapshot_cached(h->snapshot) &&
        (rename(h->snapshot_tmp_ram, h->snapshot_ram) != 0 || rename(tmp_id, id) != 0 ||
         rename(h->snapshot_tmp, h->snapshot) != 0))
        rc = errbuf_fail(err, size, "cannot store the snapshot %s: %s", h->snapshot,
                         strerror(errno));
    discard_snapshot(h);
    return rc;
}

/* Waits until every snapshotting host saved its machine and quit. */
static int wait_snapshots(procs *ps, const plan *p, double start, char *err, size_t size)
{
    for (;;) {
        if (reap_ended(ps, p, false, NULL, err, size)) {
            char what[1024];
            snprintf(what, sizeof what, "%s", err);
            return errbuf_fail(err, size, "while building snapshots, %s", what);
        }
        if (!procs_any_running(ps, "host "))
            break;
        if (interrupted)
            return errbuf_fail(err, size, "interrupted while building snapshots");
        if (wall_now() - start > SNAPSHOT_BUILD_TIMEOUT_S)
            return errbuf_fail(err, size, "the snapshots were not saved within %d s",
                               SNAPSHOT_BUILD_TIMEOUT_S);
        usleep(50000);
    }
    for (int i = 0; i < p->nhosts; i++)
        if (!p->hosts[i].idle && !snapshot_written(&p->hosts[i]))
            return errbuf_fail(err, size, "host %s quit without saving its snapshot",
                               p->hosts[i].name);
    return 0;
}


/*
 * Boots every host of the spec that lacks its snapshot once, with the
 * run's own models (the devices' identities come from them), and saves
 * each at its snapshot point into the cache, under the key the run's plan
 * computed. A snapshot another run saved meanwhile is kept (the same key,
 * the same machine).
 */
static int build_snapshots(json_t *spec, const plan *run_plan, plan_tools pt,
                           const char *sim_bin, char *err, size_t size)
{
    mark_snapshots_used(run_plan);
    if (!snapshots_missing(run_plan))
        return 0;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/snapshot-boot", run_plan->run_dir);
    if (mkdir(dir, 0755) != 0)
        return errbuf_fail(err, size, "cannot create %s", dir);
    fprintf(stderr, "[mortar] building booted-guest snapshots, once per host configuration"
                    " (logs in %s)\n", dir);
    pt.boot = PLAN_BOOT_SNAPSHOT;
    pt.trace = false;
    plan sp;
    procs ps = {0};
    double start = wall_now();
    int rc = plan_build(&sp, spec, dir, &pt, err, size);
    if (!rc)
        rc = start_all(&ps, &sp, sim_bin, false, err, size);
    if (!rc)
        rc = wait_snapshots(&ps, &sp, start, err, size);
    procs_kill_all(&ps);
    for (int i = 0; i < sp.nhosts; i++) {
        plan_host *h = &sp.hosts[i];
        if (h->idle)
            continue;
        if (rc == 0 && strcmp(h->snapshot, run_plan->hosts[i].snapshot) != 0)
            rc = errbuf_fail(err, size, "host %s: the snapshot keys disagree", h->name);
        if (rc == 0)
            rc = store_snapshot(h, err, size);
        else
            discard_snapshot(h);
    }
    if (!rc) {
        fprintf(stderr, "[mortar] snapshots saved in %.1f s\n", wall_now() - start);
        prune_snapshot_cache(run_plan, pt.snapshot_dir);
    }
    plan_free(&sp);
    return rc;
}

/* The identity of the snapshot each host started from (docs/snapshots.md,
 * "Identity"); null for a host that booted. */
static json_t *snapshot_ids(const plan *p)
{
    json_t *ids = json_object();
    for (int i = 0; i < p->nhosts; i++) {
        const plan_host *h = &p->hosts[i];
        char id[SNAPSHOT_ID_HEX + 1];
        bool restored = p->boot == PLAN_BOOT_RESTORE && !h->boots &&
                        snapshot_id_of(h->snapshot, id) == 0;
        json_object_set_new(ids, h->name, restored ? json_string(id) : json_null());
    }
    return ids;
}

/* ---- results ------------------------------------------------------------------ */

static json_t *collect_stats(const plan *p)
{
    json_t *all = json_object();
    char path[700];
    for (int i = 0; i < p->nsims; i++) {
        snprintf(path, sizeof path, "%s/%s.stats.json", p->run_dir, p->sims[i].name);
        json_t *s = json_load_file(path, 0, NULL);
        if (json_is_object(s))
            json_object_update(all, s);
        json_decref(s);
    }
    for (int i = 0; i < p->nhosts; i++) {
        json_t *s = json_load_file(p->hosts[i].stats, 0, NULL);
        if (json_is_object(s)) {
            char key[80];
            snprintf(key, sizeof key, "host_%s", p->hosts[i].name);
            json_object_set(all, key, s);
        }
        json_decref(s);
    }
    json_object_del(all, "_sim_time_ps");
    return all;
}

/* Adds each guest's TCP retransmissions ("MORTAR-TCP-RETRANS <n>" on its
 * console, the last such line) to its host's stats. */
static void collect_tcp_retrans(const plan *p, json_t *stats)
{
    char line[4096];
    for (int i = 0; i < p->nhosts; i++) {
        int64_t n = -1, v;
        FILE *f = fopen(p->hosts[i].console, "r");
        while (f && fgets(line, sizeof line, f))
            if ((v = losses_parse_tcp_retrans(line)) >= 0)
                n = v;
        if (f)
            fclose(f);
        if (n < 0)
            continue;
        char key[80];
        snprintf(key, sizeof key, "host_%s", p->hosts[i].name);
        json_t *h = json_object_get(stats, key);
        if (!json_is_object(h)) {
            h = json_object();
            json_object_set_new(stats, key, h);
        }
        json_object_set_new(h, LOSSES_TCP_RETRANS_STAT, json_integer(n));
    }
}

/* The processes' wall-clock profile from the run directory, checked; NULL
 * (with a warning) when a file there does not hold one. */
static json_t *collect_profile(const char *run_dir, int64_t id)
{
    char why[512];
    json_t *profile = profile_collect_checked(run_dir, why, sizeof why);
    if (!profile)
        fprintf(stderr, "[mortar] warning: run %lld: no profile recorded: %s\n", (long long)id,
                why);
    return profile;
}

/* ---- the run -------------------------------------------------------------------- */

/* <out>/<id>-<name> (or the first free variant, dirs_make_fresh), made
 * absolute (the processes run elsewhere). The name follows the name rule
 * (spec_validate), so the directory is inside <out>. */
static int make_run_dir(char *dir, size_t size, const char *out, int64_t id, const char *name,
                        char *err, size_t err_size)
{
    char base[128];
    snprintf(base, sizeof base, "%06lld-%s", (long long)id, name);
    if (dirs_make(out, err, err_size) || dirs_make_fresh(out, base, dir, size, err, err_size))
        return -1;
    char *abs = realpath(dir, NULL);
    if (abs) {
        snprintf(dir, size, "%s", abs);
        free(abs);
    }
    return 0;
}

/* The final write: into the database, or else into the run's directory
 * with the command that imports it, and loudly. True when in the database. */
static bool record(db_conn *db, const run_record *rec, const run_opts *o, const char *run_dir)
{
    char file[PATH_MAX + 32], err[512];
    snprintf(file, sizeof file, "%s/%s", run_dir, RUN_RECORD_FILE);
    int rc = run_record_write(db, rec, RECORD_ATTEMPTS, file, err, sizeof err);
    if (rc == 0)
        return true;
    fprintf(stderr, "mortar: run %lld: ERROR: its result could not be written into %s (%s,"
                    " %d attempts)\n", (long long)rec->id, o->db_path, err, RECORD_ATTEMPTS);
    char command[3 * PATH_MAX + 64];
    if (rc > 0)
        fprintf(stderr, "mortar: run %lld: the result is kept in %s; once the database"
                        " takes writes again, record it with:\n  %s\n",
                (long long)rec->id, file,
                run_record_import_command(file, o->db_path, command, sizeof command));
    else
        fprintf(stderr, "mortar: run %lld: and it could not be kept in %s either\n",
                (long long)rec->id, file);
    return false;
}

/* A process that failed on a full disk may have had no room left even for
 * its log: the failure says which file system is full. */
static void add_full_disk_note(char *err, size_t size, const char *run_dir,
                               const char *snapshot_dir)
{
    char note[2 * PATH_MAX];
    const char *dirs[] = {run_dir, snapshot_dir};
    for (size_t i = 0; i < 2; i++) {
        size_t len = strlen(err);
        if (dirs[i][0] && dirs_full_note(dirs[i], note, sizeof note) && len + 2 < size) {
            snprintf(err + len, size - len, "; %s", note);
            return;
        }
    }
}

/* The spec `mortar run` was given, or a study's variant (study.h: `--set
 * AXIS=VALUE` picks its spec), resolved and validated; NULL after saying
 * why. */
static json_t *load_spec_or_variant(run_opts *o, char *err, size_t err_size)
{
    study st;
    const char *spec_path;
    char *kept[64];
    size_t nkept;
    json_t *spec = NULL;
    if (study_resolve_spec(&st, o->spec_path, o->sets, o->nsets, &spec_path, kept, &nkept,
                           err, err_size) < 0) {
        fprintf(stderr, "mortar: %s\n", err);
    } else {
        spec = spec_load(spec_path, kept, nkept, err, err_size);
        if (!spec) {
            fprintf(stderr, "mortar: %s\n", err); /* it names the file */
        } else if (spec_validate(spec, err, err_size)) {
            fprintf(stderr, "mortar: %s: %s\n", spec_path, err);
            json_decref(spec);
            spec = NULL;
        }
    }
    study_free(&st);
    return spec;
}

int mortar_run_main(int argc, char **argv)
{
    run_opts o;
    int status = parse_args(argc, argv, &o);
    if (status != CLI_PARSED)
        return status;
    char err[2048];
    json_t *spec = load_spec_or_variant(&o, err, sizeof err);
    if (!spec)
        return 1;
    json_t *warnings = spec_rate_warnings(spec);
    size_t wi;
    json_t *w;
    json_array_foreach(warnings, wi, w)
        fprintf(stderr, "[mortar] warning: %s\n", json_string_value(w));
    json_decref(warnings);
    tools t;
    db_conn *db = NULL;
    /* An existing database is opened (and checked: damaged, read-only)
     * before QEMU is looked for; a new one is made only once QEMU is found,
     * so a run that cannot start leaves no empty database behind. */
    bool db_exists = access(o.db_path, F_OK) == 0;
    if ((db_exists && db_open(&db, o.db_path, err, sizeof err)) ||
        find_tools(&t, err, sizeof err) ||
        (!db_exists && db_open(&db, o.db_path, err, sizeof err)) ||
        owner_reap_and_say(db, "[mortar]", err, sizeof err)) {
        fprintf(stderr, "mortar: %s\n", err);
        db_close(db);
        json_decref(spec);
        return 1;
    }
    char name[128];
    snprintf(name, sizeof name, "%s", json_string_value(json_object_get(spec, "name")) ?: "run");
    db_run_info info = {.name = name, .spec = spec, .run_dir = "", .pid = getpid(),
                        .pid_start = owner_start_time(getpid()),
                        .started_unix_s = (int64_t)time(NULL)};
    install_signals();
    int64_t id = db_begin_run(db, &info);
    char run_dir[PATH_MAX], dir_err[PATH_MAX + 128] = "";
    if (id < 0 ||
        make_run_dir(run_dir, sizeof run_dir, o.out_dir, id, name, dir_err, sizeof dir_err) ||
        db_set_run_dirs(db, id, run_dir, NULL)) {
        if (id < 0 || dir_err[0] == '\0')
            fprintf(stderr, "mortar: cannot record the run in %s: %s\n", o.db_path,
                    db_last_error());
        else {
            fprintf(stderr, "mortar: %s\n", dir_err);
            db_finish_run(db, id, "failed", dir_err, 0, NULL, NULL, NULL, 0, &(db_summary){0});
        }
        db_close(db);
        json_decref(spec);
        return 1;
    }
    dirs_write_new_json(spec, strcat(strcpy(err, run_dir), "/spec.json"));

    plan p;
    char snap_dir[PATH_MAX];
    plan_tools pt = {.qemu = t.qemu, .firmware = {t.firmware[0], t.firmware[1], NULL},
                     .kernel = t.kernel, .initrd = t.initrd, .trace = o.trace,
                     /* started_at, the trace exports' wall-clock base */
                     .epoch_unix_ns = (uint64_t)info.started_unix_s * 1000000000ull,
                     .boot = o.cold_boot ? PLAN_BOOT_COLD : PLAN_BOOT_RESTORE,
                     .snapshot_dir = snap_dir, .sim_bin = t.sim_bin};
    memset(&p, 0, sizeof p);
    procs ps = {0};
    fprintf(stderr, "[mortar] run %lld: %s, logs in %s\n", (long long)id, name, run_dir);
    double t0 = wall_now();
    int rc = o.cold_boot ? 0 : snapshot_dir(snap_dir, sizeof snap_dir, err, sizeof err);
    if (!rc)
        rc = plan_build(&p, spec, run_dir, &pt, err, sizeof err);
    if (!rc && db_set_run_dirs(db, id, NULL, p.sock_dir))
        rc = errbuf_fail(err, sizeof err, "cannot record the run's private directory in %s: %s",
                         o.db_path, db_last_error());
    if (!rc && !o.cold_boot)
        rc = build_snapshots(spec, &p, pt, t.sim_bin, err, sizeof err);
    if (!rc)
        rc = start_all(&ps, &p, t.sim_bin, o.trace, err, sizeof err);
    if (!rc)
        fprintf(stderr, "[mortar] processes started after %.2f s\n", wall_now() - t0);
    run_view view = {.id = id, .requests = spec_requests(spec),
                     .measured_console = measured_console(spec, &p),
                     .line = {.tty = isatty(STDERR_FILENO)}, .started_at = t0};
    if (db_mean_wall_s(db, name, &view.expected_wall_s) < 0)
        view.expected_wall_s = 0; /* no estimate: the run goes on without */
    if (!rc)
        rc = watch(&ps, &p, &o, t0, &view, err, sizeof err);
    procs_kill_all(&ps);
    if (rc)
        add_full_disk_note(err, sizeof err, run_dir, o.cold_boot ? "" : snap_dir);
    double wall = wall_now() - t0;

    const char *measure = json_string_value(json_object_get(json_object_get(spec, "measure"), "host"));
    db_request *reqs = calloc(MAX_REQUESTS, sizeof *reqs);
    request_source src[PLAN_MAX];
    for (int i = 0; i < p.nhosts; i++)
        src[i] = (request_source){p.hosts[i].name, p.hosts[i].console};
    size_t n = 0;
    char read_err[512];
    if (request_read(src, (size_t)p.nhosts, measure, reqs, MAX_REQUESTS, &n, read_err,
                     sizeof read_err) &&
        !rc) {
        snprintf(err, sizeof err, "%s", read_err);
        rc = -1;
    }
    db_summary sum = request_summary(reqs, n);
    if (!rc && measure && (n == 0 || sum.verified != sum.requests)) {
        snprintf(err, sizeof err, "%lld of %lld requests verified",
                 (long long)sum.verified, (long long)sum.requests);
        rc = -1;
    }
    json_t *versions = json_pack("{s:s, s:s, s:s, s:o}", "mortar", MORTAR_COMMIT, "qemu",
                                 t.qemu_version, "kernel", t.kernel_version, "snapshots",
                                 snapshot_ids(&p));
    json_t *stats = collect_stats(&p);
    collect_tcp_retrans(&p, stats);
    if (!rc && !host_faults_none(stats, err, sizeof err))
        rc = -1;
    json_t *losses = losses_of_run(spec, stats);
    json_t *profile = collect_profile(run_dir, id);
    run_record rec = {.id = id, .status = rc ? interrupted ? "interrupted" : "failed" : "ok",
                      .error = rc ? err : NULL, .wall_s = wall, .versions = versions,
                      .stats = stats, .losses = losses, .profile = profile, .reqs = reqs,
                      .nreqs = n, .summary = sum};
    bool recorded = record(db, &rec, &o, run_dir);
    if (json_array_size(losses)) {
        char text[1024];
        fprintf(stderr, "[mortar] run %lld lost: %s\n", (long long)id,
                losses_text(losses, text, sizeof text));
    }
    json_decref(losses);
    json_decref(profile);
    if (rc)
        fprintf(stderr, "[mortar] run %lld %s: %s\n", (long long)id,
                interrupted ? "INTERRUPTED" : "FAILED", err);
    else if (recorded)
        printf("run %lld ok: %lld requests verified, median %.1f us, p99 %.1f us, "
               "wall %.1f s\n", (long long)id, (long long)sum.requests, sum.median_us,
               sum.p99_us, wall);
    json_decref(versions);
    json_decref(stats);
    for (size_t i = 0; i < n; i++)
        json_decref(reqs[i].fields);
    free(reqs);
    plan_free(&p);
    db_close(db);
    json_decref(spec);
    return rc || !recorded ? 1 : 0;
}
