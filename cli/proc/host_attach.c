/*
 * host_attach.c - a run's host on a kept QEMU (see host_attach.h).
 */
#include "host_attach.h"
#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#define MSG_MAX (64 * 1024)
#define START_TIMEOUT_S 60
#define KEY_MAX 128

extern char **environ;

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mortar host-attach: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return 1;
}

/* A key is a hex digest: nothing that could leave DIR. */
static bool key_ok(const char *key)
{
    size_t n = strlen(key);
    return n > 0 && n <= KEY_MAX && strspn(key, "0123456789abcdef") == n;
}

static int connect_to(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path)
        return -1;
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
        return fd;
    if (fd >= 0)
        close(fd);
    return -1;
}

/* Every thread of the kept QEMU onto this run's CPUs: a sweep gives each
 * run a share of its own (cpu_share.h). */
static void move_threads(int sock)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    cpu_set_t mine;
    if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
        sched_getaffinity(0, sizeof mine, &mine) != 0)
        return;
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)cred.pid);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.')
            (void)sched_setaffinity((pid_t)atoi(e->d_name), sizeof mine, &mine);
    if (d)
        closedir(d);
}

/* "run", then "a:ARG" for QEMU's command line and "e:K=V" for the MORTAR_
 * environment, NUL-terminated words; with stdout, stderr and fd 3. */
static int send_run(int sock, char **qemu_argv)
{
    char *buf = malloc(MSG_MAX);
    size_t n = 0;
    bool fits = buf != NULL;
#define PUT(prefix, word)                                                                    \
    do {                                                                                     \
        size_t need = strlen(prefix) + strlen(word) + 1;                                     \
        if (!fits || n + need > MSG_MAX) {                                                   \
            fits = false;                                                                    \
            break;                                                                           \
        }                                                                                    \
        n += (size_t)sprintf(buf + n, "%s%s", prefix, word) + 1;                             \
    } while (0)
    PUT("", "run");
    for (int i = 0; qemu_argv[i]; i++)
        PUT("a:", qemu_argv[i]);
    for (int i = 0; environ[i]; i++)
        if (!strncmp(environ[i], "MORTAR_", 7))
            PUT("e:", environ[i]);
#undef PUT
    if (!fits) {
        free(buf);
        return -1;
    }
    int fds[3] = {STDOUT_FILENO, STDERR_FILENO, 3};
    char control[CMSG_SPACE(sizeof fds)];
    memset(control, 0, sizeof control);
    struct iovec iov = {.iov_base = buf, .iov_len = n};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                        .msg_controllen = sizeof control};
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    ssize_t sent = sendmsg(sock, &mh, MSG_NOSIGNAL);
    free(buf);
    return sent == (ssize_t)n ? 0 : -1;
}

/*
 * Waits for QEMU's word on the run: "done N" or "exit N" (its status),
 * "fail WHY". Without one (it vanished): the status of `child` when it is
 * ours, else 1.
 */
static int await_end(int sock, pid_t child)
{
    char line[1024];
    ssize_t n = recv(sock, line, sizeof line - 1, 0);
    int status;
    if (n > 0) {
        line[n] = '\0';
        if (sscanf(line, "done %d", &status) == 1 || sscanf(line, "exit %d", &status) == 1)
            return status;
        line[strcspn(line, "\n")] = '\0';
        if (!strncmp(line, "fail ", 5))
            return fail("the kept QEMU could not set up the run: %s", line + 5);
    }
    if (child > 0 && waitpid(child, &status, 0) == child)
        return launch_status(status);
    return fail("the kept QEMU ended without a word");
}

/* Starts a QEMU for the slot and connects to it once it listens. */
static int start_kept(const char *sock_path, const char *pid_path, char **qemu_argv,
                      pid_t *child)
{
    char park[600], owner[64];
    snprintf(park, sizeof park, "MORTAR_PARK=%s", sock_path);
    snprintf(owner, sizeof owner, "MORTAR_PARK_OWNER=%s",
             getenv("MORTAR_PARK_OWNER") ? getenv("MORTAR_PARK_OWNER") : "0");
    char *env[] = {park, owner, NULL};
    unlink(sock_path); /* a QEMU that was there has gone */
    launch_spec spec = {.who = "mortar host-attach", .name = "QEMU", .argv = qemu_argv,
                        .env = env, .keep_fds = true, .detached = true};
    *child = launch_start(&spec);
    if (*child < 0)
        return -1;
    FILE *f = fopen(pid_path, "w");
    if (f) {
        fprintf(f, "%d\n", (int)*child);
        fclose(f);
    }
    time_t end = time(NULL) + START_TIMEOUT_S;
    for (;;) {
        int sock = connect_to(sock_path);
        if (sock >= 0)
            return sock;
        int status;
        if (waitpid(*child, &status, WNOHANG) == *child) {
            *child = 0;
            exit(launch_status(status)); /* QEMU ended at start: as QEMU would */
        }
        if (time(NULL) > end)
            return -1;
        usleep(5000);
    }
}

/* Holds slot n of `key` (its lock stays taken until exit): 1, 0 if busy. */
static int take_slot(const char *dir, const char *key, int n)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s.%d.lock", dir, key, n);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return errno == EWOULDBLOCK ? 0 : -1;
    }
    return 1;
}

int mortar_host_attach_main(int argc, char **argv)
{
    if (argc < 4)
        return fail("usage: mortar host-attach DIR KEY QEMU-ARGV...");
    const char *dir = argv[1], *key = argv[2];
    char **qemu_argv = argv + 3;
    if (!key_ok(key))
        return fail("'%s' is not a host configuration's key", key);
    for (int n = 0; n < HOST_ATTACH_SLOTS; n++) {
        int got = take_slot(dir, key, n);
        if (got < 0)
            return fail("cannot lock a slot in %s: %s", dir, strerror(errno));
        if (got == 0)
            continue;
        char sock_path[600], pid_path[600];
        snprintf(sock_path, sizeof sock_path, "%s/%s.%d.sock", dir, key, n);
        snprintf(pid_path, sizeof pid_path, "%s/%s.%d.pid", dir, key, n);
        int sock = connect_to(sock_path);
        if (sock >= 0) {
            move_threads(sock);
            if (send_run(sock, qemu_argv) != 0)
                return fail("cannot hand the run to the kept QEMU at %s", sock_path);
            return await_end(sock, 0);
        }
        pid_t child = 0;
        sock = start_kept(sock_path, pid_path, qemu_argv, &child);
        if (sock < 0)
            return fail("the QEMU started for %s did not listen there", sock_path);
        (void)send(sock, "watch", 6, MSG_NOSIGNAL); /* this run: tell its end */
        return await_end(sock, child);
    }
    return fail("all %d slots of the host configuration are taken", HOST_ATTACH_SLOTS);
}
