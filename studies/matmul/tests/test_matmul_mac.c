/*
 * test_matmul_mac.c - every way this CPU offers to multiply a tile pair
 * (studies/matmul/model/mac.c) gives the plain loop's accumulator bit for
 * bit: on tiles inside wider operands, on the extreme values -128 and 127,
 * and adding onto an accumulator that already holds sums.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/matmul_internal.h"
#include "model/reference.h"

#define T      MATMUL_TILE
#define STRIDE (3 * T + 5) /* a tile inside a wider, oddly strided operand */
#define OPERAND_BYTES ((size_t)STRIDE * T)

static const matmul_mac_way *plain_way(const matmul_mac_way **ways, size_t n)
{
    assert_true(n >= 1);
    assert_string_equal(ways[n - 1]->name, "plain");
    return ways[n - 1];
}

/* acc (starting from `start`) after one step with each way, compared with
 * the plain loop's. */
static void check_all_ways(const int8_t *a, const int8_t *b, const int32_t *start)
{
    const matmul_mac_way *ways[8];
    size_t n = matmul_mac_ways(ways, 8);
    const matmul_mac_way *plain = plain_way(ways, n);
    size_t acc_bytes = (size_t)T * T * sizeof(int32_t);
    int32_t *want = malloc(acc_bytes), *got = malloc(acc_bytes);
    assert_non_null(want);
    assert_non_null(got);
    memcpy(want, start, acc_bytes);
    plain->mac(want, a + 7, STRIDE, b + 3, STRIDE);
    for (size_t i = 0; i < n; i++) {
        memcpy(got, start, acc_bytes);
        ways[i]->mac(got, a + 7, STRIDE, b + 3, STRIDE);
        if (memcmp(got, want, acc_bytes) != 0)
            fail_msg("the %s way differs from the plain loop", ways[i]->name);
    }
    memcpy(got, start, acc_bytes);
    matmul_unit_mac(got, a + 7, STRIDE, b + 3, STRIDE);
    assert_memory_equal(got, want, acc_bytes);
    free(want);
    free(got);
}

static void test_every_way_matches_the_plain_loop(void **state)
{
    (void)state;
    int8_t *a = malloc(OPERAND_BYTES), *b = malloc(OPERAND_BYTES);
    int32_t *start = calloc((size_t)T * T, sizeof *start);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(start);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        matmul_ref_fill(a, OPERAND_BYTES, seed);
        matmul_ref_fill(b, OPERAND_BYTES, seed + 100);
        check_all_ways(a, b, start);
    }
    free(a);
    free(b);
    free(start);
}

static void test_extremes_and_a_running_sum(void **state)
{
    (void)state;
    int8_t *a = malloc(OPERAND_BYTES), *b = malloc(OPERAND_BYTES);
    int32_t *start = malloc((size_t)T * T * sizeof *start);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(start);
    for (size_t i = 0; i < (size_t)T * T; i++)
        start[i] = (int32_t)((uint32_t)(i * 2654435761u) >> 2) - (1 << 29); /* no overflow */
    memset(a, -128, OPERAND_BYTES);
    memset(b, -128, OPERAND_BYTES);
    check_all_ways(a, b, start);
    memset(b, 127, OPERAND_BYTES);
    check_all_ways(a, b, start);
    for (size_t i = 0; i < OPERAND_BYTES; i++)
        a[i] = (int8_t)(i % 3 == 0 ? -128 : 127);
    check_all_ways(a, b, start);
    free(a);
    free(b);
    free(start);
}

int main(void)
{
    const matmul_mac_way *ways[8];
    size_t n = matmul_mac_ways(ways, 8);
    for (size_t i = 0; i < n; i++)
        print_message("mac way on this CPU: %s\n", ways[i]->name);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_way_matches_the_plain_loop),
        cmocka_unit_test(test_extremes_and_a_running_sum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
