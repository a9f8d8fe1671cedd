/*
 * procs.h - the processes of one run: start them, watch them, end them all.
 *
 * Every child is started by launch.h: SIGKILL when the orchestrator dies,
 * so none outlives it; a process group of its own; stdout/stderr to new
 * files in the run directory.
 */
#ifndef MORTAR_CLI_PROCS_H
#define MORTAR_CLI_PROCS_H

#include <stdbool.h>
#include <sys/types.h>

#define PROCS_MAX 32

typedef struct proc {
    char name[64];   /* "sim0", "host client" */
    char log[512];   /* where its stderr went (for the last lines) */
    pid_t pid;
    bool running;
    int status;      /* exit code, or 128 + signal */
} proc;

typedef struct procs {
    proc list[PROCS_MAX];
    int n;
} procs;

/* Starts argv (NULL-terminated) with stdout to `out` and stderr to `err`
 * (paths; NULL: /dev/null), the extra environment `env` ("K=V", NULL
 * terminated, may be NULL) and the file `fd3` open at its fd 3 (NULL:
 * none). Returns the entry, or NULL. */
proc *procs_start(procs *ps, const char *name, char *const argv[], const char *out,
                  const char *err, char *const env[], const char *fd3);

/* Reaps children that ended; returns the first one that ended since the last
 * call (NULL if none). */
proc *procs_poll(procs *ps);

/* Waits up to `timeout_ms` for a running child to end (reaped by the next
 * procs_poll), or returns at once if one has. */
void procs_wait(const procs *ps, int timeout_ms);
/* True while any child whose name starts with `prefix` runs. */
bool procs_any_running(const procs *ps, const char *prefix);

/* The first running child the kernel holds stopped (SIGSTOP, a debugger):
 * it cannot move its clock, whatever its last progress report said.
 * NULL if none. */
const proc *procs_find_stopped(const procs *ps);

/* Kills every running child's process group (SIGKILL) and reaps it. */
void procs_kill_all(procs *ps);

/* Prints the last `lines` lines of a file to stderr, indented. */
void procs_print_tail(const char *path, int lines);

#endif
