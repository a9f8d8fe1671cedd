/*
 * mortar_hub_spin.h - skipping the iterations of a vCPU's pure wait loop
 * (docs/hosts.md, "Spinning guests").
 *
 * At a horizon stop the hub asks whether the vCPU stands in a pure wait
 * loop (mortar_spin_x86.h). To be sure, the vCPU is stopped twice at the
 * loop's landing point, one iteration apart, and its registers compared:
 * equal (but for the counter's values), the loop is a fixed point that
 * only a message, a timer or its own deadline can end. From then on, until
 * one of those, the host promises its peers what an idle host promises,
 * and at the landing point the hub adds whole iterations to the virtual
 * clock instead of executing them: the instructions they would have taken
 * (icount), stopping short of the next message, timer or deadline; the
 * vCPU executes the rest of the way itself. What the guest sees is what
 * plain execution gives: the same state at every instruction count from
 * which it could tell.
 *
 * MORTAR_SKIP=0 in QEMU's environment turns it off.
 */
#ifndef MORTAR_HUB_SPIN_H
#define MORTAR_HUB_SPIN_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/memattrs.h"

/* Forgets every loop and counter, and reads MORTAR_SKIP (at the start of
 * each run). */
void mortar_spin_init(void);

/* False with MORTAR_SKIP=0: the host executes every instruction and makes
 * every round trip (held reads too, mortar_hub_hold.h). */
bool mortar_skip_enabled(void);

/*
 * A horizon stop of the synchronized host whose vCPU is not halted, after
 * the links' service: recognise, verify, or skip. `reach_ns` is how far
 * the links let the host go (their next message, or their input bound).
 * May move the virtual clock.
 */
void mortar_spin_at_stop(uint64_t now_ns, uint64_t reach_ns);

/* The vCPU waits in a verified loop: it does nothing a peer can see
 * before a message, a virtual timer, or mortar_spin_deadline_ns(). */
bool mortar_spin_waiting(void);

/* The loop's own deadline (ns of virtual time), UINT64_MAX without one. */
uint64_t mortar_spin_deadline_ns(void);

/* The time (ns) the recogniser wants the vCPU stopped at, UINT64_MAX for
 * none. */
uint64_t mortar_spin_next_stop_ns(void);

/*
 * Whether a stop here could start following a loop: nothing is followed
 * yet, and the vCPU stands in a loop that reads only RAM. A stop between
 * two nanoseconds cannot (positions are whole ns), so the host lets the
 * vCPU stop at the next whole one instead of running past it.
 */
bool mortar_spin_loop_here(void);

/*
 * At a stop where the vCPU stands at a landing point of a verified loop:
 * the time (ns) up to which nothing but a message can end its wait (its
 * next timer, or two periods before its deadline). 0 anywhere else. Until
 * then the loop stores nothing and the guest's memory stays as it is, so a
 * device's read of RAM stamped before the next message of another kind
 * reads what plain execution would let it read: the hub may answer it
 * without running the vCPU to its stamp (mortar_hub.c, serve_reads_in_wait).
 */
uint64_t mortar_spin_landed_until_ns(uint64_t now_ns);

/* Whether [addr, addr + size) of `as` is guest RAM only, not a device's
 * registers: what a pure wait may read, and what a device may read while
 * the guest waits without the wait seeing it. */
bool mortar_spin_ram_only(AddressSpace *as, uint64_t addr, uint64_t size, MemTxAttrs attrs);

/* A message reached the guest, or the guest sent one: the wait is over or
 * what the loop reads may have changed. */
void mortar_spin_forget(void);

/*
 * At every horizon stop, before the links are serviced: a virtual timer
 * may have fired since the last stop (QEMU stops the vCPU for its timers
 * without the hub), and its interrupt may have taken the vCPU out of the
 * loop; then the host no longer waits.
 */
void mortar_spin_revalidate(uint64_t now_ns);

typedef struct mortar_spin_stats {
    uint64_t skips;         /* times iterations were skipped */
    uint64_t skipped_insns; /* instructions not executed */
    uint64_t skipped_ns;    /* virtual time they would have taken */
    uint64_t verified;      /* loops found to be pure waits */
    uint64_t refused;       /* loops whose registers changed in an iteration */
} mortar_spin_stats;

void mortar_spin_get_stats(mortar_spin_stats *out);

#endif
