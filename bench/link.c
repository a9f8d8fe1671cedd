/*
 * bench/link.c - link and synchronization figures, printed as key=value.
 *
 *   pingpong_rtt_ns                  64-byte ping-pong, unsynchronized, median
 *   stream_msgs_per_s                header-only messages one way, unsynchronized
 *   stream_16b_msgs_per_s            the same with a 16-byte payload
 *   sync_idle_sim_us_per_wall_s      two idle processes, L = sync interval = 500 ns
 *   sync_idle_oversub_sim_us_per_wall_s   the same with a CPU-bound third process
 *   sync_idle_oversub_<policy>_...   that figure for each wait policy
 *   sync_sparse_sim_us_per_wall_s    a message every 5 us each way, two processes
 *   inproc_sparse_sim_us_per_wall_s  the same traffic, both components in one process
 *   sync_echo_sim_us_per_wall_s      a message every 500 ns each way, two processes
 *   inproc_echo_sim_us_per_wall_s    the same traffic co-located
 *   ratio_inproc_echo_vs_cross       inproc_echo / sync_echo
 *
 * Side by side with SimBricks' channel: when the anchor benchmark
 * (anchors/simbricks-chan/run.sh, found in a folder above this program or the
 * working directory, or given with --anchor) is there and finds a SimBricks
 * mirror, rounds of mortar's figures alternate with rounds of the anchor's,
 * and `ratio_<figure>` lines compare the medians (above 1: mortar is faster).
 * bench/README.md describes every figure.
 *
 * Usage: bench-link [--quick] [--rounds N] [--only LIST] [--anchor RUN_SH | --no-anchor]
 * (usage_text below). Not a test: the figures depend on the machine.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "mortar/error.h"
#include "mortar/link.h"
#include "mortar/runtime.h"
#include "sims/registry.h"

static int quick;

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sock_path(char *buf, size_t size, const char *tag)
{
    snprintf(buf, size, "/tmp/mortar-bench-%d-%s.sock", (int)getpid(), tag);
}

static void base_params(mortar_link_params *p, const char *name, mortar_sync_mode mode,
                        mortar_wait_policy wait)
{
    mortar_link_params_init(p);
    p->name = name;
    p->slot_size = 128;
    p->slot_count = 1024;
    p->sync_mode = mode;
    p->wait_policy = wait;
}

static mortar_link *connect_or_die(const char *path, const mortar_link_params *p)
{
    mortar_link *l;
    char err[512];
    if (mortar_link_connect(&l, path, p, err, sizeof err) != 0) {
        fprintf(stderr, "bench-link: %s\n", err);
        _exit(1);
    }
    return l;
}

static mortar_link *listen_or_die(const char *path, const mortar_link_params *p)
{
    mortar_link *l;
    char err[512];
    if (mortar_link_listen(&l, path, p, err, sizeof err) != 0) {
        fprintf(stderr, "bench-link: %s\n", err);
        exit(1);
    }
    return l;
}

static void accept_or_die(mortar_link *l)
{
    if (mortar_link_accept(l) != 0) {
        fprintf(stderr, "bench-link: %s\n", mortar_link_errmsg(l));
        exit(1);
    }
}

static void recv_one(mortar_link *l, mortar_msg *m)
{
    while (mortar_link_peek(l, m) != 1)
        mortar_link_wait(l, 1000);
}

/* A wait while the ring is full (hammering a full slot only steals its
 * cache line from the consumer). */
static void backoff(void)
{
    for (int i = 0; i < 32; i++)
        __builtin_ia32_pause();
}

/* Sends, backing off while the ring is full. */
static void send_retry(mortar_link *l, const void *buf, uint32_t size)
{
    while (mortar_link_send(l, 0, 0x10, buf, size, 0, NULL) == MORTAR_EAGAIN)
        backoff();
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of `n` values (sorts them). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- unsynchronized ping-pong and stream ---------------------------------- */

static double bench_pingpong(void)
{
    const int n = quick ? 20000 : 200000;
    char path[128];
    sock_path(path, sizeof path, "pp");
    mortar_link_params p;
    base_params(&p, "pingpong", MORTAR_SYNC_OFF, MORTAR_WAIT_SPIN);
    mortar_link *l = listen_or_die(path, &p);
    pid_t child = fork();
    if (child == 0) {
        mortar_link *c = connect_or_die(path, &p);
        mortar_msg m;
        for (int i = 0; i < n; i++) {
            recv_one(c, &m);
            uint8_t buf[64];
            memcpy(buf, m.payload, 64);
            mortar_link_pop(c);
            send_retry(c, buf, 64);
        }
        mortar_link_close(c);
        _exit(0);
    }
    accept_or_die(l);
    uint64_t *rtt = malloc(sizeof *rtt * (size_t)n);
    uint8_t buf[64] = {1};
    mortar_msg m;
    for (int i = 0; i < n; i++) {
        uint64_t t0 = wall_ns();
        send_retry(l, buf, 64);
        recv_one(l, &m);
        mortar_link_pop(l);
        rtt[i] = wall_ns() - t0;
    }
    waitpid(child, NULL, 0);
    qsort(rtt, (size_t)n, sizeof *rtt, cmp_u64);
    double median = (double)rtt[n / 2];
    free(rtt);
    mortar_link_close(l);
    return median;
}

/* Messages per second one way through one fresh pair; `payload` bytes
 * each (0: header only, as SimBricks' anchor sends). */
static double stream_once(uint32_t payload)
{
    const long n = quick ? 1000000 : 10000000;
    char path[128];
    sock_path(path, sizeof path, "st");
    mortar_link_params p;
    base_params(&p, "stream", MORTAR_SYNC_OFF, MORTAR_WAIT_SPIN);
    p.slot_count = 8192; /* the anchor's queue depth */
    if (payload == 0)
        p.slot_size = MORTAR_SLOT_HEADER_SIZE; /* the anchor's slot: one cache line */
    mortar_link *l = listen_or_die(path, &p);
    pid_t child = fork();
    if (child == 0) {
        mortar_link *c = connect_or_die(path, &p);
        uint8_t buf[64] = {0};
        for (long i = 0; i < n; i++) /* the API in the loop, as the anchor's */
            while (mortar_link_send(c, 0, 0x10, buf, payload, 0, NULL) == MORTAR_EAGAIN)
                backoff();
        mortar_link_close(c);
        _exit(0);
    }
    accept_or_die(l);
    mortar_msg m;
    recv_one(l, &m);
    mortar_link_pop(l);
    double t0 = wall_s();
    for (long i = 1; i < n; i++) {
        while (mortar_link_peek(l, &m) != 1)
            mortar_link_wait(l, 1000);
        mortar_link_pop(l);
    }
    double dt = wall_s() - t0;
    waitpid(child, NULL, 0);
    mortar_link_close(l);
    return (double)(n - 1) / dt;
}

/* The median over fresh pairs, as the anchor measures it: the rate of one
 * pair swings with where the scheduler puts the two processes. */
#define STREAM_TRIALS 5
static double bench_stream(uint32_t payload)
{
    double rate[STREAM_TRIALS];
    for (int i = 0; i < STREAM_TRIALS; i++)
        rate[i] = stream_once(payload);
    return median(rate, STREAM_TRIALS);
}

/* ---- synchronized runs through the event loop ------------------------------ */

static mortar_loop *loop_with_testgen(const char *name, const char *params_json)
{
    mortar_loop *loop;
    mortar_loop_create(&loop);
    char err[256];
    mortar_params *params = mortar_params_parse(params_json, "bench", err, sizeof err);
    if (!params || mortar_loop_add(loop, mortar_registry_find("testgen"), name, params, NULL)) {
        fprintf(stderr, "bench-link: cannot create testgen: %s\n", err);
        exit(1);
    }
    mortar_params_free(params);
    return loop;
}

/* Runs two single-component loops in two processes joined by one
 * synchronized link of `slot_size`-byte slots; returns simulated us per
 * wall second (parent's view).
 * `promises` off: plain null messages every sync interval, the rule the
 * anchor runs (two idle peers with promises promise never to send, and the
 * run ends at once). */
static double run_sync_pair(const char *params_json, uint32_t slot_size, uint64_t sim_ps,
                            mortar_wait_policy wait, bool promises)
{
    char path[128];
    sock_path(path, sizeof path, "sync");
    mortar_link_params p;
    base_params(&p, "sync", MORTAR_SYNC_ON, wait);
    p.slot_size = slot_size;
    p.latency_ps = MORTAR_NS(500);
    mortar_link *l = listen_or_die(path, &p);
    pid_t child = fork();
    if (child == 0) {
        mortar_link *c = connect_or_die(path, &p);
        mortar_loop *loop = loop_with_testgen("b", params_json);
        mortar_loop_set_promises(loop, promises);
        mortar_loop_bind(loop, mortar_loop_find(loop, "b"), 0, c);
        int rc = mortar_loop_run(loop, sim_ps);
        mortar_loop_destroy(loop);
        _exit(rc ? 1 : 0);
    }
    accept_or_die(l);
    mortar_loop *loop = loop_with_testgen("a", params_json);
    mortar_loop_set_promises(loop, promises);
    mortar_loop_bind(loop, mortar_loop_find(loop, "a"), 0, l);
    double t0 = wall_s();
    int rc = mortar_loop_run(loop, sim_ps);
    double dt = wall_s() - t0;
    if (rc != 0)
        fprintf(stderr, "bench-link: %s\n", mortar_loop_errmsg(loop));
    mortar_loop_destroy(loop);
    waitpid(child, NULL, 0);
    return (double)sim_ps / 1e6 / dt;
}

static double run_inproc_pair(const char *params_json, uint64_t sim_ps)
{
    mortar_loop *loop = loop_with_testgen("a", params_json);
    char err[256];
    mortar_params *params = mortar_params_parse(params_json, "bench", err, sizeof err);
    mortar_component *b;
    mortar_loop_add(loop, mortar_registry_find("testgen"), "b", params, &b);
    mortar_params_free(params);
    mortar_link_params p;
    base_params(&p, "inproc", MORTAR_SYNC_ON, MORTAR_WAIT_BLOCK);
    p.latency_ps = MORTAR_NS(500);
    mortar_loop_connect(loop, mortar_loop_find(loop, "a"), 0, b, 0, &p);
    double t0 = wall_s();
    mortar_loop_run(loop, sim_ps);
    double dt = wall_s() - t0;
    mortar_loop_destroy(loop);
    return (double)sim_ps / 1e6 / dt;
}

/* A CPU-bound process that dies with bench-link, however that ends (a
 * closed pipe once left one running for an hour). */
static pid_t start_cpu_hog(void)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(0);
        volatile unsigned long x = 0;
        for (;;)
            x++;
    }
    return pid;
}

/* ---- the figures ----------------------------------------------------------- */

enum figure {
    F_PINGPONG, F_STREAM, F_STREAM_16B, F_SYNC_IDLE, F_OVERSUB, F_OVERSUB_SPIN,
    F_OVERSUB_YIELD, F_OVERSUB_BLOCK, F_SYNC_SPARSE, F_INPROC_SPARSE, F_SYNC_ECHO,
    F_INPROC_ECHO, N_FIGURES
};

static const char *const figure_keys[N_FIGURES] = {
    "pingpong_rtt_ns",
    "stream_msgs_per_s",
    "stream_16b_msgs_per_s",
    "sync_idle_sim_us_per_wall_s",
    "sync_idle_oversub_sim_us_per_wall_s",
    "sync_idle_oversub_spin_sim_us_per_wall_s",
    "sync_idle_oversub_yield_sim_us_per_wall_s",
    "sync_idle_oversub_block_sim_us_per_wall_s",
    "sync_sparse_sim_us_per_wall_s",
    "inproc_sparse_sim_us_per_wall_s",
    "sync_echo_sim_us_per_wall_s",
    "inproc_echo_sim_us_per_wall_s",
};

/* Short names for --only, in figure order. */
static const char *const figure_names[N_FIGURES] = {
    "pingpong", "stream", "stream_16b", "sync_idle", "oversub", "oversub_spin",
    "oversub_yield", "oversub_block", "sync_sparse", "inproc_sparse", "sync_echo",
    "inproc_echo",
};

/* The figures the anchor measures the same way, under the same keys, and
 * the name of their ratio line. The round trip is a time: its ratio is
 * anchor / mortar, so that above 1 always means mortar is faster. */
static const struct {
    enum figure fig;
    const char *ratio;
} anchored[] = {
    {F_PINGPONG, "ratio_pingpong"},
    {F_STREAM, "ratio_stream"},
    {F_SYNC_IDLE, "ratio_sync_idle"},
    {F_OVERSUB, "ratio_sync_idle_oversub"},
};
#define N_ANCHORED (sizeof anchored / sizeof anchored[0])

/* The figures --only names (all without it). */
static bool wanted[N_FIGURES];

static void run_figures(double f[N_FIGURES])
{
    const char *idle = "{\"messages\":0}";
    /* a message every 5 us on average from each side */
    const char *sparse = "{\"messages\":100000000,\"max_gap\":\"10us\"}";
    /* a message every 500 ns on average from each side */
    const char *echo = "{\"messages\":100000000,\"max_gap\":\"1us\"}";
    uint64_t idle_sim = quick ? MORTAR_MS(200) : MORTAR_MS(1000);

    if (wanted[F_PINGPONG])
        f[F_PINGPONG] = bench_pingpong();
    if (wanted[F_STREAM])
        f[F_STREAM] = bench_stream(0);
    if (wanted[F_STREAM_16B])
        f[F_STREAM_16B] = bench_stream(16);
    /* idle peers send null messages only: in the anchor's one-line slots */
    const uint32_t idle_slot = MORTAR_SLOT_HEADER_SIZE, data_slot = 128;
    if (wanted[F_SYNC_IDLE])
        f[F_SYNC_IDLE] = run_sync_pair(idle, idle_slot, idle_sim, MORTAR_WAIT_BLOCK, false);

    if (wanted[F_OVERSUB] || wanted[F_OVERSUB_SPIN] || wanted[F_OVERSUB_YIELD] ||
        wanted[F_OVERSUB_BLOCK]) {
        pid_t hog = start_cpu_hog();
        for (int w = 0; w < 3; w++)
            if (wanted[F_OVERSUB_SPIN + w] || (w == MORTAR_WAIT_BLOCK && wanted[F_OVERSUB]))
                f[F_OVERSUB_SPIN + w] =
                    run_sync_pair(idle, idle_slot, idle_sim / 4, (mortar_wait_policy)w, false);
        kill(hog, SIGKILL);
        waitpid(hog, NULL, 0);
        f[F_OVERSUB] = f[F_OVERSUB_BLOCK];
    }

    if (wanted[F_SYNC_SPARSE])
        f[F_SYNC_SPARSE] =
            run_sync_pair(sparse, data_slot, idle_sim / 4, MORTAR_WAIT_BLOCK, true);
    if (wanted[F_INPROC_SPARSE])
        f[F_INPROC_SPARSE] = run_inproc_pair(sparse, idle_sim);
    if (wanted[F_SYNC_ECHO])
        f[F_SYNC_ECHO] = run_sync_pair(echo, data_slot, idle_sim / 10, MORTAR_WAIT_BLOCK, true);
    if (wanted[F_INPROC_ECHO])
        f[F_INPROC_ECHO] = run_inproc_pair(echo, idle_sim / 4);
}

static void print_figures(const char *prefix, const double f[N_FIGURES])
{
    for (int i = 0; i < N_FIGURES; i++)
        if (wanted[i])
            printf("%s%s=%.0f\n", prefix, figure_keys[i], f[i]);
    fflush(stdout);
}

/* ---- the SimBricks anchor ----------------------------------------------------- */

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Looks for anchors/simbricks-chan/run.sh (or shared/anchors/...) in `dir`
 * and the six folders above it. */
static bool find_anchor_above(const char *dir, char *out, size_t size)
{
    static const char *const tails[] = {"anchors/simbricks-chan/run.sh",
                                        "shared/anchors/simbricks-chan/run.sh"};
    char d[PATH_MAX];
    snprintf(d, sizeof d, "%s", dir);
    for (int up = 0; up < 7; up++) {
        for (size_t t = 0; t < 2; t++) {
            snprintf(out, size, "%s/%s", d, tails[t]);
            if (is_file(out))
                return true;
        }
        char *slash = strrchr(d, '/');
        if (!slash || slash == d)
            break;
        *slash = '\0';
    }
    return false;
}

static bool find_anchor(char *out, size_t size)
{
    char dir[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n > 0) {
        dir[n] = '\0';
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        if (find_anchor_above(dir, out, size))
            return true;
    }
    return getcwd(dir, sizeof dir) && find_anchor_above(dir, out, size);
}

/* Runs the anchor's run.sh once; prints its figures (with `prefix`) and
 * stores them in f. Returns 0, or -1 when it failed (its summary line then
 * says why). */
static int run_anchor(const char *run_sh, const char *prefix, double f[N_FIGURES])
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        execlp("bash", "bash", run_sh, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    FILE *in = fdopen(fd[0], "r");
    char line[1024];
    int found = 0;
    for (size_t i = 0; i < N_ANCHORED; i++)
        f[anchored[i].fig] = 0;
    while (in && fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = '\0';
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        if (strcmp(line, "summary") == 0)
            printf("%ssummary=%s\n", prefix, eq + 1);
        for (size_t i = 0; i < N_ANCHORED; i++)
            if (strcmp(line, figure_keys[anchored[i].fig]) == 0) {
                f[anchored[i].fig] = strtod(eq + 1, NULL);
                printf("%s%s=%s\n", prefix, line, eq + 1);
                found++;
            }
    }
    if (in)
        fclose(in);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    fflush(stdout);
    return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
                   found == (int)N_ANCHORED
               ? 0
               : -1;
}

/* ---- driver -------------------------------------------------------------------- */

static int rounds = 1;
static const char *anchor_arg;
static bool no_anchor;

static const char usage_text[] =
    "Usage: bench-link [OPTION]...\n"
    "Measure links and synchronization; print the figures as key=value lines\n"
    "(pingpong_rtt_ns, stream_msgs_per_s, sync_*_sim_us_per_wall_s, ...).\n"
    "When SimBricks' anchor benchmark (anchors/simbricks-chan/run.sh in a folder\n"
    "above) finds a SimBricks mirror (SIMBRICKS_MIRROR, or as run.sh looks for\n"
    "one), its rounds alternate with mortar's and ratio_* lines compare them.\n"
    "\n"
    "Options:\n"
    "      --quick       shorter runs (less precise)\n"
    "      --rounds N    rounds of mortar's figures (default 1; with the anchor 2,\n"
    "                    alternating mortar, anchor, mortar, anchor, ...)\n"
    "      --only LIST   only these figures, by short name, comma-separated:\n"
    "                    pingpong, stream, stream_16b, sync_idle, oversub,\n"
    "                    oversub_spin, oversub_yield, oversub_block, sync_sparse,\n"
    "                    inproc_sparse, sync_echo, inproc_echo\n"
    "      --anchor FILE the anchor's run.sh (default: looked up)\n"
    "      --no-anchor   mortar's figures only\n"
    "  -h, --help        show this help and exit\n"
    "      --version     print the version and exit\n";

enum { OPT_QUICK = 256, OPT_VERSION, OPT_ROUNDS, OPT_ANCHOR, OPT_NO_ANCHOR, OPT_ONLY };

/* Marks the figures of a comma-separated list of short names; false on an
 * unknown name. */
static bool parse_only(const char *list)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        int i = 0;
        while (i < N_FIGURES && strcmp(name, figure_names[i]) != 0)
            i++;
        if (i == N_FIGURES) {
            fprintf(stderr, "bench-link: --only: no figure named '%s'\n", name);
            return false;
        }
        wanted[i] = true;
    }
    return true;
}

/* Returns -1 to run the benchmark, or the exit status. */
static int parse_args(int argc, char **argv)
{
    static const struct option options[] = {{"quick", no_argument, NULL, OPT_QUICK},
                                            {"rounds", required_argument, NULL, OPT_ROUNDS},
                                            {"anchor", required_argument, NULL, OPT_ANCHOR},
                                            {"only", required_argument, NULL, OPT_ONLY},
                                            {"no-anchor", no_argument, NULL, OPT_NO_ANCHOR},
                                            {"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL, OPT_VERSION},
                                            {NULL, 0, NULL, 0}};
    rounds = 0;
    bool only = false;
    for (int c; (c = getopt_long(argc, argv, "h", options, NULL)) != -1;) {
        if (c == OPT_QUICK)
            quick = 1;
        else if (c == OPT_ROUNDS) {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*end || n < 1 || n > 99) {
                fprintf(stderr, "bench-link: --rounds wants a number from 1 to 99\n");
                return 2;
            }
            rounds = (int)n;
        } else if (c == OPT_ANCHOR)
            anchor_arg = optarg;
        else if (c == OPT_NO_ANCHOR)
            no_anchor = true;
        else if (c == OPT_ONLY) {
            if (!parse_only(optarg))
                return 2;
            only = true;
        }
        else if (c == 'h') {
            fputs(usage_text, stdout);
            return 0;
        } else if (c == OPT_VERSION) {
            printf("bench-link (mortar) %s\n", MORTAR_VERSION);
            return 0;
        } else
            return 2;
    }
    if (optind < argc) {
        fprintf(stderr, "bench-link: unexpected '%s'\n", argv[optind]);
        return 2;
    }
    for (int i = 0; !only && i < N_FIGURES; i++)
        wanted[i] = true;
    if (anchor_arg && !is_file(anchor_arg)) {
        fprintf(stderr, "bench-link: no anchor script %s\n", anchor_arg);
        return 2;
    }
    return -1;
}

static void print_ratio(const char *name, double num, double den)
{
    if (num > 0 && den > 0)
        printf("%s=%.2f\n", name, num / den);
}

int main(int argc, char **argv)
{
    int status = parse_args(argc, argv);
    if (status >= 0) {
        if (status == 2)
            fputs("Try 'bench-link --help' for more information.\n", stderr);
        return status;
    }
    char anchor[PATH_MAX] = "";
    if (anchor_arg)
        snprintf(anchor, sizeof anchor, "%s", anchor_arg);
    else if (!no_anchor && !find_anchor(anchor, sizeof anchor))
        anchor[0] = '\0';
    bool anchored_wanted = false;
    for (size_t k = 0; k < N_ANCHORED; k++)
        anchored_wanted |= wanted[anchored[k].fig];
    if (no_anchor || !anchored_wanted)
        anchor[0] = '\0';
    if (rounds == 0)
        rounds = anchor[0] ? 2 : 1;

    double (*mine)[N_FIGURES] = calloc((size_t)rounds, sizeof *mine);
    double (*theirs)[N_FIGURES] = calloc((size_t)rounds, sizeof *theirs);
    int anchor_rounds = 0;
    for (int r = 0; r < rounds; r++) {
        char prefix[32];
        run_figures(mine[r]);
        if (anchor[0] || rounds > 1) {
            snprintf(prefix, sizeof prefix, "mortar_r%d_", r + 1);
            print_figures(prefix, mine[r]);
        }
        if (anchor[0]) {
            snprintf(prefix, sizeof prefix, "anchor_r%d_", r + 1);
            if (run_anchor(anchor, prefix, theirs[anchor_rounds]) == 0)
                anchor_rounds++;
            else {
                printf("anchor_status=failed (%s); mortar's figures only from here\n", anchor);
                anchor[0] = '\0';
            }
        }
    }

    /* medians over the rounds, under the plain keys */
    double med[N_FIGURES], col[99];
    for (int i = 0; i < N_FIGURES; i++) {
        for (int r = 0; r < rounds; r++)
            col[r] = mine[r][i];
        med[i] = median(col, rounds);
    }
    print_figures("", med);
    if (wanted[F_INPROC_ECHO] && wanted[F_SYNC_ECHO])
        print_ratio("ratio_inproc_echo_vs_cross", med[F_INPROC_ECHO], med[F_SYNC_ECHO]);
    for (size_t k = 0; anchor_rounds > 0 && k < N_ANCHORED; k++) {
        enum figure fig = anchored[k].fig;
        if (!wanted[fig])
            continue;
        for (int r = 0; r < anchor_rounds; r++)
            col[r] = theirs[r][fig];
        double their = median(col, anchor_rounds);
        printf("anchor_%s=%.0f\n", figure_keys[fig], their);
        if (fig == F_PINGPONG)
            print_ratio(anchored[k].ratio, their, med[fig]);
        else
            print_ratio(anchored[k].ratio, med[fig], their);
    }
    free(mine);
    free(theirs);
    return 0;
}
