/*
 * matmul-client.c - mortar-matmul-client, the client of the matmul case
 * study (/work/shared/CASE_STUDY.md).
 *
 *   mortar-matmul-client --server IP --port P [--requests 60] [--warmup 3]
 *                        [--inflight N] [--seed 1] [--n 512]
 *                        [--result int8|int32] [--reference FILE] [--stats]
 *                        [--connect-timeout S]
 *
 * Sends warmup + requests requests (ids 0, 1, ...; the first `warmup` are
 * not measured) to mortar-matmul-server, N at a time over N connections
 * (one request in flight per connection), and checks EVERY product against
 * the reference computed on the build machine (matmul-expected.bin next to
 * this program, see studies/matmul/tools/matmul-reference.c): request i's operands come
 * from (seed, i) alone, so the client generates them here and compares the
 * hash of the received C with the expected one (request 0: every element).
 * The product comes back in the --result format (default int8: the int32
 * accumulators requantized, as the accelerator returns them, n*n bytes;
 * int32: 4*n*n bytes); the request says which, and the server must serve
 * the same (it answers BAD_REQUEST otherwise).
 * Operands are generated before the first request; with one request in
 * flight a product is checked as soon as it has arrived (after its latency
 * was taken), with several they are kept and checked at the end, so that
 * checking one never delays seeing another.
 *
 * Latency: CLOCK_MONOTONIC (inside the simulation, simulated time) from
 * handing the request's first byte to the kernel until its reply's last
 * byte is received. Prints per measured request
 *
 *   req=<id> latency_ns=... verified=1 server_service_ns=... conn=<c>
 *
 * then `requests=60 verified=60 median_ns=... p99_ns=... mean_ns=...
 * min_ns=... max_ns=... inflight=N elapsed_ns=... throughput_rps=...`
 * (median: the mean of the middle two for an even count; p99: nearest rank;
 * elapsed: first measured send to last measured reply). Exits 1 when any
 * product (warm-up included) is wrong or missing, loudly on stderr.
 * --stats asks the server to print its per-request lines at the end.
 * --connect-timeout (default 60 s): how long to retry connecting while the
 * server is not listening yet; --timeout (default 60 s): give up when the
 * server sends nothing for that long. Both in guest time.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "guest_cli.h"
#include "matmul_data.h"
#include "matmul_wire.h"
#include "mortar_guest.h"

#define MAX_INFLIGHT 64

static const char *prog = "mortar-matmul-client";

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s --server IP --port P [--requests 60] [--warmup 3] [--inflight N]\n"
            "           [--seed 1] [--n 512] [--result int8|int32] [--reference FILE]\n"
            "           [--stats]\n"
            "           [--connect-timeout SECONDS] [--timeout SECONDS]\n",
            prog);
}

typedef struct options {
    const char *server;
    int port;
    unsigned requests, warmup, inflight;
    uint64_t seed;
    uint32_t n;
    matmul_result result;
    const char *reference;
    bool stats;
    unsigned connect_timeout_s;
    unsigned timeout_s; /* give up when the server is silent this long */
} options;

static void parse_options(int argc, char **argv, options *o)
{
    *o = (options){.requests = 60,
                   .warmup = 3,
                   .inflight = 1,
                   .seed = 1,
                   .n = 512,
                   .connect_timeout_s = 60,
                   .timeout_s = 60};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--stats")) {
            o->stats = true;
            continue;
        }
        if (!v) {
            usage(stderr);
            exit(2);
        }
        i++;
        if (!strcmp(a, "--server")) {
            o->server = v;
        } else if (!strcmp(a, "--port")) {
            o->port = (int)cli_parse_u64(a, v, 1, 65535);
        } else if (!strcmp(a, "--requests")) {
            o->requests = (unsigned)cli_parse_u64(a, v, 1, 100000);
        } else if (!strcmp(a, "--warmup")) {
            o->warmup = (unsigned)cli_parse_u64(a, v, 0, 100000);
        } else if (!strcmp(a, "--inflight")) {
            o->inflight = (unsigned)cli_parse_u64(a, v, 1, MAX_INFLIGHT);
        } else if (!strcmp(a, "--seed")) {
            o->seed = cli_parse_u64(a, v, 0, UINT64_MAX);
        } else if (!strcmp(a, "--n")) {
            o->n = (uint32_t)cli_parse_u64(a, v, 128, 4096);
        } else if (!strcmp(a, "--result")) {
            if (!matmul_result_parse(v, &o->result)) {
                cli_warn("--result wants int8 or int32, not '%s'", v);
                exit(2);
            }
        } else if (!strcmp(a, "--reference")) {
            o->reference = v;
        } else if (!strcmp(a, "--connect-timeout")) {
            o->connect_timeout_s = (unsigned)cli_parse_u64(a, v, 0, 86400);
        } else if (!strcmp(a, "--timeout")) {
            o->timeout_s = (unsigned)cli_parse_u64(a, v, 1, 86400);
        } else {
            usage(stderr);
            exit(2);
        }
    }
    if (!o->server || !o->port || o->n % 128) {
        usage(stderr);
        exit(2);
    }
}

/* ---- requests ------------------------------------------------------------------------
 */

typedef struct request {
    uint64_t start_ns, end_ns;
    uint64_t service_ns;
    int conn;
    int state;    /* 0 not sent, 1 sent, 2 answered */
    int verified; /* -1 not yet checked */
    void *c;      /* kept for a later check (several in flight) */
} request;

typedef struct conn {
    int fd, id;
    int req;     /* request in flight, -1 none */
    bool closed; /* the server closed its side */
    uint8_t hdr[MATMUL_WIRE_REQ_BYTES];
    size_t sent, total;
    uint8_t rhdr[MATMUL_WIRE_RSP_BYTES];
    size_t got; /* bytes of the reply received (header + payload) */
    matmul_wire_rsp rsp;
    void *cbuf; /* receives the product */
} conn;

typedef struct client {
    const options *o;
    matmul_expected ref;
    unsigned total;
    size_t nn;
    size_t c_bytes;   /* a product in the --result format */
    int8_t *operands; /* total x (A, B) */
    request *req;
    conn conns[MAX_INFLIGHT];
    unsigned next, answered, wrong;
} client;

static int connect_one(const options *o)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)o->port)};
    if (inet_pton(AF_INET, o->server, &sa.sin_addr) != 1) {
        cli_die("--server wants an IPv4 address, not '%s'", o->server);
    }
    uint64_t deadline =
        mortar_guest_now_ns() + (uint64_t)o->connect_timeout_s * 1000000000u;
    for (;;) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            cli_die("socket: %s", strerror(errno));
        }
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
            if (matmul_wire_tune_socket(fd) != 0) {
                cli_die("socket options: %s", strerror(errno));
            }
            return fd;
        }
        int e = errno;
        close(fd);
        if ((e != ECONNREFUSED && e != ETIMEDOUT && e != EHOSTUNREACH &&
             e != ENETUNREACH) ||
            mortar_guest_now_ns() >= deadline) {
            cli_die("connecting to %s:%d: %s", o->server, o->port, strerror(e));
        }
        /* the server may not listen yet: retry each 1 ms of guest time (a refused
         * attempt costs one SYN and RST; the wait is synchronized time) */
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

static void verify(client *cl, unsigned i, const void *c)
{
    char why[256];
    request *r = &cl->req[i];
    r->verified = matmul_expected_check(&cl->ref, i, cl->o->result, c, why, sizeof why);
    if (!r->verified) {
        cl->wrong++;
        fflush(stdout);
        fprintf(stderr, "%s: WRONG PRODUCT from the server: %s\n", prog, why);
    }
}

/* Starts the next request on an idle connection. */
static void start_request(client *cl, conn *c)
{
    unsigned i = cl->next++;
    matmul_wire_req req = {.type = MATMUL_WIRE_MULTIPLY,
                           .req_id = i,
                           .n = cl->o->n,
                           .result = cl->o->result,
                           .payload_bytes = 2 * cl->nn};
    matmul_wire_req_encode(&req, c->hdr);
    c->req = (int)i;
    c->sent = 0;
    c->total = sizeof c->hdr + 2 * cl->nn;
    c->got = 0;
    cl->req[i].conn = c->id;
    cl->req[i].state = 1;
    cl->req[i].start_ns = mortar_guest_now_ns();
    mortar_guest_mark(MORTAR_MARK_REQUEST_START, i);
}

static void conn_send(client *cl, conn *c)
{
    while (c->req >= 0 && c->sent < c->total) {
        const int8_t *payload = cl->operands + (size_t)c->req * 2 * cl->nn;
        struct iovec iov[2];
        int cnt = 0;
        if (c->sent < sizeof c->hdr) {
            iov[cnt++] = (struct iovec){c->hdr + c->sent, sizeof c->hdr - c->sent};
        }
        size_t done = c->sent > sizeof c->hdr ? c->sent - sizeof c->hdr : 0;
        iov[cnt++] = (struct iovec){(void *)(payload + done), 2 * cl->nn - done};
        struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)cnt};
        ssize_t got = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
        if (got < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                return;
            }
            cli_die("connection %d: send: %s", c->id, strerror(errno));
        }
        c->sent += (size_t)got;
    }
}

/* The reply of c's request is complete. */
static void answered(client *cl, conn *c)
{
    uint64_t now = mortar_guest_now_ns();
    unsigned i = (unsigned)c->req;
    mortar_guest_mark(MORTAR_MARK_REQUEST_END, i);
    request *r = &cl->req[i];
    r->end_ns = now;
    r->state = 2;
    r->service_ns = c->rsp.service_ns;
    c->req = -1;
    cl->answered++;
    if (c->rsp.status != MATMUL_WIRE_OK) {
        r->verified = 0;
        cl->wrong++;
        fflush(stdout);
        fprintf(stderr, "%s: request %u: the server answered status %u (no product)\n",
                prog, i, c->rsp.status);
    } else if (cl->o->inflight == 1) {
        verify(cl, i, c->cbuf);
    } else {
        memcpy(r->c, c->cbuf, cl->c_bytes);
    }
}

static void conn_recv(client *cl, conn *c)
{
    for (;;) {
        void *dst;
        size_t len;
        if (c->got < sizeof c->rhdr) {
            dst = c->rhdr + c->got;
            len = sizeof c->rhdr - c->got;
        } else {
            dst = (uint8_t *)c->cbuf + (c->got - sizeof c->rhdr);
            len = c->rsp.payload_bytes - (c->got - sizeof c->rhdr);
        }
        ssize_t got = recv(c->fd, dst, len, 0);
        if (got < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                return;
            }
            cli_die("connection %d: recv: %s", c->id, strerror(errno));
        }
        if (got == 0) {
            if (c->req >= 0) {
                cli_die("connection %d: the server closed it with request %d in flight",
                        c->id, c->req);
            }
            /* The server is done (it half-closes after its last reply). */
            c->closed = true;
            return;
        }
        if (c->req < 0) {
            cli_die("connection %d: the server sent a reply nobody asked for", c->id);
        }
        c->got += (size_t)got;
        if (c->got == sizeof c->rhdr) {
            if (matmul_wire_rsp_decode(c->rhdr, &c->rsp) != 0) {
                cli_die("connection %d: not a matmul reply (magic or version)", c->id);
            }
            uint64_t want = c->rsp.status == MATMUL_WIRE_OK ? cl->c_bytes : 0;
            if (c->rsp.req_id != (uint64_t)c->req || c->rsp.payload_bytes != want ||
                (want && c->rsp.result != (uint32_t)cl->o->result)) {
                cli_die("connection %d: reply for request %" PRIu64 " with %" PRIu64
                        " bytes (result format %u); expected request %d with %" PRIu64
                        " (%s)",
                        c->id, c->rsp.req_id, c->rsp.payload_bytes, c->rsp.result, c->req,
                        want, matmul_result_name(cl->o->result));
            }
        }
        if (c->got >= sizeof c->rhdr && c->got == sizeof c->rhdr + c->rsp.payload_bytes) {
            answered(cl, c);
            return;
        }
    }
}

static void summary(client *cl)
{
    unsigned m = cl->o->requests, w = cl->o->warmup;
    uint64_t *lat = malloc(m * sizeof *lat);
    if (!lat) {
        cli_die("out of memory");
    }
    unsigned verified = 0;
    uint64_t sum = 0, first = UINT64_MAX, last = 0;
    for (unsigned k = 0; k < m; k++) {
        const request *r = &cl->req[w + k];
        lat[k] = r->end_ns - r->start_ns;
        sum += lat[k];
        verified += r->verified == 1;
        first = r->start_ns < first ? r->start_ns : first;
        last = r->end_ns > last ? r->end_ns : last;
        printf("req=%u latency_ns=%" PRIu64 " verified=%d server_service_ns=%" PRIu64
               " conn=%d start_ns=%" PRIu64 "\n",
               w + k, lat[k], r->verified == 1, r->service_ns, r->conn,
               r->start_ns - cl->req[w].start_ns);
    }
    qsort(lat, m, sizeof *lat, cli_cmp_u64);
    uint64_t med = m % 2 ? lat[m / 2] : (lat[m / 2 - 1] + lat[m / 2]) / 2;
    unsigned p99 = (unsigned)((99ull * m + 99) / 100); /* nearest rank, 1-based */
    uint64_t elapsed = last - first;
    double rps = elapsed ? m / (elapsed / 1e9) : 0;
    printf("requests=%u verified=%u median_ns=%" PRIu64 " p99_ns=%" PRIu64
           " mean_ns=%" PRIu64 " min_ns=%" PRIu64 " max_ns=%" PRIu64
           " inflight=%u elapsed_ns=%" PRIu64 " throughput_rps=%.3f\n",
           m, verified, med, lat[p99 - 1], sum / m, lat[0], lat[m - 1], cl->o->inflight,
           elapsed, rps);
    fflush(stdout);
    free(lat);
}

/* Asks the server to print its statistics (wire type STATS). */
static void request_stats(client *cl)
{
    conn *c = &cl->conns[0];
    uint8_t hdr[MATMUL_WIRE_REQ_BYTES], rhdr[MATMUL_WIRE_RSP_BYTES];
    matmul_wire_req req = {.type = MATMUL_WIRE_STATS, .req_id = UINT32_MAX};
    matmul_wire_req_encode(&req, hdr);
    size_t off = 0;
    while (off < sizeof hdr) {
        ssize_t got = send(c->fd, hdr + off, sizeof hdr - off, MSG_NOSIGNAL);
        if (got < 0 && errno != EAGAIN && errno != EINTR) {
            cli_die("stats request: %s", strerror(errno));
        }
        off += got > 0 ? (size_t)got : 0;
    }
    off = 0;
    while (off < sizeof rhdr) {
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        poll(&p, 1, 1000);
        ssize_t got = recv(c->fd, rhdr + off, sizeof rhdr - off, 0);
        if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
            cli_die("stats request: no answer");
        }
        off += got > 0 ? (size_t)got : 0;
    }
}

int main(int argc, char **argv)
{
    cli_set_prog(prog);
    options o;
    parse_options(argc, argv, &o);
    client cl = {.o = &o, .total = o.warmup + o.requests, .nn = (size_t)o.n * o.n};
    cl.c_bytes = cl.nn * matmul_result_bytes(o.result);
    char path[4096], err[512];
    const char *ref_path =
        o.reference ? o.reference : matmul_expected_default_path(path, sizeof path);
    if (matmul_expected_load(ref_path, o.seed, o.n, &cl.ref, err, sizeof err) != 0) {
        cli_die("%s", err);
    }
    if (cl.total > cl.ref.count) {
        cli_die("the reference holds %u requests for seed %" PRIu64 " n %u; asked for %u "
                "(warm-up included)",
                cl.ref.count, o.seed, o.n, cl.total);
    }

    /* Everything the run needs, before the first request. */
    cl.operands = malloc(cl.total * 2 * cl.nn);
    cl.req = calloc(cl.total, sizeof *cl.req);
    if (!cl.operands || !cl.req) {
        cli_die("out of memory for %u requests of n = %u", cl.total, o.n);
    }
    for (unsigned i = 0; i < cl.total; i++) {
        int8_t *a = cl.operands + (size_t)i * 2 * cl.nn;
        matmul_operands(o.seed, i, o.n, a, a + cl.nn);
        cl.req[i].verified = -1;
        if (o.inflight > 1 && !(cl.req[i].c = malloc(cl.c_bytes))) {
            cli_die("out of memory to keep %u products (use --inflight 1)", cl.total);
        }
    }
    if (matmul_hash(cl.operands, cl.nn) != cl.ref.entries[0].hash_a ||
        matmul_hash(cl.operands + cl.nn, cl.nn) != cl.ref.entries[0].hash_b) {
        cli_die("the generated operands differ from the reference's (generator mismatch: "
                "rebuild the image)");
    }
    cli_step("client-operands");
    unsigned nconn = o.inflight < cl.total ? o.inflight : cl.total;
    for (unsigned k = 0; k < nconn; k++) {
        conn *c = &cl.conns[k];
        c->fd = connect_one(&o);
        c->id = (int)k;
        c->req = -1;
        c->cbuf = malloc(cl.c_bytes);
        if (!c->cbuf) {
            cli_die("out of memory");
        }
        memset(c->cbuf, 0, cl.c_bytes); /* fault the pages in now */
    }
    cli_step("client-connected");

    struct pollfd fds[MAX_INFLIGHT];
    while (cl.answered < cl.total) {
        unsigned open = 0;
        for (unsigned k = 0; k < nconn; k++) {
            conn *c = &cl.conns[k];
            if (c->req < 0 && !c->closed && cl.next < cl.total) {
                start_request(&cl, c);
                conn_send(&cl, c);
            }
            open += !c->closed;
            fds[k] = (struct pollfd){
                .fd = c->closed ? -1 : c->fd,
                .events =
                    (short)(POLLIN | (c->req >= 0 && c->sent < c->total ? POLLOUT : 0))};
        }
        if (open == 0) {
            cli_die("the server closed every connection with %u of %u requests answered",
                    cl.answered, cl.total);
        }
        int ready = poll(fds, nconn, (int)o.timeout_s * 1000);
        if (ready < 0) {
            if (errno == EINTR) {
                continue;
            }
            cli_die("poll: %s", strerror(errno));
        }
        if (ready == 0) {
            cli_die("nothing from the server for %u s (%u of %u requests answered)",
                    o.timeout_s, cl.answered, cl.total);
        }
        for (unsigned k = 0; k < nconn; k++) {
            conn *c = &cl.conns[k];
            if (fds[k].revents & POLLOUT) {
                conn_send(&cl, c);
            }
            if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
                conn_recv(&cl, c);
            }
        }
    }
    if (o.inflight > 1) {
        for (unsigned i = 0; i < cl.total; i++) {
            if (cl.req[i].verified < 0) {
                verify(&cl, i, cl.req[i].c);
            }
        }
    }
    summary(&cl);
    if (o.stats) {
        request_stats(&cl);
    }
    for (unsigned k = 0; k < nconn; k++) {
        close(cl.conns[k].fd);
        free(cl.conns[k].cbuf);
    }
    if (cl.wrong) {
        fprintf(stderr, "%s: %u of %u products WRONG\n", prog, cl.wrong, cl.total);
        return 1;
    }
    return 0;
}
