/*
 * launch.c - starting, watching and ending child processes (launch.h): the
 * fork/exec, process-group, signal and output rules of every child of the
 * command, in one place.
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

/* Points `fd` at `path` (NULL: /dev/null). stdin is always /dev/null and
 * readable: QEMU's stdio console treats a failing read as a closed console
 * and drops the guest's output. */
static int redirect(const char *path, int fd, bool append)
{
    int flags = append ? O_WRONLY | O_APPEND | O_NOFOLLOW
                       : O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;
    int f = fd == 0 ? open("/dev/null", O_RDONLY)
            : !path ? open("/dev/null", O_WRONLY)
                    : open(path, flags, 0644);
    if (f < 0)
        return -1;
    if (f != fd) {
        dup2(f, fd);
        close(f);
    }
    return 0;
}

/* Opens `path` read-only at `fd` (inherited across exec). */
static int open_at(const char *path, int fd)
{
    int f = open(path, O_RDONLY | O_NOFOLLOW);
    if (f < 0)
        return -1;
    if (f != fd) {
        if (dup2(f, fd) < 0) {
            close(f);
            return -1;
        }
        close(f);
    }
    return 0;
}

/* The signals the parent handles: held back from fork until the child has
 * put them to their defaults. */
static void stop_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

/* In the child, up to exec; never returns. */
static void child(const launch_spec *s, pid_t parent, const sigset_t *old_mask)
{
    if (!s->detached)
        prctl(PR_SET_PDEATHSIG, s->death_signal);
    if (getppid() != parent)
        _exit(LAUNCH_EXEC_FAILED); /* the parent is already gone */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    sigprocmask(SIG_SETMASK, old_mask, NULL);
    setpgid(0, 0);
    if (redirect(NULL, 0, false) ||
        (!s->keep_fds && (redirect(s->out_path, 1, s->append) ||
                          redirect(s->err_path, 2, s->append)))) {
        fprintf(stderr, "%s: %s: cannot create its log\n", s->who, s->name);
        _exit(LAUNCH_LOG_FAILED);
    }
    if (!s->keep_fds && s->fd3_path && open_at(s->fd3_path, 3) != 0) {
        fprintf(stderr, "%s: %s: cannot open %s: %s\n", s->who, s->name, s->fd3_path,
                strerror(errno));
        _exit(LAUNCH_LOG_FAILED);
    }
    for (int i = 0; s->env && s->env[i]; i++)
        putenv(s->env[i]);
    if (s->cpus)
        (void)sched_setaffinity(0, sizeof *s->cpus, s->cpus);
    const char *path = s->path ? s->path : s->argv[0];
    execv(path, s->argv);
    fprintf(stderr, "%s: cannot run %s: %s\n", s->who, path, strerror(errno));
    _exit(LAUNCH_EXEC_FAILED);
}

pid_t launch_start(const launch_spec *spec)
{
    sigset_t stops, old_mask;
    stop_signals(&stops);
    sigprocmask(SIG_BLOCK, &stops, &old_mask);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        child(spec, parent, &old_mask);
    if (pid > 0)
        setpgid(pid, pid); /* as the child does: no race with a signal to its group */
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    return pid < 0 ? -1 : pid;
}

#define WAIT_ANY_MAX 256

void launch_wait_any(const pid_t *pids, size_t n, int timeout_ms)
{
    struct pollfd fds[WAIT_ANY_MAX];
    size_t k = 0;
    bool watched = n > 0 && n <= WAIT_ANY_MAX;
    for (size_t i = 0; watched && i < n; i++) {
        int fd = pidfd_open(pids[i], 0);
        if (fd < 0)
            watched = false;
        else
            fds[k++] = (struct pollfd){.fd = fd, .events = POLLIN};
    }
    if (watched)
        (void)poll(fds, k, timeout_ms); /* a child that ended is readable */
    else
        usleep((useconds_t)timeout_ms * 1000);
    for (size_t i = 0; i < k; i++)
        close(fds[i].fd);
}

int launch_status(int wait_status)
{
    return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

int launch_poll(pid_t pid, int *status)
{
    int st;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == 0)
        return 0;
    if (r != pid)
        return -1;
    *status = launch_status(st);
    return 1;
}

void launch_signal_group(pid_t pid, int sig)
{
    if (pid > 0)
        kill(-pid, sig);
}

int launch_kill(pid_t pid)
{
    int st;
    launch_signal_group(pid, SIGKILL);
    kill(pid, SIGKILL); /* should it have left its group */
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 128 + SIGKILL;
    return launch_status(st);
}
