/*
 * mortar_spin_decode.c - one x86-64 instruction of a pure wait loop's set
 * (mortar_spin_decode.h). Facts from the Intel SDM, volume 2: the prefixes,
 * ModRM and SIB (2.1-2.2), and the one- and two-byte opcode maps (A.3).
 * Only 64-bit mode; an address-size prefix, lock, repne and anything not
 * listed below are refused.
 */
#include <string.h>

#include "mortar_spin_decode.h"

#define SPIN_RIP 16 /* spin_mem.base while the displacement is rip-relative */

typedef struct cursor {
    const uint8_t *p;
    size_t left;
    bool short_read;
} cursor;

static uint8_t take8(cursor *c)
{
    if (c->left == 0) {
        c->short_read = true;
        return 0;
    }
    c->left--;
    return *c->p++;
}

static int64_t take_signed(cursor *c, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++) {
        v |= (uint64_t)take8(c) << (8 * i);
    }
    unsigned shift = 64 - 8 * bytes;
    return bytes == 8 ? (int64_t)v : (int64_t)(v << shift) >> shift;
}

typedef struct prefixes {
    bool opsize16, rep, rex_w, rex_r, rex_x, rex_b, rex;
    uint8_t seg;
} prefixes;

/* Returns false for a prefix a wait loop never needs (lock, repne,
 * address size). */
static bool read_prefixes(cursor *c, prefixes *px, uint8_t *opcode)
{
    memset(px, 0, sizeof *px);
    for (;;) {
        uint8_t b = take8(c);
        switch (b) {
        case 0x66: px->opsize16 = true; continue;
        case 0xf3: px->rep = true; continue;
        case 0x2e: case 0x3e: case 0x26: case 0x36: continue; /* no effect in 64-bit mode */
        case 0x64: px->seg = 4; continue;
        case 0x65: px->seg = 5; continue;
        case 0xf0: case 0xf2: case 0x67: return false;
        default: break;
        }
        if ((b & 0xf0) == 0x40) {
            px->rex = true;
            px->rex_w = b & 8;
            px->rex_r = b & 4;
            px->rex_x = b & 2;
            px->rex_b = b & 1;
            b = take8(c);
        }
        *opcode = b;
        return true;
    }
}

typedef struct modrm {
    uint8_t mod, reg, rm; /* reg and rm with the REX bits */
    bool is_mem;
    spin_mem mem;
} modrm;

/* The ModRM byte, a SIB and a displacement. A rip-relative displacement
 * is resolved at the end of the instruction (fix_rip). */
static void read_modrm(cursor *c, const prefixes *px, modrm *m)
{
    uint8_t b = take8(c);
    m->mod = b >> 6;
    m->reg = (uint8_t)(((b >> 3) & 7) | (px->rex_r ? 8 : 0));
    m->rm = (uint8_t)((b & 7) | (px->rex_b ? 8 : 0));
    m->is_mem = m->mod != 3;
    if (!m->is_mem) {
        return;
    }
    spin_mem *a = &m->mem;
    *a = (spin_mem){.base = -1, .index = -1, .scale = 1, .seg = px->seg};
    if ((b & 7) == 4) {
        uint8_t sib = take8(c);
        uint8_t index = (uint8_t)(((sib >> 3) & 7) | (px->rex_x ? 8 : 0));
        a->scale = (uint8_t)(1u << (sib >> 6));
        a->index = index == 4 ? -1 : (int8_t)index;
        if ((sib & 7) == 5 && m->mod == 0) {
            a->disp = take_signed(c, 4);
        } else {
            a->base = (int8_t)((sib & 7) | (px->rex_b ? 8 : 0));
        }
    } else if ((b & 7) == 5 && m->mod == 0) {
        a->base = SPIN_RIP;
        a->disp = take_signed(c, 4);
    } else {
        a->base = (int8_t)m->rm;
    }
    if (m->mod == 1) {
        a->disp = take_signed(c, 1);
    } else if (m->mod == 2) {
        a->disp = take_signed(c, 4);
    }
}

static uint32_t bit(int reg)
{
    return reg < 0 ? 0 : 1u << reg;
}

static uint32_t address_regs(const spin_mem *a)
{
    return (a->base >= 0 && a->base != SPIN_RIP ? bit(a->base) : 0) | bit(a->index);
}

/* A byte register without REX: 4-7 are ah, ch, dh, bh. */
static int byte_reg(unsigned n, const prefixes *px)
{
    return (!px->rex && n >= 4 && n < 8) ? (int)n - 4 : (int)n;
}

static spin_operand reg_operand(int reg)
{
    return (spin_operand){.kind = SPIN_OPD_REG, .reg = (int8_t)reg};
}

static spin_operand imm_operand(int64_t imm)
{
    return (spin_operand){.kind = SPIN_OPD_IMM, .reg = -1, .imm = imm};
}

/* The r/m operand: a register (n), or memory, which the instruction reads. */
static spin_operand rm_operand(const modrm *m, spin_insn *in, bool byte, const prefixes *px)
{
    if (m->is_mem) {
        in->loads = true;
        in->mem = m->mem;
        in->reads |= address_regs(&m->mem);
        return (spin_operand){.kind = SPIN_OPD_MEM, .reg = -1, .mem = m->mem};
    }
    return reg_operand(byte ? byte_reg(m->rm, px) : m->rm);
}

static uint8_t operand_width(const prefixes *px, bool byte)
{
    return byte ? 8 : px->rex_w ? 64 : px->opsize16 ? 16 : 32;
}

/* Writing a register of `width` bits: 8 and 16 keep the other bits, so
 * they read the register too; 32 clears the upper half. */
static void write_reg(spin_insn *in, int reg)
{
    in->writes |= bit(reg);
    if (in->width < 32) {
        in->reads |= bit(reg);
    }
}

static unsigned imm_z(const prefixes *px)
{
    return px->opsize16 ? 2 : 4;
}

/* The eight arithmetic operations of 0x00-0x3f and 0x80-0x83. */
static spin_op alu_op(unsigned alu)
{
    static const spin_op ops[8] = {SPIN_OP_ADD, SPIN_OP_OR, SPIN_OP_OTHER, SPIN_OP_OTHER,
                                   SPIN_OP_OTHER, SPIN_OP_OTHER, SPIN_OP_OTHER, SPIN_OP_CMP};
    return ops[alu & 7];
}

/* op1 (r/m or register) op= op2; CMP only reads. ADC and SBB read the
 * carry. A memory destination other than CMP's is a store. */
static spin_decode_result alu(spin_insn *in, unsigned alu, spin_operand dst, spin_operand src)
{
    in->op = alu_op(alu);
    in->op1 = dst;
    in->op2 = src;
    if (src.kind == SPIN_OPD_REG) {
        in->reads |= bit(src.reg);
    }
    in->writes |= bit(SPIN_FLAGS);
    if (alu == 2 || alu == 3) {
        in->reads |= bit(SPIN_FLAGS);
    }
    if (dst.kind == SPIN_OPD_MEM) {
        return alu == 7 ? SPIN_DECODED : SPIN_DECODE_STORES;
    }
    in->reads |= bit(dst.reg);
    if (alu != 7) {
        write_reg(in, dst.reg);
    }
    return SPIN_DECODED;
}

/* 0x00-0x3f: the six forms of each arithmetic operation. */
static spin_decode_result decode_alu_row(cursor *c, const prefixes *px, uint8_t op,
                                         spin_insn *in)
{
    unsigned form = op & 7, a = op >> 3;
    bool byte = !(form & 1);
    in->width = operand_width(px, byte);
    if (form >= 4) {
        int64_t imm = take_signed(c, byte ? 1 : imm_z(px));
        return alu(in, a, reg_operand(0), imm_operand(imm));
    }
    modrm m;
    read_modrm(c, px, &m);
    spin_operand r = reg_operand(byte ? byte_reg(m.reg, px) : m.reg);
    spin_operand e = rm_operand(&m, in, byte, px);
    return form < 2 ? alu(in, a, e, r) : alu(in, a, r, e);
}

/* mov, movzx, movsx, movsxd, cmov: register <- r/m. */
static spin_decode_result load_into_reg(cursor *c, const prefixes *px, spin_insn *in,
                                        unsigned src_bytes, bool dst_byte, bool cmov)
{
    modrm m;
    read_modrm(c, px, &m);
    in->width = operand_width(px, dst_byte);
    in->op = cmov ? SPIN_OP_OTHER : SPIN_OP_MOV;
    in->op2 = rm_operand(&m, in, src_bytes == 1, px);
    in->mem.size = (uint8_t)src_bytes; /* 0: the operand's width */
    if (in->op2.kind == SPIN_OPD_REG) {
        in->reads |= bit(in->op2.reg);
    }
    int dst = dst_byte ? byte_reg(m.reg, px) : m.reg;
    in->op1 = reg_operand(dst);
    if (cmov) {
        in->reads |= bit(SPIN_FLAGS) | bit(dst);
    }
    write_reg(in, dst);
    return SPIN_DECODED;
}

/* r/m <- register or immediate: only into a register. */
static spin_decode_result move_into_rm(cursor *c, const prefixes *px, spin_insn *in, bool byte,
                                       bool from_imm, const modrm *given)
{
    modrm m;
    if (given) {
        m = *given;
    } else {
        read_modrm(c, px, &m);
    }
    in->width = operand_width(px, byte);
    in->op = SPIN_OP_MOV;
    if (from_imm) {
        in->op2 = imm_operand(take_signed(c, byte ? 1 : imm_z(px)));
    } else {
        in->op2 = reg_operand(byte ? byte_reg(m.reg, px) : m.reg);
        in->reads |= bit(in->op2.reg);
    }
    if (m.is_mem) {
        return SPIN_DECODE_STORES;
    }
    in->op1 = reg_operand(byte ? byte_reg(m.rm, px) : m.rm);
    write_reg(in, in->op1.reg);
    return SPIN_DECODED;
}

/* test r/m, reg or imm: reads both, writes the flags. */
static void test_operands(spin_insn *in, spin_operand a, spin_operand b)
{
    in->op = SPIN_OP_OTHER;
    in->op1 = a;
    in->op2 = b;
    if (a.kind == SPIN_OPD_REG) {
        in->reads |= bit(a.reg);
    }
    if (b.kind == SPIN_OPD_REG) {
        in->reads |= bit(b.reg);
    }
    in->writes |= bit(SPIN_FLAGS);
}

/* 0xc0, 0xc1, 0xd0-0xd3: rotates and shifts of a register. */
static spin_decode_result decode_shift(cursor *c, const prefixes *px, uint8_t op, spin_insn *in)
{
    modrm m;
    read_modrm(c, px, &m);
    bool byte = !(op & 1);
    in->width = operand_width(px, byte);
    int64_t count = 1;
    if (op <= 0xc1) {
        count = take_signed(c, 1) & 0xff;
    } else if (op >= 0xd2) {
        in->reads |= bit(1); /* by %cl */
        count = -1;
    }
    if (m.is_mem) {
        return SPIN_DECODE_STORES;
    }
    unsigned kind = m.reg & 7;
    in->op = (kind == 4 || kind == 6) && count >= 0 ? SPIN_OP_SHL : SPIN_OP_OTHER;
    in->op1 = reg_operand(byte ? byte_reg(m.rm, px) : m.rm);
    in->op2 = imm_operand(count);
    in->reads |= bit(in->op1.reg);
    if (kind == 2 || kind == 3) {
        in->reads |= bit(SPIN_FLAGS); /* through the carry */
    }
    in->writes |= bit(SPIN_FLAGS);
    write_reg(in, in->op1.reg);
    return SPIN_DECODED;
}

static void jump(spin_insn *in, spin_kind kind, int64_t rel, const cursor *c,
                 const uint8_t *start)
{
    in->kind = kind;
    in->len = (uint8_t)(c->p - start);
    in->target = in->addr + in->len + (uint64_t)rel;
    if (kind == SPIN_INSN_JCC) {
        in->reads |= bit(SPIN_FLAGS);
    }
}

/* One-byte opcodes known to store or to act beyond registers: the stack
 * (push, pop, call, ret, enter, leave, pushf, popf), xchg, string
 * instructions, port I/O, int/iret, hlt, cli, sti, and group 5 (inc, dec,
 * call, jmp, push through r/m). */
static bool has_side_effect(uint8_t op)
{
    static const uint8_t ops[] = {0x68, 0x6a, 0x86, 0x87, 0x8f, 0x9c, 0x9d, 0xc2, 0xc3,
                                  0xc8, 0xc9, 0xe8, 0xf4, 0xfa, 0xfb, 0xff};
    if ((op >= 0x50 && op <= 0x5f) || (op >= 0xa4 && op <= 0xa7) ||
        (op >= 0xaa && op <= 0xaf) || (op >= 0x6c && op <= 0x6f) ||
        (op >= 0xe4 && op <= 0xe7) || (op >= 0xec && op <= 0xef) ||
        (op >= 0xcc && op <= 0xcf)) {
        return true;
    }
    return memchr(ops, op, sizeof ops) != NULL;
}

/* The one-byte opcodes of groups 1, 3 and 11 and the others of the set. */
static spin_decode_result decode_one_byte(cursor *c, const prefixes *px, uint8_t op,
                                          spin_insn *in, const uint8_t *start)
{
    if (op < 0x40 && (op & 7) <= 5) {
        return decode_alu_row(c, px, op, in);
    }
    if (op >= 0x70 && op <= 0x7f) {
        in->cc = op & 0xf;
        int64_t rel = take_signed(c, 1);
        jump(in, SPIN_INSN_JCC, rel, c, start);
        return SPIN_DECODED;
    }
    if (op >= 0xb0 && op <= 0xbf) { /* mov reg, imm */
        bool byte = op < 0xb8;
        int reg = (op & 7) | (px->rex_b ? 8 : 0);
        in->width = operand_width(px, byte);
        unsigned size = byte ? 1 : px->rex_w ? 8 : imm_z(px);
        in->op = SPIN_OP_MOV;
        in->op1 = reg_operand(byte ? byte_reg((unsigned)reg, px) : reg);
        in->op2 = imm_operand(take_signed(c, size));
        write_reg(in, in->op1.reg);
        return SPIN_DECODED;
    }
    modrm m;
    switch (op) {
    case 0x63: /* movsxd */
        return load_into_reg(c, px, in, 4, false, false);
    case 0x80: case 0x81: case 0x83: {
        read_modrm(c, px, &m);
        bool byte = op == 0x80;
        in->width = operand_width(px, byte);
        spin_operand e = rm_operand(&m, in, byte, px);
        int64_t imm = take_signed(c, op == 0x81 ? imm_z(px) : 1);
        return alu(in, m.reg & 7, e, imm_operand(imm));
    }
    case 0x84: case 0x85: {
        read_modrm(c, px, &m);
        bool byte = op == 0x84;
        in->width = operand_width(px, byte);
        spin_operand e = rm_operand(&m, in, byte, px);
        test_operands(in, e, reg_operand(byte ? byte_reg(m.reg, px) : m.reg));
        return SPIN_DECODED;
    }
    case 0x88: case 0x89:
        return move_into_rm(c, px, in, op == 0x88, false, NULL);
    case 0x8a: case 0x8b:
        return load_into_reg(c, px, in, op == 0x8a ? 1 : 0, op == 0x8a, false);
    case 0x8d: /* lea: an address, no memory access */
        read_modrm(c, px, &m);
        if (!m.is_mem) {
            return SPIN_DECODE_UNKNOWN;
        }
        in->width = operand_width(px, false);
        in->reads |= address_regs(&m.mem);
        write_reg(in, m.reg);
        return SPIN_DECODED;
    case 0x90: /* nop, pause (f3 90); with REX.B it is xchg %r8, %rax */
        return px->rex_b ? SPIN_DECODE_STORES : SPIN_DECODED;
    case 0xa8: case 0xa9: {
        bool byte = op == 0xa8;
        in->width = operand_width(px, byte);
        test_operands(in, reg_operand(0), imm_operand(take_signed(c, byte ? 1 : imm_z(px))));
        return SPIN_DECODED;
    }
    case 0xc0: case 0xc1: case 0xd0: case 0xd1: case 0xd2: case 0xd3:
        return decode_shift(c, px, op, in);
    case 0xc6: case 0xc7:
        read_modrm(c, px, &m);
        if ((m.reg & 7) != 0) {
            return SPIN_DECODE_UNKNOWN;
        }
        return move_into_rm(c, px, in, op == 0xc6, true, &m);
    case 0xe9: case 0xeb: {
        int64_t rel = take_signed(c, op == 0xe9 ? 4 : 1);
        jump(in, SPIN_INSN_JMP, rel, c, start);
        return SPIN_DECODED;
    }
    case 0xf6: case 0xf7: {
        read_modrm(c, px, &m);
        bool byte = op == 0xf6;
        if ((m.reg & 7) != 0) {
            return SPIN_DECODE_UNKNOWN; /* not, neg, mul, div */
        }
        in->width = operand_width(px, byte);
        spin_operand e = rm_operand(&m, in, byte, px);
        test_operands(in, e, imm_operand(take_signed(c, byte ? 1 : imm_z(px))));
        return SPIN_DECODED;
    }
    default:
        return has_side_effect(op) ? SPIN_DECODE_STORES : SPIN_DECODE_UNKNOWN;
    }
}

/* The two-byte opcodes of the set (0x0f xx). */
static spin_decode_result decode_two_byte(cursor *c, const prefixes *px, spin_insn *in,
                                          const uint8_t *start)
{
    uint8_t op = take8(c);
    modrm m;
    if (op >= 0x80 && op <= 0x8f) {
        in->cc = op & 0xf;
        int64_t rel = take_signed(c, 4);
        jump(in, SPIN_INSN_JCC, rel, c, start);
        return SPIN_DECODED;
    }
    if (op >= 0x40 && op <= 0x4f) {
        return load_into_reg(c, px, in, 0, false, true);
    }
    if (op >= 0x90 && op <= 0x9f) { /* setcc */
        read_modrm(c, px, &m);
        if (m.is_mem) {
            return SPIN_DECODE_STORES;
        }
        in->width = 8;
        in->reads |= bit(SPIN_FLAGS);
        write_reg(in, byte_reg(m.rm, px));
        return SPIN_DECODED;
    }
    switch (op) {
    case 0x1f: /* nop r/m: no access */
        read_modrm(c, px, &m);
        return SPIN_DECODED;
    case 0x31:
        in->kind = SPIN_INSN_RDTSC;
        in->width = 32;
        in->writes |= bit(0) | bit(2);
        return SPIN_DECODED;
    case 0xae: /* lfence, mfence, sfence */
        read_modrm(c, px, &m);
        return !m.is_mem && (m.reg & 7) >= 5 ? SPIN_DECODED : SPIN_DECODE_UNKNOWN;
    case 0xb6: case 0xbe:
        return load_into_reg(c, px, in, 1, false, false);
    case 0xb7: case 0xbf:
        return load_into_reg(c, px, in, 2, false, false);
    default:
        return SPIN_DECODE_UNKNOWN;
    }
}

spin_decode_result spin_decode(const uint8_t *code, size_t avail, uint64_t addr, spin_insn *out)
{
    cursor c = {.p = code, .left = avail > 15 ? 15 : avail};
    prefixes px;
    uint8_t op;
    memset(out, 0, sizeof *out);
    out->addr = addr;
    out->op1.reg = out->op2.reg = -1;
    if (!read_prefixes(&c, &px, &op)) {
        return c.short_read ? SPIN_DECODE_TRUNCATED : SPIN_DECODE_STORES;
    }
    if (px.rep && !(op == 0x90 || op == 0x0f)) {
        return c.short_read ? SPIN_DECODE_TRUNCATED : SPIN_DECODE_STORES;
    }
    spin_decode_result r = op == 0x0f ? decode_two_byte(&c, &px, out, code)
                                      : decode_one_byte(&c, &px, op, out, code);
    if (c.short_read) {
        return SPIN_DECODE_TRUNCATED;
    }
    if (px.rep && op == 0x0f) {
        return SPIN_DECODE_UNKNOWN; /* popcnt, tzcnt, ... */
    }
    out->len = (uint8_t)(c.p - code);
    if (out->loads && out->mem.base == SPIN_RIP) {
        out->mem.disp += (int64_t)(addr + out->len);
        out->mem.base = -1;
        if (out->op1.kind == SPIN_OPD_MEM) {
            out->op1.mem = out->mem;
        }
        if (out->op2.kind == SPIN_OPD_MEM) {
            out->op2.mem = out->mem;
        }
    }
    if (out->loads && out->mem.size == 0) {
        out->mem.size = (uint8_t)(out->width / 8);
    }
    return r;
}
