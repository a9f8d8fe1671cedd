/*
 * mortar/link.h - timestamped message links between simulators.
 *
 * A link joins two ports. Each direction is a single-producer/single-consumer
 * ring of fixed-size slots. Between processes the rings live in one
 * shared-memory region (a memfd) that the listening side creates and passes
 * to the connecting side over a UNIX socket (SCM_RIGHTS), together with a
 * versioned intro. docs/protocol.md is the byte-exact description of the wire
 * format; this header is the C API.
 *
 * Time on a link: a message sent at time `now` is stamped
 * `now + latency`, or, when the link has a bandwidth, the time its last bit
 * arrives after it has been serialized behind earlier traffic:
 *     start = max(now, link busy until); busy until = start + bytes/bandwidth;
 *     stamp = busy until + latency.
 * A PCIe link with a transaction layer (mortar/pcie_wire.h) computes the
 * wire time of each message itself, from the packets PCIe would carry for
 * it, at its generation and width (the caller's `wire_bytes` is not used);
 * a host-side time may delay the start, and a read request is stamped at
 * the arrival of its first packet:
 *     start = max(now + host time, busy until); busy until = start + wire;
 *     stamp = start + (first packet's wire, or wire) + latency.
 * Stamps on a link never decrease. A message stamped t promises that nothing
 * stamped earlier than t will follow on that link. A side that has sent
 * nothing for one sync interval sends a null (sync) message to renew that
 * promise. `0 < sync_interval <= latency` is enforced.
 *
 * Threading: a link endpoint belongs to one thread. The two endpoints of a
 * link may live in different processes (shared memory) or in the same
 * process (mortar_link_pair); the ring code and the timing are the same.
 */
#ifndef MORTAR_LINK_H
#define MORTAR_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mortar/pcie_wire.h"
#include "mortar/time.h"

/* ---- wire constants (see docs/protocol.md) ---------------------------- */

#define MORTAR_LINK_MAGIC       0x4b4e4c4dU /* "MLNK" little-endian */
#define MORTAR_LINK_VERSION     3
#define MORTAR_SLOT_HEADER_SIZE 64
#define MORTAR_SHM_HEADER_SIZE  4096

/* Upper protocols. */
#define MORTAR_PROTO_TEST 0x00000001u /* raw messages, for tests and benchmarks */
#define MORTAR_PROTO_PCIE 0x00000002u /* see mortar/pcie.h */
#define MORTAR_PROTO_ETH  0x00000003u /* see mortar/eth.h */

/* Message types 0x01-0x0f belong to the link itself; 0x10-0x7f to the upper
 * protocol. */
#define MORTAR_MSG_SYNC      0x01 /* null message: a promise in the header, no payload */
#define MORTAR_MSG_TERMINATE 0x02 /* the sender is gone; stamped MORTAR_TIME_MAX */
#define MORTAR_MSG_UPPER_MIN 0x10
#define MORTAR_MSG_TYPE_MASK 0x7f
#define MORTAR_SLOT_FULL     0x80 /* ownership bit: set while the consumer owns it */

/* The 64-byte header at the start of every slot. Payload follows it. */
typedef struct mortar_slot_header {
    uint32_t payload_size; /* bytes of payload after the header */
    uint32_t sequence;     /* per-direction message count, low 32 bits */
    /* null messages only (docs/protocol.md §4): a lookahead promise (0:
     * none) and the count of the receiver's data messages consumed */
    uint64_t promise_ps; /* bytes 8-15 */
    uint64_t consumed;   /* bytes 16-23 */
    uint8_t reserved0[24];
    uint64_t timestamp_ps; /* bytes 48-55 */
    uint8_t reserved1[7];
    uint8_t own_type; /* byte 63: MORTAR_SLOT_FULL | type; written last (release) */
} mortar_slot_header;

/* The intro each side sends during the handshake, followed by
 * `upper_intro_size` bytes of the upper protocol's intro. Little-endian. */
typedef struct mortar_link_intro {
    uint32_t magic;       /* MORTAR_LINK_MAGIC */
    uint16_t version;     /* MORTAR_LINK_VERSION */
    uint16_t intro_size;  /* sizeof(mortar_link_intro) == 128 */
    uint32_t protocol;    /* MORTAR_PROTO_* */
    uint32_t sync_mode;   /* mortar_sync_mode */
    uint32_t slot_size;   /* bytes per slot, header included; multiple of 64 */
    uint32_t slot_count;  /* slots per direction */
    uint64_t latency_ps;  /* one-way latency, > 0 */
    uint64_t sync_interval_ps;
    uint64_t bandwidth_bps; /* 0: no serialization delay */
    uint64_t shm_size;      /* size of the shared region (listener's intro) */
    uint32_t upper_intro_size;
    uint32_t reserved;
    /* version 3: the PCIe transaction layer (gen 0: none; the listener's
     * counts, the connector sends its own, which is not used) */
    mortar_pcie_wire pcie;
    uint8_t reserved2[40];
} mortar_link_intro;

_Static_assert(sizeof(mortar_link_intro) == 128, "link intro layout");

/* ---- configuration ----------------------------------------------------- */

typedef enum {
    MORTAR_SYNC_OFF = 0, /* functional mode: stamps are kept, nobody waits */
    MORTAR_SYNC_ON = 1,  /* conservative synchronization */
} mortar_sync_mode;

/* How a side waits for its peer. Every policy spins first for `spin_ns`
 * (YIELD and BLOCK not when the peer last waited on this side's CPU: it
 * cannot be running then; when that keeps happening, the listener's side
 * moves the calling thread to another CPU its affinity allows). */
typedef enum {
    MORTAR_WAIT_SPIN = 0,  /* spin only (one core per simulator) */
    MORTAR_WAIT_YIELD = 1, /* then sched_yield() between polls */
    MORTAR_WAIT_BLOCK = 2, /* then sleep on the futex word; the producer wakes us */
} mortar_wait_policy;

/* The longest one-way latency a link may have: 1 s. Any longer is not a
 * link mortar models, and the stamps of a run of months would overflow. */
#define MORTAR_LINK_MAX_LATENCY_PS MORTAR_S(1)

typedef struct mortar_link_params {
    const char *name; /* used in every error message; copied */
    uint32_t protocol;
    uint32_t slot_size;  /* default 2048; PCIe links use 9216; a multiple of
                          * 64, at least 64 (the header alone: no payload) */
    uint32_t slot_count; /* default 1024 */
    uint64_t latency_ps; /* default 500 ns; at most MORTAR_LINK_MAX_LATENCY_PS */
    uint64_t sync_interval_ps; /* default: latency */
    uint64_t bandwidth_bps;    /* default 0 */
    /* PCIe links only: the transaction layer (mortar/pcie_wire.h); default
     * gen 0, none: messages cost the latency alone. Not with a bandwidth. */
    mortar_pcie_wire pcie;
    mortar_sync_mode sync_mode; /* default ON */
    mortar_wait_policy wait_policy; /* default BLOCK */
    uint32_t spin_ns;               /* default 2000 */
    uint32_t handshake_timeout_ms;  /* default 30000 */
    const void *upper_intro; /* this side's upper intro; copied */
    uint32_t upper_intro_size;
} mortar_link_params;

/* Fills `p` with the defaults above (protocol TEST, no name). */
void mortar_link_params_init(mortar_link_params *p);

/* Checks `p` and writes a message naming the bad field into `err`.
 * Returns 0 or MORTAR_EINVAL. */
int mortar_link_params_check(const mortar_link_params *p, char *err, size_t err_size);

/* ---- setup ------------------------------------------------------------- */

typedef struct mortar_link mortar_link;

/*
 * Binds a UNIX socket at `path` (removing a stale one) and returns a link
 * in the listening state in `*out`. Call mortar_link_accept() to complete it.
 * The listener creates the shared memory and decides slot size and count,
 * latency, sync interval and bandwidth. On failure `*out` is NULL and, when
 * `err` is not NULL, `err` holds the reason.
 */
int mortar_link_listen(mortar_link **out, const char *path, const mortar_link_params *p,
                       char *err, size_t err_size);

/*
 * Waits (up to the handshake timeout) for the peer to connect, then runs the
 * handshake. On error the link stays allocated; read mortar_link_errmsg()
 * and close it.
 */
int mortar_link_accept(mortar_link *link);

/*
 * Connects to a listener at `path`, retrying while the socket does not exist
 * yet (up to the handshake timeout), and runs the handshake. The connector's
 * protocol, version and sync mode must match the listener's; its latency,
 * when not 0, too. The link's timing parameters are the listener's.
 */
int mortar_link_connect(mortar_link **out, const char *path, const mortar_link_params *p,
                        char *err, size_t err_size);

/*
 * Creates the two ends of an in-process link. Both ends share one ring pair
 * in ordinary memory and behave exactly like a shared-memory link.
 */
int mortar_link_pair(mortar_link **a, mortar_link **b, const mortar_link_params *p);

/* Closes the endpoint: unmaps memory, closes the socket. Does not send a
 * terminate message (call mortar_link_terminate() first for a clean end). */
void mortar_link_close(mortar_link *link);

/* ---- state ------------------------------------------------------------- */

const char *mortar_link_name(const mortar_link *link);
const char *mortar_link_errmsg(const mortar_link *link);
uint64_t mortar_link_latency(const mortar_link *link);
uint64_t mortar_link_sync_interval(const mortar_link *link);
uint64_t mortar_link_bandwidth(const mortar_link *link);
/* The link's PCIe transaction layer (gen 0: none), the listener's. */
const mortar_pcie_wire *mortar_link_pcie(const mortar_link *link);
mortar_sync_mode mortar_link_sync_mode(const mortar_link *link);
uint32_t mortar_link_protocol(const mortar_link *link);
/* Largest payload a message may carry: slot size minus the 64-byte header. */
uint32_t mortar_link_max_payload(const mortar_link *link);

/* The peer's upper intro (valid until close); size in *size. */
const void *mortar_link_peer_intro(const mortar_link *link, uint32_t *size);

/*
 * The input horizon: the newest stamp received on this link, i.e. the
 * time before which nothing more will arrive. MORTAR_TIME_MAX once the peer
 * terminated. 0 before anything arrived.
 */
uint64_t mortar_link_in_horizon(const mortar_link *link);

/*
 * The input bound: the time before which nothing more will arrive, counting
 * the peer's lookahead promise (mortar_link_send_promise) when it made one:
 * max(horizon, min(promise, stamp of our first data message the peer had
 * not consumed + latency)). At least the horizon. Our own sends can lower it
 * (to no less than their stamp + latency): read it again after sending.
 */
uint64_t mortar_link_in_bound(const mortar_link *link);

/* True once a terminate message was received. */
bool mortar_link_peer_terminated(const mortar_link *link);

/* ---- sending ----------------------------------------------------------- */

/*
 * Stamps and sends one message of `type` (0x10-0x7f) sent at `now_ps`.
 * `wire_bytes` is the size used for serialization when the link has a
 * bandwidth (0 means the payload size); a PCIe transaction layer computes
 * it from the message instead. Returns the stamp in *stamp (may be
 * NULL). Fails with MORTAR_ETOOBIG when the payload exceeds the slot,
 * MORTAR_EAGAIN when the ring is full (nothing is sent then),
 * MORTAR_EINVAL when `now_ps` is earlier than a previous send.
 */
static inline int mortar_link_send(mortar_link *link, uint64_t now_ps, uint8_t type,
                                   const void *payload, uint32_t size, uint32_t wire_bytes,
                                   uint64_t *stamp);

/*
 * Two-step send for large payloads without a copy: reserve a slot, fill
 * the returned payload area, then commit. Between the two nothing else may
 * be sent on the link. Returns NULL (and sets the error) when the ring is
 * full or size too big.
 */
void *mortar_link_reserve(mortar_link *link, uint32_t size);
int mortar_link_commit(mortar_link *link, uint64_t now_ps, uint8_t type, uint32_t size,
                       uint32_t wire_bytes, uint64_t *stamp);

/* The wire time of the last data message sent: it started to leave at
 * *start_ps and took *wire_ps on the wire (its first byte arrives at
 * *start_ps + latency); *wire_ps is 0 when it cost no wire time. For
 * traces (mortar/pcie_wire.h). */
void mortar_link_last_wire(const mortar_link *link, uint64_t *start_ps, uint64_t *wire_ps);

/* Sends a null message stamped now + latency. */
int mortar_link_send_sync(mortar_link *link, uint64_t now_ps);

/*
 * A null message stamped now + latency, like mortar_link_send_sync, that
 * also promises: this side sends no data message before `next_send_ps`
 * (so none stamped before next_send_ps + latency) unless a data message of
 * the peer's that this side has not consumed yet (popped) causes it. It
 * carries how many of the peer's data messages this side consumed. The
 * peer's mortar_link_in_bound uses it.
 */
int mortar_link_send_promise(mortar_link *link, uint64_t now_ps, uint64_t next_send_ps);

/*
 * A data message of the peer's carried a promise (mortar/pcie.h: a read
 * completion that holds): as mortar_link_send_promise's, it sends no data
 * message before `next_send_ps` unless one of ours it had not consumed
 * causes it; it had consumed `consumed` of our data messages. The link's
 * input bound uses it. MORTAR_EPROTO when `consumed` exceeds what we sent.
 */
int mortar_link_take_promise(mortar_link *link, uint64_t next_send_ps, uint64_t consumed);

/*
 * Accounts for a message of `type` sent at `now_ps` as mortar_link_send
 * would (the wire's state, the stamp in *stamp) without sending it: for a
 * side that plays its peer's answer itself (mortar/pcie.h, held reads).
 * The peer hears nothing of it, so it does not put off the next null
 * message. MORTAR_EINVAL when `now_ps` is earlier than a previous send.
 */
int mortar_link_charge(mortar_link *link, uint64_t now_ps, uint8_t type, const void *payload,
                       uint32_t size, uint64_t *stamp);

/* When a null message is due: the time of the last send plus the sync
 * interval; never (MORTAR_TIME_MAX) once either side terminated. A peer
 * that terminated reads nothing more, so null messages to it are not sent
 * (mortar_link_send_sync and _send_promise return MORTAR_OK), and a
 * terminate to it does not wait for a free slot. */
uint64_t mortar_link_sync_due(const mortar_link *link);

/* Sends the terminate message (stamped MORTAR_TIME_MAX), blocking while the
 * ring is full for at most `timeout_ms` (not at all once the peer has
 * terminated). */
int mortar_link_terminate(mortar_link *link, uint32_t timeout_ms);

/* ---- receiving --------------------------------------------------------- */

typedef struct mortar_msg {
    uint8_t type;
    uint32_t size;
    uint64_t timestamp_ps;
    const void *payload; /* valid until mortar_link_pop() */
} mortar_msg;

/*
 * Looks at the oldest message without consuming it. Returns 1 and fills `msg`
 * when one is there, 0 when the ring is empty. Null and terminate messages
 * are consumed here (they update the horizon) and never returned. Returns
 * MORTAR_EPROTO for a malformed slot.
 */
static inline int mortar_link_peek(mortar_link *link, mortar_msg *msg);

/* Frees the message returned by the last successful peek. */
static inline void mortar_link_pop(mortar_link *link);

/* ---- waiting ----------------------------------------------------------- */

/*
 * Waits until something new arrives on this link (a message, a null message
 * or terminate), following the link's wait policy, for at most `timeout_ms`
 * of wall time. Returns 0 when something arrived, MORTAR_ETIMEDOUT, or
 * MORTAR_EPEER when the peer's end of the socket closed without a terminate
 * message (crash or kill) - detected within the timeout. After a run of 16
 * data messages or more since the previous wait it first lets a stream run
 * ahead: it looks again once 64 more are there, or after about 2.5 us of
 * wall time (lib/link_wait.c).
 */
int mortar_link_wait(mortar_link *link, uint32_t timeout_ms);

/*
 * Waits, as mortar_link_wait, until a data message waits to be peeked, the
 * input bound (mortar_link_in_bound) reaches `bound_ps`, or the peer
 * terminated. Null messages that arrive meanwhile are taken in (as peek
 * does) without ending the wait, and a peer does not wake a side sleeping
 * here for a null message that cannot bring the bound to `bound_ps`: an
 * idle side that has promised to send nothing before `bound_ps` sleeps
 * through its peer's steps. 0, MORTAR_ETIMEDOUT, or a link error.
 */
int mortar_link_wait_bound(mortar_link *link, uint64_t bound_ps, uint32_t timeout_ms);

/* True when a message (of any kind) is ready to be read, without consuming. */
static inline bool mortar_link_has_input(const mortar_link *link);

/* Checks the socket for a dead peer; MORTAR_EPEER if so (error text set). */
int mortar_link_check_peer(mortar_link *link);

/* Counters for stats and benchmarks. */
typedef struct mortar_link_counters {
    uint64_t msgs_sent, msgs_received;
    uint64_t syncs_sent, syncs_received;
    uint64_t bytes_sent, bytes_received;
    uint64_t waits_blocked; /* times this side slept on the futex */
    uint64_t wakes_sent;    /* times this side woke its sleeping peer */
    uint64_t full_stalls;   /* sends refused because the ring was full */
} mortar_link_counters;

void mortar_link_get_counters(const mortar_link *link, mortar_link_counters *out);

/* The bodies of the inline functions above (send, peek, pop, has_input). */
#include "mortar/link_hot.h"

#endif
