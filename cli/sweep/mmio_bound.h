/*
 * mmio_bound.h - whether a finished run was bound by MMIO reads, so that a
 * sweep leaves the later runs of its spec to the scheduler on every CPU
 * instead of a share (cpu_share.h).
 *
 * An MMIO read stalls the guest until the device's answer comes back
 * (hosts/qemu: mortar_hub_mmio_read): a round trip between the host's QEMU
 * and the simulator for each read. On a core of their own the two hand it
 * back and forth through the scheduler; on two cores each waits spinning
 * for the other. Measured on this 2-core machine, a register-copy run (its
 * server reads every result word, 88 % of its simulated time stalled) took
 * 58-67 s on one core against 24-33 s free beside a design run kept on the
 * other core, which itself took 16-20 s (15.8 s beside a pinned copy run):
 * the pair is best with the copy run free and the design run pinned.
 */
#ifndef MORTAR_CLI_MMIO_BOUND_H
#define MORTAR_CLI_MMIO_BOUND_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "db.h"

/* A host stalled on MMIO reads for at least this share of its
 * synchronized simulated time makes the run MMIO-bound. */
#define MMIO_BOUND_SHARE 0.5

/* Whether `profile` (profile_data.h: the processes of a run) has a host
 * stalled on MMIO reads for at least MMIO_BOUND_SHARE of the simulated time
 * it ran synchronized (its host.json: mmio_stall_ps against virtual_time_ps
 * - sync_start_ps). */
bool mmio_bound_profile(json_t *profile);

/* The same for run `id` of `db`, from its run directory; false when the
 * run or its files cannot be read (a sweep then keeps its default). */
bool mmio_bound_run(db_conn *db, int64_t id);

#endif
