/*
 * matmul-server.c - mortar-matmul-server, the server of the matmul case
 * study (/work/shared/CASE_STUDY.md): receives two n x n int8 matrices over
 * TCP, computes their product with the chosen backend and sends it back.
 *
 *   mortar-matmul-server --backend a|b|regcopy|software --port P
 *                        [--requests N] [--inflight N] [options]
 *   mortar-matmul-server --backend X --selftest K [options]
 *
 * Backends (studies/matmul/guest/matmul_drv.h): the accelerator's designs a and b and
 * its register-copy variant, driven from user space, and the software
 * baseline. The wire format is in studies/matmul/guest/matmul_wire.h.
 *
 * --result int8|int32 (default int8): the format the products are returned
 * in, which the driver programs into the device (the software baseline
 * requantizes on this CPU). A request asking for the other format is
 * answered BAD_REQUEST.
 *
 * One thread, one poll() loop over the listening socket and the
 * connections. Requests from all connections queue in arrival order; design
 * b keeps up to --inflight of them in its descriptor ring at once, the
 * other backends serve one at a time whatever --inflight says (regcopy and
 * software run the request to the end before the loop goes on). While
 * requests are in the device the loop works on the device (a: runs its tile
 * steps; b: spins on its completion record in host memory, so that "done" is
 * seen within a microsecond or so) and looks at the network every SPIN_NS,
 * so that requests arriving on other connections are read, and acknowledged
 * by the kernel, as they come rather than after the device is done (a
 * receiver that stops reading makes the sender's TCP probe with
 * retransmissions). It skips that look while no connection can need it:
 * every connection has a request here and no reply to send (a new
 * connection waits for the next look).
 *
 * Per request the server records the effective service time (driver handed
 * it to the device until it saw it done, guest clock) and what the device
 * reports: b's completion record carries the device's timing; for a and
 * regcopy the timing registers are read with MMIO reads after the reply has
 * been handed to the kernel, so that they do not delay it. It prints one
 * line per request,
 *
 *   req=<id> service_ns=... device_compute_ns=... [device_span_ns=...] ...
 *
 * and a summary line: on a STATS request (lines not printed yet), after
 * --requests N requests have been answered (then it exits 0), or on
 * SIGINT/SIGTERM.
 *
 * --selftest K computes requests 0..K-1 of --seed locally, with the same
 * operands the client sends, checks each product against the reference
 * file (matmul-expected.bin, computed on the build machine) and prints the
 * same lines with verified=1, then `... verified=K selftest_ok=1`. It exits
 * 1 on a wrong product.
 *
 * Exit: 0, 1 on an error (reason on stderr, "mortar-matmul-server: ..."),
 * 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "guest_cli.h"
#include "matmul_data.h"
#include "matmul_drv.h"
#include "matmul_wire.h"
#include "mortar_guest.h"

#define MAX_CONNS  64
#define SPIN_NS    20000ull /* spin on the device this long between poll() calls */
#define MAX_WIRE_N 4096u
#define LINGER_NS  10000000000ull /* wait for clients to close before exiting */

static const char *prog = "mortar-matmul-server";
static volatile sig_atomic_t stop_requested;

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: %s --backend a|b|regcopy|software --port P [--requests N]\n"
        "           [--inflight N] [--n N] [--irq] [--copy-bytes 1|2|4|8]\n"
        "           [--result int8|int32]\n"
        "       %s --backend a|b|regcopy|software --selftest K [--seed S]\n"
        "           [--inflight N] [--n N] [--irq] [--copy-bytes B] [--reference FILE]\n"
        "           [--result int8|int32]\n",
        prog, prog);
}

/* ---- per-request records ---------------------------------------------------------- */

typedef struct record {
    matmul_guest_timing t;
    int conn;     /* connection id, -1 in the self-test */
    int verified; /* self-test: 1 right, 0 wrong; -1 not checked */
    bool failed;  /* the backend reported an error */
    /* Serving, guest clock: first byte of the request received, its last
     * byte received, the reply's last byte handed to the kernel (0: none). */
    uint64_t rx_first_ns, rx_done_ns, tx_done_ns;
} record;

static struct {
    record *r;
    size_t count, cap, printed;
} recs;

static record *record_add(void)
{
    if (recs.count == recs.cap) {
        recs.cap = recs.cap ? recs.cap * 2 : 256;
        recs.r = realloc(recs.r, recs.cap * sizeof *recs.r);
        if (!recs.r) {
            cli_die("out of memory for the request records");
        }
    }
    record *r = &recs.r[recs.count++];
    memset(r, 0, sizeof *r);
    r->verified = -1;
    return r;
}

static uint64_t median(uint64_t *v, size_t n)
{
    if (n == 0) {
        return 0;
    }
    qsort(v, n, sizeof *v, cli_cmp_u64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void print_record(const record *r)
{
    const matmul_guest_timing *t = &r->t;
    printf("req=%" PRIu64 " service_ns=%" PRIu64 " device_compute_ns=%" PRIu64, t->req_id,
           t->done_ns - t->submit_ns, t->dev_compute_ps / 1000);
    if (t->dev_timing) {
        printf(" device_span_ns=%" PRIu64, (t->dev_end_ps - t->dev_start_ps) / 1000);
    }
    if (t->dev_accept_ps || t->dev_done_ps) {
        printf(" device_total_ns=%" PRIu64, (t->dev_done_ps - t->dev_accept_ps) / 1000);
    }
    printf(" steps=%u n=%u queued_behind=%u mmio_reads=%" PRIu64 " mmio_writes=%" PRIu64,
           t->steps, t->n, t->queued_behind, t->mmio_reads, t->mmio_writes);
    if (r->conn >= 0) {
        printf(" conn=%d", r->conn);
    }
    if (r->rx_done_ns && t->submit_ns) {
        /* Where the rest of the server's time went: receiving the request,
         * waiting for the backend and laying the operands out, sending. */
        printf(" recv_ns=%" PRIu64 " wait_ns=%" PRIu64, r->rx_done_ns - r->rx_first_ns,
               t->submit_ns - r->rx_done_ns);
        if (r->tx_done_ns) {
            printf(" send_ns=%" PRIu64, r->tx_done_ns - t->done_ns);
        }
    }
    if (r->failed) {
        printf(" failed=1");
    }
    if (r->verified >= 0) {
        printf(" verified=%d", r->verified);
    }
    putchar('\n');
}

/* Prints the records not printed yet, then a summary over all of them. */
static void print_stats(matmul_backend backend, matmul_result result, const char *tail)
{
    for (; recs.printed < recs.count; recs.printed++) {
        print_record(&recs.r[recs.printed]);
    }
    uint64_t *svc = malloc((recs.count + 1) * sizeof *svc);
    uint64_t *dev = malloc((recs.count + 1) * sizeof *dev);
    if (!svc || !dev) {
        cli_die("out of memory for the summary");
    }
    size_t ok = 0, queued = 0, verified = 0;
    uint64_t sum = 0;
    for (size_t i = 0; i < recs.count; i++) {
        const record *r = &recs.r[i];
        if (r->failed) {
            continue;
        }
        svc[ok] = r->t.done_ns - r->t.submit_ns;
        dev[ok] = r->t.dev_compute_ps / 1000;
        sum += svc[ok];
        ok++;
        queued += r->t.queued_behind > 0;
        verified += r->verified == 1;
    }
    printf("backend=%s result=%s requests=%zu failed=%zu queued=%zu",
           matmul_backend_name(backend), matmul_result_name(result), recs.count,
           recs.count - ok, queued);
    if (ok) {
        printf(" service_mean_ns=%" PRIu64, sum / ok);
        printf(" service_median_ns=%" PRIu64, median(svc, ok));
        printf(" device_compute_median_ns=%" PRIu64, median(dev, ok));
    }
    if (tail) {
        printf(" verified=%zu%s", verified, tail);
    }
    putchar('\n');
    fflush(stdout);
    free(svc);
    free(dev);
}

/* ---- options ------------------------------------------------------------------------
 */

typedef struct options {
    matmul_backend backend;
    bool have_backend;
    int port;
    uint64_t requests; /* exit after this many (0: never) */
    unsigned selftest; /* K (0: serve) */
    uint64_t seed;
    uint32_t n;
    bool n_given;
    matmul_guest_opts drv;
    const char *reference;
} options;

static void parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->n = 512;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--irq")) {
            o->drv.use_irq = true;
            continue;
        }
        if (!v) {
            usage(stderr);
            exit(2);
        }
        i++;
        if (!strcmp(a, "--backend")) {
            if (matmul_backend_parse(v, &o->backend) != 0) {
                fprintf(stderr, "%s: unknown backend '%s'\n", prog, v);
                exit(2);
            }
            o->have_backend = true;
        } else if (!strcmp(a, "--port")) {
            o->port = (int)cli_parse_u64(a, v, 1, 65535);
        } else if (!strcmp(a, "--requests")) {
            o->requests = cli_parse_u64(a, v, 1, UINT32_MAX);
        } else if (!strcmp(a, "--selftest")) {
            o->selftest = (unsigned)cli_parse_u64(a, v, 1, 100000);
        } else if (!strcmp(a, "--inflight")) {
            o->drv.inflight = (unsigned)cli_parse_u64(a, v, 1, 63);
        } else if (!strcmp(a, "--seed")) {
            o->seed = cli_parse_u64(a, v, 0, UINT64_MAX);
        } else if (!strcmp(a, "--n")) {
            o->n = (uint32_t)cli_parse_u64(a, v, 128, MAX_WIRE_N);
            o->n_given = true;
        } else if (!strcmp(a, "--copy-bytes")) {
            o->drv.copy_bytes = (uint32_t)cli_parse_u64(a, v, 1, 8);
        } else if (!strcmp(a, "--reference")) {
            o->reference = v;
        } else if (!strcmp(a, "--result")) {
            if (!matmul_result_parse(v, &o->drv.result)) {
                cli_warn("--result wants int8 or int32, not '%s'", v);
                exit(2);
            }
        } else {
            usage(stderr);
            exit(2);
        }
    }
    if (!o->have_backend || (!o->port) == (!o->selftest) || o->n % 128) {
        usage(stderr);
        exit(2);
    }
    o->drv.max_n = o->n;
}

/* ---- self-test ------------------------------------------------------------------------
 */

static int run_selftest(matmul_guest *d, const options *o)
{
    char path[4096], err[512];
    const char *ref_path =
        o->reference ? o->reference : matmul_expected_default_path(path, sizeof path);
    uint32_t n = o->n;
    matmul_expected ref;
    if (matmul_expected_load(ref_path, o->seed, n, &ref, err, sizeof err) != 0) {
        cli_die("%s", err);
    }
    if (o->selftest > ref.count) {
        cli_die("the reference holds %u requests for seed %" PRIu64 " n %u, not %u",
                ref.count, o->seed, n, o->selftest);
    }
    /* All operands first, so that the timing shows the backend only. */
    unsigned k = o->selftest, cap = matmul_guest_capacity(d);
    size_t nn = (size_t)n * n;
    matmul_result result = o->drv.result;
    int8_t **ab = calloc(k, sizeof *ab);
    void **c = calloc(k, sizeof *c);
    int *slot = calloc(k, sizeof *slot);
    if (!ab || !c || !slot) {
        cli_die("out of memory");
    }
    for (unsigned i = 0; i < k; i++) {
        ab[i] = malloc(2 * nn);
        c[i] = calloc(nn, matmul_result_bytes(result));
        if (!ab[i] || !c[i]) {
            cli_die("out of memory for %u requests of n = %u", k, n);
        }
        matmul_operands(o->seed, i, n, ab[i], ab[i] + nn);
        if (matmul_hash(ab[i], nn) != ref.entries[i].hash_a ||
            matmul_hash(ab[i] + nn, nn) != ref.entries[i].hash_b) {
            cli_die("request %u: the operands differ from the reference's (generator "
                    "mismatch: rebuild the image)",
                    i);
        }
    }
    /* Up to `cap` requests in the backend at once (b: queued in its ring). */
    unsigned submitted = 0, done = 0, wrong = 0;
    while (done < k) {
        while (submitted < k && submitted - done < cap) {
            unsigned b = submitted;
            int s = matmul_guest_submit(d, submitted, n, ab[b], ab[b] + nn, c[b]);
            if (s < 0) {
                cli_die("request %u: %s", submitted, matmul_guest_errmsg(d));
            }
            slot[b] = s;
            submitted++;
        }
        unsigned b = done;
        int rc = matmul_guest_wait(d, slot[b], 10000000000ull);
        if (rc <= 0) {
            cli_die("request %u: %s", done,
                    rc ? matmul_guest_errmsg(d) : "not done in 10 s");
        }
        record *r = record_add();
        r->conn = -1;
        if (matmul_guest_complete(d, slot[b], &r->t) != 0) {
            cli_die("request %u: %s", done, matmul_guest_errmsg(d));
        }
        if (matmul_guest_read_device_timing(d, &r->t) != 0) {
            cli_die("request %u: %s", done, matmul_guest_errmsg(d));
        }
        done++;
    }
    /* Checked at the end: a check never delays seeing a request done. */
    for (unsigned i = 0; i < k; i++) {
        char why[256];
        recs.r[i].verified =
            matmul_expected_check(&ref, i, result, c[i], why, sizeof why);
        if (!recs.r[i].verified) {
            cli_warn("WRONG PRODUCT: %s", why);
            wrong++;
        }
    }
    print_stats(o->backend, result, wrong ? " selftest_ok=0" : " selftest_ok=1");
    for (unsigned i = 0; i < k; i++) {
        free(ab[i]);
        free(c[i]);
    }
    free(ab);
    free(c);
    free(slot);
    matmul_expected_free(&ref);
    return wrong ? 1 : 0;
}

/* ---- serving ------------------------------------------------------------------------
 */

typedef struct conn conn;

typedef struct job {
    struct job *next; /* in exactly one list: free, pending, in flight, a conn's tx */
    conn *c;
    uint16_t type;
    uint64_t req_id;
    uint32_t n, buf_n; /* buf_n: the size the buffers hold */
    uint32_t result;   /* the format the request asks for */
    int8_t *ab;        /* A then B, as received */
    void *cbuf;        /* the product, in the server's --result format */
    int slot;
    uint64_t rx_first_ns, rx_done_ns; /* first and last byte of the request */
    size_t rec;                       /* its record, SIZE_MAX: none yet */
    uint8_t hdr[MATMUL_WIRE_RSP_BYTES];
    size_t sent, total;
} job;

struct conn {
    int fd, id;
    bool dead; /* closed or broken: finish its jobs, drop their replies */
    int jobs;  /* jobs that point here */
    uint8_t hdr[MATMUL_WIRE_REQ_BYTES];
    size_t hdr_got;
    uint64_t rx_first_ns; /* the current request's first byte arrived */
    job *rx;              /* receiving this job's payload */
    size_t rx_got;
    job *tx_head, *tx_tail;
};

typedef struct jobq {
    job *head, *tail;
} jobq;

static void q_push(jobq *q, job *j)
{
    j->next = NULL;
    if (q->tail) {
        q->tail->next = j;
    } else {
        q->head = j;
    }
    q->tail = j;
}

static job *q_pop(jobq *q)
{
    job *j = q->head;
    if (j) {
        q->head = j->next;
        if (!q->head) {
            q->tail = NULL;
        }
        j->next = NULL;
    }
    return j;
}

typedef struct server {
    const options *o;
    matmul_guest *d;
    uint32_t max_n;
    int listen_fd;
    conn *conns[MAX_CONNS];
    int next_conn_id;
    jobq pending, inflight;
    job *free_jobs;
    uint64_t answered;   /* MULTIPLY replies fully sent (or dropped) */
    bool timing_pending; /* a, regcopy: device timing of rec_pending unread */
    size_t rec_pending;
} server;

static job *job_get(server *s, conn *c, uint32_t n)
{
    job *j = NULL, **pp = &s->free_jobs;
    for (; *pp; pp = &(*pp)->next) {
        if ((*pp)->buf_n >= n) {
            j = *pp;
            *pp = j->next;
            break;
        }
    }
    if (!j) {
        size_t nn = (size_t)n * n;
        j = calloc(1, sizeof *j);
        if (!j || !(j->ab = malloc(2 * nn)) ||
            !(j->cbuf = malloc(nn * matmul_result_bytes(s->o->drv.result)))) {
            cli_die("out of memory for a request of n = %u", n);
        }
        j->buf_n = n;
    }
    j->next = NULL;
    j->c = c;
    j->n = n;
    j->sent = j->total = 0;
    j->slot = -1;
    j->rec = SIZE_MAX;
    c->jobs++;
    return j;
}

static void conn_free_if_done(server *s, conn *c)
{
    if (!c->dead || c->jobs > 0) {
        return;
    }
    for (int i = 0; i < MAX_CONNS; i++) {
        if (s->conns[i] == c) {
            s->conns[i] = NULL;
        }
    }
    free(c);
}

static void job_put(server *s, job *j)
{
    conn *c = j->c;
    j->c = NULL;
    j->next = s->free_jobs;
    s->free_jobs = j;
    c->jobs--;
    conn_free_if_done(s, c);
}

static void conn_kill(server *s, conn *c, const char *why)
{
    if (c->dead) {
        return;
    }
    if (why) {
        cli_warn("connection %d: %s", c->id, why);
    }
    c->dead = true;
    close(c->fd);
    c->fd = -1;
    if (c->rx) {
        job *j = c->rx;
        c->rx = NULL;
        job_put(s, j);
    }
    while (c->tx_head) {
        job *j = c->tx_head;
        c->tx_head = j->next;
        if (j->type == MATMUL_WIRE_MULTIPLY) {
            s->answered++;
        }
        job_put(s, j);
    }
    c->tx_tail = NULL;
    conn_free_if_done(s, c);
}

/* Sends what the socket takes of c's replies. */
static void conn_flush(server *s, conn *c)
{
    while (!c->dead && c->tx_head) {
        job *j = c->tx_head;
        struct iovec iov[2];
        int cnt = 0;
        if (j->sent < sizeof j->hdr) {
            iov[cnt++] = (struct iovec){j->hdr + j->sent, sizeof j->hdr - j->sent};
        }
        size_t payload_done = j->sent > sizeof j->hdr ? j->sent - sizeof j->hdr : 0;
        size_t payload = j->total - sizeof j->hdr;
        if (payload_done < payload) {
            iov[cnt++] =
                (struct iovec){(uint8_t *)j->cbuf + payload_done, payload - payload_done};
        }
        struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)cnt};
        ssize_t got = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
        if (got < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                return;
            }
            char why[128];
            snprintf(why, sizeof why, "send: %s", strerror(errno));
            conn_kill(s, c, why);
            return;
        }
        j->sent += (size_t)got;
        if (j->sent == j->total) {
            c->tx_head = j->next;
            if (!c->tx_head) {
                c->tx_tail = NULL;
            }
            if (j->type == MATMUL_WIRE_MULTIPLY) {
                s->answered++;
            }
            if (j->rec != SIZE_MAX) {
                recs.r[j->rec].tx_done_ns = mortar_guest_now_ns();
                mortar_guest_mark(MORTAR_MARK_REPLY_SENT, j->req_id);
            }
            job_put(s, j);
        }
    }
}

/* Queues the reply of j on its connection and tries to send it. */
static void reply(server *s, job *j, uint16_t status, uint64_t service_ns)
{
    conn *c = j->c;
    bool with_c = status == MATMUL_WIRE_OK && j->type == MATMUL_WIRE_MULTIPLY;
    matmul_result result = s->o->drv.result;
    matmul_wire_rsp rsp = {
        .status = status,
        .req_id = j->req_id,
        .n = j->n,
        .result = with_c ? (uint32_t)result : j->result,
        .payload_bytes = with_c ? (uint64_t)j->n * j->n * matmul_result_bytes(result) : 0,
        .service_ns = service_ns};
    matmul_wire_rsp_encode(&rsp, j->hdr);
    j->sent = 0;
    j->total = sizeof j->hdr + rsp.payload_bytes;
    if (c->dead) {
        if (j->type == MATMUL_WIRE_MULTIPLY) {
            s->answered++;
        }
        job_put(s, j);
        return;
    }
    j->next = NULL;
    if (c->tx_tail) {
        c->tx_tail->next = j;
    } else {
        c->tx_head = j;
    }
    c->tx_tail = j;
    conn_flush(s, c);
}

static bool supported(const server *s, uint32_t n)
{
    if (n == 0 || n % 128 || n > s->max_n) {
        return false;
    }
    return matmul_guest_backend(s->d) != MATMUL_BACKEND_REGCOPY || n == s->max_n;
}

/* A request's payload has arrived. */
static void request_received(server *s, job *j)
{
    j->rx_done_ns = mortar_guest_now_ns();
    if (j->type == MATMUL_WIRE_MULTIPLY) {
        mortar_guest_mark(MORTAR_MARK_REQUEST_RECEIVED, j->req_id);
    }
    if (j->type == MATMUL_WIRE_STATS) {
        print_stats(s->o->backend, s->o->drv.result, NULL);
        reply(s, j, MATMUL_WIRE_OK, 0);
    } else if (j->result != (uint32_t)s->o->drv.result) {
        cli_warn("request %" PRIu64 ": asks for result format %u; this server returns %s "
                 "(--result)",
                 j->req_id, j->result, matmul_result_name(s->o->drv.result));
        reply(s, j, MATMUL_WIRE_BAD_REQUEST, 0);
    } else if (!supported(s, j->n)) {
        cli_warn("request %" PRIu64 ": n = %u is not supported (max %u%s)", j->req_id,
                 j->n, s->max_n,
                 matmul_guest_backend(s->d) == MATMUL_BACKEND_REGCOPY ? ", exactly" : "");
        reply(s, j, MATMUL_WIRE_BAD_REQUEST, 0);
    } else {
        q_push(&s->pending, j);
    }
}

/* A header has arrived: set up the job for its payload. */
static void header_received(server *s, conn *c)
{
    matmul_wire_req req;
    c->hdr_got = 0;
    if (matmul_wire_req_decode(c->hdr, &req) != 0) {
        conn_kill(s, c, "not a matmul request (magic or version)");
        return;
    }
    uint64_t want = req.type == MATMUL_WIRE_MULTIPLY ? 2ull * req.n * req.n : 0;
    if ((req.type != MATMUL_WIRE_MULTIPLY && req.type != MATMUL_WIRE_STATS) ||
        req.payload_bytes != want || req.n > MAX_WIRE_N) {
        char why[160];
        snprintf(why, sizeof why,
                 "bad request header (type %u, n %u, payload %" PRIu64 ")", req.type,
                 req.n, req.payload_bytes);
        conn_kill(s, c, why);
        return;
    }
    job *j = job_get(s, c, req.type == MATMUL_WIRE_MULTIPLY ? req.n : 128);
    j->rx_first_ns = c->rx_first_ns;
    j->type = req.type;
    j->req_id = req.req_id;
    j->n = req.n;
    j->result = req.result;
    if (want == 0) {
        request_received(s, j);
    } else {
        c->rx = j;
        c->rx_got = 0;
    }
}

static void conn_read(server *s, conn *c)
{
    while (!c->dead) {
        void *dst;
        size_t len;
        if (c->rx) {
            size_t total = 2 * (size_t)c->rx->n * c->rx->n;
            dst = (uint8_t *)c->rx->ab + c->rx_got;
            len = total - c->rx_got;
        } else {
            dst = c->hdr + c->hdr_got;
            len = sizeof c->hdr - c->hdr_got;
        }
        ssize_t got = recv(c->fd, dst, len, 0);
        if (got > 0 && !c->rx && c->hdr_got == 0) {
            c->rx_first_ns = mortar_guest_now_ns();
        }
        if (got < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                return;
            }
            char why[128];
            snprintf(why, sizeof why, "recv: %s", strerror(errno));
            conn_kill(s, c, why);
            return;
        }
        if (got == 0) {
            if (c->rx || c->hdr_got) {
                conn_kill(s, c, "closed in the middle of a request");
            } else {
                conn_kill(s, c, NULL);
            }
            return;
        }
        if (c->rx) {
            c->rx_got += (size_t)got;
            if (c->rx_got == 2 * (size_t)c->rx->n * c->rx->n) {
                job *j = c->rx;
                c->rx = NULL;
                request_received(s, j);
            }
        } else {
            c->hdr_got += (size_t)got;
            if (c->hdr_got == sizeof c->hdr) {
                header_received(s, c);
            }
        }
    }
}

static void accept_conns(server *s)
{
    for (;;) {
        int fd = accept(s->listen_fd, NULL, NULL);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                cli_warn("accept: %s", strerror(errno));
            }
            return;
        }
        int slot = -1;
        for (int i = 0; i < MAX_CONNS && slot < 0; i++) {
            if (!s->conns[i]) {
                slot = i;
            }
        }
        conn *c = slot >= 0 ? calloc(1, sizeof *c) : NULL;
        if (!c || matmul_wire_tune_socket(fd) != 0) {
            cli_warn("refusing a connection (%s)", c ? strerror(errno) : "too many");
            free(c);
            close(fd);
            continue;
        }
        c->fd = fd;
        c->id = s->next_conn_id++;
        s->conns[slot] = c;
    }
}

/* Reads the device timing of the request answered last (a, regcopy). */
static void read_pending_timing(server *s)
{
    if (!s->timing_pending) {
        return;
    }
    s->timing_pending = false;
    record *r = &recs.r[s->rec_pending];
    if (matmul_guest_read_device_timing(s->d, &r->t) != 0) {
        cli_warn("reading the device timing: %s", matmul_guest_errmsg(s->d));
    }
}

/* Completes the requests the backend has finished, oldest first. */
static void reap(server *s)
{
    while (s->inflight.head) {
        job *j = s->inflight.head;
        int rc = matmul_guest_wait(s->d, j->slot, 0);
        if (rc == 0) {
            return;
        }
        if (rc < 0) {
            cli_die("request %" PRIu64 ": %s", j->req_id, matmul_guest_errmsg(s->d));
        }
        q_pop(&s->inflight);
        mortar_guest_mark(MORTAR_MARK_DEVICE_DONE, j->req_id);
        record *r = record_add();
        r->conn = j->c->id;
        r->rx_first_ns = j->rx_first_ns;
        r->rx_done_ns = j->rx_done_ns;
        j->rec = recs.count - 1;
        rc = matmul_guest_complete(s->d, j->slot, &r->t);
        if (rc) {
            cli_warn("request %" PRIu64 ": %s", j->req_id, matmul_guest_errmsg(s->d));
            r->failed = true;
        }
        uint64_t service = r->t.done_ns - r->t.submit_ns;
        reply(s, j, rc ? MATMUL_WIRE_FAILED : MATMUL_WIRE_OK, service);
        if (!rc && !r->t.dev_timing && s->o->backend != MATMUL_BACKEND_SOFTWARE) {
            s->timing_pending = true;
            s->rec_pending = recs.count - 1;
        }
    }
}

static bool tx_busy(const server *s)
{
    for (int i = 0; i < MAX_CONNS; i++) {
        if (s->conns[i] && !s->conns[i]->dead && s->conns[i]->tx_head) {
            return true;
        }
    }
    return false;
}

/* Whether the network may hold work for the loop while the device is busy:
 * a connection with no request here (it may send one), one partway through
 * a request, or one with a reply to send. */
static bool network_may_need_us(const server *s)
{
    for (int i = 0; i < MAX_CONNS; i++) {
        const conn *c = s->conns[i];
        if (c && !c->dead && (c->jobs == 0 || c->rx || c->hdr_got || c->tx_head)) {
            return true;
        }
    }
    return false;
}

/* Works on the oldest request in the device for up to timeout_ns. */
static void drive_device(server *s, uint64_t timeout_ns)
{
    if (matmul_guest_wait(s->d, s->inflight.head->slot, timeout_ns) < 0) {
        cli_die("request %" PRIu64 ": %s", s->inflight.head->req_id,
                matmul_guest_errmsg(s->d));
    }
}

static void submit_pending(server *s)
{
    while (s->pending.head &&
           matmul_guest_in_flight(s->d) < matmul_guest_capacity(s->d)) {
        /* The timing registers restart with the next request: read them now. */
        read_pending_timing(s);
        job *j = q_pop(&s->pending);
        mortar_guest_mark(MORTAR_MARK_DEVICE_START, j->req_id);
        j->slot = matmul_guest_submit(s->d, j->req_id, j->n, j->ab,
                                      j->ab + (size_t)j->n * j->n, j->cbuf);
        if (j->slot < 0) {
            /* a, regcopy: the device reported an error or timed out. */
            cli_warn("request %" PRIu64 ": %s", j->req_id, matmul_guest_errmsg(s->d));
            record *r = record_add();
            r->conn = j->c->id;
            r->t.req_id = j->req_id;
            r->t.n = j->n;
            r->failed = true;
            reply(s, j, MATMUL_WIRE_FAILED, 0);
            continue;
        }
        q_push(&s->inflight, j);
        reap(s); /* a, regcopy, software: already done */
    }
}

/*
 * Before exiting: the replies may still sit in the kernel's socket buffers,
 * and the guest's init powers the host off as soon as we exit. So half-close
 * every connection and wait (up to LINGER_NS of guest time) until the
 * client has closed its side, i.e. has everything.
 */
static void linger_conns(server *s)
{
    uint64_t deadline = mortar_guest_now_ns() + LINGER_NS;
    for (int i = 0; i < MAX_CONNS; i++) {
        if (s->conns[i] && !s->conns[i]->dead) {
            shutdown(s->conns[i]->fd, SHUT_WR);
        }
    }
    for (;;) {
        struct pollfd fds[MAX_CONNS];
        conn *fd_conn[MAX_CONNS];
        nfds_t nfds = 0;
        for (int i = 0; i < MAX_CONNS; i++) {
            if (s->conns[i] && !s->conns[i]->dead) {
                fds[nfds] = (struct pollfd){.fd = s->conns[i]->fd, .events = POLLIN};
                fd_conn[nfds++] = s->conns[i];
            }
        }
        uint64_t now = mortar_guest_now_ns();
        if (nfds == 0 || now >= deadline) {
            if (nfds) {
                cli_warn("%u connection(s) still open after %llu ms", (unsigned)nfds,
                         (unsigned long long)(LINGER_NS / 1000000));
            }
            return;
        }
        if (poll(fds, nfds, (int)((deadline - now) / 1000000) + 1) < 0 &&
            errno != EINTR) {
            return;
        }
        for (nfds_t i = 0; i < nfds; i++) {
            if (fds[i].revents) {
                char buf[4096];
                ssize_t got = recv(fds[i].fd, buf, sizeof buf, 0);
                if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
                    conn_kill(s, fd_conn[i], NULL);
                }
            }
        }
    }
}

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static int open_listener(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_ANY)};
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 64) != 0) {
        cli_die("listening on port %d: %s", port, strerror(errno));
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0) {
        cli_die("listening socket: %s", strerror(errno));
    }
    return fd;
}

static int serve(matmul_guest *d, const options *o)
{
    server s = {.o = o, .d = d, .max_n = matmul_guest_max_n(d)};
    s.listen_fd = open_listener(o->port);
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    printf("listening port=%d backend=%s inflight=%u max_n=%u result=%s\n", o->port,
           matmul_backend_name(o->backend), matmul_guest_capacity(d), s.max_n,
           matmul_result_name(o->drv.result));
    cli_step("server-listening");

    struct pollfd fds[MAX_CONNS + 1];
    conn *fd_conn[MAX_CONNS + 1];
    while (!stop_requested) {
        reap(&s);
        submit_pending(&s);
        if (s.timing_pending && !s.pending.head && !tx_busy(&s)) {
            read_pending_timing(&s);
        }
        if (o->requests && s.answered >= o->requests && !tx_busy(&s) &&
            !s.inflight.head) {
            break;
        }
        bool busy = s.inflight.head != NULL;
        if (busy && !network_may_need_us(&s)) {
            drive_device(&s, MATMUL_GUEST_UNTIL_DONE);
            continue;
        }
        nfds_t nfds = 0;
        fds[nfds] = (struct pollfd){.fd = s.listen_fd, .events = POLLIN};
        fd_conn[nfds++] = NULL;
        for (int i = 0; i < MAX_CONNS; i++) {
            conn *c = s.conns[i];
            if (c && !c->dead) {
                fds[nfds] = (struct pollfd){
                    .fd = c->fd, .events = (short)(POLLIN | (c->tx_head ? POLLOUT : 0))};
                fd_conn[nfds++] = c;
            }
        }
        int ready = poll(fds, nfds, busy ? 0 : -1);
        if (ready < 0) {
            if (errno == EINTR) {
                continue;
            }
            cli_die("poll: %s", strerror(errno));
        }
        if (ready == 0) {
            if (busy) {
                drive_device(&s, SPIN_NS);
            }
            continue;
        }
        for (nfds_t i = 0; i < nfds; i++) {
            if (!fds[i].revents) {
                continue;
            }
            if (!fd_conn[i]) {
                accept_conns(&s);
                continue;
            }
            conn *c = fd_conn[i];
            if (fds[i].revents & POLLOUT) {
                conn_flush(&s, c);
            }
            if (!c->dead && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) {
                conn_read(&s, c);
            }
        }
    }
    read_pending_timing(&s);
    print_stats(o->backend, o->drv.result, NULL);
    close(s.listen_fd);
    linger_conns(&s);
    return 0;
}

int main(int argc, char **argv)
{
    cli_set_prog(prog);
    options o;
    parse_options(argc, argv, &o);
    matmul_guest *d;
    char err[512];
    unsigned asked = o.drv.inflight;
    if (matmul_guest_open(&d, o.backend, &o.drv, err, sizeof err) != 0) {
        cli_die("%s", err);
    }
    /* A load of N in flight on a backend that holds fewer waits in this
     * server's queue, which is what the load runs measure. */
    if (asked > matmul_guest_capacity(d)) {
        printf("note: backend %s takes %u request%s at a time; with --inflight %u "
               "the others wait in the server's queue\n",
               matmul_backend_name(o.backend), matmul_guest_capacity(d),
               matmul_guest_capacity(d) == 1 ? "" : "s", asked);
    }
    if (matmul_guest_max_n(d) != o.n) {
        /* regcopy: the device's windows decide n. */
        if (o.n_given) {
            cli_die("the register-copy device holds n = %u, not %u",
                    matmul_guest_max_n(d), o.n);
        }
        o.n = matmul_guest_max_n(d);
    }
    int rc = o.selftest ? run_selftest(d, &o) : serve(d, &o);
    matmul_guest_close(d);
    return rc;
}
