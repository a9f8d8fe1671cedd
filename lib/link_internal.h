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

/* One per direction, a cache line each, in the shared header page. The
 * consumer of the direction sets `waiting` before it sleeps on `futex_seq`;
 * the producer bumps `futex_seq` and wakes it. During setup the consumer
 * says in `consumer_flags` how its producer may publish without a fence
 * (LINK_CONSUMER_*; docs/protocol.md §2), and before it waits, on which CPU
 * and, while it waits, that it does (link_wait.c). */
typedef struct shm_direction {
    _Atomic uint32_t futex_seq;
    _Atomic uint32_t waiting;
    _Atomic uint32_t consumer_flags;
    _Atomic uint32_t consumer_cpu; /* the CPU it last waited on, plus one; 0 unknown */
    /* while it sleeps in mortar_link_wait_bound: no wake for a null message
     * whose stamp and promise are both below this; 0: wake for any */
    _Atomic uint64_t wake_from_ps;
    _Atomic uint32_t in_wait; /* the consumer is in a wait on this link, past its first polls */
    uint8_t pad[36];
} shm_direction;
_Static_assert(sizeof(shm_direction) == 64, "one cache line per direction");

/* consumer_flags: it never sleeps on the futex (wait policy spin or yield) */
#define LINK_CONSUMER_NEVER_SLEEPS 1u
/* consumer_flags: before it sleeps it runs membarrier(GLOBAL_EXPEDITED)
 * between its store of `waiting` and its last look at the slot */
#define LINK_CONSUMER_BARRIER 2u

typedef struct shm_header {
    uint32_t magic; /* MORTAR_LINK_MAGIC */
    uint32_t version;
    uint32_t slot_size, slot_count;
    uint8_t pad[48];
    shm_direction dir[2]; /* [0]: listener -> connector, [1]: the reverse */
} shm_header;

struct mortar_link {
    mortar_link_hot hot; /* first: the inline hot path (mortar/link_hot.h) */
    char name[64];
    char err[320];

    /* configuration (the listener's, after the handshake) */
    uint32_t protocol;
    uint64_t sync_interval_ps;
    mortar_wait_policy wait_policy;
    uint32_t spin_ns, handshake_timeout_ms;
    void *my_intro, *peer_intro;
    uint32_t my_intro_size, peer_intro_size;

    /* shared memory */
    void *shm;
    size_t shm_size;
    int shm_fd;          /* -1 for in-process pairs */
    int *pair_refs;      /* in-process pairs: shared reference count */
    shm_direction *tx_dir, *rx_dir;
    mortar_slot_header *reserved; /* the slot of a reserve() pending commit */
    bool sleep_barrier;   /* we announced LINK_CONSUMER_BARRIER */
    uint64_t taken_at_wait; /* messages taken in when the last wait began (link_wait.c) */
    bool peer_terminated;
    uint32_t shared_cpu_waits; /* waits in a row that found the peer on our CPU */
    uint64_t shared_since_ns;  /* when the first of them began */
    uint64_t moved_at_ns;      /* when this side last moved off that CPU */
    uint64_t move_gap_ns;      /* the least time from one move to the next */

    /* lookahead promises (link_promise.c): the peer's latest (the stamp of
     * our first data message it had not consumed then is in `hot`) */
    uint64_t promise_ps;
    /* the most the peer's promises so far still bind it to, as of when we
     * had sent `standing_sent` data messages (link_promise_standing) */
    uint64_t standing_ps, standing_sent;

    /* socket */
    int sock_fd, listen_fd;
    char *path; /* listener's socket path, unlinked on close */
};

/* Sets the link's error text; returns `code`. Cold: only off the hot path. */
int link_set_error(mortar_link *link, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));

/* link_promise.c: the null message in slot `h` arrived; takes in its
 * promise, if it has one. MORTAR_EPROTO when the promise is malformed. */
int link_promise_received(mortar_link *link, const mortar_slot_header *h);
/* link_promise.c: no data message of the peer's may be stamped before
 * this: what its promises so far still bind it to. */
uint64_t link_promise_standing(mortar_link *link);

/* link.c: the slot the next null message goes into, or NULL when the ring
 * is full (counted as a stall). */
mortar_slot_header *link_null_slot(mortar_link *link);
/* link.c: publishes slot `h` (from link_null_slot) as a null message
 * stamped `stamp`, with a promise (0: none) and our consumed count. */
void link_publish_null(mortar_link *link, mortar_slot_header *h, uint64_t stamp,
                       uint64_t promise_ps, uint64_t consumed);

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

/* The slots at this side's write and read positions. */
/* Either side terminated: the peer reads no null message from us any more
 * (mortar_link_sync_due, _send_sync, _send_promise). */
static inline bool link_nulls_over(const mortar_link *link)
{
    return link->hot.terminated || link->peer_terminated;
}

static inline mortar_slot_header *link_tx_slot(const mortar_link *link)
{
    return mortar_link__slot(link->hot.tx_ring, link->hot.slot_size, link->hot.tx_pos);
}

static inline mortar_slot_header *link_rx_slot(const mortar_link *link)
{
    return mortar_link__slot(link->hot.rx_ring, link->hot.slot_size, link->hot.rx_pos);
}

#endif
