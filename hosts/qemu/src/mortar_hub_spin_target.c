/*
 * mortar_hub_spin_target.c - the hub's skipping of pure wait loops
 * (mortar_hub_spin.h) on the x86 vCPU. Compiled per target (the name ends
 * in _target.c): it reads the vCPU's registers.
 */
#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "qemu/rcu.h"
#include "exec/memory.h"
#include "exec/cpu-common.h"
#include "hw/core/cpu.h"
#include "sysemu/cpu-timers.h"
#include "target/i386/cpu.h"

#include "mortar_hub_spin.h"
#include "mortar_spin_x86.h"

#define CODE_WINDOW 256 /* bytes read on each side of the pc */
#define NO_LOOP_SLOTS 256 /* places known to be in no pure wait loop */
#define NGPR 16
#define ARITH_FLAGS (CC_C | CC_P | CC_A | CC_Z | CC_S | CC_O)

/* What the comparison one period apart looks at. */
typedef struct vcpu_regs {
    uint64_t gpr[NGPR];
    uint64_t pc;
    uint32_t eflags;
} vcpu_regs;

typedef enum spin_phase {
    SPIN_NONE,      /* nothing recognised */
    SPIN_LANDING,   /* a loop found: stop at its landing point */
    SPIN_COMPARING, /* registers taken at landing: stop one period later */
    SPIN_VERIFIED,  /* a pure wait: skip at landing points */
} spin_phase;

/*
 * Positions are counted in executed instructions (icount's raw count,
 * which a skip leaves alone), stops are asked for in ns: with a negative
 * shift a stop falls on the first instruction of a nanosecond
 * (icount-stop-exact.patch), so distances are kept multiples of the
 * instructions per ns, and the period is a whole number of iterations
 * that is one.
 */
static struct {
    bool off;
    spin_phase phase;
    spin_loop loop;
    int64_t period; /* instructions: whole iterations, whole ns */
    int64_t at;     /* the next stop wanted */
    uint64_t at_ns; /* the same in ns */
    int64_t landed; /* VERIFIED: a past landing point */
    vcpu_regs taken;
    unsigned refusals; /* COMPARING: comparisons failed at this landing */
    /* (address space, pc) where the code holds no pure wait, or a loop
     * whose registers change (it counts): most stops fall in such code,
     * and it is read, decoded and compared once, not at every stop. A
     * stale entry only forgoes a skip. */
    struct no_loop {
        uint64_t cr3, pc;
    } no_loop[NO_LOOP_SLOTS];
    uint64_t timer_ns;    /* VERIFIED: the next virtual timer then (absolute) */
    uint64_t deadline_ns; /* VERIFIED: the loop's own deadline, UINT64_MAX none */
    mortar_spin_stats stats;
} spin;

void mortar_spin_init(void)
{
    memset(&spin, 0, sizeof spin);
    const char *v = getenv("MORTAR_SKIP");
    spin.off = v && !strcmp(v, "0");
}

bool mortar_skip_enabled(void)
{
    return !spin.off;
}

void mortar_spin_get_stats(mortar_spin_stats *out)
{
    *out = spin.stats;
}

void mortar_spin_forget(void)
{
    spin.phase = SPIN_NONE;
}

bool mortar_spin_waiting(void)
{
    return spin.phase == SPIN_VERIFIED;
}

uint64_t mortar_spin_deadline_ns(void)
{
    return spin.phase == SPIN_VERIFIED ? spin.deadline_ns : UINT64_MAX;
}

uint64_t mortar_spin_next_stop_ns(void)
{
    if (spin.phase == SPIN_VERIFIED) {
        return MIN(spin.at_ns, spin.deadline_ns); /* the wait ends there at the latest */
    }
    return spin.phase == SPIN_NONE ? UINT64_MAX : spin.at_ns;
}

/* ---- the vCPU --------------------------------------------------------------- */

static X86CPU *the_vcpu(void)
{
    return first_cpu ? X86_CPU(first_cpu) : NULL;
}

static uint64_t pc_of(CPUX86State *env)
{
    return env->segs[R_CS].base + env->eip;
}

static void read_regs(CPUX86State *env, vcpu_regs *r)
{
    memcpy(r->gpr, env->regs, sizeof r->gpr);
    r->pc = pc_of(env);
    r->eflags = cpu_compute_eflags(env);
}

/* Instructions per ns: 2^-shift with a negative shift, else 1. */
static int64_t insns_per_ns(void)
{
    int64_t ns16 = icount_to_ns(16);
    return ns16 >= 16 ? 1 : 16 / ns16;
}

/* The virtual time of `insns` instructions (a multiple of insns_per_ns). */
static uint64_t insns_ns(int64_t insns)
{
    return (uint64_t)icount_to_ns(insns);
}

/* Equal but for the registers that hold the counter's values. */
static bool same_regs(const vcpu_regs *a, const vcpu_regs *b, uint32_t ignore)
{
    for (int i = 0; i < NGPR; i++) {
        if (!(ignore >> i & 1) && a->gpr[i] != b->gpr[i]) {
            return false;
        }
    }
    uint32_t flags_mask = (ignore >> SPIN_FLAGS & 1) ? ~(uint32_t)ARITH_FLAGS : ~0u;
    return a->pc == b->pc && (a->eflags & flags_mask) == (b->eflags & flags_mask);
}

static uint64_t effective_address(CPUX86State *env, const spin_mem *m)
{
    uint64_t ea = (uint64_t)m->disp;
    if (m->base >= 0) {
        ea += env->regs[m->base];
    }
    if (m->index >= 0) {
        ea += env->regs[m->index] * m->scale;
    }
    if (m->seg) {
        ea += env->segs[m->seg].base;
    }
    return ea;
}

/* Guest RAM, not a device's registers (which answer with side effects or
 * change by themselves). */
static bool plain_ram(MemoryRegion *mr)
{
    return memory_region_is_ram(mr) && !memory_region_is_ram_device(mr) &&
           !memory_region_is_romd(mr);
}

bool mortar_spin_ram_only(AddressSpace *as, uint64_t addr, uint64_t size, MemTxAttrs attrs)
{
    RCU_READ_LOCK_GUARD();
    while (size > 0) {
        hwaddr xlat, len = size;
        MemoryRegion *mr = address_space_translate(as, addr, &xlat, &len, false, attrs);
        if (!plain_ram(mr) || len == 0) {
            return false;
        }
        len = MIN(len, size);
        addr += len;
        size -= len;
    }
    return true;
}

/* Whether a load reads guest RAM. */
static bool reads_ram(CPUState *cs, uint64_t ea)
{
    MemTxAttrs attrs;
    hwaddr page = cpu_get_phys_page_attrs_debug(cs, ea & TARGET_PAGE_MASK, &attrs);
    if (page == -1) {
        return false;
    }
    AddressSpace *as = cpu_get_address_space(cs, cpu_asidx_from_attrs(cs, attrs));
    return mortar_spin_ram_only(as, page | (ea & ~TARGET_PAGE_MASK), 1, attrs);
}

static bool loads_ram_only(X86CPU *cpu, const spin_loop *l)
{
    for (unsigned i = 0; i < l->nloads; i++) {
        if (!reads_ram(CPU(cpu), effective_address(&cpu->env, &l->loads[i]))) {
            return false;
        }
    }
    return true;
}

/* The code around pc; where part of the window is not mapped, the pc's
 * own page. */
static bool read_code(CPUState *cs, uint64_t pc, uint8_t *buf, uint64_t *start, size_t *len)
{
    *start = pc >= CODE_WINDOW ? pc - CODE_WINDOW : 0;
    *len = 2 * CODE_WINDOW;
    if (cpu_memory_rw_debug(cs, *start, buf, *len, false) == 0) {
        return true;
    }
    uint64_t page = pc & TARGET_PAGE_MASK;
    *start = MAX(*start, page);
    *len = MIN(pc + CODE_WINDOW, page + TARGET_PAGE_SIZE) - *start;
    return cpu_memory_rw_debug(cs, *start, buf, *len, false) == 0;
}

/* ---- the loop's own deadline --------------------------------------------------- */

static bool operand_value(X86CPU *cpu, const spin_operand *o, uint64_t *v)
{
    switch (o->kind) {
    case SPIN_OPD_REG:
        *v = cpu->env.regs[o->reg];
        return true;
    case SPIN_OPD_IMM:
        *v = (uint64_t)o->imm;
        return true;
    default:
        return cpu_memory_rw_debug(CPU(cpu), effective_address(&cpu->env, &o->mem), v,
                                   sizeof *v, false) == 0;
    }
}

/* When the loop leaves by its deadline: the virtual time its counter
 * reaches the value (the counter runs with the virtual clock in ns, plus
 * the guest's offset). UINT64_MAX without a deadline; false when it
 * cannot be read. */
static bool own_deadline(X86CPU *cpu, uint64_t now_ns, uint64_t *out)
{
    const spin_loop *l = &spin.loop;
    uint64_t value;
    if (!l->has_deadline) {
        *out = UINT64_MAX;
        return true;
    }
    if (!operand_value(cpu, &l->deadline, &value)) {
        return false;
    }
    uint64_t leave = value + l->deadline_add;
    uint64_t counter = cpu_get_tsc(&cpu->env) + cpu->env.tsc_offset;
    *out = leave > counter ? now_ns + (leave - counter) : now_ns;
    return true;
}

/* ---- recognising, verifying, skipping ------------------------------------------- */

static uint64_t next_timer_ns(uint64_t now_ns)
{
    int64_t t = qemu_clock_deadline_ns_all(QEMU_CLOCK_VIRTUAL, QEMU_TIMER_ATTR_ALL);
    return t < 0 ? UINT64_MAX : now_ns + (uint64_t)t;
}

static int64_t gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Asks for a stop `insns` instructions on (a multiple of insns_per_ns). */
static void stop_after(int64_t raw, uint64_t now_ns, int64_t insns)
{
    spin.at = raw + insns;
    spin.at_ns = now_ns + insns_ns(insns);
}

static struct no_loop *no_loop_slot(CPUX86State *env)
{
    uint64_t pc = pc_of(env);
    return &spin.no_loop[(pc ^ (pc >> 8) ^ env->cr[3]) % NO_LOOP_SLOTS];
}

static void remember_no_loop(CPUX86State *env)
{
    *no_loop_slot(env) = (struct no_loop){.cr3 = env->cr[3], .pc = pc_of(env)};
}

/* Whether the code at pc holds a pure wait loop, remembering where not. */
static bool find_loop(X86CPU *cpu)
{
    CPUX86State *env = &cpu->env;
    struct no_loop *slot = no_loop_slot(env);
    if (slot->pc == pc_of(env) && slot->cr3 == env->cr[3]) {
        return false;
    }
    uint8_t code[2 * CODE_WINDOW];
    uint64_t start;
    size_t len;
    if (read_code(CPU(cpu), pc_of(env), code, &start, &len) &&
        spin_x86_find(code, len, start, pc_of(env), &spin.loop) == SPIN_OK) {
        return true;
    }
    remember_no_loop(env);
    return false;
}

/* Whether a 64-bit loop whose loads read only RAM runs through pc (into
 * spin.loop). */
static bool ram_loop_at_pc(X86CPU *cpu)
{
    return (cpu->env.hflags & HF_CS64_MASK) && find_loop(cpu) &&
           loads_ram_only(cpu, &spin.loop);
}

/* A loop through pc whose loads read RAM: stop at its landing point, the
 * first time it falls on a whole ns. */
static void recognise(X86CPU *cpu, int64_t raw, uint64_t now_ns)
{
    CPUX86State *env = &cpu->env;
    spin.phase = SPIN_NONE;
    if (!ram_loop_at_pc(cpu)) {
        return;
    }
    bool tsc_trap = (env->cr[4] & CR4_TSD_MASK) && (env->hflags & HF_CPL_MASK) != 0;
    if (spin.loop.tsc_regs && tsc_trap) {
        return; /* its rdtsc faults: no wait */
    }
    int64_t q = insns_per_ns(), n = spin.loop.insns;
    for (int64_t d = spin.loop.to_landing; d < spin.loop.to_landing + q * n; d += n) {
        if (d % q == 0) {
            spin.period = n / gcd(n, q) * q;
            spin.phase = SPIN_LANDING;
            spin.refusals = 0;
            stop_after(raw, now_ns, d);
            return;
        }
    }
}

bool mortar_spin_loop_here(void)
{
    X86CPU *cpu = the_vcpu();
    return !spin.off && cpu && spin.phase == SPIN_NONE && ram_loop_at_pc(cpu);
}

/* At the landing point: take the registers, or compare them with those of
 * one period before. */
static void at_landing(X86CPU *cpu, int64_t raw, uint64_t now_ns)
{
    vcpu_regs r;
    read_regs(&cpu->env, &r);
    if (spin.phase == SPIN_COMPARING) {
        if (same_regs(&r, &spin.taken, spin.loop.tsc_regs) &&
            own_deadline(cpu, now_ns, &spin.deadline_ns)) {
            spin.phase = SPIN_VERIFIED;
            spin.landed = raw;
            spin.timer_ns = next_timer_ns(now_ns);
            spin.stats.verified++;
            return;
        }
        spin.stats.refused++;
        /* The first comparison may see registers the loop had not yet
         * written when the first were taken; a second one decides. */
        if (++spin.refusals == 2) {
            remember_no_loop(&cpu->env);
            spin.phase = SPIN_NONE;
            return;
        }
    }
    spin.taken = r;
    spin.phase = SPIN_COMPARING;
    stop_after(raw, now_ns, spin.period);
}

/* Up to when only a message can end the verified wait: the next timer, or
 * two periods before the loop's deadline. */
static uint64_t wait_holds_until_ns(void)
{
    uint64_t until = spin.timer_ns;
    if (spin.deadline_ns != UINT64_MAX) {
        uint64_t margin = 2 * insns_ns(spin.period);
        until = MIN(until, spin.deadline_ns > margin ? spin.deadline_ns - margin : 0);
    }
    return until;
}

/*
 * At a landing point of a verified loop: add the whole periods that end
 * before the first thing that can change the wait (the links' reach, the
 * next timer, two periods before the loop's deadline), so that the vCPU
 * still executes at least one instruction before it. The raw count stays:
 * the landing points keep their places in it.
 */
static void skip(uint64_t now_ns, uint64_t reach_ns)
{
    uint64_t period_ns = insns_ns(spin.period);
    uint64_t until = MIN(reach_ns, wait_holds_until_ns());
    if (until <= now_ns + 1) {
        return;
    }
    uint64_t k = (until - now_ns - 1) / period_ns;
    if (k == 0) {
        return;
    }
    icount_add_stall_ns((int64_t)(k * period_ns));
    spin.stats.skips++;
    spin.stats.skipped_insns += k * (uint64_t)spin.period;
    spin.stats.skipped_ns += k * period_ns;
}

void mortar_spin_revalidate(uint64_t now_ns)
{
    if (spin.phase == SPIN_VERIFIED &&
        (now_ns >= spin.timer_ns || next_timer_ns(now_ns) != spin.timer_ns ||
         now_ns >= spin.deadline_ns)) {
        mortar_spin_forget(); /* a timer fired or was set, or the deadline came */
    }
}

uint64_t mortar_spin_landed_until_ns(uint64_t now_ns)
{
    X86CPU *cpu = the_vcpu();
    if (spin.off || !cpu) {
        return 0;
    }
    mortar_spin_revalidate(now_ns);
    int64_t raw = icount_get_raw();
    if (spin.phase != SPIN_VERIFIED || raw % insns_per_ns() != 0 ||
        (raw - spin.landed) % spin.period != 0 || pc_of(&cpu->env) != spin.loop.landing) {
        return 0;
    }
    uint64_t until = wait_holds_until_ns();
    return until > now_ns ? until : 0;
}

/* A stop of a verified wait: at a landing point skip, else ask for the
 * next one. */
static void verified_stop(X86CPU *cpu, int64_t raw, uint64_t now_ns, uint64_t reach_ns)
{
    int64_t into = (raw - spin.landed) % spin.period;
    mortar_spin_revalidate(now_ns);
    if (spin.phase != SPIN_VERIFIED || raw % insns_per_ns() != 0 ||
        (into == 0 && pc_of(&cpu->env) != spin.loop.landing)) {
        mortar_spin_forget(); /* the wait is over, or the vCPU is not where it would be */
        return;
    }
    if (into == 0) {
        skip(now_ns, reach_ns);
        now_ns = (uint64_t)qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    }
    stop_after(raw, now_ns, spin.period - into);
}

void mortar_spin_at_stop(uint64_t now_ns, uint64_t reach_ns)
{
    X86CPU *cpu = the_vcpu();
    if (spin.off || !cpu) {
        return;
    }
    int64_t raw = icount_get_raw();
    if (spin.phase == SPIN_VERIFIED) {
        verified_stop(cpu, raw, now_ns, reach_ns);
        if (spin.phase == SPIN_VERIFIED) {
            return;
        }
    }
    bool expected = spin.phase != SPIN_NONE && raw == spin.at && pc_of(&cpu->env) == spin.loop.landing;
    if (!expected) {
        if (raw % insns_per_ns() != 0) {
            spin.phase = SPIN_NONE;
            return; /* between two ns: the next stop will do */
        }
        recognise(cpu, raw, now_ns);
        if (spin.phase != SPIN_LANDING || spin.at != raw) {
            return;
        }
    }
    at_landing(cpu, raw, now_ns);
    if (spin.phase == SPIN_VERIFIED) {
        verified_stop(cpu, raw, now_ns, reach_ns); /* just verified: skip from here */
    }
}
