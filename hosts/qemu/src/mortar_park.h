/*
 * mortar_park.h - a QEMU kept for the next run of its host configuration
 * (docs/snapshots.md, "Kept hosts").
 *
 * Started with MORTAR_PARK=<socket path>, QEMU runs its first run as any
 * restoring QEMU does. When the guest ends its run it does not quit: the
 * hub ends the links, writes the host's statistics and closes its trace,
 * the VM stays stopped, and QEMU waits on the socket for the next run of
 * the same configuration. A run's stand-in (`mortar host-attach`, the
 * process the run watches in QEMU's place) connects there and sends
 * either "watch" (the first run, already under way) or "run" with the new
 * run's QEMU command line, its MORTAR_ environment and three descriptors:
 * the console (stdout), the log (stderr) and the snapshot. QEMU then puts
 * the machine back to the snapshot (mortar_ram_reset.h for the RAM,
 * QEMU's own reset and loadvm for the devices), connects each mortar-pci
 * device to the new run's model, and starts the guest; what the guest can
 * observe is what a fresh QEMU gives it, while the translated code of the
 * pages the last run left alone is kept.
 *
 * Replies, one line each: "done <status>" when the run is over, "exit
 * <status>" when QEMU ends (whatever the cause it knows of), "fail <why>"
 * when a new run cannot be set up (QEMU then exits). A stand-in that goes
 * away during a run takes the run with it: QEMU exits. A kept QEMU whose
 * owner (MORTAR_PARK_OWNER, the sweep's pid) has gone exits too.
 */
#ifndef MORTAR_PARK_H
#define MORTAR_PARK_H

#include <stdbool.h>

/* Whether this QEMU is kept across runs (MORTAR_PARK is set). */
bool mortar_park_enabled(void);

/* Which run of this QEMU process the current one is: 1 for its first (and
 * for a QEMU that is not kept), 2 for the first it was kept for, ... */
unsigned mortar_park_run_number(void);

/* Opens the socket; called once, when the first mortar device joins the
 * hub. A socket that cannot be opened ends QEMU. */
void mortar_park_init(void);

/* The guest ended its run (vCPU thread, big lock): stop the VM; the main
 * loop then ends the run and waits for the next. */
void mortar_park_run_over(void);

#endif
