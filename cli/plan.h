/*
 * plan.h - from a resolved spec to processes: one mortar-sim description
 * per simulator process, and one QEMU command line per host.
 *
 * Components share a process when their "process" names agree (default
 * "sim0": on a 2-core machine co-located models beat one process each).
 * Links between co-located components are in-process; between processes,
 * the "a" side listens. A host link's model listens; QEMU connects.
 */
#ifndef MORTAR_CLI_PLAN_H
#define MORTAR_CLI_PLAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mortar/name.h"

#define PLAN_MAX 16

typedef struct plan_sim {
    char name[MORTAR_NAME_MAX + 1];
    json_t *desc;             /* the mortar-sim description */
    char desc_path[512];
    char sockets[PLAN_MAX][256]; /* the sockets it listens on */
    int nsockets;
    char progress[640];       /* its simulated time, once a second */
} plan_sim;

typedef struct plan_host {
    char name[MORTAR_NAME_MAX + 1];
    char *argv[96];           /* QEMU's command line, NULL-terminated */
    int argc;
    char console[512];        /* guest console (stdout) */
    char qemu_log[512];       /* QEMU's stderr */
    char stats[512];          /* MORTAR_HOST_STATS */
    char progress[512];       /* MORTAR_PROGRESS: its simulated time */
} plan_host;

typedef struct plan {
    plan_sim sims[PLAN_MAX];
    int nsims;
    plan_host hosts[PLAN_MAX];
    int nhosts;
    int nhosts_total;
    char sock_dir[256];       /* private, short: UNIX socket paths are short */
    char run_dir[512];
} plan;

typedef struct plan_tools {
    const char *qemu;         /* qemu-system-x86_64 */
    const char *firmware[4];  /* -L dirs */
    const char *kernel, *initrd;
    bool trace;
    /* The run's wall-clock start (Unix ns, 0 for none): its switches write
     * pcap times from it (pcap_epoch_ns), the base the trace exports use. */
    uint64_t epoch_unix_ns;
} plan_tools;

/* Builds the plan for `spec` in `run_dir` (exists) and a fresh private
 * socket directory. Returns 0 or -1 with a message. */
int plan_build(plan *p, json_t *spec, const char *run_dir, const plan_tools *tools,
               char *err, size_t err_size);

/* Frees what the plan allocated and removes the socket directory. */
void plan_free(plan *p);

#endif
