/*
 * test_handshake.c - setting up a link over a UNIX socket: a good handshake
 * exchanges the upper intros; every kind of mismatch or broken peer ends in
 * a clear error naming the link, and nothing hangs. The connector tells its
 * producer, in the region, whether it may sleep and how it fences then, and
 * shows while it waits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "mortar/error.h"
#include "mortar/link.h"
#include "mortar/pcie.h"

static char sock_path[108];

static void params(mortar_link_params *p, const char *name, uint32_t protocol)
{
    mortar_link_params_init(p);
    p->name = name;
    p->protocol = protocol;
    p->slot_size = 256;
    p->slot_count = 16;
    p->handshake_timeout_ms = 2000;
}

typedef struct listener_job {
    mortar_link_params p;
    int rc;
    char err[512];
    mortar_link *link;
} listener_job;

static void *run_listener(void *arg)
{
    listener_job *j = arg;
    j->rc = mortar_link_listen(&j->link, sock_path, &j->p, j->err, sizeof j->err);
    if (j->rc == 0) {
        j->rc = mortar_link_accept(j->link);
        snprintf(j->err, sizeof j->err, "%s", mortar_link_errmsg(j->link));
    }
    return NULL;
}

static int setup(void **state)
{
    (void)state;
    snprintf(sock_path, sizeof sock_path, "/tmp/mortar-hs-%d.sock", (int)getpid());
    return 0;
}

/* Runs a real listener with `lp` against a real connector with `cp`. */
static int handshake(listener_job *lj, mortar_link_params *cp, mortar_link **conn, char *err,
                     size_t size)
{
    pthread_t t;
    pthread_create(&t, NULL, run_listener, lj);
    usleep(20000);
    int rc = mortar_link_connect(conn, sock_path, cp, err, size);
    pthread_join(t, NULL);
    return rc;
}

static void test_handshake_exchanges_upper_intros(void **state)
{
    (void)state;
    listener_job lj = {0};
    params(&lj.p, "pcie0", MORTAR_PROTO_PCIE);
    lj.p.latency_ps = 2500000;
    lj.p.upper_intro = "device-intro";
    lj.p.upper_intro_size = 13;
    mortar_link_params cp;
    params(&cp, "pcie0", MORTAR_PROTO_PCIE);
    cp.latency_ps = 0; /* take the listener's */
    cp.upper_intro = "host";
    cp.upper_intro_size = 5;
    mortar_link *conn;
    char err[512];
    assert_int_equal(handshake(&lj, &cp, &conn, err, sizeof err), 0);
    assert_int_equal(lj.rc, 0);
    uint32_t size;
    assert_string_equal(mortar_link_peer_intro(conn, &size), "device-intro");
    assert_string_equal(mortar_link_peer_intro(lj.link, &size), "host");
    assert_int_equal(mortar_link_latency(conn), 2500000);
    /* and the rings work both ways */
    assert_int_equal(mortar_link_send(conn, 0, 0x10, "hi", 2, 0, NULL), 0);
    assert_int_equal(mortar_link_wait(lj.link, 1000), 0);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(lj.link, &m), 1);
    assert_memory_equal(m.payload, "hi", 2);
    mortar_link_close(conn);
    mortar_link_close(lj.link);
}

static void test_handshake_gives_the_connector_the_listeners_pcie_layer(void **state)
{
    (void)state;
    listener_job lj = {0};
    params(&lj.p, "pcie1", MORTAR_PROTO_PCIE);
    mortar_pcie_wire_init(&lj.p.pcie);
    lj.p.pcie.lanes = 8;
    lj.p.pcie.dma_read_host_ps = 123000;
    mortar_link_params cp;
    params(&cp, "pcie1", MORTAR_PROTO_PCIE); /* no layer of its own */
    mortar_link *conn;
    char err[512];
    assert_int_equal(handshake(&lj, &cp, &conn, err, sizeof err), 0);
    const mortar_pcie_wire *w = mortar_link_pcie(conn);
    assert_int_equal(w->gen, 3);
    assert_int_equal(w->lanes, 8);
    assert_int_equal(w->mps, 256);
    assert_int_equal(w->dma_read_host_ps, 123000);
    /* and the connector's messages cost their TLPs: an MMIO write of 4
     * bytes is one of 24 bytes after the latency */
    uint8_t wr[sizeof(mortar_pcie_mmio) + 4] = {0};
    *(mortar_pcie_mmio *)wr = (mortar_pcie_mmio){.offset = 0x40, .size = 4, .posted = 1};
    uint64_t stamp = 0;
    assert_int_equal(mortar_link_send(conn, 0, MORTAR_PCIE_MMIO_WRITE, wr, sizeof wr, 0,
                                      &stamp),
                     0);
    assert_int_equal(stamp, mortar_link_latency(conn) + mortar_pcie_wire_ps(w, 24));
    mortar_link_close(conn);
    mortar_link_close(lj.link);
}

static void test_handshake_reports_protocol_mismatch(void **state)
{
    (void)state;
    listener_job lj = {0};
    params(&lj.p, "l0", MORTAR_PROTO_PCIE);
    mortar_link_params cp;
    params(&cp, "l0", MORTAR_PROTO_ETH);
    mortar_link *conn;
    char err[512];
    assert_int_equal(handshake(&lj, &cp, &conn, err, sizeof err), MORTAR_EPROTO);
    assert_null(conn);
    assert_non_null(strstr(err, "link 'l0'"));
    assert_non_null(strstr(err, "protocol mismatch"));
    assert_int_equal(lj.rc, MORTAR_EPEER); /* the listener sees the rejection */
    mortar_link_close(lj.link);
}

static void test_handshake_reports_sync_mode_conflict(void **state)
{
    (void)state;
    listener_job lj = {0};
    params(&lj.p, "l1", MORTAR_PROTO_TEST);
    mortar_link_params cp;
    params(&cp, "l1", MORTAR_PROTO_TEST);
    cp.sync_mode = MORTAR_SYNC_OFF;
    mortar_link *conn;
    char err[512];
    assert_int_equal(handshake(&lj, &cp, &conn, err, sizeof err), MORTAR_EPROTO);
    assert_non_null(strstr(err, "sync-mode conflict"));
    mortar_link_close(lj.link);
}

static void test_handshake_reports_latency_mismatch(void **state)
{
    (void)state;
    listener_job lj = {0};
    params(&lj.p, "l2", MORTAR_PROTO_TEST);
    mortar_link_params cp;
    params(&cp, "l2", MORTAR_PROTO_TEST);
    cp.latency_ps = 1000;
    mortar_link *conn;
    char err[512];
    assert_int_equal(handshake(&lj, &cp, &conn, err, sizeof err), MORTAR_EPROTO);
    assert_non_null(strstr(err, "latency mismatch"));
    mortar_link_close(lj.link);
}

/* A fake listener that sends `bytes` of a crafted intro (with a memfd) and
 * closes. */
typedef struct fake_listener {
    mortar_link_intro intro;
    size_t bytes;
} fake_listener;

static void *run_fake_listener(void *arg)
{
    fake_listener *f = arg;
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    strcpy(sa.sun_path, sock_path);
    unlink(sock_path);
    bind(s, (struct sockaddr *)&sa, sizeof sa);
    listen(s, 1);
    int c = accept(s, NULL, NULL);
    int fd = memfd_create("fake", 0);
    ftruncate(fd, 1 << 16);
    struct iovec iov = {.iov_base = &f->intro, .iov_len = f->bytes};
    char control[CMSG_SPACE(sizeof(int))] = {0};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                        .msg_controllen = sizeof control};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof fd);
    if (f->bytes)
        sendmsg(c, &mh, MSG_NOSIGNAL);
    usleep(50000);
    close(c);
    close(fd);
    close(s);
    unlink(sock_path);
    return NULL;
}

static int connect_to_fake(fake_listener *f, char *err, size_t size)
{
    pthread_t t;
    pthread_create(&t, NULL, run_fake_listener, f);
    usleep(20000);
    mortar_link_params cp;
    params(&cp, "victim", MORTAR_PROTO_TEST);
    cp.latency_ps = 0; /* take the listener's, as a host does */
    mortar_link *conn = NULL;
    int rc = mortar_link_connect(&conn, sock_path, &cp, err, size);
    pthread_join(t, NULL);
    mortar_link_close(conn);
    return rc;
}

static void good_intro(mortar_link_intro *in)
{
    memset(in, 0, sizeof *in);
    in->magic = MORTAR_LINK_MAGIC;
    in->version = MORTAR_LINK_VERSION;
    in->intro_size = sizeof *in;
    in->protocol = MORTAR_PROTO_TEST;
    in->sync_mode = MORTAR_SYNC_ON;
    in->slot_size = 256;
    in->slot_count = 16;
    in->latency_ps = 500000;
    in->sync_interval_ps = 500000;
    in->shm_size = MORTAR_SHM_HEADER_SIZE + 2 * 256 * 16;
}

static void test_handshake_reports_version_mismatch(void **state)
{
    (void)state;
    fake_listener f;
    good_intro(&f.intro);
    f.intro.version = MORTAR_LINK_VERSION + 1;
    f.bytes = sizeof f.intro;
    char err[512];
    assert_int_equal(connect_to_fake(&f, err, sizeof err), MORTAR_EVERSION);
    assert_non_null(strstr(err, "version mismatch"));
    assert_non_null(strstr(err, "victim"));
}

static void test_handshake_refuses_a_pcie_layer_on_another_protocol(void **state)
{
    (void)state;
    fake_listener f;
    good_intro(&f.intro);
    mortar_pcie_wire_init(&f.intro.pcie); /* on a test link */
    f.bytes = sizeof f.intro;
    char err[512];
    assert_int_equal(connect_to_fake(&f, err, sizeof err), MORTAR_EPROTO);
    assert_non_null(strstr(err, "peer's intro is invalid"));
    assert_non_null(strstr(err, "does not speak PCIe"));
}

static void test_handshake_refuses_a_latency_that_would_overflow_time(void **state)
{
    (void)state;
    fake_listener f;
    good_intro(&f.intro);
    f.intro.latency_ps = UINT64_MAX; /* stamps would wrap */
    f.intro.sync_interval_ps = 500000;
    f.bytes = sizeof f.intro;
    char err[512];
    assert_int_equal(connect_to_fake(&f, err, sizeof err), MORTAR_EPROTO);
    assert_non_null(strstr(err, "latency must be at most 1 s"));
}

static void test_handshake_reports_truncated_intro(void **state)
{
    (void)state;
    fake_listener f;
    good_intro(&f.intro);
    f.bytes = 20;
    char err[512];
    assert_int_equal(connect_to_fake(&f, err, sizeof err), MORTAR_EPROTO);
    assert_non_null(strstr(err, "truncated intro"));
}

static void test_handshake_reports_bad_magic(void **state)
{
    (void)state;
    fake_listener f;
    good_intro(&f.intro);
    f.intro.magic = 0x12345678;
    f.bytes = sizeof f.intro;
    char err[512];
    assert_int_equal(connect_to_fake(&f, err, sizeof err), MORTAR_EPROTO);
    assert_non_null(strstr(err, "bad magic"));
}

static void test_handshake_reports_peer_closing_before_intro(void **state)
{
    (void)state;
    fake_listener f;
    good_intro(&f.intro);
    f.bytes = 0;
    char err[512];
    assert_int_equal(connect_to_fake(&f, err, sizeof err), MORTAR_EPEER);
    assert_non_null(strstr(err, "closed"));
}

/* A fake connector that connects and hangs up at once. */
static void *run_fake_connector(void *arg)
{
    (void)arg;
    usleep(20000);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    strcpy(sa.sun_path, sock_path);
    connect(s, (struct sockaddr *)&sa, sizeof sa);
    close(s);
    return NULL;
}

static void test_handshake_reports_connector_closing_mid_handshake(void **state)
{
    (void)state;
    mortar_link_params p;
    params(&p, "lonely", MORTAR_PROTO_TEST);
    mortar_link *l;
    char err[512];
    assert_int_equal(mortar_link_listen(&l, sock_path, &p, err, sizeof err), 0);
    pthread_t t;
    pthread_create(&t, NULL, run_fake_connector, NULL);
    int rc = mortar_link_accept(l);
    pthread_join(t, NULL);
    assert_true(rc == MORTAR_EPEER || rc == MORTAR_EIO);
    assert_non_null(strstr(mortar_link_errmsg(l), "lonely"));
    mortar_link_close(l);
}

static void test_handshake_times_out_without_listener(void **state)
{
    (void)state;
    mortar_link_params p;
    params(&p, "nobody", MORTAR_PROTO_TEST);
    p.handshake_timeout_ms = 200;
    mortar_link *l;
    char err[512];
    unlink(sock_path);
    assert_int_equal(mortar_link_connect(&l, sock_path, &p, err, sizeof err), MORTAR_ETIMEDOUT);
    assert_non_null(strstr(err, "nobody listens"));
}

/* A fake listener with a proper region: after the connector's intro it
 * hands the region to `watch`, which reads what the connector leaves there
 * (offsets from docs/protocol.md), and then hangs up. */
typedef struct region_listener {
    void (*watch)(struct region_listener *r, volatile uint32_t *region);
    uint32_t flag;          /* connector_flag: the flag read */
    atomic_int wait_over;   /* in_wait test: the connector's wait returned */
    uint32_t while_waiting; /* in_wait test: the hint seen during the wait */
    uint32_t after_wait;    /* in_wait test: the hint after it */
    int ok;
} region_listener;

static void *run_region_listener(void *arg)
{
    region_listener *r = arg;
    mortar_link_intro in;
    good_intro(&in);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    strcpy(sa.sun_path, sock_path);
    unlink(sock_path);
    bind(s, (struct sockaddr *)&sa, sizeof sa);
    listen(s, 1);
    int c = accept(s, NULL, NULL);
    int fd = memfd_create("fake", 0);
    ftruncate(fd, (off_t)in.shm_size);
    uint32_t *region = mmap(NULL, in.shm_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    region[0] = MORTAR_LINK_MAGIC;
    region[1] = MORTAR_LINK_VERSION;
    region[2] = in.slot_size;
    region[3] = in.slot_count;
    struct iovec iov = {.iov_base = &in, .iov_len = sizeof in};
    char control[CMSG_SPACE(sizeof(int))] = {0};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                        .msg_controllen = sizeof control};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof fd);
    sendmsg(c, &mh, MSG_NOSIGNAL);
    mortar_link_intro answer;
    r->ok = recv(c, &answer, sizeof answer, MSG_WAITALL) == (ssize_t)sizeof answer;
    if (r->ok)
        r->watch(r, region);
    munmap(region, in.shm_size);
    close(c);
    close(fd);
    close(s);
    unlink(sock_path);
    return NULL;
}

/* Connects to a region listener with wait policy `w`. */
static mortar_link *connect_to_region(region_listener *r, pthread_t *t, mortar_wait_policy w)
{
    pthread_create(t, NULL, run_region_listener, r);
    usleep(20000);
    mortar_link_params cp;
    params(&cp, "region", MORTAR_PROTO_TEST);
    cp.wait_policy = w;
    mortar_link *conn = NULL;
    char err[512];
    assert_int_equal(mortar_link_connect(&conn, sock_path, &cp, err, sizeof err), 0);
    return conn;
}

static void read_consumer_flags(region_listener *r, volatile uint32_t *region)
{
    r->flag = region[72 / 4]; /* direction 0, the connector's */
}

/* Returns the flag a connector with wait policy `w` leaves for its producer. */
static uint32_t connector_flag(mortar_wait_policy w)
{
    region_listener r = {.watch = read_consumer_flags, .flag = 99};
    pthread_t t;
    mortar_link *conn = connect_to_region(&r, &t, w);
    pthread_join(t, NULL);
    mortar_link_close(conn);
    assert_true(r.ok);
    return r.flag;
}

/* Whether this kernel lets a process run the barrier of bit 1. */
static bool kernel_has_global_barrier(void)
{
    long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    return q >= 0 && (q & MEMBARRIER_CMD_GLOBAL_EXPEDITED);
}

static void test_handshake_announces_whether_the_consumer_may_sleep(void **state)
{
    (void)state;
    assert_int_equal(connector_flag(MORTAR_WAIT_SPIN), 1);  /* never sleeps */
    assert_int_equal(connector_flag(MORTAR_WAIT_YIELD), 1);
    /* sleeps, with the barrier before it when the kernel has one */
    assert_int_equal(connector_flag(MORTAR_WAIT_BLOCK), kernel_has_global_barrier() ? 2 : 0);
}

/* Watches direction 0's `in_wait` (offset 88): set once the connector's
 * wait is past its first polls, for up to 2 s; then its value after the
 * wait returned. */
static void watch_in_wait(region_listener *r, volatile uint32_t *region)
{
    for (int i = 0; i < 2000 && !r->while_waiting; i++) {
        r->while_waiting = region[88 / 4];
        usleep(1000);
    }
    while (!atomic_load(&r->wait_over))
        usleep(1000);
    r->after_wait = region[88 / 4];
}

/* The peer's producer reads this hint to spin longer rather than give its
 * CPU away while our wait goes on (docs/protocol.md, "Waking a sleeping
 * consumer"); a stale 1 would make it spin for nothing. */
static void test_handshake_consumer_shows_it_waits_in_the_region(void **state)
{
    (void)state;
    mortar_wait_policy policies[] = {MORTAR_WAIT_SPIN, MORTAR_WAIT_YIELD, MORTAR_WAIT_BLOCK};
    for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++) {
        region_listener r = {.watch = watch_in_wait};
        pthread_t t;
        mortar_link *conn = connect_to_region(&r, &t, policies[i]);
        assert_int_equal(mortar_link_wait(conn, 300), MORTAR_ETIMEDOUT);
        atomic_store(&r.wait_over, 1);
        pthread_join(t, NULL);
        mortar_link_close(conn);
        assert_true(r.ok);
        assert_int_equal(r.while_waiting, 1);
        assert_int_equal(r.after_wait, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handshake_exchanges_upper_intros),
        cmocka_unit_test(test_handshake_gives_the_connector_the_listeners_pcie_layer),
        cmocka_unit_test(test_handshake_reports_protocol_mismatch),
        cmocka_unit_test(test_handshake_refuses_a_pcie_layer_on_another_protocol),
        cmocka_unit_test(test_handshake_refuses_a_latency_that_would_overflow_time),
        cmocka_unit_test(test_handshake_reports_sync_mode_conflict),
        cmocka_unit_test(test_handshake_reports_latency_mismatch),
        cmocka_unit_test(test_handshake_reports_version_mismatch),
        cmocka_unit_test(test_handshake_reports_truncated_intro),
        cmocka_unit_test(test_handshake_reports_bad_magic),
        cmocka_unit_test(test_handshake_reports_peer_closing_before_intro),
        cmocka_unit_test(test_handshake_reports_connector_closing_mid_handshake),
        cmocka_unit_test(test_handshake_times_out_without_listener),
        cmocka_unit_test(test_handshake_announces_whether_the_consumer_may_sleep),
        cmocka_unit_test(test_handshake_consumer_shows_it_waits_in_the_region),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
