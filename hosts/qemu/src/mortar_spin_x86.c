/*
 * mortar_spin_x86.c - finding the loop through a pc and deciding whether it
 * is a pure wait (mortar_spin_x86.h).
 */
#include <string.h>

#include "mortar_spin_decode.h"
#include "mortar_spin_x86.h"

#define SEARCH_NODES 96 /* instructions looked at while looking for the cycle */
#define EXIT_LOOKAHEAD 8 /* instructions followed from an exit */

typedef struct code_view {
    const uint8_t *code;
    size_t len;
    uint64_t addr;
} code_view;

static spin_decode_result decode_at(const code_view *v, uint64_t addr, spin_insn *in)
{
    if (addr < v->addr || addr >= v->addr + v->len) {
        return SPIN_DECODE_TRUNCATED;
    }
    size_t off = (size_t)(addr - v->addr);
    return spin_decode(v->code + off, v->len - off, addr, in);
}

/* The addresses an instruction may go to next: 1 or 2. */
static unsigned successors(const spin_insn *in, uint64_t next[2])
{
    uint64_t fall = in->addr + in->len;
    switch (in->kind) {
    case SPIN_INSN_JMP:
        next[0] = in->target;
        return 1;
    case SPIN_INSN_JCC:
        next[0] = fall;
        next[1] = in->target;
        return 2;
    default:
        next[0] = fall;
        return 1;
    }
}

static spin_verdict verdict_of(spin_decode_result r)
{
    return r == SPIN_DECODE_STORES ? SPIN_STORES : r == SPIN_DECODE_UNKNOWN ? SPIN_UNKNOWN
                                                                             : SPIN_NO_LOOP;
}

/* A breadth-first search from pc for the shortest way back to it, through
 * decodable instructions only. */
typedef struct search {
    spin_insn node[SEARCH_NODES];
    int parent[SEARCH_NODES];
    unsigned depth[SEARCH_NODES];
    unsigned n;
    spin_decode_result first_failure; /* the strongest, see note_failure */
} search;

static int find_node(const search *s, uint64_t addr)
{
    for (unsigned i = 0; i < s->n; i++) {
        if (s->node[i].addr == addr) {
            return (int)i;
        }
    }
    return -1;
}

/* Without a cycle, the reason is the strongest failure on the way: a
 * store over an unknown instruction over code that was not there. */
static void note_failure(search *s, spin_decode_result r)
{
    static const int rank[] = {[SPIN_DECODED] = 0, [SPIN_DECODE_TRUNCATED] = 1,
                               [SPIN_DECODE_UNKNOWN] = 2, [SPIN_DECODE_STORES] = 3};
    if (rank[r] > rank[s->first_failure]) {
        s->first_failure = r;
    }
}

/* Returns the node that leads back to pc, or -1. */
static int search_cycle(const code_view *v, uint64_t pc, search *s)
{
    s->n = 0;
    s->first_failure = SPIN_DECODED;
    spin_decode_result r = decode_at(v, pc, &s->node[0]);
    if (r != SPIN_DECODED) {
        s->first_failure = r;
        return -1;
    }
    s->parent[0] = -1;
    s->depth[0] = 1;
    s->n = 1;
    for (unsigned i = 0; i < s->n; i++) {
        uint64_t next[2];
        unsigned k = successors(&s->node[i], next);
        for (unsigned j = 0; j < k; j++) {
            if (next[j] == pc) {
                return (int)i;
            }
            if (find_node(s, next[j]) >= 0 || s->n == SEARCH_NODES ||
                s->depth[i] == SPIN_MAX_INSNS) {
                continue;
            }
            r = decode_at(v, next[j], &s->node[s->n]);
            if (r != SPIN_DECODED) {
                note_failure(s, r);
                continue;
            }
            s->parent[s->n] = (int)i;
            s->depth[s->n] = s->depth[i] + 1;
            s->n++;
        }
    }
    return -1;
}

/* The cycle in execution order, starting at pc. */
static unsigned cycle_from(const search *s, int last, spin_insn *cycle)
{
    unsigned n = s->depth[last];
    for (int i = last, k = (int)n - 1; i >= 0; i = s->parent[i], k--) {
        cycle[k] = s->node[i];
    }
    return n;
}

static bool on_cycle(const spin_insn *cycle, unsigned n, uint64_t addr)
{
    for (unsigned i = 0; i < n; i++) {
        if (cycle[i].addr == addr) {
            return true;
        }
    }
    return false;
}

/* Whether code from `addr` can come back onto the cycle within
 * EXIT_LOOKAHEAD instructions (as far as it decodes). */
static bool comes_back(const code_view *v, const spin_insn *cycle, unsigned n, uint64_t addr,
                       unsigned budget)
{
    if (on_cycle(cycle, n, addr)) {
        return true;
    }
    spin_insn in;
    if (budget == 0 || decode_at(v, addr, &in) != SPIN_DECODED) {
        return false;
    }
    uint64_t next[2];
    unsigned k = successors(&in, next);
    for (unsigned j = 0; j < k; j++) {
        if (comes_back(v, cycle, n, next[j], budget - 1)) {
            return true;
        }
    }
    return false;
}

/* The address a jcc of the cycle leaves to, or 0 when both ways stay on
 * it (a jump to the next instruction). */
static uint64_t exit_of(const spin_insn *in, uint64_t next_on_cycle)
{
    uint64_t fall = in->addr + in->len;
    if (in->target == fall) {
        return 0;
    }
    return in->target == next_on_cycle ? fall : in->target;
}

static spin_verdict check_shape(const code_view *v, const spin_insn *cycle, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (cycle[i].kind != SPIN_INSN_JCC) {
            continue;
        }
        uint64_t out = exit_of(&cycle[i], cycle[(i + 1) % n].addr);
        if (out && comes_back(v, cycle, n, out, EXIT_LOOKAHEAD)) {
            return SPIN_NOT_SIMPLE;
        }
    }
    return SPIN_OK;
}

/* ---- the time stamp counter ---------------------------------------------- */

/* What a register (or the flags) holds, as far as the counter goes. */
typedef enum tsc_kind {
    TSC_NONE,     /* no value of the counter */
    TSC_LO,       /* %eax of rdtsc */
    TSC_HI,       /* %edx of rdtsc */
    TSC_HI_SHL,   /* %rdx << 32 */
    TSC_FULL,     /* the 64-bit counter */
    TSC_COMPARED, /* flags: the counter compared with a value */
    TSC_STALE,    /* a counter value of the previous iteration */
} tsc_kind;

typedef enum relation { REL_LT, REL_GE, REL_LE, REL_GT, REL_NONE } relation;

typedef struct tsc_state {
    tsc_kind kind[SPIN_FLAGS + 1];
    bool counter_first;      /* flags: cmp counter, other (else cmp other, counter) */
    spin_operand other;      /* flags: what the counter was compared with */
} tsc_state;

static uint32_t tainted(const tsc_state *t)
{
    uint32_t bits = 0;
    for (int r = 0; r <= SPIN_FLAGS; r++) {
        if (t->kind[r] != TSC_NONE) {
            bits |= 1u << r;
        }
    }
    return bits;
}

/* The relation of the counter to the value that makes the branch taken. */
static relation branch_relation(const tsc_state *t, uint8_t cc)
{
    static const relation first[16] = {
        [2] = REL_LT, [3] = REL_GE, [6] = REL_LE, [7] = REL_GT};
    static const relation second[16] = {
        [2] = REL_GT, [3] = REL_LE, [6] = REL_GE, [7] = REL_LT};
    bool known = cc == 2 || cc == 3 || cc == 6 || cc == 7;
    if (!known) {
        return REL_NONE;
    }
    return t->counter_first ? first[cc] : second[cc];
}

static relation negate(relation r)
{
    static const relation neg[] = {REL_GE, REL_LT, REL_GT, REL_LE, REL_NONE};
    return neg[r];
}

static bool is_reg(const spin_operand *o, tsc_kind want, const tsc_state *t)
{
    return o->kind == SPIN_OPD_REG && o->reg >= 0 && t->kind[o->reg] == want;
}

/* cmp of the full counter with a value that is no counter's. */
static bool counter_compare(const spin_insn *in, tsc_state *t)
{
    if (in->op != SPIN_OP_CMP || in->width != 64) {
        return false;
    }
    bool first = is_reg(&in->op1, TSC_FULL, t);
    const spin_operand *other = first ? &in->op2 : &in->op1;
    if (!first && !is_reg(&in->op2, TSC_FULL, t)) {
        return false;
    }
    if (other->kind == SPIN_OPD_REG && t->kind[other->reg] != TSC_NONE) {
        return false;
    }
    t->kind[SPIN_FLAGS] = TSC_COMPARED;
    t->counter_first = first;
    t->other = *other;
    return true;
}

/* shl $32 of %rdx's half, and or/add of the two halves. */
static bool counter_combine(const spin_insn *in, tsc_state *t)
{
    if (in->width != 64 || in->op1.kind != SPIN_OPD_REG) {
        return false;
    }
    int d = in->op1.reg;
    if (in->op == SPIN_OP_SHL && t->kind[d] == TSC_HI && in->op2.imm == 32) {
        t->kind[d] = TSC_HI_SHL;
        t->kind[SPIN_FLAGS] = TSC_NONE;
        return true;
    }
    if ((in->op == SPIN_OP_OR || in->op == SPIN_OP_ADD) && in->op2.kind == SPIN_OPD_REG) {
        tsc_kind a = t->kind[d], b = t->kind[in->op2.reg];
        if ((a == TSC_LO && b == TSC_HI_SHL) || (a == TSC_HI_SHL && b == TSC_LO)) {
            t->kind[d] = TSC_FULL;
            t->kind[SPIN_FLAGS] = TSC_NONE;
            return true;
        }
    }
    return false;
}

typedef struct tsc_walk {
    tsc_state t;
    uint32_t ever; /* registers that held counter values */
    bool has_deadline;
    spin_operand deadline;
    unsigned deadline_add;
} tsc_walk;

/* A jcc: on the counter's comparison only as "leave once it reaches the
 * value"; at an exit no counter value of the previous iteration. */
static spin_verdict tsc_branch(const spin_insn *in, uint64_t next_on_cycle, bool checking,
                               tsc_walk *w)
{
    uint64_t out = exit_of(in, next_on_cycle);
    if (checking && out) {
        for (int r = 0; r <= SPIN_FLAGS; r++) {
            if (w->t.kind[r] == TSC_STALE) {
                return SPIN_TSC_USE;
            }
        }
    }
    if (w->t.kind[SPIN_FLAGS] != TSC_COMPARED) {
        return SPIN_OK;
    }
    if (!out) {
        return SPIN_TSC_USE;
    }
    relation taken = branch_relation(&w->t, in->cc);
    relation leaves = out == in->target ? taken : taken == REL_NONE ? REL_NONE : negate(taken);
    if ((leaves != REL_GE && leaves != REL_GT) || (w->has_deadline && checking)) {
        return SPIN_TSC_USE;
    }
    w->has_deadline = true;
    w->deadline = w->t.other;
    w->deadline_add = leaves == REL_GT;
    return SPIN_OK;
}

static spin_verdict tsc_step(const spin_insn *in, uint64_t next_on_cycle, bool checking,
                             tsc_walk *w)
{
    tsc_state *t = &w->t;
    uint32_t reads = in->reads & ~(in->kind == SPIN_INSN_JCC ? 1u << SPIN_FLAGS : 0);
    for (int r = 0; r <= SPIN_FLAGS; r++) {
        if ((reads >> r & 1) && t->kind[r] == TSC_STALE) {
            return SPIN_TSC_USE;
        }
    }
    if (in->kind == SPIN_INSN_JCC) {
        return tsc_branch(in, next_on_cycle, checking, w);
    }
    if (in->kind == SPIN_INSN_RDTSC) {
        t->kind[0] = TSC_LO;
        t->kind[2] = TSC_HI;
    } else if (!counter_combine(in, t) && !counter_compare(in, t)) {
        if (reads & tainted(t)) {
            return SPIN_TSC_USE;
        }
        for (int r = 0; r <= SPIN_FLAGS; r++) {
            if (in->writes >> r & 1) {
                t->kind[r] = TSC_NONE;
            }
        }
    }
    w->ever |= tainted(t);
    return SPIN_OK;
}

/* Walks one iteration from `start`; `checking` is the second walk, which
 * starts with the first one's counter values marked stale. */
static spin_verdict tsc_walk_once(const spin_insn *cycle, unsigned n, unsigned start,
                                  bool checking, tsc_walk *w)
{
    for (unsigned k = 0; k < n; k++) {
        unsigned i = (start + k) % n;
        spin_verdict r = tsc_step(&cycle[i], cycle[(i + 1) % n].addr, checking, w);
        if (r != SPIN_OK) {
            return r;
        }
    }
    return SPIN_OK;
}

static spin_verdict check_counter(const spin_insn *cycle, unsigned n, unsigned landing,
                                  spin_loop *out)
{
    tsc_walk w;
    memset(&w, 0, sizeof w);
    spin_verdict r = tsc_walk_once(cycle, n, landing, false, &w);
    if (r != SPIN_OK) {
        return r;
    }
    for (int reg = 0; reg <= SPIN_FLAGS; reg++) {
        if (w.t.kind[reg] != TSC_NONE) {
            w.t.kind[reg] = TSC_STALE;
        }
    }
    w.has_deadline = false;
    r = tsc_walk_once(cycle, n, landing, true, &w);
    if (r != SPIN_OK) {
        return r;
    }
    out->tsc_regs = w.ever;
    out->has_deadline = w.has_deadline;
    out->deadline = w.deadline;
    out->deadline_add = w.deadline_add;
    return SPIN_OK;
}

/* ---- the whole ------------------------------------------------------------ */

/* The landing point: the loop's one rdtsc, or pc. More than one rdtsc is
 * refused. */
static spin_verdict find_landing(const spin_insn *cycle, unsigned n, unsigned *landing)
{
    int found = -1;
    for (unsigned i = 0; i < n; i++) {
        if (cycle[i].kind == SPIN_INSN_RDTSC) {
            if (found >= 0) {
                return SPIN_TSC_USE;
            }
            found = (int)i;
        }
    }
    *landing = found < 0 ? 0 : (unsigned)found;
    return SPIN_OK;
}

static spin_verdict collect_loads(const spin_insn *cycle, unsigned n, spin_loop *out)
{
    out->nloads = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!cycle[i].loads) {
            continue;
        }
        if (out->nloads == SPIN_MAX_LOADS) {
            return SPIN_TOO_MANY_LOADS;
        }
        out->loads[out->nloads++] = cycle[i].mem;
    }
    return SPIN_OK;
}

spin_verdict spin_x86_find(const uint8_t *code, size_t len, uint64_t code_addr, uint64_t pc,
                           spin_loop *out)
{
    search s;
    code_view v = {.code = code, .len = len, .addr = code_addr};
    spin_insn cycle[SPIN_MAX_INSNS];
    memset(out, 0, sizeof *out);
    int last = search_cycle(&v, pc, &s);
    if (last < 0) {
        return s.first_failure == SPIN_DECODED ? SPIN_NO_LOOP : verdict_of(s.first_failure);
    }
    unsigned n = cycle_from(&s, last, cycle), landing;
    spin_verdict r = check_shape(&v, cycle, n);
    if (r == SPIN_OK) {
        r = collect_loads(cycle, n, out);
    }
    if (r == SPIN_OK) {
        r = find_landing(cycle, n, &landing);
    }
    if (r == SPIN_OK) {
        r = check_counter(cycle, n, landing, out);
    }
    if (r != SPIN_OK) {
        return r;
    }
    out->insns = n;
    out->landing = cycle[landing].addr;
    out->to_landing = landing;
    out->tsc_at_landing = cycle[landing].kind == SPIN_INSN_RDTSC;
    return SPIN_OK;
}

const char *spin_verdict_name(spin_verdict v)
{
    static const char *const names[] = {
        [SPIN_OK] = "ok",
        [SPIN_NO_LOOP] = "no loop",
        [SPIN_UNKNOWN] = "unknown instruction",
        [SPIN_STORES] = "stores",
        [SPIN_NOT_SIMPLE] = "not a simple loop",
        [SPIN_TSC_USE] = "time stamp counter used otherwise",
        [SPIN_TOO_MANY_LOADS] = "too many loads",
    };
    return (unsigned)v < sizeof names / sizeof names[0] ? names[v] : "?";
}
