/*
 * mortar_hub.h - QEMU's side of mortar's clock: one hub per QEMU process
 * services every mortar link of the host and applies the conservative rule
 * to the guest's virtual time.
 *
 * Host time in picoseconds is QEMU_CLOCK_VIRTUAL (ns) x 1000. Until the
 * synchronization start time the host runs free (booting costs no
 * synchronization); from then on the hub sets the vCPU's horizon at the
 * earliest of: a link's horizon (the guest may not run past what its devices
 * have promised), the next received message's stamp, and the next null
 * message due. When the virtual clock stands there, the vCPU thread calls
 * the hub (icount-stall.patch); the hub waits for every link's horizon to
 * pass it, handles every message stamped up to it (DMA, interrupts), sends
 * the due null messages and sets the next horizon.
 */
#ifndef MORTAR_HUB_H
#define MORTAR_HUB_H

#include <stdbool.h>
#include <stdint.h>

#include "mortar/link.h"
#include "mortar_hub_hold.h"

typedef struct mortar_endpoint mortar_endpoint;

/* Called by the hub for each message, at the host time it is due. */
typedef void (*mortar_endpoint_handler)(void *opaque, const mortar_msg *msg);

struct mortar_endpoint {
    mortar_link *link;
    const char *name;
    mortar_endpoint_handler handle;
    void (*on_sync_start)(void *opaque); /* optional */
    void *opaque;
    /* the MMIO read the stalled vCPU is waiting for */
    uint64_t wait_req;
    bool wait_done;
    uint64_t wait_stamp_ps;
    uint8_t wait_data[64];
    uint32_t wait_size;
    uint64_t read_sent; /* data messages sent on the link with that read */
    mortar_hold hold;   /* reads the host answers itself (mortar_hub_hold.h) */
    unsigned hub_index; /* set by mortar_hub_add: the hub's order of links */
};

/* Registers an endpoint whose link is established. `start_ps` is the time
 * synchronization starts (the same for every endpoint of the host):
 * MORTAR_START_AT_READY for the common start after boot, UINT64_MAX for a
 * functional run that never synchronizes. */
void mortar_hub_add(mortar_endpoint *ep, uint64_t start_ps);

/* Start time meaning "when the guest reports ready" (see below). */
#define MORTAR_START_AT_READY (UINT64_MAX - 1)

/*
 * The guest reports that it booted (a write to a mortar device's config
 * space). With a rendezvous, the host publishes its ready time in the run's
 * directory and waits until every host has; the common start is the latest
 * ready time plus 1 ms, rounded up to a microsecond.
 */
void mortar_hub_guest_ready(void);

/* Hosts of one run meet in `dir` (one file per host, named `host`). */
void mortar_hub_set_rendezvous(const char *dir, unsigned hosts, const char *host);

/*
 * Booted-guest snapshots (docs/snapshots.md). With a snapshot file set, the
 * guest's report that it reached the snapshot point (a write of 2 to a
 * mortar device's config byte 0xff, before anything of the run is known)
 * stops the vCPU there, writes the machine into the file with QEMU's
 * migration and quits. Without one, the report is ignored. A restored
 * machine (-incoming) gets the hub's horizon back.
 */
void mortar_hub_set_snapshot(const char *path);
void mortar_hub_snapshot_point(void);

/*
 * The guest's run is over (mortar-end writes 3 to a mortar device's config
 * byte 0xff): the host ends the machine as the guest's power-off would,
 * without the guest's own shutdown, which the run does not record.
 */
void mortar_hub_guest_done(void);

/* ---- a kept QEMU's runs (mortar_park.h) ---- */

/* The run is over: terminate the links, write the host's counters
 * (MORTAR_HOST_STATS) and close its trace, as at exit. */
void mortar_hub_end_run(void);

/* The next run: the hub as before the snapshot's load in a fresh QEMU,
 * on its endpoints' new links, meeting `hosts` hosts as `host` in
 * `rendezvous` (NULL: none), with the settings of the environment. */
void mortar_hub_new_run(const char *rendezvous, unsigned hosts, const char *host);

/* The host's current time in picoseconds. */
uint64_t mortar_hub_now_ps(void);

/* True once the host runs synchronized. */
bool mortar_hub_synchronized(void);

/* Sends one message on the endpoint's link at the host's current time;
 * a dead link ends QEMU with a message naming the device. */
void mortar_hub_send(mortar_endpoint *ep, uint8_t type, const void *payload, uint32_t size);

/*
 * Stalls the vCPU on an MMIO read: sends the request (already built by the
 * caller as `req`, a mortar_pcie_mmio), services every link until the
 * completion with `req_id` arrives and the host may move to its stamp, then
 * advances the virtual clock to that stamp. A read the device's last
 * completion held (mortar_hub_hold.h) is answered without the round trip,
 * at the same stamp, unless skipping is off (MORTAR_SKIP=0). Returns the
 * completion's data size (data in ep->wait_data).
 */
uint32_t mortar_hub_mmio_read(mortar_endpoint *ep, const void *req, uint32_t size,
                              uint64_t req_id);

/* Counters for the host's stats line at exit. */
typedef struct mortar_hub_stats {
    uint64_t mmio_reads, mmio_stall_ps, services, waits, messages, idle_skips;
    uint64_t mmio_reads_held; /* of mmio_reads, answered from a device's hold */
    uint64_t stall_promises; /* null messages due while stalled in an MMIO read, sent
                                with a promise */
    uint64_t blocks_whole; /* translation blocks run whole past a horizon that cut
                              them (icount-whole-tb.patch) */
    uint64_t reads_in_wait; /* devices' DMA reads answered while the vCPU waited in
                               a verified loop, without running it to them */
    uint64_t late_messages; /* messages handled after the whole ns the vCPU should
                               have stopped at for them: a fault of the hub's */
    uint64_t bound_breaks; /* messages stamped before the time the links' bounds had
                              let the vCPU run to, or an idle host's clock jump to
                              (late ones included): a promise, or the hub's
                              reading of one, did not hold */
    uint64_t horizon_overruns; /* stops where the vCPU stood past its horizon: it
                                  ran instructions the links had not let it run */
} mortar_hub_stats;

void mortar_hub_get_stats(mortar_hub_stats *out);

#endif
