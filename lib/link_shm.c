/*
 * link_shm.c - setting up links: the shared-memory region, the UNIX-socket
 * handshake that passes it, in-process pairs, and closing.
 *
 * Handshake (docs/protocol.md has the bytes):
 *   1. the listener creates a memfd with the header page and both rings;
 *   2. it sends its intro plus upper intro, with the memfd as SCM_RIGHTS;
 *   3. the connector checks magic, version, protocol, sync mode, latency and
 *      sizes, maps the region, and answers with its own intro plus upper
 *      intro (no fd); on a mismatch it closes the socket instead;
 *   4. the listener checks the answer the same way.
 * The socket stays open for the whole run: its hang-up is how a side learns
 * that its peer died without sending terminate.
 */
#include "link_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "mortar/error.h"

static const char *protocol_name(uint32_t p)
{
    switch (p) {
    case MORTAR_PROTO_TEST: return "test";
    case MORTAR_PROTO_PCIE: return "pcie";
    case MORTAR_PROTO_ETH: return "ethernet";
    default: return "unknown";
    }
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static mortar_link *link_alloc(const mortar_link_params *p)
{
    mortar_link *link = calloc(1, sizeof *link);
    if (!link)
        return NULL;
    snprintf(link->name, sizeof link->name, "%s", p->name ? p->name : "link");
    link->protocol = p->protocol;
    link->hot.slot_size = p->slot_size;
    link->hot.slot_count = p->slot_count;
    link->hot.timing.latency_ps = p->latency_ps;
    link->hot.timing.bandwidth_bps = p->bandwidth_bps;
    link->hot.timing.pcie = p->pcie;
    link->sync_interval_ps = p->sync_interval_ps ? p->sync_interval_ps : p->latency_ps;
    link->hot.sync_mode = p->sync_mode;
    link->wait_policy = p->wait_policy;
    link->spin_ns = p->spin_ns;
    link->handshake_timeout_ms = p->handshake_timeout_ms ? p->handshake_timeout_ms : 30000;
    link->shm_fd = link->sock_fd = link->listen_fd = -1;
    link->hot.first_unseen_stamp_ps = MORTAR_TIME_MAX;
    if (p->upper_intro_size) {
        link->my_intro = malloc(p->upper_intro_size);
        if (!link->my_intro) {
            free(link);
            return NULL;
        }
        memcpy(link->my_intro, p->upper_intro, p->upper_intro_size);
        link->my_intro_size = p->upper_intro_size;
    }
    return link;
}

static size_t region_size(uint32_t slot_size, uint32_t slot_count)
{
    return MORTAR_SHM_HEADER_SIZE + 2 * (size_t)slot_size * slot_count;
}

static void init_header(mortar_link *link)
{
    shm_header *h = link->shm;
    h->magic = MORTAR_LINK_MAGIC;
    h->version = MORTAR_LINK_VERSION;
    h->slot_size = link->hot.slot_size;
    h->slot_count = link->hot.slot_count;
}

static int set_sockaddr(struct sockaddr_un *sa, const char *path)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sa->sun_path)
        return MORTAR_EINVAL;
    strcpy(sa->sun_path, path);
    return MORTAR_OK;
}

static void copy_error(char *err, size_t err_size, const char *text)
{
    if (err && err_size)
        snprintf(err, err_size, "%s", text);
}

/* ---- intro ------------------------------------------------------------- */

static void fill_intro(const mortar_link *link, mortar_link_intro *in)
{
    memset(in, 0, sizeof *in);
    in->magic = MORTAR_LINK_MAGIC;
    in->version = MORTAR_LINK_VERSION;
    in->intro_size = sizeof *in;
    in->protocol = link->protocol;
    in->sync_mode = link->hot.sync_mode;
    in->slot_size = link->hot.slot_size;
    in->slot_count = link->hot.slot_count;
    in->latency_ps = link->hot.timing.latency_ps;
    in->sync_interval_ps = link->sync_interval_ps;
    in->bandwidth_bps = link->hot.timing.bandwidth_bps;
    in->pcie = link->hot.timing.pcie;
    in->shm_size = link->shm_size;
    in->upper_intro_size = link->my_intro_size;
}

/* Reads exactly `n` bytes within the deadline. */
static int read_full_from(mortar_link *link, void *buf, size_t got, size_t n,
                          int64_t deadline, const char *what)
{
    while (got < n) {
        int left = (int)(deadline - wall_ms());
        if (left <= 0)
            return link_set_error(link, MORTAR_ETIMEDOUT, "timed out waiting for the peer's %s",
                                  what);
        struct pollfd pfd = {.fd = link->sock_fd, .events = POLLIN};
        int r = poll(&pfd, 1, left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue;
        ssize_t k = read(link->sock_fd, (uint8_t *)buf + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return link_set_error(link, MORTAR_EIO, "reading the %s: %s", what, strerror(errno));
        if (k == 0) {
            if (got == 0)
                return link_set_error(link, MORTAR_EPEER,
                                      "peer closed the connection during the handshake "
                                      "(it may have rejected our intro; see its log)");
            return link_set_error(link, MORTAR_EPROTO,
                                  "truncated %s: got %zu of %zu bytes before the peer closed",
                                  what, got, n);
        }
        got += (size_t)k;
    }
    return MORTAR_OK;
}

static int read_full(mortar_link *link, void *buf, size_t n, int64_t deadline,
                     const char *what)
{
    return read_full_from(link, buf, 0, n, deadline, what);
}

static int write_full(mortar_link *link, const void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t k = send(link->sock_fd, (const uint8_t *)buf + done, n - done, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return link_set_error(link, errno == EPIPE ? MORTAR_EPEER : MORTAR_EIO,
                                  "sending the intro: %s", strerror(errno));
        done += (size_t)k;
    }
    return MORTAR_OK;
}

/* Checks a peer's intro against ours. `from_listener` also checks sizes. */
static int check_intro(mortar_link *link, const mortar_link_intro *in, bool from_listener)
{
    if (in->magic != MORTAR_LINK_MAGIC)
        return link_set_error(link, MORTAR_EPROTO,
                              "peer is not a mortar link (bad magic 0x%08x)", in->magic);
    if (in->version != MORTAR_LINK_VERSION)
        return link_set_error(link, MORTAR_EVERSION,
                              "version mismatch: peer speaks link protocol version %u, this "
                              "side speaks version %u",
                              in->version, MORTAR_LINK_VERSION);
    if (in->intro_size != sizeof *in)
        return link_set_error(link, MORTAR_EPROTO, "intro of %u bytes, expected %zu",
                              in->intro_size, sizeof *in);
    if (in->protocol != link->protocol)
        return link_set_error(link, MORTAR_EPROTO,
                              "protocol mismatch: peer speaks %s (%u), this side %s (%u)",
                              protocol_name(in->protocol), in->protocol,
                              protocol_name(link->protocol), link->protocol);
    if (in->sync_mode != link->hot.sync_mode)
        return link_set_error(link, MORTAR_EPROTO,
                              "sync-mode conflict: peer runs %s, this side %s",
                              in->sync_mode ? "synchronized" : "unsynchronized",
                              link->hot.sync_mode ? "synchronized" : "unsynchronized");
    if (link->hot.timing.latency_ps && in->latency_ps != link->hot.timing.latency_ps)
        return link_set_error(link, MORTAR_EPROTO,
                              "latency mismatch: peer has %llu ps, this side %llu ps",
                              (unsigned long long)in->latency_ps,
                              (unsigned long long)link->hot.timing.latency_ps);
    if (in->upper_intro_size > 65536)
        return link_set_error(link, MORTAR_EPROTO, "upper intro of %u bytes is too large",
                              in->upper_intro_size);
    if (!from_listener)
        return MORTAR_OK;
    mortar_link_params p;
    mortar_link_params_init(&p);
    p.name = link->name;
    p.latency_ps = in->latency_ps;
    p.sync_interval_ps = in->sync_interval_ps;
    p.slot_size = in->slot_size;
    p.slot_count = in->slot_count;
    p.protocol = in->protocol;
    p.bandwidth_bps = in->bandwidth_bps;
    p.pcie = in->pcie;
    char why[256];
    if (mortar_link_params_check(&p, why, sizeof why) != 0)
        return link_set_error(link, MORTAR_EPROTO, "peer's intro is invalid: %s", why);
    if (in->shm_size != region_size(in->slot_size, in->slot_count))
        return link_set_error(link, MORTAR_EPROTO, "shared region of %llu bytes, expected %zu",
                              (unsigned long long)in->shm_size,
                              region_size(in->slot_size, in->slot_count));
    return MORTAR_OK;
}

static int read_peer_upper_intro(mortar_link *link, uint32_t size, int64_t deadline)
{
    if (size == 0)
        return MORTAR_OK;
    link->peer_intro = malloc(size);
    if (!link->peer_intro)
        return link_set_error(link, MORTAR_ENOMEM, "out of memory for the peer's intro");
    link->peer_intro_size = size;
    return read_full(link, link->peer_intro, size, deadline, "upper intro");
}

/* Maps the shared region and writes every page once, adding zero to its
 * first word (the peer may already use the region; an atomic add of zero
 * changes nothing). The first write to a page of a mapping costs a fault,
 * 6-17 us on the test machine (a guest with shadow page tables, where
 * neither MAP_POPULATE nor a read spares it), and a peer kept waiting that
 * long gives its CPU away: a fresh link's first pass through its rings,
 * a fault every 64 null messages, took 59-122 ms of oversubscribed
 * benchmark runs of 268-309 ms (bench/README.md, "Oversubscribed").
 * MADV_POPULATE_WRITE first fills the page tables in one call, so that the
 * writes only take the shadow tables' faults: a PCIe link's 4.7 MB mapped
 * in 5-9 ms instead of 12-16 ms, on either side (ignored where the kernel
 * lacks it). */
static int map_region(mortar_link *link)
{
    link->shm = mmap(NULL, link->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED, link->shm_fd, 0);
    if (link->shm == MAP_FAILED) {
        link->shm = NULL;
        return link_set_error(link, MORTAR_EIO, "mapping the shared region: %s", strerror(errno));
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *bytes = link->shm;
#ifdef MADV_POPULATE_WRITE
    (void)madvise(link->shm, link->shm_size, MADV_POPULATE_WRITE);
#endif
    for (size_t off = 0; off < link->shm_size; off += page)
        __atomic_fetch_add((uint32_t *)(void *)(bytes + off), 0, __ATOMIC_RELAXED);
    return MORTAR_OK;
}

/* ---- listener ------------------------------------------------------------ */

static int create_region(mortar_link *link)
{
    link->shm_size = region_size(link->hot.slot_size, link->hot.slot_count);
    link->shm_fd = memfd_create("mortar-link", MFD_CLOEXEC);
    if (link->shm_fd < 0)
        return link_set_error(link, MORTAR_EIO, "memfd_create: %s", strerror(errno));
    if (ftruncate(link->shm_fd, (off_t)link->shm_size) != 0)
        return link_set_error(link, MORTAR_EIO, "sizing the shared region: %s", strerror(errno));
    if (map_region(link) != 0)
        return MORTAR_EIO;
    init_header(link);
    link_map_rings(link, true);
    link_announce_sleeping(link);
    return MORTAR_OK;
}

int mortar_link_listen(mortar_link **out, const char *path, const mortar_link_params *p,
                       char *err, size_t err_size)
{
    *out = NULL;
    if (mortar_link_params_check(p, err, err_size) != 0)
        return MORTAR_EINVAL;
    mortar_link *link = link_alloc(p);
    if (!link)
        return MORTAR_ENOMEM;
    struct sockaddr_un sa;
    int rc = MORTAR_OK;
    if (set_sockaddr(&sa, path) != 0)
        rc = link_set_error(link, MORTAR_EINVAL, "socket path too long: %s", path);
    if (rc == 0)
        rc = create_region(link);
    if (rc == 0) {
        link->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        unlink(path);
        if (link->listen_fd < 0 || bind(link->listen_fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
            listen(link->listen_fd, 1) != 0)
            rc = link_set_error(link, MORTAR_EIO, "listening on %s: %s", path, strerror(errno));
        else
            link->path = strdup(path);
    }
    if (rc != 0) {
        copy_error(err, err_size, link->err);
        mortar_link_close(link);
        return rc;
    }
    *out = link;
    return MORTAR_OK;
}

static int send_listener_intro(mortar_link *link)
{
    mortar_link_intro in;
    fill_intro(link, &in);
    struct iovec iov = {.iov_base = &in, .iov_len = sizeof in};
    char control[CMSG_SPACE(sizeof(int))];
    memset(control, 0, sizeof control);
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                        .msg_controllen = sizeof control};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &link->shm_fd, sizeof(int));
    if (sendmsg(link->sock_fd, &mh, MSG_NOSIGNAL) != (ssize_t)sizeof in)
        return link_set_error(link, MORTAR_EIO, "sending the intro: %s", strerror(errno));
    if (link->my_intro_size)
        return write_full(link, link->my_intro, link->my_intro_size);
    return MORTAR_OK;
}

int mortar_link_accept(mortar_link *link)
{
    if (link->listen_fd < 0)
        return link_set_error(link, MORTAR_ESTATE, "accept on a link that is not listening");
    int64_t deadline = wall_ms() + link->handshake_timeout_ms;
    struct pollfd pfd = {.fd = link->listen_fd, .events = POLLIN};
    for (;;) {
        int left = (int)(deadline - wall_ms());
        if (left <= 0)
            return link_set_error(link, MORTAR_ETIMEDOUT,
                                  "no peer connected to %s within %u ms", link->path,
                                  link->handshake_timeout_ms);
        int r = poll(&pfd, 1, left);
        if (r > 0)
            break;
        if (r < 0 && errno != EINTR)
            return link_set_error(link, MORTAR_EIO, "waiting for a peer: %s", strerror(errno));
    }
    link->sock_fd = accept4(link->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (link->sock_fd < 0)
        return link_set_error(link, MORTAR_EIO, "accept: %s", strerror(errno));
    close(link->listen_fd);
    link->listen_fd = -1;
    unlink(link->path); /* connected: the name is no longer needed */
    int rc = send_listener_intro(link);
    mortar_link_intro in;
    if (rc == 0)
        rc = read_full(link, &in, sizeof in, deadline, "intro");
    if (rc == 0)
        rc = check_intro(link, &in, false);
    if (rc == 0)
        rc = read_peer_upper_intro(link, in.upper_intro_size, deadline);
    if (rc == 0)
        link_learn_peer_sleeping(link); /* written before the peer's intro */
    return rc;
}

/* ---- connector ----------------------------------------------------------- */

static int connect_socket(mortar_link *link, const char *path, int64_t deadline)
{
    struct sockaddr_un sa;
    if (set_sockaddr(&sa, path) != 0)
        return link_set_error(link, MORTAR_EINVAL, "socket path too long: %s", path);
    for (;;) {
        link->sock_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (link->sock_fd < 0)
            return link_set_error(link, MORTAR_EIO, "socket: %s", strerror(errno));
        if (connect(link->sock_fd, (struct sockaddr *)&sa, sizeof sa) == 0)
            return MORTAR_OK;
        int e = errno;
        close(link->sock_fd);
        link->sock_fd = -1;
        if (e != ENOENT && e != ECONNREFUSED && e != EAGAIN)
            return link_set_error(link, MORTAR_EIO, "connecting to %s: %s", path, strerror(e));
        if (wall_ms() >= deadline)
            return link_set_error(link, MORTAR_ETIMEDOUT, "nobody listens on %s (waited %u ms)",
                                  path, link->handshake_timeout_ms);
        usleep(5000);
    }
}

/* Receives the listener's intro and the memfd that comes with it. */
static int receive_listener_intro(mortar_link *link, mortar_link_intro *in, int64_t deadline)
{
    struct pollfd pfd = {.fd = link->sock_fd, .events = POLLIN};
    for (;;) {
        int left = (int)(deadline - wall_ms());
        if (left <= 0)
            return link_set_error(link, MORTAR_ETIMEDOUT, "timed out waiting for the peer's intro");
        int r = poll(&pfd, 1, left);
        if (r > 0)
            break;
        if (r < 0 && errno != EINTR)
            return link_set_error(link, MORTAR_EIO, "poll: %s", strerror(errno));
    }
    struct iovec iov = {.iov_base = in, .iov_len = sizeof *in};
    char control[CMSG_SPACE(sizeof(int))];
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                        .msg_controllen = sizeof control};
    ssize_t k = recvmsg(link->sock_fd, &mh, MSG_CMSG_CLOEXEC);
    if (k < 0)
        return link_set_error(link, MORTAR_EIO, "receiving the intro: %s", strerror(errno));
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
            memcpy(&link->shm_fd, CMSG_DATA(cm), sizeof(int));
    if (k == 0)
        return link_set_error(link, MORTAR_EPEER, "peer closed the connection before its intro");
    if ((size_t)k < sizeof *in) {
        int rc = read_full_from(link, in, (size_t)k, sizeof *in, deadline, "intro");
        if (rc != 0)
            return rc;
    }
    return MORTAR_OK;
}

static int map_listener_region(mortar_link *link, const mortar_link_intro *in)
{
    if (link->shm_fd < 0)
        return link_set_error(link, MORTAR_EPROTO, "the intro came without a shared-memory fd");
    link->hot.slot_size = in->slot_size;
    link->hot.slot_count = in->slot_count;
    link->shm_size = in->shm_size;
    link->hot.timing.latency_ps = in->latency_ps;
    link->hot.timing.bandwidth_bps = in->bandwidth_bps;
    link->hot.timing.pcie = in->pcie;
    link->sync_interval_ps = in->sync_interval_ps;
    struct stat st;
    if (fstat(link->shm_fd, &st) != 0 || st.st_size < (off_t)link->shm_size)
        return link_set_error(link, MORTAR_EPROTO, "shared region is smaller than announced");
    if (map_region(link) != 0)
        return MORTAR_EIO;
    const shm_header *h = link->shm;
    if (h->magic != MORTAR_LINK_MAGIC || h->slot_size != in->slot_size ||
        h->slot_count != in->slot_count)
        return link_set_error(link, MORTAR_EPROTO, "shared region header does not match the intro");
    link_map_rings(link, false);
    link_announce_sleeping(link); /* before our intro tells the listener we are here */
    link_learn_peer_sleeping(link); /* written before the listener sent the region */
    return MORTAR_OK;
}

static int send_connector_intro(mortar_link *link)
{
    mortar_link_intro in;
    fill_intro(link, &in);
    int rc = write_full(link, &in, sizeof in);
    if (rc == 0 && link->my_intro_size)
        rc = write_full(link, link->my_intro, link->my_intro_size);
    return rc;
}

int mortar_link_connect(mortar_link **out, const char *path, const mortar_link_params *p,
                        char *err, size_t err_size)
{
    *out = NULL;
    mortar_link_params checked = *p;
    if (checked.latency_ps == 0) { /* 0: take the listener's timing */
        checked.latency_ps = 1;
        checked.sync_interval_ps = 0;
    }
    if (mortar_link_params_check(&checked, err, err_size) != 0)
        return MORTAR_EINVAL;
    mortar_link *link = link_alloc(p);
    if (!link)
        return MORTAR_ENOMEM;
    int64_t deadline = wall_ms() + link->handshake_timeout_ms;
    mortar_link_intro in;
    int rc = connect_socket(link, path, deadline);
    if (rc == 0)
        rc = receive_listener_intro(link, &in, deadline);
    if (rc == 0)
        rc = check_intro(link, &in, true);
    if (rc == 0)
        rc = map_listener_region(link, &in);
    if (rc == 0)
        rc = read_peer_upper_intro(link, in.upper_intro_size, deadline);
    if (rc == 0)
        rc = send_connector_intro(link);
    if (rc != 0) {
        copy_error(err, err_size, link->err);
        mortar_link_close(link);
        return rc;
    }
    *out = link;
    return MORTAR_OK;
}

/* ---- in-process pair ------------------------------------------------------ */

int mortar_link_pair(mortar_link **a, mortar_link **b, const mortar_link_params *p)
{
    *a = *b = NULL;
    if (mortar_link_params_check(p, NULL, 0) != 0)
        return MORTAR_EINVAL;
    mortar_link *la = link_alloc(p), *lb = link_alloc(p);
    int *refs = malloc(sizeof *refs);
    size_t size = region_size(p->slot_size, p->slot_count);
    void *mem = aligned_alloc(4096, (size + 4095) & ~(size_t)4095); /* size must be a multiple */
    if (!la || !lb || !refs || !mem) {
        free(refs);
        free(mem);
        mortar_link_close(la);
        mortar_link_close(lb);
        return MORTAR_ENOMEM;
    }
    memset(mem, 0, size);
    *refs = 2;
    mortar_link *ends[2] = {la, lb};
    for (int i = 0; i < 2; i++) {
        ends[i]->shm = mem;
        ends[i]->shm_size = size;
        ends[i]->pair_refs = refs;
        init_header(ends[i]);
        link_map_rings(ends[i], i == 0);
        link_announce_sleeping(ends[i]);
    }
    for (int i = 0; i < 2; i++)
        link_learn_peer_sleeping(ends[i]);
    *a = la;
    *b = lb;
    return MORTAR_OK;
}

/* ---- close ---------------------------------------------------------------- */

void mortar_link_close(mortar_link *link)
{
    if (!link)
        return;
    if (link->pair_refs) {
        if (--*link->pair_refs == 0) {
            free(link->shm);
            free(link->pair_refs);
        }
    } else if (link->shm) {
        munmap(link->shm, link->shm_size);
    }
    if (link->shm_fd >= 0)
        close(link->shm_fd);
    if (link->sock_fd >= 0)
        close(link->sock_fd);
    if (link->listen_fd >= 0)
        close(link->listen_fd);
    if (link->path) {
        unlink(link->path);
        free(link->path);
    }
    free(link->my_intro);
    free(link->peer_intro);
    free(link);
}
