/*
 * mortar_hub_digest.h - a run's fingerprint: the data messages of each of
 * the host's links, folded into digests as the hub handles and sends them
 * (docs/hosts.md, "Fingerprint").
 *
 * Two runs of one spec carry the same messages at the same stamps, whatever
 * the wall clock did, so they end with the same digests. When two runs
 * part, the digests say where. Each link has a digest of what it brought
 * the host and one of what the host sent on it. Two more fold every link's,
 * in the order the hub took them, and every MORTAR_DIGEST_EVERY_PS of
 * simulated time from the common start a checkpoint keeps these two: the
 * first checkpoint that differs brackets the moment the runs parted, and
 * when only one of its two digests differs, that side parted first: the
 * host's guest (sent) or the models (received).
 *
 * MMIO reads and their completions are left out: a host answers some reads
 * from a device's hold without a message (mortar_hub_hold.h), as many as
 * its skipping and the device's promises allow, while what the guest reads
 * and when is the same either way, and shows in everything it does after.
 * Null messages are not data and never reach the hub.
 *
 * Plain C: tests/test_hub_digest.c compiles it in.
 */
#ifndef MORTAR_HUB_DIGEST_H
#define MORTAR_HUB_DIGEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define MORTAR_DIGEST_LINKS       16             /* a host's links (the hub's) */
#define MORTAR_DIGEST_EVERY_PS    10000000000ull /* a checkpoint each 10 ms */
#define MORTAR_DIGEST_CHECKPOINTS 2048 /* 20 s simulated; later ones are not kept */

typedef struct mortar_digest_pair {
    uint64_t received, sent;
} mortar_digest_pair;

typedef struct mortar_digest {
    bool started;
    unsigned links;
    uint64_t next_ps; /* the next checkpoint's time; UINT64_MAX: no room left */
    mortar_digest_pair link[MORTAR_DIGEST_LINKS];
    uint64_t link_received[MORTAR_DIGEST_LINKS],
        link_sent[MORTAR_DIGEST_LINKS]; /* counts */
    mortar_digest_pair all;             /* every link's, in the hub's order */
    uint32_t checkpoints;
    mortar_digest_pair
        at[MORTAR_DIGEST_CHECKPOINTS]; /* `all` before start + (i + 1) x every */
} mortar_digest;

/* Forgets everything and starts folding at `start_ps` (the common start),
 * for `links` links (at most MORTAR_DIGEST_LINKS; more are not folded). */
void mortar_digest_start(mortar_digest *d, unsigned links, uint64_t start_ps);

/* Whether a message of `type` is folded: data other than MMIO reads and
 * their completions. */
bool mortar_digest_counts(uint8_t type);

/* Folds a message `sent` on link `link` (else received from it), stamped
 * `stamp_ps`; first keeps the checkpoints due before that stamp. Nothing
 * before mortar_digest_start, for a type that does not count, or for a
 * link past `links`. */
void mortar_digest_fold(mortar_digest *d, unsigned link, bool sent, uint64_t stamp_ps,
                        uint8_t type, const void *payload, uint32_t size);

/* Writes `, "digest": {...}` for the host's statistics (docs/profile.md):
 * per link (named `names[i]`) its two digests and message counts, the
 * two of every link, and the checkpoints; digests as 16 hex digits. */
void mortar_digest_write_json(const mortar_digest *d, FILE *f, const char *const *names);

#endif
