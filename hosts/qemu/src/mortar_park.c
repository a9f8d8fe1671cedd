/*
 * mortar_park.c - a QEMU kept for the next run of its host configuration
 * (see mortar_park.h).
 */
#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/option.h"
#include "qemu/cutils.h"
#include "qemu/config-file.h"
#include "qemu/timer.h"
#include "qemu/yank.h"
#include "qapi/error.h"
#include "io/channel-file.h"
#include "migration/migration.h"
#include "migration/savevm.h"
#include "migration/qemu-file.h"
#include "hw/nvram/fw_cfg.h"
#include "exec/cpu-common.h"
#include "sysemu/runstate.h"
#include "sysemu/cpu-timers.h"

#include <sys/socket.h>
#include <sys/un.h>

#include "mortar_park.h"
#include "mortar_hub.h"
#include "mortar_pci.h"
#include "mortar_ram_reset.h"

#define MSG_MAX (64 * 1024)
#define RUN_FDS 3 /* stdout, stderr, the snapshot */
#define OWNER_CHECK_MS 1000

typedef enum park_state {
    PARK_RUNNING,  /* a run is under way */
    PARK_ENDING,   /* the guest ended it: the VM is stopping */
    PARK_IDLE,     /* waiting for the next run */
} park_state;

static struct {
    bool on;
    park_state state;
    int listen_fd;
    int client_fd;       /* the current run's stand-in, or -1 */
    bool done_pending;   /* the run ended before its stand-in asked */
    pid_t owner;         /* the sweep; 0: none named */
    unsigned runs;       /* runs started in this process */
    QEMUTimer *end_timer, *owner_timer;
} park = {.listen_fd = -1, .client_fd = -1, .runs = 1};

bool mortar_park_enabled(void)
{
    return park.on;
}

unsigned mortar_park_run_number(void)
{
    return park.runs;
}

static void reply(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

static void reply(const char *fmt, ...)
{
    if (park.client_fd < 0) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *line = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    /* one message on a packet socket; a stand-in that has gone is no error */
    if (send(park.client_fd, line, strlen(line), MSG_NOSIGNAL) < 0) {
        return;
    }
}

static void drop_client(void)
{
    if (park.client_fd >= 0) {
        qemu_set_fd_handler(park.client_fd, NULL, NULL, NULL);
        close(park.client_fd);
        park.client_fd = -1;
    }
}

/* QEMU ends, for whatever reason: the stand-in learns the status. */
static void tell_exit(int status, void *opaque)
{
    reply("exit %d\n", status);
}

static void G_NORETURN fail_run(const char *why)
{
    error_report("mortar: kept host: %s", why);
    reply("fail %s\n", why);
    exit(1);
}

/* ---- the end of a run ------------------------------------------------------- */

/* The console and the log go nowhere until the next run names its own. */
static void release_outputs(void)
{
    int null = open("/dev/null", O_RDWR);
    if (null < 0) {
        return;
    }
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    close(null);
}

static void owner_check(void *opaque)
{
    if (park.state == PARK_IDLE && park.owner && kill(park.owner, 0) != 0 && errno == ESRCH) {
        exit(0); /* the sweep has gone: nobody will ask for another run */
    }
    timer_mod(park.owner_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + OWNER_CHECK_MS);
}

/* Main loop: once the VM has stopped, end the run and wait for the next. */
static void end_when_stopped(void *opaque)
{
    if (runstate_is_running()) {
        timer_mod(park.end_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + 1);
        return;
    }
    mortar_hub_end_run();
    release_outputs();
    park.state = PARK_IDLE;
    if (park.client_fd >= 0) {
        reply("done 0\n");
        drop_client();
    } else {
        park.done_pending = true;
    }
}

void mortar_park_run_over(void)
{
    if (park.state != PARK_RUNNING) {
        return;
    }
    park.state = PARK_ENDING;
    /* no warp of the virtual clock while the stop takes effect */
    icount_set_horizon_ns(qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    vm_stop(RUN_STATE_PAUSED);
    timer_mod(park.end_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME));
}

/* ---- the next run ----------------------------------------------------------- */

typedef struct run_request {
    GPtrArray *args; /* the run's QEMU command line */
    GPtrArray *env;  /* its MORTAR_ variables, "K=V" */
    int fds[RUN_FDS];
} run_request;

/* The per-run variables a stand-in may set; every one is cleared first. */
static const char *const run_vars[] = {
    "MORTAR_HOST_STATS", "MORTAR_PROGRESS", "MORTAR_TRACE", "MORTAR_TRACE_HOST",
    "MORTAR_SKIP", "MORTAR_PROFILE", "MORTAR_PROMISES", "MORTAR_WHOLE_BLOCKS",
    "MORTAR_IO_BLOCKS", "MORTAR_STOP_JITTER", "MORTAR_BOUND_JITTER",
    "MORTAR_MAIN_LOOP_POKE_US", NULL,
};

static bool is_run_var(const char *kv)
{
    for (int i = 0; run_vars[i]; i++) {
        size_t n = strlen(run_vars[i]);
        if (!strncmp(kv, run_vars[i], n) && kv[n] == '=') {
            return true;
        }
    }
    return false;
}

static void apply_env(GPtrArray *env)
{
    for (int i = 0; run_vars[i]; i++) {
        unsetenv(run_vars[i]);
    }
    for (guint i = 0; i < env->len; i++) {
        const char *kv = g_ptr_array_index(env, i);
        if (is_run_var(kv)) {
            g_autofree char *name = g_strndup(kv, strchr(kv, '=') - kv);
            setenv(name, strchr(kv, '=') + 1, 1);
        }
    }
}

/* Each mortar-pci device of the command line, connected to its new model;
 * then the hub, on the new links, meets the run's other hosts. */
static bool relink_devices(GPtrArray *args, Error **errp)
{
    unsigned seen = 0, hosts = 1; /* the device's default */
    g_autofree char *rendezvous = NULL, *host = NULL;
    for (guint i = 0; i + 1 < args->len; i++) {
        const char *opt = g_ptr_array_index(args, i), *val = g_ptr_array_index(args, i + 1);
        if (strcmp(opt, "-device") || strncmp(val, "mortar-pci,", 11)) {
            continue;
        }
        QemuOpts *o = qemu_opts_parse(qemu_find_opts("device"), val, true, errp);
        if (!o) {
            return false;
        }
        bool ok = mortar_pci_relink(qemu_opt_get(o, "name"), qemu_opt_get(o, "socket"), errp);
        const char *h = qemu_opt_get(o, "hosts");
        if (ok && h && qemu_strtoui(h, NULL, 10, &hosts) != 0) {
            error_setg(errp, "hosts=%s is not a number", h);
            ok = false;
        }
        if (ok && seen == 0) {
            rendezvous = g_strdup(qemu_opt_get(o, "rendezvous"));
            host = g_strdup(qemu_opt_get(o, "host"));
        }
        qemu_opts_del(o);
        if (!ok) {
            return false;
        }
        seen++;
    }
    if (seen != mortar_pci_count()) {
        error_setg(errp, "the run names %u mortar devices, this QEMU has %u", seen,
                   mortar_pci_count());
        return false;
    }
    mortar_hub_new_run(rendezvous, hosts, host);
    return true;
}

/* The guest's files of the new run (its parameters, its programs). */
static bool refill_fw_cfg(GPtrArray *args, Error **errp)
{
    FWCfgState *fw = fw_cfg_find();
    for (guint i = 0; i + 1 < args->len; i++) {
        if (strcmp(g_ptr_array_index(args, i), "-fw_cfg")) {
            continue;
        }
        QemuOpts *o = qemu_opts_parse(qemu_find_opts("fw_cfg"), g_ptr_array_index(args, i + 1),
                                      false, errp);
        if (!o) {
            return false;
        }
        const char *name = qemu_opt_get(o, "name"), *file = qemu_opt_get(o, "file");
        gchar *data = NULL;
        gsize len = 0;
        GError *ge = NULL;
        bool ok = name && file && fw && g_file_get_contents(file, &data, &len, &ge);
        if (ok) {
            /* fw_cfg keeps `data` and hands back the old contents (read
             * from the file with g_file_get_contents as well) */
            g_free(fw_cfg_modify_file(fw, name, data, len));
        } else {
            error_setg(errp, "fw_cfg file %s: %s", file ? file : "(none)",
                       ge ? ge->message : "not named");
            g_clear_error(&ge);
        }
        qemu_opts_del(o);
        if (!ok) {
            return false;
        }
    }
    return true;
}

/* The machine back to the snapshot at `fd`, as `loadvm` puts it. */
static bool load_snapshot_fd(int fd, Error **errp)
{
    QIOChannelFile *ioc = qio_channel_file_new_fd(fd); /* it owns fd now */
    QEMUFile *f = qemu_file_new_input(QIO_CHANNEL(ioc));
    object_unref(OBJECT(ioc));
    qemu_system_reset(SHUTDOWN_CAUSE_SNAPSHOT_LOAD);
    MigrationIncomingState *mis = migration_incoming_get_current();
    mis->from_src_file = f;
    if (!yank_register_instance(MIGRATION_YANK_INSTANCE, errp)) {
        qemu_fclose(f);
        mis->from_src_file = NULL;
        return false;
    }
    cpu_loadvm_keeps_tbs = true; /* mortar_ram_reset dropped what the load changes */
    int ret = qemu_loadvm_state(f);
    cpu_loadvm_keeps_tbs = false;
    migration_incoming_state_destroy();
    if (ret < 0) {
        error_setg(errp, "loading the snapshot failed (%d)", ret);
        return false;
    }
    return true;
}

static void start_run(run_request *rq)
{
    Error *err = NULL;
    park.state = PARK_RUNNING;
    park.done_pending = false;
    park.runs++;
    apply_env(rq->env);
    if (dup2(rq->fds[0], STDOUT_FILENO) < 0 || dup2(rq->fds[1], STDERR_FILENO) < 0) {
        fail_run("cannot take the run's console and log");
    }
    if (!relink_devices(rq->args, &err) || !refill_fw_cfg(rq->args, &err) ||
        !mortar_ram_reset(&err)) {
        fail_run(error_get_pretty(err));
    }
    int snapshot = rq->fds[2];
    rq->fds[2] = -1;
    if (!load_snapshot_fd(snapshot, &err)) {
        fail_run(error_get_pretty(err));
    }
    vm_start();
}

/* ---- the socket ------------------------------------------------------------- */

static void request_free(run_request *rq)
{
    g_ptr_array_free(rq->args, true);
    g_ptr_array_free(rq->env, true);
    for (int i = 0; i < RUN_FDS; i++) {
        if (rq->fds[i] >= 0) {
            close(rq->fds[i]);
        }
    }
}

/* One message: NUL-terminated words, "run" then "a:ARG"s and "e:K=V"s
 * (or "watch" alone), with the run's descriptors. */
static ssize_t receive(int fd, char *buf, size_t size, int fds[RUN_FDS], int *nfds)
{
    char control[CMSG_SPACE(sizeof(int) * RUN_FDS)];
    struct iovec iov = {.iov_base = buf, .iov_len = size};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                        .msg_controllen = sizeof control};
    ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
    *nfds = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); n > 0 && c; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < k; i++) {
                int got;
                memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof got);
                if (*nfds < RUN_FDS) {
                    fds[(*nfds)++] = got;
                } else {
                    close(got);
                }
            }
        }
    }
    return (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ? -1 : n;
}

static bool parse_request(char *buf, size_t n, run_request *rq)
{
    if (n == 0 || buf[n - 1] != '\0' || strcmp(buf, "run")) {
        return false;
    }
    for (size_t at = strlen(buf) + 1; at < n; at += strlen(buf + at) + 1) {
        const char *w = buf + at;
        if (!strncmp(w, "a:", 2)) {
            g_ptr_array_add(rq->args, g_strdup(w + 2));
        } else if (!strncmp(w, "e:", 2)) {
            g_ptr_array_add(rq->env, g_strdup(w + 2));
        } else {
            return false;
        }
    }
    return true;
}

static void client_readable(void *opaque)
{
    g_autofree char *buf = g_malloc(MSG_MAX);
    run_request rq = {.args = g_ptr_array_new_with_free_func(g_free),
                      .env = g_ptr_array_new_with_free_func(g_free),
                      .fds = {-1, -1, -1}};
    int nfds;
    ssize_t n = receive(park.client_fd, buf, MSG_MAX, rq.fds, &nfds);
    if (n <= 0) {
        request_free(&rq);
        if (park.state == PARK_IDLE) {
            drop_client(); /* the last run's stand-in, done */
            return;
        }
        error_report("mortar: kept host: the run's stand-in went away during the run");
        exit(1);
    }
    if (n == 6 && !memcmp(buf, "watch", 6) && park.state != PARK_IDLE) {
        request_free(&rq);
        return; /* the first run: its end is told to this stand-in */
    }
    if (n == 6 && !memcmp(buf, "watch", 6) && park.done_pending) {
        request_free(&rq);
        reply("done 0\n");
        park.done_pending = false;
        drop_client();
        return;
    }
    if (park.state != PARK_IDLE || nfds != RUN_FDS || !parse_request(buf, (size_t)n, &rq)) {
        request_free(&rq);
        fail_run("a malformed request, or one while a run is under way");
    }
    start_run(&rq);
    request_free(&rq);
}

static void accept_client(void *opaque)
{
    int fd = accept4(park.listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) {
        return;
    }
    if (park.client_fd >= 0) {
        close(fd); /* one stand-in at a time */
        return;
    }
    park.client_fd = fd;
    qemu_set_fd_handler(fd, client_readable, NULL, NULL);
}

void mortar_park_init(void)
{
    const char *path = getenv("MORTAR_PARK");
    if (!path || !*path) {
        return;
    }
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path) {
        error_report("mortar: MORTAR_PARK: the path %s is too long", path);
        exit(1);
    }
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 4) != 0) {
        error_report("mortar: MORTAR_PARK: cannot listen on %s: %s", path, strerror(errno));
        exit(1);
    }
    const char *owner = getenv("MORTAR_PARK_OWNER");
    park.owner = owner ? (pid_t)atoi(owner) : 0;
    park.on = true;
    park.listen_fd = fd;
    park.state = PARK_RUNNING;
    park.end_timer = timer_new_ms(QEMU_CLOCK_REALTIME, end_when_stopped, NULL);
    park.owner_timer = timer_new_ms(QEMU_CLOCK_REALTIME, owner_check, NULL);
    timer_mod(park.owner_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + OWNER_CHECK_MS);
    qemu_set_fd_handler(fd, accept_client, NULL, NULL);
    on_exit(tell_exit, NULL);
}
