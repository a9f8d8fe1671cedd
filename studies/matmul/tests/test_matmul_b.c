/*
 * test_matmul_b.c - design B through the host stub: exact products in both
 * result formats (the descriptor's flag), DMA overlapping compute, queued descriptors
 * served back to back, MSI-X, chunking parameters, request ids in the trace, and
 * malformed descriptors and ring settings after which the device still serves a correct
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
#include "model/reference.h"
#include "model/result.h"

#define STEP_PS MORTAR_US(40) /* 16000 cycles at 400 MHz, 1x */
#define B256    "{\"design\": \"b\", \"n\": 256}"

static void open_bench(matmul_bench *b, const char *params, uint64_t latency_ps,
                       const char *trace)
{
    char err[512] = "";
    if (matmul_bench_open(b, params, latency_ps, 0, trace, err, sizeof err))
        fail_msg("bench: %s", err);
}

static void open_driver(matmul_drv *d, matmul_bench *b, uint32_t n,
                        const matmul_drv_opts *o)
{
    if (matmul_drv_open(d, b->h, n, o))
        fail_msg("driver: %s", matmul_drv_errmsg(d));
}

static void check(matmul_drv *d, uint32_t n, uint64_t seed, matmul_drv_result *r)
{
    matmul_drv_result tmp;
    bool ok;
    if (matmul_bench_check(d, n, seed, r ? r : &tmp, &ok))
        fail_msg("request failed: %s", matmul_drv_errmsg(d));
    assert_true(ok);
}

static void test_b_product_is_exact_for_random_matrices(void **state)
{
    (void)state;
    matmul_bench b;
    matmul_drv d;
    open_bench(&b, B256, MORTAR_NS(100), NULL);
    open_driver(&d, &b, 256, NULL);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        matmul_drv_result r;
        check(&d, 256, seed, &r);
        assert_int_equal(r.steps, 8);
        assert_int_equal(r.dev_compute_ps, 8 * STEP_PS);
    }
    matmul_counters c;
    matmul_get_counters(b.dev, &c);
    assert_int_equal(c.requests, 3);
    assert_int_equal(c.errors, 0);
    matmul_bench_close(&b);
}

static void test_b_product_is_exact_at_n512(void **state)
{
    (void)state;
    matmul_bench b;
    matmul_drv d;
    matmul_drv_result r;
    open_bench(&b, "{\"design\": \"b\"}", MORTAR_NS(500), NULL);
    open_driver(&d, &b, 512, NULL);
    check(&d, 512, 42, &r);
    assert_int_equal(r.steps, 64);
    assert_int_equal(r.dev_compute_ps, MORTAR_US(2560));
    assert_int_equal(r.dev_last_ps - r.dev_first_ps, MORTAR_US(2560)); /* no stalls */
    matmul_bench_close(&b);
}

/*
 * The descriptor's MATMUL_DESC_RESULT_I32 flag chooses the format: int8
 * result tiles are 16 KiB (4 posted chunks), int32 ones 64 KiB (16); the
 * reads, the compute time and (without a bandwidth limit) the service time
 * stay the same.
 */
static void test_b_descriptor_flag_chooses_the_result_format(void **state)
{
    (void)state;
    static const matmul_result formats[] = {MATMUL_RESULT_I8, MATMUL_RESULT_I32};
    uint64_t service[2];
    for (int f = 0; f < 2; f++) {
        matmul_bench b;
        matmul_drv d;
        matmul_drv_result r;
        matmul_drv_opts o = {.result = formats[f]};
        open_bench(&b, B256, MORTAR_US(1), NULL);
        open_driver(&d, &b, 256, &o);
        check(&d, 256, 31, &r);
        matmul_counters k;
        matmul_get_counters(b.dev, &k);
        uint64_t tile =
            formats[f] == MATMUL_RESULT_I32 ? MATMUL_TILE_I32 : MATMUL_TILE_I8;
        assert_int_equal(k.dma_reads, 1 + 8 * 2 * 4);
        assert_int_equal(k.dma_writes, 4 * tile / 4096 + 1);
        assert_int_equal(k.dma_bytes, 64 + 8 * 2 * MATMUL_TILE_I8 + 4 * tile + 64);
        assert_int_equal(r.dev_compute_ps, 8 * STEP_PS);
        service[f] = r.done_ps - r.submit_ps;
        matmul_bench_close(&b);
    }
    assert_int_equal(service[0], service[1]);
}

/*
 * With one-way latency L and step time C > 4L: TAIL arrives after L, the
 * descriptor takes a round trip (2L), step 0's two tiles one more (2L: their
 * 8 chunks fit the 8 outstanding reads), then the steps run back to back
 * because each next step's tiles (2 round trips) arrive during the current
 * step; the last result tile and the completion record are posted and land
 * L after the last step. So the request costs exactly S*C + 6L, where DMA
 * done between steps would cost at least S*(C + 4L).
 */
static void test_b_dma_overlaps_compute(void **state)
{
    (void)state;
    const uint64_t L = MORTAR_US(1), steps = 8;
    matmul_bench b;
    matmul_drv d;
    matmul_drv_result r;
    open_bench(&b, B256, L, NULL);
    open_driver(&d, &b, 256, NULL);
    check(&d, 256, 5, &r);
    uint64_t service = r.done_ps - r.submit_ps;
    assert_int_equal(service, steps * STEP_PS + 6 * L);
    assert_true(service < steps * (STEP_PS + 4 * L));
    assert_int_equal(r.mmio_reads, 0);  /* the driver waits in host memory */
    assert_int_equal(r.mmio_writes, 1); /* TAIL */
    matmul_bench_close(&b);
}

static void test_b_serves_queued_descriptors_without_the_host(void **state)
{
    (void)state;
    const uint64_t L = MORTAR_US(1);
    const uint32_t n = 256, nn = n * n;
    matmul_bench b;
    matmul_drv d;
    open_bench(&b, B256, L, NULL);
    open_driver(&d, &b, n, NULL);
    int8_t *a = malloc(3 * nn), *bm = malloc(3 * nn), *c = malloc(nn), *ref8 = malloc(nn);
    int32_t *ref = malloc(sizeof(int32_t) * nn);
    uint32_t slot[3];
    matmul_drv_result r[3];
    for (int i = 0; i < 3; i++) {
        matmul_ref_fill(a + i * nn, nn, 100 + i);
        matmul_ref_fill(bm + i * nn, nn, 200 + i);
        assert_int_equal(matmul_drv_b_submit(&d, a + i * nn, bm + i * nn, n, &slot[i]),
                         0);
    }
    for (int i = 0; i < 3; i++) {
        assert_int_equal(matmul_drv_b_wait(&d, slot[i], c, &r[i]), 0);
        matmul_ref_multiply(n, a + i * nn, bm + i * nn, ref);
        matmul_requantize_all(ref, ref8, nn);
        assert_true(matmul_ref_compare(c, ref8, nn, 1) < 0);
    }
    matmul_counters k;
    matmul_get_counters(b.dev, &k);
    assert_int_equal(k.queued_on_finish, 2);
    /* next descriptor (2L) and its first tiles (2L), nothing from the host */
    assert_int_equal(r[1].dev_first_ps - r[0].dev_last_ps, 4 * L);
    assert_int_equal(r[2].dev_first_ps - r[1].dev_last_ps, 4 * L);
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, MATMUL_B_COMPLETED, 4), 3);
    free(a);
    free(bm);
    free(c);
    free(ref);
    free(ref8);
    matmul_bench_close(&b);
}

static uint64_t interrupts_for(const char *params, bool use_irq, bool host_enables)
{
    matmul_bench b;
    matmul_drv d;
    matmul_drv_opts o = {.use_irq = use_irq};
    open_bench(&b, params, MORTAR_NS(100), NULL);
    if (host_enables)
        mortar_hoststub_devctrl(b.h, MORTAR_PCIE_CTRL_MSIX_ENABLE);
    open_driver(&d, &b, 256, &o);
    check(&d, 256, 3, NULL);
    mortar_hoststub_delay(b.h, MORTAR_US(1));
    matmul_counters k;
    matmul_get_counters(b.dev, &k);
    uint64_t got = mortar_hoststub_interrupts(b.h);
    assert_int_equal(k.interrupts, got);
    matmul_bench_close(&b);
    return got;
}

static void test_b_msix_signals_each_completion_when_enabled(void **state)
{
    (void)state;
    /* the driver waits on the interrupt */
    assert_int_equal(interrupts_for(B256, true, false), 1);
    /* msix=true: CONTROL.IRQ is set from reset */
    assert_int_equal(
        interrupts_for("{\"design\": \"b\", \"n\": 256, \"msix\": true}", false, true),
        1);
    /* msix=true but the host never enabled MSI-X */
    assert_int_equal(
        interrupts_for("{\"design\": \"b\", \"n\": 256, \"msix\": true}", false, false),
        0);
    assert_int_equal(interrupts_for(B256, false, true), 0);
}

static void test_b_chunk_and_outstanding_parameters_shape_the_dma(void **state)
{
    (void)state;
    matmul_bench b;
    matmul_drv d;
    open_bench(
        &b,
        "{\"design\": \"b\", \"n\": 256, \"dma_chunk\": 1024, \"dma_outstanding\": 2}",
        MORTAR_NS(100), NULL);
    open_driver(&d, &b, 256, NULL);
    check(&d, 256, 8, NULL);
    matmul_counters k;
    matmul_get_counters(b.dev, &k);
    /* descriptor + 8 steps x 2 tiles x 16 chunks; 4 int8 result tiles x 16 + record */
    assert_int_equal(k.dma_reads, 1 + 8 * 2 * 16);
    assert_int_equal(k.dma_writes, 4 * 16 + 1);
    assert_int_equal(k.dma_bytes, 64 + 8 * 2 * MATMUL_TILE_I8 + 4 * MATMUL_TILE_I8 + 64);
    matmul_bench_close(&b);
}

/* ---- trace ----------------------------------------------------------------------------
 */

typedef struct kind_count {
    const char *kind;
    uint64_t count;
} kind_count;

static void test_b_trace_events_carry_the_request_id(void **state)
{
    (void)state;
    char path[] = "/tmp/test_matmul_b_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    matmul_bench b;
    matmul_drv d;
    matmul_drv_opts o = {.use_irq = true};
    matmul_drv_result r;
    open_bench(&b, B256, MORTAR_NS(100), path);
    open_driver(&d, &b, 256, &o);
    check(&d, 256, 1, &r);
    assert_int_equal(r.req_id, 1);
    matmul_bench_close(&b);

    kind_count k[] = {{"desc_fetch", 0}, {"dma_read", 0},      {"dma_read_done", 0},
                      {"dma_write", 0},  {"compute_start", 0}, {"compute_end", 0},
                      {"completion", 0}, {"interrupt", 0},     {"doorbell", 0},
                      {NULL, 0}};
    mortar_trace_reader *rd;
    mortar_trace_event ev;
    assert_int_equal(mortar_trace_reader_open(&rd, path, NULL, 0), 0);
    while (mortar_trace_reader_next(rd, &ev) == 1) {
        if (strcmp(mortar_trace_reader_component(rd, ev.component), "matmul"))
            continue;
        const char *kind = mortar_trace_reader_kind(rd, ev.kind);
        /* only the doorbell and the descriptor's own fetch precede the id */
        bool before_id = !strcmp(kind, "doorbell") || (!strncmp(kind, "dma_read", 8) &&
                                                       ev.arg1 == sizeof(matmul_desc));
        assert_int_equal(ev.req_id, before_id ? 0 : 1);
        for (kind_count *p = k; p->kind; p++)
            if (!strcmp(p->kind, kind) && !before_id)
                p->count++;
    }
    mortar_trace_reader_close(rd);
    unlink(path);
    static const uint64_t expect[] = {1, 16, 16, 5, 8, 8, 1, 1, 0};
    for (int i = 0; k[i].kind; i++)
        if (k[i].count != expect[i])
            fail_msg("%" PRIu64 " %s events, expected %" PRIu64, k[i].count, k[i].kind,
                     expect[i]);
}

/* ---- malformed input ------------------------------------------------------------------
 */

/* Queues `desc` and returns the error code of its completion record. */
static uint32_t submit_bad(matmul_drv *d, const matmul_desc *desc)
{
    uint32_t slot;
    matmul_drv_result r;
    assert_int_equal(matmul_drv_b_submit_desc(d, desc, &slot), 0);
    assert_int_equal(matmul_drv_b_wait(d, slot, NULL, &r), MORTAR_EPROTO);
    return r.error;
}

static void test_b_bad_descriptors_get_error_records(void **state)
{
    (void)state;
    matmul_bench b;
    matmul_drv d;
    open_bench(&b, B256, MORTAR_NS(100), NULL);
    open_driver(&d, &b, 256, NULL);
    matmul_desc good = {.req_id = 90,
                        .a_addr = d.slot[0].a,
                        .b_addr = d.slot[0].b,
                        .c_addr = d.slot[0].c,
                        .n = 256};
    matmul_desc bad;
    static const uint32_t bad_n[] = {100, 0, 1u << 20, 512 /* > the n parameter */};
    for (int i = 0; i < 4; i++) {
        bad = good;
        bad.n = bad_n[i];
        bad.completion_addr = d.slot[d.tail].cpl;
        assert_int_equal(submit_bad(&d, &bad), MATMUL_ERR_BAD_N);
    }
    bad = good;
    bad.a_addr = ~0ull - 100; /* wraps */
    bad.completion_addr = d.slot[d.tail].cpl;
    assert_int_equal(submit_bad(&d, &bad), MATMUL_ERR_BAD_ADDR);
    bad = good;
    bad.c_addr = ~0ull - 2 * 256 * 256; /* an int8 C fits below 2^64, an int32 C wraps */
    bad.flags = MATMUL_DESC_RESULT_I32;
    bad.completion_addr = d.slot[d.tail].cpl;
    assert_int_equal(submit_bad(&d, &bad), MATMUL_ERR_BAD_ADDR);
    bad = good;
    bad.a_addr = 0x1000; /* outside host memory: the host refuses the DMA */
    bad.completion_addr = d.slot[d.tail].cpl;
    assert_int_equal(submit_bad(&d, &bad), MATMUL_ERR_DMA);
    matmul_counters k;
    matmul_get_counters(b.dev, &k);
    assert_int_equal(k.bad_descriptors, 6);
    assert_int_equal(k.dma_errors, 4); /* the 4 chunks of tile A in flight */
    uint32_t st = (uint32_t)mortar_hoststub_mmio_read(b.h, 0, MATMUL_B_STATUS, 4);
    assert_int_equal(st, MATMUL_B_ST_ERR_DESC | MATMUL_B_ST_ERR_DMA);
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_B_STATUS, 4, st); /* write 1 to clear */
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, MATMUL_B_STATUS, 4), 0);
    check(&d, 256, 4, NULL);
    matmul_bench_close(&b);
}

static void test_b_descriptor_without_usable_completion_address_is_skipped(void **state)
{
    (void)state;
    matmul_bench b;
    matmul_drv d;
    uint32_t slot;
    open_bench(&b, B256, MORTAR_NS(100), NULL);
    open_driver(&d, &b, 256, NULL);
    matmul_desc bad = {.req_id = 77,
                       .a_addr = d.slot[0].a,
                       .b_addr = d.slot[0].b,
                       .c_addr = d.slot[0].c,
                       .n = 256,
                       .completion_addr = 0};
    assert_int_equal(matmul_drv_b_submit_desc(&d, &bad, &slot), 0);
    check(&d, 256, 6, NULL); /* queued behind it, served after it was skipped */
    matmul_counters k;
    matmul_get_counters(b.dev, &k);
    assert_int_equal(k.bad_descriptors, 1);
    assert_int_equal(k.steps, 8);
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, MATMUL_B_RING_HEAD, 4), 2);
    matmul_bench_close(&b);
}

static void test_b_bad_ring_settings_are_ignored_and_flagged(void **state)
{
    (void)state;
    matmul_bench b;
    matmul_drv d;
    open_bench(&b, B256, MORTAR_NS(100), NULL);
    open_driver(&d, &b, 256, NULL);
    check(&d, 256, 1, NULL);
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_B_RING_TAIL, 4, 100); /* past the ring */
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_B_RING_SIZE, 4, 16);  /* while enabled */
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_B_RING_BASE, 8,
                               0x12345000); /* while enabled */
    uint32_t st = (uint32_t)mortar_hoststub_mmio_read(b.h, 0, MATMUL_B_STATUS, 4);
    assert_true(st & MATMUL_B_ST_ERR_RING);
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, MATMUL_B_RING_TAIL, 4), 1);
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, MATMUL_B_RING_HEAD, 4), 1);
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, MATMUL_B_RING_SIZE, 4), 8);
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, MATMUL_B_RING_BASE, 8), d.ring);
    matmul_counters k;
    matmul_get_counters(b.dev, &k);
    assert_int_equal(k.ring_errors, 4); /* the 8-byte base write is two accesses */
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_B_STATUS, 4, MATMUL_B_ST_ERR_RING);
    check(&d, 256, 2, NULL);
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, MATMUL_B_STATUS, 4), 0);
    matmul_bench_close(&b);
}

static void test_b_enabling_an_unset_ring_is_refused(void **state)
{
    (void)state;
    matmul_bench b;
    open_bench(&b, B256, MORTAR_NS(100), NULL);
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_B_CONTROL, 4, MATMUL_B_CTRL_ENABLE);
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_B_RING_TAIL, 4, 1);
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, MATMUL_B_CONTROL, 4), 0);
    matmul_counters k;
    matmul_get_counters(b.dev, &k);
    assert_int_equal(k.ring_errors, 2);
    assert_int_equal(k.dma_reads, 0);
    mortar_hoststub_mmio_write(b.h, 0, MATMUL_B_STATUS, 4, ~0u);
    matmul_drv d;
    open_driver(&d, &b, 256, NULL);
    check(&d, 256, 3, NULL);
    matmul_bench_close(&b);
}

static void test_b_unreadable_descriptor_is_skipped(void **state)
{
    (void)state;
    matmul_bench b;
    open_bench(&b, B256, MORTAR_NS(100), NULL);
    mortar_hoststub *h = b.h;
    mortar_hoststub_mmio_write(h, 0, MATMUL_B_RING_BASE, 8,
                               0x1000); /* outside host memory */
    mortar_hoststub_mmio_write(h, 0, MATMUL_B_RING_SIZE, 4, 4);
    mortar_hoststub_mmio_write(h, 0, MATMUL_B_CONTROL, 4, MATMUL_B_CTRL_ENABLE);
    mortar_hoststub_mmio_write(h, 0, MATMUL_B_RING_TAIL, 4, 2);
    mortar_hoststub_delay(h, MORTAR_US(1));
    assert_int_equal(mortar_hoststub_mmio_read(h, 0, MATMUL_B_RING_HEAD, 4), 2);
    assert_int_equal(mortar_hoststub_mmio_read(h, 0, MATMUL_B_STATUS, 4),
                     MATMUL_B_ST_ERR_DMA);
    matmul_counters k;
    matmul_get_counters(b.dev, &k);
    assert_int_equal(k.dma_errors, 2);
    assert_int_equal(k.requests, 0);
    mortar_hoststub_mmio_write(h, 0, MATMUL_B_CONTROL, 4, 0);
    mortar_hoststub_mmio_write(h, 0, MATMUL_B_STATUS, 4, ~0u);
    matmul_drv d;
    open_driver(&d, &b, 256, NULL);
    check(&d, 256, 5, NULL);
    matmul_bench_close(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_b_product_is_exact_for_random_matrices),
        cmocka_unit_test(test_b_product_is_exact_at_n512),
        cmocka_unit_test(test_b_descriptor_flag_chooses_the_result_format),
        cmocka_unit_test(test_b_dma_overlaps_compute),
        cmocka_unit_test(test_b_serves_queued_descriptors_without_the_host),
        cmocka_unit_test(test_b_msix_signals_each_completion_when_enabled),
        cmocka_unit_test(test_b_chunk_and_outstanding_parameters_shape_the_dma),
        cmocka_unit_test(test_b_trace_events_carry_the_request_id),
        cmocka_unit_test(test_b_bad_descriptors_get_error_records),
        cmocka_unit_test(test_b_descriptor_without_usable_completion_address_is_skipped),
        cmocka_unit_test(test_b_bad_ring_settings_are_ignored_and_flagged),
        cmocka_unit_test(test_b_enabling_an_unset_ring_is_refused),
        cmocka_unit_test(test_b_unreadable_descriptor_is_skipped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
