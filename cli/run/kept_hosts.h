/*
 * kept_hosts.h - the QEMUs a sweep keeps from one run of a host
 * configuration to the next (docs/snapshots.md, "Kept hosts").
 *
 * kept_hosts_open() makes a private directory (a run's kind,
 * /tmp/mortar-run-XXXXXX, marked with its owner: owner.h) and names it to the runs
 * (MORTAR_PARK_DIR, with the sweep's pid as MORTAR_PARK_OWNER); each run's
 * restoring hosts then go through `mortar host-attach` (host_attach.h),
 * which starts the kept QEMUs there or hands the run to one that waits.
 * The sweep becomes their reaper (PR_SET_CHILD_SUBREAPER): a kept QEMU
 * outlives the run that started it and is reparented here.
 * kept_hosts_close() ends them all and removes the directory; a kept QEMU
 * whose sweep died without it ends itself within a second.
 * MORTAR_KEEP_HOSTS=0 turns it off: every run starts its own QEMUs.
 */
#ifndef MORTAR_CLI_KEPT_HOSTS_H
#define MORTAR_CLI_KEPT_HOSTS_H

#include <stdbool.h>

typedef struct kept_hosts {
    bool on;
    char dir[64];
} kept_hosts;

/* Returns 0; on any failure the sweep goes on without kept hosts. */
int kept_hosts_open(kept_hosts *k);
void kept_hosts_close(kept_hosts *k);

#endif
