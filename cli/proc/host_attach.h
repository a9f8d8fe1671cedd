/*
 * host_attach.h - a run's host on a kept QEMU (docs/snapshots.md, "Kept
 * hosts"; hosts/qemu/src/mortar_park.h is QEMU's side).
 *
 *   mortar host-attach DIR KEY QEMU-ARGV...
 *
 * An internal command: `mortar run` starts it in place of a restoring
 * QEMU when a sweep keeps its hosts (MORTAR_PARK_DIR), with QEMU's
 * command line, console, log and snapshot (fd 3) as QEMU would have them,
 * and watches it as it would watch QEMU. It takes a free slot of the
 * host configuration KEY in DIR (an flock on KEY.N.lock, held to the end).
 * A slot whose QEMU waits there (KEY.N.sock) runs the run: the stand-in
 * hands it the command line, the MORTAR_ environment and its console, log
 * and snapshot. A slot without one gets a new QEMU, started by the
 * stand-in in a process group of its own and without a death signal (so
 * the run's end does not end it),
 * with MORTAR_PARK naming the slot's socket; it runs this run as any QEMU
 * would and is kept for the next. Either way the stand-in ends as that
 * QEMU would have ended this run: 0 once the run is over, QEMU's status
 * if it ends, 1 with a message if it cannot be reached or vanishes. If the
 * stand-in is killed, its QEMU ends the run and exits.
 */
#ifndef MORTAR_CLI_HOST_ATTACH_H
#define MORTAR_CLI_HOST_ATTACH_H

/* The slots a host configuration may have at once (as many runs of it at
 * a time). */
#define HOST_ATTACH_SLOTS 16

int mortar_host_attach_main(int argc, char **argv);

#endif
