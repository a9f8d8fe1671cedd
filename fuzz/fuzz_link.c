/*
 * fuzz_link.c - a libFuzzer target for the link handshake (lib/link_shm.c):
 * the 128-byte intro a peer sends, the shared region's header it hands
 * over, and the upper protocol's intro that follows, received from a peer
 * that may be anything.
 *
 * The input is what the peer sends: intro[128], region_header[64], then the
 * rest of its stream (the upper intro). Both sides are tried, each over a
 * real UNIX socket in the scratch directory:
 *   - the listener (mortar_link_accept) receives intro + rest from a
 *     connector that writes them and closes;
 *   - the connector (mortar_link_connect) receives intro with a shared
 *     region (a memfd as large as the intro claims, at most
 *     MAX_FUZZ_REGION, starting with region_header) + rest from a
 *     listener thread.
 * Either side ends with a link or an error, within the handshake timeout,
 * never a crash, a hang or a sanitizer report.
 */
#include <pthread.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "fuzz_files.h"
#include "mortar/link.h"

#define INTRO_BYTES     128
#define HEADER_BYTES    64
#define MAX_FUZZ_REGION (8u << 20)
#define HANDSHAKE_MS    2000

/* FUZZ_VERBOSE=1 in the environment prints how each side ended. */

typedef struct peer_bytes {
    const uint8_t *intro, *header, *rest;
    size_t intro_size, header_size, rest_size;
} peer_bytes;

static peer_bytes split_input(const uint8_t *data, size_t size)
{
    peer_bytes b = {.intro = data, .intro_size = size < INTRO_BYTES ? size : INTRO_BYTES};
    size -= b.intro_size;
    b.header = data + b.intro_size;
    b.header_size = size < HEADER_BYTES ? size : HEADER_BYTES;
    size -= b.header_size;
    b.rest = b.header + b.header_size;
    b.rest_size = size;
    return b;
}

static void params(mortar_link_params *p, uint64_t latency_ps)
{
    mortar_link_params_init(p);
    p->name = "fuzz";
    p->slot_size = 128;
    p->slot_count = 4;
    p->latency_ps = latency_ps;
    p->handshake_timeout_ms = HANDSHAKE_MS;
}

static void write_all(int fd, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k <= 0)
            return;
        p += k;
        n -= (size_t)k;
    }
}

/* Reads until the other side closes (or the timeout). */
static void drain(int fd)
{
    struct timeval tv = {.tv_sec = HANDSHAKE_MS / 1000 + 1};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[4096];
    while (read(fd, buf, sizeof buf) > 0)
        ;
}

static int socket_path(struct sockaddr_un *sa, const char *name)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    snprintf(sa->sun_path, sizeof sa->sun_path, "%s/%s", fuzz_dir(), name);
    return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

/* ---- the listener receives ------------------------------------------------ */

static void as_listener(const peer_bytes *b)
{
    struct sockaddr_un sa;
    int fd = socket_path(&sa, "l.sock");
    mortar_link_params p;
    params(&p, MORTAR_NS(500));
    mortar_link *link;
    char err[512];
    if (mortar_link_listen(&link, sa.sun_path, &p, err, sizeof err) != 0)
        abort();
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
        abort();
    write_all(fd, b->intro, b->intro_size);
    write_all(fd, b->rest, b->rest_size);
    shutdown(fd, SHUT_WR);
    /* it sends its intro first: the socket's buffer takes it */
    int rc = mortar_link_accept(link);
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "listener: %s\n", rc ? mortar_link_errmsg(link) : "linked");
    mortar_link_close(link);
    close(fd);
}

/* ---- the connector receives ----------------------------------------------- */

typedef struct fake_listener {
    int fd;
    const peer_bytes *b;
} fake_listener;

/* A region as large as the intro says (shm_size, bytes 48-55), capped. */
static int region_fd(const peer_bytes *b)
{
    uint64_t claimed = 0;
    if (b->intro_size >= 56)
        memcpy(&claimed, b->intro + 48, sizeof claimed);
    size_t size = claimed < MAX_FUZZ_REGION ? (size_t)claimed : MAX_FUZZ_REGION;
    size = size > HEADER_BYTES ? size : HEADER_BYTES;
    int fd = memfd_create("fuzz-link", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0 ||
        pwrite(fd, b->header, b->header_size, 0) != (ssize_t)b->header_size)
        abort();
    return fd;
}

static void send_intro(int sock, const peer_bytes *b)
{
    int shm = region_fd(b);
    char byte = 0;
    struct iovec iov = {.iov_base = b->intro_size ? (void *)b->intro : &byte,
                        .iov_len = b->intro_size ? b->intro_size : 1};
    char control[CMSG_SPACE(sizeof(int))];
    memset(control, 0, sizeof control);
    struct msghdr mh = {.msg_iov = &iov,
                        .msg_iovlen = 1,
                        .msg_control = control,
                        .msg_controllen = sizeof control};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &shm, sizeof(int));
    if (b->intro_size)
        sendmsg(sock, &mh, MSG_NOSIGNAL);
    close(shm);
}

static void *serve(void *arg)
{
    fake_listener *f = arg;
    int sock = accept4(f->fd, NULL, NULL, SOCK_CLOEXEC);
    if (sock < 0)
        return NULL;
    send_intro(sock, f->b);
    write_all(sock, f->b->rest, f->b->rest_size);
    shutdown(sock, SHUT_WR);
    drain(sock);
    close(sock);
    return NULL;
}

static void as_connector(const peer_bytes *b)
{
    struct sockaddr_un sa;
    fake_listener f = {.fd = socket_path(&sa, "c.sock"), .b = b};
    unlink(sa.sun_path);
    if (bind(f.fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(f.fd, 1) != 0)
        abort();
    pthread_t t;
    if (pthread_create(&t, NULL, serve, &f) != 0)
        abort();
    mortar_link_params p;
    params(&p, 0); /* 0: the listener's timing */
    mortar_link *link = NULL;
    char err[512];
    int rc = mortar_link_connect(&link, sa.sun_path, &p, err, sizeof err);
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "connector: %s\n", rc ? err : "linked");
    mortar_link_close(link);
    pthread_join(t, NULL);
    close(f.fd);
    unlink(sa.sun_path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    peer_bytes b = split_input(data, size);
    as_listener(&b);
    as_connector(&b);
    return 0;
}
