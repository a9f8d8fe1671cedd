/*
 * link_internal.h - the link object and its shared-memory layout, shared by
 * link.c (rings, timing), link_shm.c (setup) and link_wait.c (waiting).
 */
#ifndef MORTAR_LINK_INTERNAL_H
#define MORTAR_LINK_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mortar/link.h"
#include "link_timing.h"

/* One per direction, a cache line each, in the shared header page. The
 * consumer of the direction sets `waiting` before it sleeps on `futex_seq`;
 * the producer bumps `futex_seq` and wakes it. During setup the consumer
 * says in `consumer_flags` how its producer may publish without a fence
 * (LINK_CONSUMER_*; docs/protocol.md §2), and before it waits, on which CPU
 * (link_wait.c). */
typedef struct shm_direction {
    _Atomic uint32_t futex_seq;
    _Atomic uint32_t waiting;
    _Atomic uint32_t consumer_flags;
    _Atomic uint32_t consumer_cpu; /* the CPU it last waited on, plus one; 0 unknown */
    /* while it sleeps in mortar_link_wait_bound: no wake for a null message
     * whose stamp and promise are both below this; 0: wake for any */
    _Atomic uint64_t wake_from_ps;
    uint8_t pad[40];
} shm_direction;

/* consumer_flags: it never sleeps on the futex (wait policy spin or yield) */
#define LINK_CONSUMER_NEVER_SLEEPS 1u
/* consumer_flags: before it sleeps it runs membarrier(GLOBAL_EXPEDITED)
 * between its store of `waiting` and its last look at the slot */
#define LINK_CONSUMER_BARRIER 2u

/* How this side publishes a slot, from its consumer's flags. */
typedef enum {
    PUBLISH_FENCE = 0,   /* seq_cst exchange, seq_cst read of `waiting` */
    PUBLISH_CHECK = 1,   /* release store, plain read of `waiting` (barrier) */
    PUBLISH_RELEASE = 2, /* release store alone: the consumer never sleeps */
} publish_mode;

typedef struct shm_header {
    uint32_t magic; /* MORTAR_LINK_MAGIC */
    uint32_t version;
    uint32_t slot_size, slot_count;
    uint8_t pad[48];
    shm_direction dir[2]; /* [0]: listener -> connector, [1]: the reverse */
} shm_header;

struct mortar_link {
    char name[64];
    char err[320];

    /* configuration (the listener's, after the handshake) */
    uint32_t protocol, slot_size, slot_count;
    uint64_t sync_interval_ps;
    mortar_sync_mode sync_mode;
    mortar_wait_policy wait_policy;
    uint32_t spin_ns, handshake_timeout_ms;
    void *my_intro, *peer_intro;
    uint32_t my_intro_size, peer_intro_size;

    /* shared memory */
    void *shm;
    size_t shm_size;
    int shm_fd;          /* -1 for in-process pairs */
    int *pair_refs;      /* in-process pairs: shared reference count */
    uint8_t *tx_ring, *rx_ring;
    shm_direction *tx_dir, *rx_dir;
    uint32_t tx_pos, rx_pos, tx_seq;
    mortar_slot_header *reserved; /* the slot of a reserve() pending commit */
    publish_mode publish; /* from the peer's consumer_flags after the handshake */
    bool sleep_barrier;   /* we announced LINK_CONSUMER_BARRIER */

    /* timing */
    link_timing timing;
    uint64_t horizon_ps;
    bool peer_terminated, terminated;

    /* lookahead promises (link_promise.c): the peer's latest, and the stamp
     * of our first data message it had not consumed when it made it */
    bool have_promise;
    uint64_t promise_ps;
    uint64_t first_unseen_stamp_ps; /* MORTAR_TIME_MAX: none */

    /* socket */
    int sock_fd, listen_fd;
    char *path; /* listener's socket path, unlinked on close */

    mortar_link_counters counters;
};

/* Sets the link's error text; returns `code`. Cold: only off the hot path. */
int link_set_error(mortar_link *link, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));

/* link_promise.c: the null message in slot `h` arrived; takes in its
 * promise, if it has one. MORTAR_EPROTO when the promise is malformed. */
int link_promise_received(mortar_link *link, const mortar_slot_header *h);

/* link.c: the slot the next null message goes into, or NULL when the ring
 * is full (counted as a stall). */
mortar_slot_header *link_null_slot(mortar_link *link);
/* link.c: publishes slot `h` (from link_null_slot) as a null message
 * stamped `stamp`, with a promise (0: none) and our consumed count. */
void link_publish_null(mortar_link *link, mortar_slot_header *h, uint64_t stamp,
                       uint64_t promise_ps, uint64_t consumed);

/* link_promise.c: we sent a data message stamped `stamp`. */
static inline void link_promise_sent(mortar_link *link, uint64_t stamp)
{
    if (link->first_unseen_stamp_ps == MORTAR_TIME_MAX)
        link->first_unseen_stamp_ps = stamp;
}

/* Points the ring and direction pointers into `shm` for the given side. */
void link_map_rings(mortar_link *link, bool is_listener);

/* Says, in our receive direction, how our producer may publish (set
 * before the peer can read it: during setup). */
void link_announce_sleeping(mortar_link *link);

/* Reads the peer's announcement for our transmit direction (after the
 * handshake, which orders it after the peer's write) and picks the
 * publish mode. */
void link_learn_peer_sleeping(mortar_link *link);

/* link_barrier.c: registers this process for the consumers' barrier (once
 * per process); false when the system cannot. */
bool link_barrier_register(void);
/* link_barrier.c: whether this process can issue the barrier. */
bool link_barrier_available(void);
/* link_barrier.c: a full barrier on every running thread of every
 * registered process; false when the call failed. */
bool link_barrier_issue(void);

static inline mortar_slot_header *link_slot(uint8_t *ring, uint32_t slot_size, uint32_t pos)
{
    return (mortar_slot_header *)(void *)(ring + (size_t)pos * slot_size);
}

static inline uint8_t slot_own_type(const mortar_slot_header *h)
{
    return atomic_load_explicit((const _Atomic uint8_t *)&h->own_type, memory_order_acquire);
}

static inline void slot_set_own_type(mortar_slot_header *h, uint8_t v)
{
    atomic_store_explicit((_Atomic uint8_t *)&h->own_type, v, memory_order_release);
}

#endif
