/*
 * proc_end.c - how a process of a run ended (see proc_end.h).
 */
#include "proc_end.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"
#include "guest_console.h"

void proc_end_last_line(const char *path, char *line, size_t size)
{
    line[0] = '\0';
    FILE *f = path && path[0] ? fopen(path, "r") : NULL;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    while (f && (n = getline(&buf, &cap, f)) >= 0) {
        buf[strcspn(buf, "\r\n")] = '\0';
        if (buf[strspn(buf, " \t")])
            snprintf(line, size, "%s", buf);
    }
    free(buf);
    if (f)
        fclose(f);
}

/* Whether the guest printed "MORTAR-EXIT <status>": its command ended. */
static bool guest_exited(const char *console)
{
    FILE *f = fopen(console, "r");
    char *buf = NULL;
    size_t cap = 0;
    bool exited = false;
    long status;
    while (f && !exited && getline(&buf, &cap, f) >= 0)
        exited = guest_console_exit(buf, &status);
    free(buf);
    if (f)
        fclose(f);
    return exited;
}

/* "exited with status 1", "was killed by signal 9 (SIGKILL)": a status
 * above 128 is 128 + the signal (launch_status). */
static void describe_status(int status, char *out, size_t size)
{
    if (status <= 128) {
        snprintf(out, size, "exited with status %d", status);
        return;
    }
    const char *abbrev = sigabbrev_np(status - 128);
    snprintf(out, size, "was killed by signal %d (SIG%s)", status - 128,
             abbrev ? abbrev : "?");
}

void proc_end_judge(const proc *pr, const char *console, proc_end *out)
{
    bool host = console != NULL, early = host && !guest_exited(console);
    char how[64], last[400];
    describe_status(pr->status, how, sizeof how);
    proc_end_last_line(pr->log, last, sizeof last);
    if (pr->status > 128)
        out->kind = PROC_END_KILLED;
    else if (pr->status == 0 && !early)
        out->kind = PROC_END_FINISHED;
    else
        out->kind = strstr(last, mortar_strerror(MORTAR_EPEER)) ? PROC_END_PEER_LEFT
                                                                 : PROC_END_FAILED;
    snprintf(out->what, sizeof out->what, "%s: %s%s%s; %s%s", pr->name, host ? "QEMU " : "",
             how, early ? " before its guest's command ended (no MORTAR-EXIT on its console)" : "",
             last[0] ? "last line of its log: " : "its log is empty", last);
}
