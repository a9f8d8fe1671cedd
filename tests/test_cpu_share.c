/*
 * test_cpu_share.c - the sweep's job slots and their CPUs
 * (cli/sweep/cpu_share.c): nothing to split for one slot or for more slots
 * than CPUs; otherwise the slots' shares are disjoint, cover every CPU the
 * process may use, and differ in size by one at most. The process's
 * affinity is narrowed to known CPUs where the machine has them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cpu_share.h"

static int allowed_count(void)
{
    cpu_set_t set;
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    return CPU_COUNT(&set);
}

static void test_cpu_share_one_slot_is_not_split(void **state)
{
    (void)state;
    cpu_set_t out;
    assert_false(cpu_share_of_slot(0, 1, &out));
}

static void test_cpu_share_more_slots_than_cpus_are_not_split(void **state)
{
    (void)state;
    cpu_set_t out;
    size_t slots = (size_t)allowed_count() + 1;
    assert_false(cpu_share_of_slot(0, slots, &out));
    assert_false(cpu_share_of_slot(slots - 1, slots, &out));
}

static void test_cpu_share_slot_out_of_range_is_refused(void **state)
{
    (void)state;
    cpu_set_t out;
    assert_false(cpu_share_of_slot(2, 2, &out));
}

/* Every split of the process's CPUs into 2 .. count slots. */
static void test_cpu_share_slots_split_the_cpus_evenly(void **state)
{
    (void)state;
    cpu_set_t allowed;
    assert_int_equal(sched_getaffinity(0, sizeof allowed, &allowed), 0);
    size_t count = (size_t)CPU_COUNT(&allowed);
    if (count < 2)
        skip();
    for (size_t slots = 2; slots <= count; slots++) {
        cpu_set_t seen;
        CPU_ZERO(&seen);
        size_t smallest = count, largest = 0;
        for (size_t slot = 0; slot < slots; slot++) {
            cpu_set_t share, both;
            assert_true(cpu_share_of_slot(slot, slots, &share));
            CPU_AND(&both, &share, &seen);
            assert_int_equal(CPU_COUNT(&both), 0); /* disjoint */
            CPU_OR(&seen, &seen, &share);
            size_t n = (size_t)CPU_COUNT(&share);
            smallest = n < smallest ? n : smallest;
            largest = n > largest ? n : largest;
        }
        assert_true(CPU_EQUAL(&seen, &allowed));
        assert_true(largest - smallest <= 1);
        assert_true(smallest >= 1);
    }
}

/* With the process on two known CPUs, two slots get one each, in order. */
static void test_cpu_share_two_slots_on_two_cpus(void **state)
{
    (void)state;
    cpu_set_t saved, two;
    assert_int_equal(sched_getaffinity(0, sizeof saved, &saved), 0);
    if (CPU_COUNT(&saved) < 2)
        skip();
    int first = -1, second = -1;
    for (int cpu = 0; cpu < CPU_SETSIZE && second < 0; cpu++) {
        if (!CPU_ISSET(cpu, &saved))
            continue;
        if (first < 0)
            first = cpu;
        else
            second = cpu;
    }
    CPU_ZERO(&two);
    CPU_SET(first, &two);
    CPU_SET(second, &two);
    assert_int_equal(sched_setaffinity(0, sizeof two, &two), 0);
    cpu_set_t a, b;
    bool ok_a = cpu_share_of_slot(0, 2, &a), ok_b = cpu_share_of_slot(1, 2, &b);
    assert_int_equal(sched_setaffinity(0, sizeof saved, &saved), 0);
    assert_true(ok_a && ok_b);
    assert_int_equal(CPU_COUNT(&a), 1);
    assert_int_equal(CPU_COUNT(&b), 1);
    assert_true(CPU_ISSET(first, &a));
    assert_true(CPU_ISSET(second, &b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_share_one_slot_is_not_split),
        cmocka_unit_test(test_cpu_share_more_slots_than_cpus_are_not_split),
        cmocka_unit_test(test_cpu_share_slot_out_of_range_is_refused),
        cmocka_unit_test(test_cpu_share_slots_split_the_cpus_evenly),
        cmocka_unit_test(test_cpu_share_two_slots_on_two_cpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
