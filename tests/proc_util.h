/*
 * proc_util.h - helpers for tests that run real processes: write a file,
 * spawn mortar-sim, wait with a wall-clock limit, read a file back.
 */
#ifndef MORTAR_TEST_PROC_UTIL_H
#define MORTAR_TEST_PROC_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static inline const char *bin_dir(void)
{
    const char *b = getenv("MORTAR_BIN");
    return b ? b : "build/bin";
}

static inline void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(99);
    }
    fputs(text, f);
    fclose(f);
}

static inline char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = '\0';
    fclose(f);
    return buf;
}

/* Starts `mortar-sim desc` with stderr to `err_path`; returns the pid. */
static inline pid_t spawn_sim(const char *desc, const char *err_path)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        char exe[512];
        snprintf(exe, sizeof exe, "%s/mortar-sim", bin_dir());
        execl(exe, exe, desc, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static inline double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits for `pid` at most `limit_s`; kills it after that. Returns the exit
 * status, or -1 when it had to be killed. */
static inline int wait_exit(pid_t pid, double limit_s)
{
    double end = wall_s() + limit_s;
    int st;
    while (wall_s() < end) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        usleep(2000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
}

#endif
