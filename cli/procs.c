/*
 * procs.c - starting, watching and ending the processes of a run.
 */
#include "procs.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

/* Points `fd` at `path`, a new file of the run (never an existing one, and
 * never through a symbolic link), or at /dev/null. */
static int redirect(const char *path, int fd)
{
    /* stdin must be readable: QEMU's stdio console treats a failing read
     * as a closed console and drops the guest's output */
    int f = fd == 0  ? open("/dev/null", O_RDONLY)
            : !path ? open("/dev/null", O_WRONLY)
                    : open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
    if (f < 0)
        return -1;
    dup2(f, fd);
    close(f);
    return 0;
}

proc *procs_start(procs *ps, const char *name, char *const argv[], const char *out,
                  const char *err, char *const env[])
{
    if (ps->n == PROCS_MAX)
        return NULL;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return NULL;
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127); /* the orchestrator is already gone */
        setpgid(0, 0); /* Ctrl-C reaches the orchestrator only; it ends us */
        if (redirect(NULL, 0) || redirect(out, 1) || redirect(err, 2)) {
            fprintf(stderr, "mortar: %s: cannot create its log\n", name);
            _exit(126);
        }
        for (int i = 0; env && env[i]; i++)
            putenv(env[i]);
        execv(argv[0], argv);
        fprintf(stderr, "mortar: cannot run %s\n", argv[0]);
        _exit(127);
    }
    proc *p = &ps->list[ps->n++];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->log, sizeof p->log, "%s", err ? err : "");
    p->pid = pid;
    p->running = true;
    return p;
}

proc *procs_poll(procs *ps)
{
    for (int i = 0; i < ps->n; i++) {
        proc *p = &ps->list[i];
        int st;
        if (!p->running || waitpid(p->pid, &st, WNOHANG) != p->pid)
            continue;
        p->running = false;
        p->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        return p;
    }
    return NULL;
}

bool procs_any_running(const procs *ps, const char *prefix)
{
    for (int i = 0; i < ps->n; i++)
        if (ps->list[i].running && !strncmp(ps->list[i].name, prefix, strlen(prefix)))
            return true;
    return false;
}

/* The state letter of /proc/<pid>/stat, after the command name, which may
 * itself hold spaces and parentheses. */
static char proc_state(pid_t pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return '?';
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = '\0';
    const char *end = strrchr(line, ')');
    return end && end[1] == ' ' ? end[2] : '?';
}

const proc *procs_find_stopped(const procs *ps)
{
    for (int i = 0; i < ps->n; i++) {
        char state = ps->list[i].running ? proc_state(ps->list[i].pid) : '?';
        if (state == 'T' || state == 't')
            return &ps->list[i];
    }
    return NULL;
}

void procs_kill_all(procs *ps)
{
    for (int i = 0; i < ps->n; i++) {
        proc *p = &ps->list[i];
        if (!p->running)
            continue;
        kill(p->pid, SIGKILL);
        waitpid(p->pid, NULL, 0);
        p->running = false;
        p->status = 128 + SIGKILL;
    }
}

void procs_print_tail(const char *path, int lines)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *ring[64] = {0};
    char buf[512];
    int n = 0;
    if (lines > 64)
        lines = 64;
    while (fgets(buf, sizeof buf, f)) {
        free(ring[n % lines]);
        ring[n % lines] = strdup(buf);
        n++;
    }
    fclose(f);
    for (int i = n > lines ? n - lines : 0; i < n; i++) {
        char *l = ring[i % lines];
        l[strcspn(l, "\r\n")] = '\0';
        fprintf(stderr, "    | %s\n", l);
    }
    for (int i = 0; i < lines; i++)
        free(ring[i]);
}
