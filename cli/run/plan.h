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
#include "snapshot_key.h"
#include "spec.h"

typedef struct plan_sim {
    char name[MORTAR_NAME_MAX + 1];
    json_t *desc;             /* the mortar-sim description */
    char desc_path[512];
    char sockets[PLAN_MAX][256]; /* the sockets it listens on */
    int nsockets;
    char progress[640];       /* its simulated time, once a second */
} plan_sim;

#define PLAN_ARGV_MAX 160

typedef struct plan_host {
    char name[MORTAR_NAME_MAX + 1];
    char *argv[PLAN_ARGV_MAX]; /* QEMU's command line, NULL-terminated */
    int argc;
    char console[512];        /* guest console (stdout) */
    char qemu_log[512];       /* QEMU's stderr */
    char stats[512];          /* MORTAR_HOST_STATS */
    char progress[512];       /* MORTAR_PROGRESS: its simulated time */
    char params[512];         /* the per-run parameters (fw_cfg opt/mortar/params) */
    char snapshot_key[SNAPSHOT_KEY_HEX + 1]; /* booted-guest snapshot: its key, */
    char snapshot[640];       /* the cached file, */
    char snapshot_tmp[700];   /* and where PLAN_BOOT_SNAPSHOT writes it; */
    char snapshot_ram[640];   /* its guest RAM (snapshot_ram_path), */
    char snapshot_tmp_ram[720]; /* and where PLAN_BOOT_SNAPSHOT's guest runs in it */
    bool boots;               /* no mortar device, so no snapshot: it boots */
    bool restores;            /* it restores `snapshot`, open at its fd 3 */
    /* a restoring host as a kept QEMU serves it (host_attach.h): the
     * snapshot's key with its programs' names, its name and how many
     * hosts it meets, which its command line holds beyond the snapshot */
    char kept_key[SNAPSHOT_KEY_HEX + 1];
    bool no_skip;             /* "skip_spin": false: MORTAR_SKIP=0 (docs/hosts.md) */
    bool idle;                /* PLAN_BOOT_SNAPSHOT: not started (it boots, or its
                                 snapshot exists); its models wait for it */
} plan_host;

typedef struct plan {
    plan_sim sims[PLAN_MAX];
    int nsims;
    plan_host hosts[PLAN_MAX];
    int nhosts;
    int nhosts_total;
    int boot;                 /* plan_boot, as planned */
    char sock_dir[256];       /* private, short: UNIX socket paths are short */
    char run_dir[512];
} plan;

/* How the hosts start (docs/snapshots.md). */
typedef enum plan_boot {
    PLAN_BOOT_COLD,     /* boot the guest from its kernel */
    PLAN_BOOT_RESTORE,  /* restore the cached booted-guest snapshot */
    PLAN_BOOT_SNAPSHOT, /* boot, and save the snapshot at the snapshot point */
} plan_boot;

typedef struct plan_tools {
    const char *qemu;         /* qemu-system-x86_64 */
    const char *firmware[4];  /* -L dirs */
    const char *kernel, *initrd;
    bool trace;
    /* The run's wall-clock start (Unix ns, 0 for none): its switches write
     * pcap times from it (pcap_epoch_ns), the base the trace exports use. */
    uint64_t epoch_unix_ns;
    plan_boot boot;
    const char *snapshot_dir; /* the snapshot cache (RESTORE, SNAPSHOT) */
    const char *sim_bin;      /* mortar-sim: its models shape the devices */
} plan_tools;

/* Builds the plan for `spec` in `run_dir` (exists) and a fresh private
 * socket directory: the simulator descriptions, each host's parameter file
 * and QEMU command line, and (RESTORE, SNAPSHOT) each host's snapshot key
 * and file. Returns 0 or -1 with a message. */
int plan_build(plan *p, json_t *spec, const char *run_dir, const plan_tools *tools,
               char *err, size_t err_size);

/* The QEMU options and devices that shape host `host` of `spec` (what a
 * snapshot keeps), without anything per-run: the input of its snapshot key
 * besides the files. The caller owns the result. */
json_t *plan_machine(json_t *spec, json_t *host, const plan_tools *tools);

/* Frees what the plan allocated and removes the socket directory. */
void plan_free(plan *p);

#endif
