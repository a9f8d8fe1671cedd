/*
 * mortar_spin_decode.h - decoding one x86-64 instruction of the set a pure
 * wait loop may use (mortar_spin_x86.h), with what it reads and writes.
 */
#ifndef MORTAR_SPIN_DECODE_H
#define MORTAR_SPIN_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mortar_spin_x86.h"

typedef enum spin_kind {
    SPIN_INSN_PLAIN, /* registers and flags only */
    SPIN_INSN_JMP,
    SPIN_INSN_JCC,
    SPIN_INSN_RDTSC,
} spin_kind;

/* What the counter analysis needs to know of an operation. */
typedef enum spin_op {
    SPIN_OP_OTHER,
    SPIN_OP_MOV,
    SPIN_OP_CMP,
    SPIN_OP_OR,
    SPIN_OP_ADD,
    SPIN_OP_SHL,
} spin_op;

typedef struct spin_insn {
    uint64_t addr;
    uint64_t target; /* of a jump */
    uint8_t len;
    spin_kind kind;
    uint8_t cc; /* of a jcc: the condition, 0-15 (0x70 + cc) */
    spin_op op;
    uint8_t width;        /* operand bits: 8, 16, 32, 64 */
    spin_operand op1, op2; /* destination (or first compared), source */
    uint32_t reads, writes; /* register bits, SPIN_FLAGS for the flags */
    bool loads;             /* reads memory at `mem` */
    spin_mem mem;
} spin_insn;

typedef enum spin_decode_result {
    SPIN_DECODED,
    SPIN_DECODE_TRUNCATED, /* the bytes end inside the instruction */
    SPIN_DECODE_UNKNOWN,   /* not of the known set */
    SPIN_DECODE_STORES,    /* known, but it stores or has a side effect */
} spin_decode_result;

/* Decodes the instruction at code[0..avail) found at address `addr`. */
spin_decode_result spin_decode(const uint8_t *code, size_t avail, uint64_t addr, spin_insn *out);

#endif
