/*
 * nettest.c - mortar-nettest, a TCP bulk transfer with a checked pattern,
 * for the network tests of simulated hosts (tests/qemu/test_network.sh).
 *
 *   mortar-nettest serve PORT [TIMEOUT_S]   accept one connection, receive
 *                                           until EOF, check the pattern
 *   mortar-nettest send HOST PORT BYTES [TIMEOUT_S]
 *                                           connect (retrying until the
 *                                           server listens), send BYTES
 *
 * The data is a deterministic pattern: the 8-byte little-endian word k of
 * the stream (bytes 8k..8k+7) is splitmix64(k), so a lost, duplicated or
 * reordered piece shows up at its offset. Both sides print one line of
 * key=value pairs:
 *
 *   serve: bytes=N ok=1 ns=T mbps=M sum=0x... [first_bad=OFFSET]
 *   send:  bytes=N ns=T mbps=M connect_tries=K sum=0x...
 *   rr:    transactions=N size=S mean_ns=T p50_ns=T p99_ns=T min_ns=T
 *          max_ns=T
 *   rr-serve: transactions=N
 *
 * `sum` is an FNV-1a-style hash over the stream's words (a last partial word
 * padded with zeros), the same on both sides when the data arrived intact.
 * Both sides work a word at a time: the guest's CPU time is simulated time,
 * and the check should cost little of it. `ns` runs from the connection to
 * the last byte
 * (CLOCK_MONOTONIC: simulated time in a mortar host). Exit status 0 on
 * success, 1 on failure (a message "mortar-nettest: ..." on stderr), 2 on
 * bad usage. TIMEOUT_S (guest seconds, default 60) bounds the whole run so
 * that a host never waits forever for a peer that is gone.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "guest_cli.h"
#include "mortar_guest.h"

#define BUF_BYTES       (256 * 1024)
#define RETRY_NS        20000000ull /* 20 ms between connection attempts */
#define FNV_OFFSET      0xcbf29ce484222325ull
#define FNV_PRIME       0x100000001b3ull
#define DEFAULT_TIMEOUT 60
#define RR_MAX_SIZE     65536
#define RR_MAX_COUNT    1000000

static const char *prog = "mortar-nettest";

static void usage(void)
{
    fprintf(stderr,
            "usage: %s serve PORT [TIMEOUT_S]\n"
            "       %s send HOST PORT BYTES [TIMEOUT_S]\n"
            "       %s rr-serve PORT SIZE [TIMEOUT_S]\n"
            "       %s rr HOST PORT COUNT SIZE [TIMEOUT_S]\n",
            prog, prog, prog, prog);
    exit(2);
}

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Fills buf (8-aligned, a whole number of words) with the words from k. */
static void pattern_words(uint64_t *buf, uint64_t k, size_t nwords)
{
    for (size_t i = 0; i < nwords; i++)
        buf[i] = splitmix64(k + i);
}

static uint64_t hash_word(uint64_t h, uint64_t w)
{
    return (h ^ w) * FNV_PRIME;
}

/* The first `n` (< 8) bytes of a word, the rest zero. */
static uint64_t low_bytes(uint64_t w, size_t n)
{
    return n ? w & (~0ull >> (64 - 8 * n)) : 0;
}

/* Index of the first byte where two words differ (little-endian). */
static unsigned first_diff(uint64_t a, uint64_t b)
{
    return (unsigned)__builtin_ctzll(a ^ b) / 8;
}

static unsigned long parse_num(const char *s, const char *what, unsigned long max)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *s == '\0' || *end != '\0' || v > max) {
        fprintf(stderr, "%s: bad %s '%s'\n", prog, what, s);
        usage();
    }
    return v;
}

/* Waits until fd is ready for `events`, or dies at the deadline. */
static void wait_fd(int fd, short events, uint64_t deadline, const char *what)
{
    for (;;) {
        uint64_t now = mortar_guest_now_ns();
        if (now >= deadline)
            cli_die("timed out %s", what);
        uint64_t left_ms = (deadline - now) / 1000000 + 1;
        struct pollfd p = {.fd = fd, .events = events};
        int rc = poll(&p, 1, left_ms > 1000 ? 1000 : (int)left_ms);
        if (rc > 0)
            return;
        if (rc < 0 && errno != EINTR)
            cli_die("poll: %s", strerror(errno));
    }
}

static double mbps(uint64_t bytes, uint64_t ns)
{
    return ns ? (double)bytes * 8.0 * 1000.0 / (double)ns : 0.0;
}

/* Listens on `port` and returns the first connection (the listener closed). */
static int accept_one(unsigned port, uint64_t deadline)
{
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    if (ls < 0)
        cli_die("socket: %s", strerror(errno));
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_ANY)};
    if (bind(ls, (struct sockaddr *)&a, sizeof a) != 0)
        cli_die("bind port %u: %s", port, strerror(errno));
    if (listen(ls, 1) != 0)
        cli_die("listen: %s", strerror(errno));
    printf("listening port=%u\n", port);
    fflush(stdout);
    wait_fd(ls, POLLIN, deadline, "waiting for a connection");
    int s = accept(ls, NULL, NULL);
    if (s < 0)
        cli_die("accept: %s", strerror(errno));
    close(ls);
    return s;
}

static int serve(unsigned port, uint64_t deadline)
{
    int s = accept_one(port, deadline);
    uint64_t t0 = mortar_guest_now_ns();

    /* Whole words are checked as they come; up to 7 bytes wait in front of
     * the buffer for the rest of their word. */
    static uint64_t wbuf[BUF_BYTES / 8 + 1];
    uint8_t *buf = (uint8_t *)wbuf;
    uint64_t total = 0, k = 0, sum = FNV_OFFSET, first_bad = UINT64_MAX;
    size_t carry = 0;
    for (;;) {
        wait_fd(s, POLLIN, deadline, "receiving");
        ssize_t n = read(s, buf + carry, BUF_BYTES);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            cli_die("read after %llu bytes: %s", (unsigned long long)total,
                    strerror(errno));
        if (n == 0)
            break;
        total += (uint64_t)n;
        size_t have = carry + (size_t)n, nwords = have / 8;
        for (size_t i = 0; i < nwords; i++, k++) {
            uint64_t w = wbuf[i], want = splitmix64(k);
            if (w != want && first_bad == UINT64_MAX)
                first_bad = 8 * k + first_diff(w, want);
            sum = hash_word(sum, w);
        }
        carry = have % 8;
        memmove(buf, buf + 8 * nwords, carry);
    }
    if (carry) {
        uint64_t w = 0, want = low_bytes(splitmix64(k), carry);
        memcpy(&w, buf, carry);
        if (w != want && first_bad == UINT64_MAX)
            first_bad = 8 * k + first_diff(w, want);
        sum = hash_word(sum, w);
    }
    uint64_t ns = mortar_guest_now_ns() - t0;
    close(s);
    bool ok = first_bad == UINT64_MAX && total > 0;
    printf("bytes=%llu ok=%d ns=%llu mbps=%.1f sum=0x%016llx", (unsigned long long)total,
           ok, (unsigned long long)ns, mbps(total, ns), (unsigned long long)sum);
    if (!ok && total > 0)
        printf(" first_bad=%llu", (unsigned long long)first_bad);
    printf("\n");
    return ok ? 0 : 1;
}

static int connect_retrying(const char *host, unsigned port, uint64_t deadline,
                            unsigned *tries)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
        cli_die("bad address '%s' (an IPv4 address is expected)", host);
    for (*tries = 1;; (*tries)++) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        if (s < 0)
            cli_die("socket: %s", strerror(errno));
        if (connect(s, (struct sockaddr *)&a, sizeof a) == 0)
            return s;
        int err = errno;
        close(s);
        if (err != ECONNREFUSED && err != ETIMEDOUT && err != EHOSTUNREACH &&
            err != ENETUNREACH && err != EINTR)
            cli_die("connect %s:%u: %s", host, port, strerror(err));
        if (mortar_guest_now_ns() + RETRY_NS >= deadline)
            cli_die("connect %s:%u: %s (gave up after %u tries)", host, port,
                    strerror(err), *tries);
        struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)RETRY_NS};
        nanosleep(&ts, NULL);
    }
}

static void write_all(int s, const uint8_t *buf, size_t n, uint64_t deadline)
{
    size_t done = 0;
    while (done < n) {
        wait_fd(s, POLLOUT, deadline, "sending");
        ssize_t w = write(s, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            cli_die("write: %s", strerror(errno));
        done += (size_t)w;
    }
}

static int send_data(const char *host, unsigned port, uint64_t bytes, uint64_t deadline)
{
    unsigned tries;
    int s = connect_retrying(host, port, deadline, &tries);
    uint64_t t0 = mortar_guest_now_ns();
    static uint64_t wbuf[BUF_BYTES / 8];
    uint8_t *buf = (uint8_t *)wbuf;
    uint64_t sent = 0, sum = FNV_OFFSET;
    while (sent < bytes) {
        size_t n = bytes - sent < BUF_BYTES ? (size_t)(bytes - sent) : BUF_BYTES;
        size_t nwords = (n + 7) / 8;
        pattern_words(wbuf, sent / 8, nwords);
        for (size_t i = 0; i < n / 8; i++)
            sum = hash_word(sum, wbuf[i]);
        if (n % 8)
            sum = hash_word(sum, low_bytes(wbuf[n / 8], n % 8));
        write_all(s, buf, n, deadline);
        sent += n;
    }
    /* Half-close, then wait for the server's close: every byte has been
     * received (and read) when it closes its end. */
    shutdown(s, SHUT_WR);
    for (;;) {
        wait_fd(s, POLLIN, deadline, "waiting for the server to close");
        ssize_t n = read(s, buf, sizeof buf);
        if (n == 0 || (n < 0 && errno != EINTR))
            break;
    }
    uint64_t ns = mortar_guest_now_ns() - t0;
    close(s);
    printf("bytes=%llu ns=%llu mbps=%.1f connect_tries=%u sum=0x%016llx\n",
           (unsigned long long)sent, (unsigned long long)ns, mbps(sent, ns), tries,
           (unsigned long long)sum);
    return 0;
}

/* Reads exactly `n` bytes; returns 0 at a clean EOF before the first byte,
 * `n` otherwise (dies on an error, a short message or the deadline). */
static size_t read_exactly(int s, uint8_t *buf, size_t n, uint64_t deadline)
{
    size_t got = 0;
    while (got < n) {
        wait_fd(s, POLLIN, deadline, "receiving");
        ssize_t r = read(s, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            cli_die("read: %s", strerror(errno));
        if (r == 0) {
            if (got == 0)
                return 0;
            cli_die("connection closed inside a message (%zu of %zu bytes)", got, n);
        }
        got += (size_t)r;
    }
    return n;
}

static void set_nodelay(int s)
{
    int one = 1;
    if (setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
        cli_die("TCP_NODELAY: %s", strerror(errno));
}

static int rr_serve(unsigned port, size_t size, uint64_t deadline)
{
    int s = accept_one(port, deadline);
    set_nodelay(s);
    static uint8_t buf[RR_MAX_SIZE];
    uint64_t n = 0;
    while (read_exactly(s, buf, size, deadline) == size) {
        write_all(s, buf, size, deadline);
        n++;
    }
    close(s);
    printf("transactions=%llu\n", (unsigned long long)n);
    return 0;
}

/* Transaction t's request: the pattern's words from t * 2^20, so every
 * request differs and a reply to another request is caught. */
static void rr_request(uint8_t *buf, size_t size, uint64_t t)
{
    uint64_t w[RR_MAX_SIZE / 8];
    pattern_words(w, t << 20, (size + 7) / 8);
    memcpy(buf, w, size);
}

static int rr_client(const char *host, unsigned port, uint64_t count, size_t size,
                     uint64_t deadline)
{
    unsigned tries;
    int s = connect_retrying(host, port, deadline, &tries);
    set_nodelay(s);
    uint64_t *lat = malloc(count * sizeof *lat);
    if (!lat)
        cli_die("out of memory for %llu latencies", (unsigned long long)count);
    static uint8_t req[RR_MAX_SIZE], rep[RR_MAX_SIZE];
    uint64_t sum = 0;
    for (uint64_t t = 0; t < count; t++) {
        rr_request(req, size, t);
        uint64_t t0 = mortar_guest_now_ns();
        write_all(s, req, size, deadline);
        if (read_exactly(s, rep, size, deadline) != size)
            cli_die("the server closed after %llu transactions", (unsigned long long)t);
        lat[t] = mortar_guest_now_ns() - t0;
        if (memcmp(req, rep, size) != 0)
            cli_die("reply %llu differs from its request", (unsigned long long)t);
        sum += lat[t];
    }
    close(s);
    qsort(lat, count, sizeof *lat, cli_cmp_u64);
    printf("transactions=%llu size=%zu mean_ns=%llu p50_ns=%llu p99_ns=%llu min_ns=%llu "
           "max_ns=%llu\n",
           (unsigned long long)count, size, (unsigned long long)(sum / count),
           (unsigned long long)lat[count / 2], (unsigned long long)lat[count * 99 / 100],
           (unsigned long long)lat[0], (unsigned long long)lat[count - 1]);
    free(lat);
    return 0;
}

int main(int argc, char **argv)
{
    cli_set_prog(prog);
    if (argc >= 3 && argc <= 4 && strcmp(argv[1], "serve") == 0) {
        unsigned port = (unsigned)parse_num(argv[2], "port", 65535);
        unsigned long t =
            argc > 3 ? parse_num(argv[3], "timeout", 86400) : DEFAULT_TIMEOUT;
        return serve(port, mortar_guest_now_ns() + t * 1000000000ull);
    }
    if (argc >= 5 && argc <= 6 && strcmp(argv[1], "send") == 0) {
        unsigned port = (unsigned)parse_num(argv[3], "port", 65535);
        uint64_t bytes = parse_num(argv[4], "byte count", ~0ul);
        unsigned long t =
            argc > 5 ? parse_num(argv[5], "timeout", 86400) : DEFAULT_TIMEOUT;
        return send_data(argv[2], port, bytes, mortar_guest_now_ns() + t * 1000000000ull);
    }
    if (argc >= 4 && argc <= 5 && strcmp(argv[1], "rr-serve") == 0) {
        unsigned port = (unsigned)parse_num(argv[2], "port", 65535);
        size_t size = parse_num(argv[3], "size", RR_MAX_SIZE);
        unsigned long t =
            argc > 4 ? parse_num(argv[4], "timeout", 86400) : DEFAULT_TIMEOUT;
        if (size == 0)
            usage();
        return rr_serve(port, size, mortar_guest_now_ns() + t * 1000000000ull);
    }
    if (argc >= 6 && argc <= 7 && strcmp(argv[1], "rr") == 0) {
        unsigned port = (unsigned)parse_num(argv[3], "port", 65535);
        uint64_t count = parse_num(argv[4], "count", RR_MAX_COUNT);
        size_t size = parse_num(argv[5], "size", RR_MAX_SIZE);
        unsigned long t =
            argc > 6 ? parse_num(argv[6], "timeout", 86400) : DEFAULT_TIMEOUT;
        if (count == 0 || size == 0)
            usage();
        return rr_client(argv[2], port, count, size,
                         mortar_guest_now_ns() + t * 1000000000ull);
    }
    usage();
}
