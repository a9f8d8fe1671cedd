/*
 * bench/link.c - link and synchronization figures, printed as key=value.
 *
 *   pingpong_rtt_ns                  64-byte ping-pong, unsynchronized, median
 *   stream_msgs_per_s                small messages one way, unsynchronized
 *   sync_idle_sim_us_per_wall_s      two idle processes, L = sync interval = 500 ns
 *   sync_idle_oversub_sim_us_per_wall_s   the same with a CPU-bound third process
 *   sync_idle_oversub_<policy>_...   that figure for each wait policy
 *   inproc_sync_sim_us_per_wall_s    the two idle components in one process
 *   sync_echo_sim_us_per_wall_s      a message every 500 ns each way, two processes
 *   inproc_echo_sim_us_per_wall_s    the same traffic co-located
 *
 * Usage: bench-link [--quick] (usage_text below). Not a test: the figures
 * depend on the machine.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
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

/* Sends, backing off while the ring is full (hammering a full slot only
 * steals its cache line from the consumer). */
static void send_retry(mortar_link *l, const void *buf, uint32_t size)
{
    while (mortar_link_send(l, 0, 0x10, buf, size, 0, NULL) == MORTAR_EAGAIN)
        for (int i = 0; i < 32; i++)
            __builtin_ia32_pause();
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- unsynchronized ping-pong and stream ---------------------------------- */

static void bench_pingpong(void)
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
    printf("pingpong_rtt_ns=%llu\n", (unsigned long long)rtt[n / 2]);
    free(rtt);
    mortar_link_close(l);
}

static void bench_stream(void)
{
    const long n = quick ? 2000000 : 20000000;
    char path[128];
    sock_path(path, sizeof path, "st");
    mortar_link_params p;
    base_params(&p, "stream", MORTAR_SYNC_OFF, MORTAR_WAIT_SPIN);
    mortar_link *l = listen_or_die(path, &p);
    pid_t child = fork();
    if (child == 0) {
        mortar_link *c = connect_or_die(path, &p);
        uint8_t buf[16] = {0};
        for (long i = 0; i < n; i++)
            send_retry(c, buf, sizeof buf);
        mortar_link_close(c);
        _exit(0);
    }
    accept_or_die(l);
    mortar_msg m;
    recv_one(l, &m);
    mortar_link_pop(l);
    double t0 = wall_s();
    for (long i = 1; i < n; i++) {
        recv_one(l, &m);
        mortar_link_pop(l);
    }
    double dt = wall_s() - t0;
    waitpid(child, NULL, 0);
    printf("stream_msgs_per_s=%.0f\n", (double)(n - 1) / dt);
    mortar_link_close(l);
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
 * synchronized link; returns simulated us per wall second (parent's view). */
static double run_sync_pair(const char *params_json, uint64_t sim_ps, mortar_wait_policy wait)
{
    char path[128];
    sock_path(path, sizeof path, "sync");
    mortar_link_params p;
    base_params(&p, "sync", MORTAR_SYNC_ON, wait);
    p.latency_ps = MORTAR_NS(500);
    mortar_link *l = listen_or_die(path, &p);
    pid_t child = fork();
    if (child == 0) {
        mortar_link *c = connect_or_die(path, &p);
        mortar_loop *loop = loop_with_testgen("b", params_json);
        mortar_loop_bind(loop, mortar_loop_find(loop, "b"), 0, c);
        int rc = mortar_loop_run(loop, sim_ps);
        mortar_loop_destroy(loop);
        _exit(rc ? 1 : 0);
    }
    accept_or_die(l);
    mortar_loop *loop = loop_with_testgen("a", params_json);
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

static pid_t start_cpu_hog(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        volatile unsigned long x = 0;
        for (;;)
            x++;
    }
    return pid;
}

static const char *const policy_names[] = {"spin", "yield", "block"};

static const char usage_text[] =
    "Usage: bench-link [OPTION]...\n"
    "Measure links and synchronization; print the figures as key=value lines\n"
    "(pingpong_rtt_ns, stream_msgs_per_s, sync_*_sim_us_per_wall_s, ...).\n"
    "\n"
    "Options:\n"
    "      --quick     shorter runs (less precise)\n"
    "  -h, --help      show this help and exit\n"
    "      --version   print the version and exit\n";

enum { OPT_QUICK = 256, OPT_VERSION };

/* Returns -1 to run the benchmark, or the exit status. */
static int parse_args(int argc, char **argv)
{
    static const struct option options[] = {{"quick", no_argument, NULL, OPT_QUICK},
                                            {"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL, OPT_VERSION},
                                            {NULL, 0, NULL, 0}};
    for (int c; (c = getopt_long(argc, argv, "h", options, NULL)) != -1;) {
        if (c == OPT_QUICK)
            quick = 1;
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
    return -1;
}

int main(int argc, char **argv)
{
    int status = parse_args(argc, argv);
    if (status >= 0) {
        if (status == 2)
            fputs("Try 'bench-link --help' for more information.\n", stderr);
        return status;
    }
    const char *idle = "{\"messages\":0}";
    /* a message every 500 ns on average from each side */
    const char *echo = "{\"messages\":100000000,\"max_gap\":\"1us\"}";
    uint64_t idle_sim = quick ? MORTAR_MS(200) : MORTAR_MS(1000);

    bench_pingpong();
    bench_stream();
    printf("sync_idle_sim_us_per_wall_s=%.0f\n", run_sync_pair(idle, idle_sim, MORTAR_WAIT_BLOCK));

    pid_t hog = start_cpu_hog();
    double oversub[3];
    for (int w = 0; w < 3; w++)
        oversub[w] = run_sync_pair(idle, idle_sim / 4, (mortar_wait_policy)w);
    kill(hog, SIGKILL);
    waitpid(hog, NULL, 0);
    printf("sync_idle_oversub_sim_us_per_wall_s=%.0f\n", oversub[MORTAR_WAIT_BLOCK]);
    for (int w = 0; w < 3; w++)
        printf("sync_idle_oversub_%s_sim_us_per_wall_s=%.0f\n", policy_names[w], oversub[w]);

    printf("inproc_sync_sim_us_per_wall_s=%.0f\n", run_inproc_pair(idle, MORTAR_S(1000)));
    printf("sync_echo_sim_us_per_wall_s=%.0f\n",
           run_sync_pair(echo, idle_sim / 10, MORTAR_WAIT_BLOCK));
    printf("inproc_echo_sim_us_per_wall_s=%.0f\n", run_inproc_pair(echo, idle_sim / 10));
    return 0;
}
