/*
 * kept_hosts.c - the QEMUs a sweep keeps across its runs (see kept_hosts.h).
 */
#include "kept_hosts.h"
#include "owner.h"

#include <dirent.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#define END_GRACE_S 5

int kept_hosts_open(kept_hosts *k)
{
    memset(k, 0, sizeof *k);
    const char *off = getenv("MORTAR_KEEP_HOSTS");
    if (off && !strcmp(off, "0"))
        return 0;
    /* a run's kind of private directory: left by a sweep killed outright,
     * the next run or sweep removes it (owner.h) */
    snprintf(k->dir, sizeof k->dir, "/tmp/mortar-run-XXXXXX");
    char owner[32];
    snprintf(owner, sizeof owner, "%d", (int)getpid());
    if (!mkdtemp(k->dir))
        return 0;
    if (owner_mark_private_dir(k->dir) != 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) != 0 ||
        setenv("MORTAR_PARK_DIR", k->dir, 1) != 0 || setenv("MORTAR_PARK_OWNER", owner, 1) != 0) {
        owner_remove_private_dir(k->dir);
        unsetenv("MORTAR_PARK_DIR");
        return 0;
    }
    k->on = true;
    return 0;
}

/* The pid a slot's QEMU was started with (KEY.N.pid), or 0. */
static pid_t slot_pid(const char *path)
{
    FILE *f = fopen(path, "r");
    int pid = 0;
    if (f) {
        if (fscanf(f, "%d", &pid) != 1)
            pid = 0;
        fclose(f);
    }
    return pid > 1 ? (pid_t)pid : 0;
}

/* Whether `pid` is still a QEMU (a pid file may outlive its QEMU, and
 * the number be another process's by now). */
static bool is_qemu(pid_t pid)
{
    char path[64], comm[32] = "";
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool yes = fgets(comm, sizeof comm, f) && !strncmp(comm, "qemu-system", 11);
    fclose(f);
    return yes;
}

/* Each kept QEMU gets `sig`; returns how many were signalled. */
static int signal_all(const char *dir, int sig)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".pid"))
            continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        pid_t pid = slot_pid(path);
        if (pid && is_qemu(pid) && kill(pid, sig) == 0)
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

/* Reaps every child that has ended (the kept QEMUs are ours now). */
static void reap_ended(void)
{
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
}

void kept_hosts_close(kept_hosts *k)
{
    if (!k->on)
        return;
    unsetenv("MORTAR_PARK_DIR");
    signal_all(k->dir, SIGTERM);
    time_t end = time(NULL) + END_GRACE_S;
    for (;;) {
        reap_ended();
        if (signal_all(k->dir, 0) == 0 || time(NULL) > end)
            break;
        usleep(20000);
    }
    signal_all(k->dir, SIGKILL);
    reap_ended();
    owner_remove_private_dir(k->dir);
    k->on = false;
}
