/*
 * test_matmul_a.c - design A through the host stub: exact products in both
 * result formats (STEP_CTRL.RESULT_I32), the cost of driving every tile
 * step across the link, request ids in the trace, and malformed input (refused DMA,
 * wrapping addresses, doorbells while busy) after which the device still serves a correct
 * request.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
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

#define STEP_PS MORTAR_US(30) /* 12000 cycles at 400 MHz, 1x */

static void open_bench(matmul_bench *b, const char *params, uint64_t latency_ps,
                       const char *trace)
{
    char err[512] = "";
    if (matmul_bench_open(b, params, latency_ps, 0, trace, err, sizeof err))
        fail_msg("bench: %s", err);
}

static void run_format(matmul_bench *b, uint32_t n, uint64_t seed, matmul_result result,
                       matmul_drv_result *r)
{
    matmul_drv d;
    matmul_drv_result tmp;
    matmul_drv_opts o = {.result = result};
    bool ok;
    assert_int_equal(matmul_drv_open(&d, b->h, n, &o), 0);
    if (matmul_bench_check(&d, n, seed, r ? r : &tmp, &ok))
        fail_msg("request failed: %s", matmul_drv_errmsg(&d));
    assert_true(ok);
}

static void run_checked(matmul_bench *b, uint32_t n, uint64_t seed, matmul_drv_result *r)
{
    run_format(b, n, seed, MATMUL_RESULT_I8, r);
}

static void test_a_product_is_exact_for_random_matrices(void **state)
{
    (void)state;
    matmul_bench b;
    open_bench(&b, "{\"design\": \"a\", \"n\": 256}", MORTAR_NS(100), NULL);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        matmul_drv_result r;
        run_checked(&b, 256, seed, &r);
        assert_int_equal(r.steps, 8);
        assert_int_equal(r.dev_compute_ps, 8 * STEP_PS);
    }
    matmul_counters c;
    matmul_get_counters(b.dev, &c);
    assert_int_equal(c.requests, 3);
    assert_int_equal(c.steps, 24);
    assert_int_equal(c.errors, 0);
    matmul_bench_close(&b);
}

static void test_a_product_is_exact_at_n512(void **state)
{
    (void)state;
    matmul_bench b;
    matmul_drv_result r;
    open_bench(&b, "{\"design\": \"a\"}", MORTAR_NS(500), NULL);
    run_checked(&b, 512, 42, &r);
    assert_int_equal(r.steps, 64);
    assert_int_equal(r.dev_compute_ps, MORTAR_US(1920));
    matmul_bench_close(&b);
}

/*
 * The driver chooses the format with STEP_CTRL.RESULT_I32: an int8 result
 * tile is 16 KiB (4 posted chunks), an int32 one 64 KiB (16 chunks); the
 * operand reads and the timing stay the same.
 */
static void test_a_result_format_sets_the_size_of_the_result_writes(void **state)
{
    (void)state;
    static const matmul_result formats[] = {MATMUL_RESULT_I8, MATMUL_RESULT_I32};
    uint64_t service[2];
    for (int f = 0; f < 2; f++) {
        matmul_bench b;
        matmul_drv_result r;
        matmul_counters c;
        open_bench(&b, "{\"design\": \"a\", \"n\": 256}", MORTAR_US(1), NULL);
        run_format(&b, 256, 21, formats[f], &r);
        matmul_get_counters(b.dev, &c);
        uint64_t tile =
            formats[f] == MATMUL_RESULT_I32 ? MATMUL_TILE_I32 : MATMUL_TILE_I8;
        assert_int_equal(c.dma_reads, 8 * 2 * 4);
        assert_int_equal(c.dma_writes, 4 * tile / 4096);
        assert_int_equal(c.dma_bytes, 8 * 2 * MATMUL_TILE_I8 + 4 * tile);
        assert_int_equal(r.dev_compute_ps, 8 * STEP_PS);
        service[f] = r.done_ps - r.submit_ps;
        matmul_bench_close(&b);
    }
    assert_int_equal(service[0], service[1]); /* the bench link has no bandwidth limit */
}

/*
 * Per step, with one-way latency L and step time C: the read-back costs 2L,
 * the doorbell arrives L later, tile A and then tile B each take a round
 * trip (2L), then C of compute; the poll that sees DONE arrives at the
 * device within 2L after it is set (polls are 2L apart) and answers in L.
 * So every step costs between C + 8L and C + 10L.
 */
static void test_a_every_step_pays_its_round_trips(void **state)
{
    (void)state;
    const uint64_t L = MORTAR_US(1), steps = 8;
    matmul_bench b;
    matmul_drv_result r;
    open_bench(&b, "{\"design\": \"a\", \"n\": 256}", L, NULL);
    run_checked(&b, 256, 5, &r);
    uint64_t service = r.done_ps - r.submit_ps;
    assert_true(service >= steps * (STEP_PS + 8 * L));
    assert_true(service <= steps * (STEP_PS + 10 * L));
    assert_true(r.mmio_reads >= 2 * steps); /* read-back + at least one poll */
    assert_int_equal(r.dev_compute_ps, steps * STEP_PS);
    /* the device's span includes the fetches of steps 2..8 between computes */
    assert_true(r.dev_last_ps - r.dev_first_ps >= steps * STEP_PS + (steps - 1) * 8 * L);
    matmul_bench_close(&b);
}

/* ---- trace ---------------------------------------------------------------------------
 */

typedef struct kind_count {
    const char *kind;
    uint64_t count;
} kind_count;

static void count_kind(kind_count *k, const char *kind)
{
    for (; k->kind; k++)
        if (!strcmp(k->kind, kind))
            k->count++;
}

static void test_a_trace_events_carry_the_request_id(void **state)
{
    (void)state;
    char path[] = "/tmp/test_matmul_a_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    matmul_bench b;
    open_bench(&b, "{\"design\": \"a\", \"n\": 256}", MORTAR_NS(100), path);
    matmul_drv d;
    matmul_drv_result r;
    bool ok;
    assert_int_equal(matmul_drv_open(&d, b.h, 256, NULL), 0);
    for (uint64_t id = 1; id <= 2; id++) {
        assert_int_equal(matmul_bench_check(&d, 256, id, &r, &ok), 0);
        assert_true(ok);
        assert_int_equal(r.req_id, id);
    }
    matmul_bench_close(&b);

    mortar_trace_reader *rd;
    assert_int_equal(mortar_trace_reader_open(&rd, path, NULL, 0), 0);
    kind_count per_req[2][8] = {
        [0] = {{"doorbell", 0},
               {"dma_read", 0},
               {"dma_read_done", 0},
               {"dma_write", 0},
               {"compute_start", 0},
               {"compute_end", 0},
               {"completion", 0},
               {NULL, 0}},
        [1] = {{"doorbell", 0},
               {"dma_read", 0},
               {"dma_read_done", 0},
               {"dma_write", 0},
               {"compute_start", 0},
               {"compute_end", 0},
               {"completion", 0},
               {NULL, 0}},
    };
    mortar_trace_event ev;
    uint64_t last_req = 0, next_step = 0;
    while (mortar_trace_reader_next(rd, &ev) == 1) {
        if (strcmp(mortar_trace_reader_component(rd, ev.component), "matmul"))
            continue;
        const char *kind = mortar_trace_reader_kind(rd, ev.kind);
        assert_true(ev.req_id == 1 || ev.req_id == 2);
        assert_true(ev.req_id >= last_req); /* request 2 starts after 1 ended */
        if (ev.req_id != last_req)
            next_step = 0;
        last_req = ev.req_id;
        count_kind(per_req[ev.req_id - 1], kind);
        if (!strcmp(kind, "dma_read"))
            assert_int_equal(ev.arg1, MATMUL_TILE_I8);
        if (!strcmp(kind, "dma_write"))
            assert_int_equal(ev.arg1, MATMUL_TILE_I8); /* the int8 result tile */
        if (!strcmp(kind, "compute_start"))
            assert_int_equal(ev.arg0, next_step++);
    }
    mortar_trace_reader_close(rd);
    unlink(path);
    static const uint64_t expect[] = {8, 16, 16, 4, 8, 8, 1};
    for (int q = 0; q < 2; q++)
        for (int k = 0; k < 7; k++)
            if (per_req[q][k].count != expect[k])
                fail_msg("request %d: %" PRIu64 " %s events, expected %" PRIu64, q + 1,
                         per_req[q][k].count, per_req[q][k].kind, expect[k]);
}

/* ---- malformed input ----------------------------------------------------------------
 */

/* One step programmed by hand; returns STATUS once DONE or ERROR is set. */
static uint32_t manual_step(mortar_hoststub *h, uint64_t a, uint64_t bb, uint64_t c,
                            uint32_t ctrl)
{
    mortar_hoststub_mmio_write(h, 0, MATMUL_A_A_ADDR, 8, a);
    mortar_hoststub_mmio_write(h, 0, MATMUL_A_B_ADDR, 8, bb);
    mortar_hoststub_mmio_write(h, 0, MATMUL_A_C_ADDR, 8, c);
    mortar_hoststub_mmio_write(h, 0, MATMUL_A_STEP_CTRL, 4, ctrl);
    mortar_hoststub_mmio_write(h, 0, MATMUL_A_DOORBELL, 4, 1);
    for (int i = 0; i < 100000; i++) {
        uint32_t st = (uint32_t)mortar_hoststub_mmio_read(h, 0, MATMUL_A_STATUS, 4);
        if (st & (MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR))
            return st;
    }
    fail_msg("the step never ended");
    return 0;
}

static void test_a_refused_dma_sets_error_and_the_next_request_works(void **state)
{
    (void)state;
    matmul_bench b;
    matmul_counters c;
    open_bench(&b, "{\"design\": \"a\", \"n\": 256}", MORTAR_NS(100), NULL);
    uint64_t base = mortar_hoststub_mem_base(b.h);
    /* operand outside host memory: all 4 chunks of tile A are refused */
    uint32_t st = manual_step(b.h, 0x1000, base, base, MATMUL_STEP_FIRST);
    assert_true(st & MATMUL_STATUS_ERROR);
    assert_false(st & MATMUL_STATUS_BUSY);
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, MATMUL_A_ERR_CODE, 4),
                     MATMUL_ERR_DMA);
    matmul_get_counters(b.dev, &c);
    assert_int_equal(c.dma_errors, 4);
    assert_int_equal(c.errors, 1);
    assert_int_equal(c.steps, 0);
    /* result tile outside host memory: the step ends, the posted write fails later */
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_A_STATUS, 4, MATMUL_STATUS_ERROR);
    st = manual_step(b.h, base, base, 0x1000, MATMUL_STEP_FIRST | MATMUL_STEP_LAST);
    assert_true(st & MATMUL_STATUS_DONE);
    mortar_hoststub_delay(b.h, MORTAR_US(1));
    st = (uint32_t)mortar_hoststub_mmio_read(b.h, 0, MATMUL_A_STATUS, 4);
    assert_true(st & MATMUL_STATUS_ERROR);
    matmul_get_counters(b.dev, &c);
    assert_int_equal(c.dma_errors, 4 + 4); /* tile A, then the int8 result tile */
    assert_int_equal(c.errors, 2);
    run_checked(&b, 256, 9, NULL);
    matmul_bench_close(&b);
}

static void test_a_wrapping_address_is_refused_without_dma(void **state)
{
    (void)state;
    matmul_bench b;
    matmul_counters c;
    open_bench(&b, "{\"design\": \"a\", \"n\": 256}", MORTAR_NS(100), NULL);
    uint64_t base = mortar_hoststub_mem_base(b.h);
    uint32_t st = manual_step(b.h, base, ~0ull - 4095, base, MATMUL_STEP_FIRST);
    assert_true(st & MATMUL_STATUS_ERROR);
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, MATMUL_A_ERR_CODE, 4),
                     MATMUL_ERR_BAD_ADDR);
    matmul_get_counters(b.dev, &c);
    assert_int_equal(c.dma_reads, 0);
    assert_int_equal(c.errors, 1);
    run_checked(&b, 256, 10, NULL);
    matmul_bench_close(&b);
}

static void test_a_doorbell_while_busy_is_counted_and_ignored(void **state)
{
    (void)state;
    matmul_bench b;
    matmul_counters c;
    open_bench(&b, "{\"design\": \"a\", \"n\": 256}", MORTAR_NS(100), NULL);
    uint64_t base = mortar_hoststub_mem_base(b.h);
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_A_A_ADDR, 8, base);
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_A_B_ADDR, 8, base + MATMUL_TILE_I8);
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_A_C_ADDR, 8, base + 2 * MATMUL_TILE_I8);
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_A_STEP_CTRL, 4,
                               MATMUL_STEP_FIRST | MATMUL_STEP_LAST);
    for (int i = 0; i < 3; i++) /* the 2nd and 3rd arrive while the step runs */
        mortar_hoststub_mmio_write(b.h, 0, MATMUL_A_DOORBELL, 4, 1);
    uint32_t st;
    while (!((st = (uint32_t)mortar_hoststub_mmio_read(b.h, 0, MATMUL_A_STATUS, 4)) &
             (MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR)))
        ;
    assert_int_equal(st & MATMUL_STATUS_ERROR, 0);
    matmul_get_counters(b.dev, &c);
    assert_int_equal(c.doorbells_ignored, 2);
    assert_int_equal(c.steps, 1);
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, MATMUL_A_STEP_COUNT, 4), 1);
    run_checked(&b, 256, 12, NULL);
    matmul_bench_close(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_product_is_exact_for_random_matrices),
        cmocka_unit_test(test_a_product_is_exact_at_n512),
        cmocka_unit_test(test_a_result_format_sets_the_size_of_the_result_writes),
        cmocka_unit_test(test_a_every_step_pays_its_round_trips),
        cmocka_unit_test(test_a_trace_events_carry_the_request_id),
        cmocka_unit_test(test_a_refused_dma_sets_error_and_the_next_request_works),
        cmocka_unit_test(test_a_wrapping_address_is_refused_without_dma),
        cmocka_unit_test(test_a_doorbell_while_busy_is_counted_and_ignored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
