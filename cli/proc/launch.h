/*
 * launch.h - the one way the command starts, watches and ends a child
 * process: the processes of a run (procs.c: simulators, QEMU) and the runs
 * of a sweep (sweep_cmd.c) both start here.
 *
 * Every child:
 *  - gets `death_signal` when the parent dies (PR_SET_PDEATHSIG), and exits
 *    at once (127) if the parent is already gone;
 *  - leads a process group of its own (set in the child and in the parent,
 *    so there is no window): the terminal's Ctrl-C reaches the parent only,
 *    which decides, and launch_signal_group() reaches the child's helpers;
 *  - starts with SIGINT, SIGTERM and SIGHUP at their defaults and the
 *    parent's signal mask (they are held back from fork to that point, so a
 *    signal meant for the parent never runs its handler in the child);
 *  - reads stdin from /dev/null, writes stdout and stderr to files, and
 *    finds `fd3_path`, when given, open at fd 3;
 *  - has the parent's environment plus `env`, and the parent's CPUs or
 *    `cpus`.
 * If the program cannot be run, the child writes "<who>: cannot run
 * <path>: <reason>" to its stderr file and exits 127; if its output files
 * cannot be opened, "<who>: <name>: cannot create its log" and 126, and
 * if `fd3_path` cannot, "<who>: <name>: cannot open <path>: <reason>" and
 * 126.
 */
#ifndef MORTAR_CLI_LAUNCH_H
#define MORTAR_CLI_LAUNCH_H

#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>

/* Exit status of a child that could not run its program, and of one whose
 * output files could not be opened. */
#define LAUNCH_EXEC_FAILED 127
#define LAUNCH_LOG_FAILED  126

typedef struct launch_spec {
    const char *who;      /* prefix of the child's own errors: "mortar" */
    const char *name;     /* the child, in those errors: "sim0" */
    const char *path;     /* the program; NULL: argv[0] */
    char *const *argv;    /* NULL-terminated */
    char *const *env;     /* extra "K=V" entries, NULL-terminated; may be NULL */
    const char *out_path; /* stdout; NULL: /dev/null */
    const char *err_path; /* stderr; NULL: /dev/null */
    /* false: the files are new (O_EXCL, never through a symbolic link);
     * true: they exist and the output is appended */
    bool append;
    int death_signal; /* SIGKILL, or SIGTERM for a child that cleans up */
    /* a file opened read-only as the child's fd 3 (QEMU reads a snapshot
     * there: -incoming fd:3); NULL: none */
    const char *fd3_path;
    /* the CPUs the child and what it starts may use; NULL: the parent's.
     * A set the kernel refuses leaves the parent's (a placement only). */
    const cpu_set_t *cpus;
    /* true: stdout, stderr and fd 3 stay the parent's (out_path, err_path
     * and fd3_path are not used) */
    bool keep_fds;
    /* true: the child outlives the parent: no death signal (a kept QEMU,
     * host_attach.h). Its process group is its own, as always, and its
     * session the parent's: a session of its own would be a scheduling
     * group of its own too (the kernel's autogroups), and a sched_yield()
     * in it hands the CPU to none of the run's other processes. */
    bool detached;
} launch_spec;

/* Starts the child; its pid, or -1 when fork fails. */
pid_t launch_start(const launch_spec *spec);

/* A wait() status as the command reports it: the exit code, or 128 plus
 * the signal that ended the child. */
int launch_status(int wait_status);

/* Whether `pid` has ended (reaped; its launch_status in *status): 1, 0 while
 * it runs, -1 on error (not our child). Never blocks. */
int launch_poll(pid_t pid, int *status);

/* Waits up to `timeout_ms` until one of the `n` children `pids` (started
 * here, not yet reaped) has ended, or returns at once if one has; it
 * reaps nothing. Where the kernel cannot watch a child (no pidfd), a
 * plain sleep of `timeout_ms`. */
void launch_wait_any(const pid_t *pids, size_t n, int timeout_ms);
/* Sends `sig` to the child's process group: the child and what it started
 * without a group of its own. */
void launch_signal_group(pid_t pid, int sig);

/* Kills the child's process group (SIGKILL) and reaps the child; its
 * launch_status (128 + SIGKILL, unless it had ended already). */
int launch_kill(pid_t pid);

#endif
