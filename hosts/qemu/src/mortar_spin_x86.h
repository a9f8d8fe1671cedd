/*
 * mortar_spin_x86.h - recognising a pure wait loop in x86-64 code.
 *
 * A vCPU that spins on a completion record in memory, or on the time stamp
 * counter against a deadline, executes the same instructions over and over
 * with the same result until something from outside changes what it reads:
 * a device's DMA write, an interrupt, the counter reaching its deadline.
 * The hub (mortar_hub_spin.c) skips whole iterations of such a loop
 * instead of executing them. This file only reads code: it finds the loop
 * through the vCPU's pc and says whether it is a pure wait.
 *
 * A pure wait is a short cycle of instructions (at most SPIN_MAX_INSNS)
 *  - that stores nothing and has no effect but on registers and flags:
 *    moves, loads, compares, tests, register arithmetic, lea, nop, pause,
 *    fences, rdtsc, jumps; anything else (a store, a call, a push, a string
 *    instruction, port I/O, a locked or unknown instruction) refuses it;
 *  - whose branches each either stay on the cycle or leave it, and whose
 *    exits do not come back onto it within a few instructions;
 *  - whose values derived from the time stamp counter are used in one way
 *    only: the 64-bit counter (rdtsc, shl $32 of %rdx, or) compared against
 *    a value that does not change in the loop, leaving the loop once the
 *    counter reaches it; and that are written, in each iteration from the
 *    landing point on, before any exit can see them.
 * Whether the registers repeat from one iteration to the next (a loop that
 * counts does not) is not decided here: the hub compares the vCPU's
 * registers one iteration apart before it skips.
 */
#ifndef MORTAR_SPIN_X86_H
#define MORTAR_SPIN_X86_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPIN_MAX_INSNS 32 /* instructions in one iteration */
#define SPIN_MAX_LOADS 8  /* memory operands the loop reads */
#define SPIN_FLAGS 16     /* register bit of the arithmetic flags */

/* A memory operand: seg:[base + index * scale + disp]. */
typedef struct spin_mem {
    int8_t base;   /* 0-15 (rax..r15), -1 none (rip-relative: disp is absolute) */
    int8_t index;  /* 0-15, -1 none */
    uint8_t scale; /* 1, 2, 4, 8 */
    uint8_t seg;   /* 0 none, 4 fs, 5 gs (QEMU's R_FS, R_GS) */
    uint8_t size;  /* bytes read */
    int64_t disp;
} spin_mem;

/* The value the counter is compared with: a register, an immediate or
 * memory. */
typedef struct spin_operand {
    enum { SPIN_OPD_REG, SPIN_OPD_IMM, SPIN_OPD_MEM } kind;
    int8_t reg;
    int64_t imm;
    spin_mem mem;
} spin_operand;

typedef struct spin_loop {
    uint64_t landing;    /* where the hub takes a skip: the vCPU stands here */
    unsigned insns;      /* instructions per iteration */
    unsigned to_landing; /* instructions from the pc asked about to landing */
    spin_mem loads[SPIN_MAX_LOADS];
    unsigned nloads;
    /* registers (bit n: register n, SPIN_FLAGS: the flags) that hold values
     * of the counter at some point of an iteration: they differ from one
     * iteration to the next and are left out of the hub's comparison */
    uint32_t tsc_regs;
    /* With a deadline, the loop leaves in the first iteration whose rdtsc
     * (the landing instruction, tsc_at_landing) reads at least
     * value(deadline) + deadline_add. */
    bool has_deadline;
    bool tsc_at_landing;
    spin_operand deadline;
    unsigned deadline_add; /* 0 or 1 */
} spin_loop;

typedef enum spin_verdict {
    SPIN_OK,
    SPIN_NO_LOOP,      /* no short cycle through pc */
    SPIN_UNKNOWN,      /* an instruction outside the known set */
    SPIN_STORES,       /* a store, push, call or other side effect */
    SPIN_NOT_SIMPLE,   /* a branch inside the loop, or an exit coming back */
    SPIN_TSC_USE,      /* the counter used otherwise than against a deadline */
    SPIN_TOO_MANY_LOADS,
} spin_verdict;

/*
 * Looks for a pure wait loop through `pc` in `code` (len bytes, the first
 * of them at address `code_addr`; the code around pc, at least
 * SPIN_MAX_INSNS * 15 bytes on each side where readable). SPIN_OK fills
 * *out.
 */
spin_verdict spin_x86_find(const uint8_t *code, size_t len, uint64_t code_addr, uint64_t pc,
                           spin_loop *out);

/* "ok", "no loop", ...: for the host's statistics and the tests. */
const char *spin_verdict_name(spin_verdict v);

#endif
