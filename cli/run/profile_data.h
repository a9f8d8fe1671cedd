/*
 * profile_data.h - a finished run's profile, "who waits for whom": what
 * each process's files in the run directory say (mortar-sim's
 * <name>.profile.json, mortar/profile.h; a QEMU host's <name>.host.json),
 * gathered into one JSON array, and printed as text for `mortar profile`.
 *
 * The array (docs/profile.md): one object per process, sorted by name,
 *   {"name", "kind": "sim", "wall_ns", "busy_ns", "wait_ns", "wait_any_ns",
 *    "waits_any", "sim_time_ps", "events", "enabled",
 *    "links": [{"link", "peer", "component", "port", "wait_ns", "waits",
 *               "msgs_sent", "msgs_received", "syncs_sent", "syncs_received",
 *               "waits_blocked", "wakes_sent", "full_stalls" (optional)}],
 *    "components": [{"name", "events", "wait_ns", "msgs_sent", ...}]}
 * or {"name", "kind": "host", "host": {the host.json figures}}. A link's
 * "peer" names the other end from the run's spec.json ("host NAME" or the
 * component), "" when unknown.
 */
#ifndef MORTAR_CLI_PROFILE_DATA_H
#define MORTAR_CLI_PROFILE_DATA_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* The profile of the run in `run_dir`, as a new array (empty when the run
 * left no profile files); NULL with the reason in `err` when the
 * directory cannot be read. */
json_t *profile_collect(const char *run_dir, char *err, size_t size);

/* Checks that `profile` has the layout above (every number an integer
 * >= 0, names strings). Returns 0, or -1 with the reason. For files and
 * records that enter from outside (`mortar import`). */
int profile_check(json_t *profile, char *err, size_t size);

/* profile_collect, then profile_check: a profile that holds, or NULL with
 * the reason. */
json_t *profile_collect_checked(const char *run_dir, char *err, size_t size);

/* Prints the profile as text: per process, wall busy and waiting (and on
 * which link, largest first, with percentages of the wall time), syncs,
 * messages, events and the simulated time reached; the hosts' figures. */
void profile_print(FILE *f, json_t *profile);

#endif
