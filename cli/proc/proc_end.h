/*
 * proc_end.h - how a process of a run ended, in its own words, and which of
 * the processes that ended together is to blame.
 *
 * A host's QEMU has ended as it should once its guest printed
 * "MORTAR-EXIT <status>" (guest/init, after the command, before it powers
 * off): the guest ran its command to the end, whatever the status says
 * (a failing status is the guest's failure, guest_console.h). A QEMU that
 * ends without it, even with status 0 (SIGTERM, a guest that powered off or
 * rebooted early), has left the run. A simulator ends as it should with
 * status 0, once its hosts terminated their links.
 *
 * When one process ends the others follow: a simulator or QEMU whose link's
 * peer died fails saying so (mortar_strerror(MORTAR_EPEER) in its last
 * log line). The blame goes to the one that did not merely follow.
 */
#ifndef MORTAR_CLI_PROC_END_H
#define MORTAR_CLI_PROC_END_H

#include <stddef.h>

#include "procs.h"

/* Ordered by weight as a cause: a later kind outranks an earlier one. */
typedef enum proc_end_kind {
    PROC_END_FINISHED,  /* ended as it should */
    PROC_END_PEER_LEFT, /* failed because a peer of its links ended */
    PROC_END_FAILED,    /* ended early or failed, for a reason of its own */
    PROC_END_KILLED,    /* killed by a signal */
} proc_end_kind;

typedef struct proc_end {
    proc_end_kind kind;
    /* "host client: QEMU was killed by signal 9 (SIGKILL); its log is empty" */
    char what[768];
} proc_end;

/* Judges the ended process `pr`; `console` is its guest's console log for
 * a host, NULL for a simulator. */
void proc_end_judge(const proc *pr, const char *console, proc_end *out);

/* The last line of `path` that is not blank, at most `size` - 1 bytes of
 * it; "" when there is none or the file cannot be read. */
void proc_end_last_line(const char *path, char *line, size_t size);

#endif
