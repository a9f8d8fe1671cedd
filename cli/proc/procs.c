/*
 * procs.c - starting, watching and ending the processes of a run: a table
 * of children started by the one launcher (launch.h).
 */
#include "launch.h"
#include "procs.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

proc *procs_start(procs *ps, const char *name, char *const argv[], const char *out,
                  const char *err, char *const env[], const char *fd3)
{
    if (ps->n == PROCS_MAX)
        return NULL;
    launch_spec spec = {.who = "mortar", .name = name, .argv = argv, .env = env,
                        .out_path = out, .err_path = err, .death_signal = SIGKILL,
                        .fd3_path = fd3};
    pid_t pid = launch_start(&spec);
    if (pid < 0)
        return NULL;
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
        if (!p->running || launch_poll(p->pid, &p->status) != 1)
            continue;
        p->running = false;
        return p;
    }
    return NULL;
}

void procs_wait(const procs *ps, int timeout_ms)
{
    pid_t pids[PROCS_MAX];
    size_t n = 0;
    for (int i = 0; i < ps->n; i++)
        if (ps->list[i].running)
            pids[n++] = ps->list[i].pid;
    launch_wait_any(pids, n, timeout_ms);
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
        p->status = launch_kill(p->pid);
        p->running = false;
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
