/*
 * test_spin_x86.c - the QEMU host's recogniser of pure wait loops
 * (hosts/qemu/src/mortar_spin_x86.c) on hand-written x86-64 loops: the
 * waits the guest programs run are recognised, with their instructions per
 * iteration, loads and deadline; loops that store, call or use the time
 * stamp counter otherwise are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mortar_spin_x86.h"

#define BASE 0x401000u

static spin_verdict find(const uint8_t *code, size_t len, unsigned pc_off, spin_loop *l)
{
    return spin_x86_find(code, len, BASE, BASE + pc_off, l);
}

/* L: mov 0x8(%rcx),%edx; and $1,%edx; je L */
static const uint8_t record_spin[] = {0x8b, 0x51, 0x08, 0x83, 0xe2, 0x01, 0x74, 0xf8,
                                      0xc3};

static void memory_spin_is_recognised(void **state)
{
    (void)state;
    spin_loop l;
    assert_int_equal(find(record_spin, sizeof record_spin, 0, &l), SPIN_OK);
    assert_int_equal(l.insns, 3);
    assert_int_equal(l.landing, BASE);
    assert_int_equal(l.nloads, 1);
    assert_int_equal(l.loads[0].base, 1);
    assert_int_equal(l.loads[0].index, -1);
    assert_int_equal(l.loads[0].disp, 8);
    assert_int_equal(l.loads[0].size, 4);
    assert_false(l.has_deadline);
    assert_int_equal(l.tsc_regs, 0);
}

static void found_from_the_middle(void **state)
{
    (void)state;
    spin_loop l;
    assert_int_equal(find(record_spin, sizeof record_spin, 6, &l), SPIN_OK);
    assert_int_equal(l.insns, 3);
    assert_int_equal(l.landing, BASE + 6); /* no counter: it lands where it stands */
    assert_int_equal(l.to_landing, 0);
}

/* L: movzbl 0x100(%rip),%eax; test %al,%al; je L */
static void rip_relative_load(void **state)
{
    (void)state;
    static const uint8_t code[] = {0x0f, 0xb6, 0x05, 0x00, 0x01, 0x00, 0x00,
                                   0x84, 0xc0, 0x74, 0xf5};
    spin_loop l;
    assert_int_equal(find(code, sizeof code, 0, &l), SPIN_OK);
    assert_int_equal(l.loads[0].base, -1);
    assert_int_equal(l.loads[0].disp, BASE + 7 + 0x100);
    assert_int_equal(l.loads[0].size, 1);
}

/*
 * L: rdtsc; shl $32,%rdx; or %rdx,%rax; cmp %rsi,%rax; jae out;
 *    mov 0x8(%rcx),%edx; test $1,%dl; je L
 * out: ret
 */
static const uint8_t deadline_spin[] = {
    0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0x48, 0x39, 0xf0, 0x73, 0x08,
    0x8b, 0x51, 0x08, 0xf6, 0xc2, 0x01, 0x74, 0xea, 0xc3};

static void counter_deadline_is_recognised(void **state)
{
    (void)state;
    spin_loop l;
    assert_int_equal(find(deadline_spin, sizeof deadline_spin, 14, &l), SPIN_OK);
    assert_int_equal(l.insns, 8);
    assert_int_equal(l.landing, BASE); /* at rdtsc */
    assert_int_equal(l.to_landing, 3); /* mov, test, je, then rdtsc */
    assert_true(l.tsc_at_landing);
    assert_true(l.has_deadline);
    assert_int_equal(l.deadline.kind, SPIN_OPD_REG);
    assert_int_equal(l.deadline.reg, 6); /* %rsi */
    assert_int_equal(l.deadline_add, 0);
    assert_true(l.tsc_regs & (1u << 0));
    assert_true(l.tsc_regs & (1u << 2));
    assert_true(l.tsc_regs & (1u << SPIN_FLAGS));
}

/*
 * The counter read after the record's check, as a compiler lays out
 * `while (!done) if (rdtsc() >= until) break;`:
 * L: mov 0x8(%rcx),%edx; test $1,%dl; jne out; rdtsc; shl $32,%rdx;
 *    or %rdx,%rax; cmp %rax,%rsi; ja L (until > counter: go on)
 * out: ret
 */
static void counter_after_the_check(void **state)
{
    (void)state;
    static const uint8_t code[] = {0x8b, 0x51, 0x08, 0xf6, 0xc2, 0x01, 0x75, 0x0e,
                                   0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09,
                                   0xd0, 0x48, 0x39, 0xc6, 0x77, 0xea, 0xc3};
    spin_loop l;
    assert_int_equal(find(code, sizeof code, 0, &l), SPIN_OK);
    assert_int_equal(l.landing, BASE + 8);
    assert_true(l.has_deadline);
    assert_int_equal(l.deadline.reg, 6);
    assert_int_equal(l.deadline_add, 0); /* leaves when counter >= until */
}

/* L: mov %eax,(%rdi); mov 0x8(%rcx),%edx; test %edx,%edx; je L */
static void a_store_is_refused(void **state)
{
    (void)state;
    static const uint8_t code[] = {0x89, 0x07, 0x8b, 0x51, 0x08, 0x85, 0xd2, 0x74, 0xf7};
    spin_loop l;
    assert_int_equal(find(code, sizeof code, 2, &l), SPIN_STORES);
}

/* L: call f; test %eax,%eax; je L  (f: ret) */
static void a_call_is_refused(void **state)
{
    (void)state;
    static const uint8_t code[] = {0xe8, 0x04, 0x00, 0x00, 0x00, 0x85, 0xc0, 0x74, 0xf7, 0xc3};
    spin_loop l;
    assert_int_equal(find(code, sizeof code, 0, &l), SPIN_STORES);
}

/* L: incl (%rdi); cmpl $0,(%rsi); je L: a counter in memory */
static void an_increment_in_memory_is_refused(void **state)
{
    (void)state;
    static const uint8_t code[] = {0xff, 0x07, 0x83, 0x3e, 0x00, 0x74, 0xf9};
    spin_loop l;
    assert_int_equal(find(code, sizeof code, 0, &l), SPIN_STORES);
}

/* L: add $1,%eax; cmpl $0,(%rsi); je L: counts in a register. The shape
 * is a pure wait's; the hub refuses it because %eax differs one iteration
 * later. */
static void a_register_count_is_left_to_the_hub(void **state)
{
    (void)state;
    static const uint8_t code[] = {0x83, 0xc0, 0x01, 0x83, 0x3e, 0x00, 0x74, 0xf8};
    spin_loop l;
    assert_int_equal(find(code, sizeof code, 0, &l), SPIN_OK);
    assert_int_equal(l.tsc_regs, 0);
}

/* L: rdtsc; test $1,%al; je L: the counter used as data */
static void counter_as_data_is_refused(void **state)
{
    (void)state;
    static const uint8_t code[] = {0x0f, 0x31, 0xa8, 0x01, 0x74, 0xfa};
    spin_loop l;
    assert_int_equal(find(code, sizeof code, 0, &l), SPIN_TSC_USE);
}

/* L: rdtsc; shl $32,%rdx; or %rdx,%rax; cmp %rsi,%rax; jb L: leaves once
 * counter >= %rsi; with jae L instead it would wait while it is above,
 * which is no deadline. */
static void only_a_deadline_counts(void **state)
{
    (void)state;
    uint8_t code[] = {0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0,
                      0x48, 0x39, 0xf0, 0x72, 0xf2};
    spin_loop l;
    assert_int_equal(find(code, sizeof code, 0, &l), SPIN_OK);
    assert_true(l.has_deadline);
    code[12] = 0x73; /* jae */
    assert_int_equal(find(code, sizeof code, 0, &l), SPIN_TSC_USE);
}

/* The counter's value of the previous iteration seen at an exit:
 * L: mov (%rcx),%edx; test %edx,%edx; jne out; rdtsc; cmp ... would leave
 * %rax of the last iteration. Here: L: mov (%rcx),%ebx; test %ebx,%ebx;
 * jne out; rdtsc; shl $32,%rdx; or %rdx,%rax; cmp %rsi,%rax; jb L;
 * out: ret - %rax at out is fresh on the deadline's exit but stale on the
 * record's exit only if the landing were the load: the landing is rdtsc,
 * so both exits see this iteration's values. */
static void exits_see_fresh_counter_values(void **state)
{
    (void)state;
    static const uint8_t code[] = {0x8b, 0x19, 0x85, 0xdb, 0x75, 0x0e, 0x0f, 0x31,
                                   0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0x48,
                                   0x39, 0xf0, 0x72, 0xec, 0xc3};
    spin_loop l;
    assert_int_equal(find(code, sizeof code, 0, &l), SPIN_OK);
    assert_int_equal(l.landing, BASE + 6);
}

/* L: mov (%rcx),%eax; test %eax,%eax; jne X; jmp L; X: nop; jmp L: the
 * way out comes back. */
static void an_exit_coming_back_is_refused(void **state)
{
    (void)state;
    static const uint8_t code[] = {0x8b, 0x01, 0x85, 0xc0, 0x75, 0x02, 0xeb, 0xf8,
                                   0x90, 0xeb, 0xf5};
    spin_loop l;
    assert_int_equal(find(code, sizeof code, 0, &l), SPIN_NOT_SIMPLE);
}

/* A straight line: no loop; an unknown instruction (cpuid) in the loop. */
static void no_loop_and_unknown(void **state)
{
    (void)state;
    static const uint8_t line[] = {0x8b, 0x01, 0x85, 0xc0};
    static const uint8_t cpuid[] = {0x0f, 0xa2, 0x85, 0xc0, 0x74, 0xfa};
    spin_loop l;
    assert_int_equal(find(line, sizeof line, 0, &l), SPIN_NO_LOOP);
    assert_int_equal(find(cpuid, sizeof cpuid, 0, &l), SPIN_UNKNOWN);
    assert_string_equal(spin_verdict_name(SPIN_STORES), "stores");
}

/* A loop too long to be a wait. */
static void a_long_loop_is_no_wait(void **state)
{
    (void)state;
    uint8_t code[2 * (SPIN_MAX_INSNS + 2) + 2];
    size_t n = 0;
    for (int i = 0; i < SPIN_MAX_INSNS + 2; i++) {
        code[n++] = 0x8b; /* mov (%rcx),%eax */
        code[n++] = 0x01;
    }
    code[n++] = 0xeb;
    code[n] = (uint8_t)(-(int)(n + 1));
    n++;
    spin_loop l;
    assert_int_equal(find(code, n, 0, &l), SPIN_NO_LOOP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(memory_spin_is_recognised),
        cmocka_unit_test(found_from_the_middle),
        cmocka_unit_test(rip_relative_load),
        cmocka_unit_test(counter_deadline_is_recognised),
        cmocka_unit_test(counter_after_the_check),
        cmocka_unit_test(a_store_is_refused),
        cmocka_unit_test(a_call_is_refused),
        cmocka_unit_test(an_increment_in_memory_is_refused),
        cmocka_unit_test(a_register_count_is_left_to_the_hub),
        cmocka_unit_test(counter_as_data_is_refused),
        cmocka_unit_test(only_a_deadline_counts),
        cmocka_unit_test(exits_see_fresh_counter_values),
        cmocka_unit_test(an_exit_coming_back_is_refused),
        cmocka_unit_test(no_loop_and_unknown),
        cmocka_unit_test(a_long_loop_is_no_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
