/*
 * mortar_hub_profile.h - who the host waits for: the wall-clock profile of
 * a QEMU host's synchronized phase (docs/profile.md, "Hosts").
 *
 * From the start of synchronization to the end of the links, the hub
 * measures its wall time in three parts: the vCPU running the guest (and
 * QEMU's own work), the hub servicing its links (handling messages, sending
 * null messages), and, inside that, the hub blocked waiting for a link whose
 * peer had not promised far enough, charged to that link. Cost: two
 * CLOCK_MONOTONIC reads per hub entry and per wait. MORTAR_PROFILE=0 turns
 * it off (no clock reads). It never changes simulated time.
 */
#ifndef MORTAR_HUB_PROFILE_H
#define MORTAR_HUB_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mortar/link.h"

/* Starts a run's profile from zero and reads MORTAR_PROFILE: profiling is
 * on unless it is "0". */
void mortar_hub_profile_init(void);

/* Wall clock (ns) for a measurement that starts now; 0 when profiling is
 * off. */
int64_t mortar_hub_profile_clock(void);

/* Synchronization started / the links ended (the first call counts). */
void mortar_hub_profile_start(void);
void mortar_hub_profile_end(void);

/* The hub starts / stops servicing its links (the horizon handler, an MMIO
 * read's stall). Nested pairs count once. */
void mortar_hub_profile_enter(void);
void mortar_hub_profile_leave(void);

/* Whether the vCPU the hub lets run next waits in a pure wait loop
 * (mortar_hub_spin.h): its wall time until the hub's next entry counts as
 * spinning ("spin_ns", part of "vcpu_ns"). */
void mortar_hub_profile_spinning(bool spinning);

/* The hub waited from `since` until now because link `index` held the
 * safe time back. */
void mortar_hub_profile_wait(unsigned index, int64_t since);

/* Writes ", \"profile\": {...}" (the fields of docs/profile.md's host
 * profile) for the `n` links, in hub order, to `f`. */
void mortar_hub_profile_write(FILE *f, mortar_link *const *links, unsigned n);

#endif
