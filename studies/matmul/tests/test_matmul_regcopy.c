/*
 * test_matmul_regcopy.c - the register-copy variant through the host stub:
 * exact products with word-by-word and block copies in both result formats
 * (CONTROL.RESULT_I32), the cost of reading the result back one round trip
 * at a time, request ids in the trace, and
 * malformed window accesses and STARTs while busy.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "mortar/error.h"
#include "mortar/trace.h"
#include "model/bench.h"
#include "model/matmul.h"
#include "model/matmul_regs.h"

#define STEP_PS MORTAR_US(30) /* design A's unit: 12000 cycles at 400 MHz, 1x */
#define R256    "{\"design\": \"regcopy\", \"n\": 256}"

static void open_bench(matmul_bench *b, const char *params, uint64_t latency_ps,
                       const char *trace)
{
    char err[512] = "";
    if (matmul_bench_open(b, params, latency_ps, 0, trace, err, sizeof err))
        fail_msg("bench: %s", err);
}

static void run_checked(matmul_bench *b, const matmul_drv_opts *o, uint64_t seed,
                        matmul_drv_result *r)
{
    matmul_drv d;
    matmul_drv_result tmp;
    bool ok;
    if (matmul_drv_open(&d, b->h, 256, o))
        fail_msg("driver: %s", matmul_drv_errmsg(&d));
    if (matmul_bench_check(&d, 256, seed, r ? r : &tmp, &ok))
        fail_msg("request failed: %s", matmul_drv_errmsg(&d));
    assert_true(ok);
}

static void test_regcopy_product_is_exact_word_by_word(void **state)
{
    (void)state;
    matmul_bench b;
    open_bench(&b, R256, MORTAR_NS(100), NULL);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        matmul_drv_result r;
        run_checked(&b, NULL, seed, &r);
        assert_int_equal(r.steps, 8);
        assert_int_equal(r.dev_compute_ps, 8 * STEP_PS);
        /* 2 x 64 KiB of operands and 64 KiB of int8 result, 8 bytes at a time */
        assert_int_equal(r.mmio_writes, 3 + 2 * 65536 / 8);
        assert_true(r.mmio_reads > 65536 / 8);
    }
    matmul_bench_close(&b);
}

static void test_regcopy_block_copies_work(void **state)
{
    (void)state;
    matmul_bench b;
    matmul_drv_opts o = {.copy_bytes = 4096};
    matmul_drv_result r;
    open_bench(&b, R256, MORTAR_NS(100), NULL);
    run_checked(&b, &o, 21, &r);
    assert_int_equal(r.mmio_writes, 3 + 2 * 65536 / 4096);
    matmul_bench_close(&b);
}

/*
 * START arrives L after it is posted, the 8 steps take 8C, the poll that
 * sees DONE comes back between L and 3L after it, then each of the R result
 * reads is a round trip (2L): the request costs between
 * 8C + 2L + 2RL and 8C + 4L + 2RL. The operand writes are posted and free.
 * R is 64 KiB / 8 for the int8 product and four times that for int32.
 */
static void test_regcopy_result_costs_a_round_trip_per_read(void **state)
{
    (void)state;
    static const matmul_result formats[] = {MATMUL_RESULT_I8, MATMUL_RESULT_I32};
    const uint64_t L = MORTAR_NS(200);
    for (int f = 0; f < 2; f++) {
        const uint64_t R = 256 * 256 * (uint64_t)matmul_result_bytes(formats[f]) / 8;
        matmul_bench b;
        matmul_drv_result r;
        matmul_drv_opts o = {.result = formats[f]};
        open_bench(&b, R256, L, NULL);
        run_checked(&b, &o, 5, &r);
        uint64_t service = r.done_ps - r.submit_ps;
        assert_true(service >= 8 * STEP_PS + 2 * L + 2 * R * L);
        assert_true(service <= 8 * STEP_PS + 4 * L + 2 * R * L);
        assert_true(r.mmio_reads >= R);
        assert_int_equal(r.dev_compute_ps, 8 * STEP_PS);
        assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, MATMUL_R_CONTROL, 4),
                         formats[f] == MATMUL_RESULT_I32 ? MATMUL_R_CTRL_RESULT_I32 : 0);
        matmul_bench_close(&b);
    }
}

/* CONTROL is latched at START: setting RESULT_I32 while an int8 product
 * runs changes nothing until the next START. All-64 operands make every
 * element 256 * 64 * 64 = 2^20, which saturates to 127 as int8. */
static void test_regcopy_control_is_latched_at_start(void **state)
{
    (void)state;
    matmul_bench b;
    matmul_drv_opts o = {.result = MATMUL_RESULT_I32};
    uint8_t block[4096];
    memset(block, 64, sizeof block);
    open_bench(&b, R256, MORTAR_NS(100), NULL);
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_R_CONTROL, 4, 0xffffffff);
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, MATMUL_R_CONTROL, 4),
                     MATMUL_R_CTRL_RESULT_I32); /* reserved bits read 0 */
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_R_CONTROL, 4, 0);
    for (uint64_t off = 0; off < matmul_window_c(256); off += sizeof block)
        mortar_hoststub_mmio_write_block(b.h, 2, off, block, sizeof block);
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_R_START, 4, 1);
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_R_CONTROL, 4, MATMUL_R_CTRL_RESULT_I32);
    while (!(mortar_hoststub_mmio_read(b.h, 0, MATMUL_R_STATUS, 4) & MATMUL_STATUS_DONE))
        mortar_hoststub_delay(b.h, MORTAR_US(10));
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 2, matmul_window_c(256), 8),
                     0x7f7f7f7f7f7f7f7full);
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_R_STATUS, 4, MATMUL_STATUS_DONE);
    run_checked(&b, &o, 15, NULL); /* the driver's int32 request is right */
    matmul_bench_close(&b);
}

static void test_regcopy_trace_events_carry_the_request_id(void **state)
{
    (void)state;
    char path[] = "/tmp/test_matmul_rc_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    matmul_bench b;
    open_bench(&b, R256, MORTAR_NS(100), path);
    run_checked(&b, NULL, 1, NULL); /* a fresh driver: request id 1 */
    matmul_bench_close(&b);
    mortar_trace_reader *rd;
    mortar_trace_event ev;
    uint64_t starts = 0, ends = 0, completions = 0, doorbells = 0;
    assert_int_equal(mortar_trace_reader_open(&rd, path, NULL, 0), 0);
    while (mortar_trace_reader_next(rd, &ev) == 1) {
        if (strcmp(mortar_trace_reader_component(rd, ev.component), "matmul"))
            continue;
        const char *kind = mortar_trace_reader_kind(rd, ev.kind);
        assert_int_equal(ev.req_id, 1);
        starts += !strcmp(kind, "compute_start");
        ends += !strcmp(kind, "compute_end");
        completions += !strcmp(kind, "completion");
        doorbells += !strcmp(kind, "doorbell");
    }
    mortar_trace_reader_close(rd);
    unlink(path);
    assert_int_equal(starts, 8);
    assert_int_equal(ends, 8);
    assert_int_equal(completions, 1);
    assert_int_equal(doorbells, 1);
}

static void test_regcopy_window_accesses_out_of_range_are_counted(void **state)
{
    (void)state;
    matmul_bench b;
    open_bench(&b, R256, MORTAR_NS(100), NULL);
    mortar_hoststub *h = b.h;
    const uint64_t win_end = 6 * 256 * 256, c_win = matmul_window_c(256);
    uint8_t block[4096];
    memset(block, 0x5a, sizeof block);
    assert_int_equal(mortar_hoststub_mmio_read(h, 2, win_end, 8),
                     0); /* past the windows */
    assert_int_equal(mortar_hoststub_mmio_read(h, 2, win_end - 4, 8),
                     0); /* straddles the end */
    assert_int_equal(mortar_hoststub_mmio_read(h, 2, 1ull << 40, 4), 0); /* far away */
    mortar_hoststub_mmio_write(h, 2, c_win, 8, 1); /* C is read-only */
    mortar_hoststub_mmio_write_block(h, 2, c_win - 2048, block,
                                     4096);                 /* crosses into C */
    mortar_hoststub_mmio_write_block(h, 2, 0, block, 4096); /* fine: A window */
    uint8_t back[16];
    mortar_hoststub_mmio_read_block(h, 2, 4088, back, sizeof back); /* fine */
    assert_int_equal(back[0], 0x5a);
    assert_int_equal(back[8], 0);
    matmul_counters c;
    matmul_get_counters(b.dev, &c);
    assert_int_equal(c.unknown_reg_accesses, 5);
    run_checked(&b, NULL, 13, NULL);
    matmul_bench_close(&b);
}

static void test_regcopy_start_while_busy_is_counted_and_ignored(void **state)
{
    (void)state;
    matmul_bench b;
    open_bench(&b, R256, MORTAR_NS(100), NULL);
    for (int i = 0; i < 3; i++)
        mortar_hoststub_mmio_write(b.h, 0, MATMUL_R_START, 4, 1);
    while (!(mortar_hoststub_mmio_read(b.h, 0, MATMUL_R_STATUS, 4) & MATMUL_STATUS_DONE))
        mortar_hoststub_delay(b.h, MORTAR_US(10));
    matmul_counters c;
    matmul_get_counters(b.dev, &c);
    assert_int_equal(c.doorbells_ignored, 2);
    assert_int_equal(c.requests, 1);
    assert_int_equal(c.steps, 8);
    run_checked(&b, NULL, 14, NULL);
    matmul_bench_close(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regcopy_product_is_exact_word_by_word),
        cmocka_unit_test(test_regcopy_block_copies_work),
        cmocka_unit_test(test_regcopy_result_costs_a_round_trip_per_read),
        cmocka_unit_test(test_regcopy_control_is_latched_at_start),
        cmocka_unit_test(test_regcopy_trace_events_carry_the_request_id),
        cmocka_unit_test(test_regcopy_window_accesses_out_of_range_are_counted),
        cmocka_unit_test(test_regcopy_start_while_busy_is_counted_and_ignored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
