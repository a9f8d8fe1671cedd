/*
 * test_matmul.c - the matmul model as a whole: parameters, the PCIe intro,
 * malformed MMIO and DMA completions, stats, the corrupt knob in both
 * result formats, and the alone benchmark's times. The designs' protocols
 * have their own files (test_matmul_a.c, test_matmul_b.c,
 * test_matmul_regcopy.c); the requantize rule is in test_matmul_result.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mortar/error.h"
#include "mortar/pcie.h"
#include "model/bench.h"
#include "model/matmul.h"
#include "model/matmul_regs.h"
#include "sims/plugins.h"
#include "sims/registry.h"

static const char *const designs[] = {"a", "b", "regcopy"};

static int add_with(const char *json)
{
    mortar_loop *loop;
    assert_int_equal(mortar_loop_create(&loop), 0);
    mortar_params *p = mortar_params_parse(json, "params", NULL, 0);
    assert_non_null(p);
    int rc = mortar_loop_add(loop, &mortar_matmul_ops, "m", p, NULL);
    mortar_params_free(p);
    mortar_loop_destroy(loop);
    return rc;
}

static void open_bench(matmul_bench *b, const char *params, uint64_t latency_ps)
{
    char err[512] = "";
    int rc = matmul_bench_open(b, params, latency_ps, 0, NULL, err, sizeof err);
    if (rc)
        fail_msg("bench: %s", err);
}

/* Requests with seeds 1..`count` in format `result` through one driver;
 * returns how many products were right. */
static int run_in(matmul_bench *b, uint32_t n, int count, matmul_result result)
{
    matmul_drv d;
    matmul_drv_result r;
    matmul_drv_opts o = {.result = result};
    int right = 0;
    assert_int_equal(matmul_drv_open(&d, b->h, n, &o), 0);
    for (int seed = 1; seed <= count; seed++) {
        bool ok;
        if (matmul_bench_check(&d, n, (uint64_t)seed, &r, &ok))
            fail_msg("request failed: %s", matmul_drv_errmsg(&d));
        right += ok;
    }
    return right;
}

static void run_checked(matmul_bench *b, uint32_t n, uint64_t seed)
{
    matmul_drv d;
    matmul_drv_result r;
    bool ok;
    assert_int_equal(matmul_drv_open(&d, b->h, n, NULL), 0);
    int rc = matmul_bench_check(&d, n, seed, &r, &ok);
    if (rc)
        fail_msg("request failed: %s", matmul_drv_errmsg(&d));
    assert_true(ok);
}

/* mortar-sim finds the kind in the study's plugin, in the build's plugin
 * directory (where this program's own place says), and it is the model. */
static void test_the_plugin_carries_the_matmul_kind(void **state)
{
    (void)state;
    assert_null(mortar_registry_find("matmul"));
    char dir[4096], err[512];
    mortar_plugin_installed_dir(dir, sizeof dir);
    const mortar_component_ops *ops = mortar_model_find("matmul", dir, err, sizeof err);
    if (!ops)
        fail_msg("%s", err);
    assert_string_equal(ops->kind, "matmul");
}

static void test_params_reject_missing_unknown_and_out_of_range(void **state)
{
    (void)state;
    assert_int_equal(add_with("{}"), MORTAR_EINVAL);
    assert_int_equal(add_with("{\"design\": \"c\"}"), MORTAR_EINVAL);
    assert_int_equal(add_with("{\"design\": \"a\", \"colour\": 1}"), MORTAR_EINVAL);
    assert_int_equal(add_with("{\"design\": \"a\", \"n\": 200}"), MORTAR_EINVAL);
    assert_int_equal(add_with("{\"design\": \"a\", \"n\": 0}"), MORTAR_EINVAL);
    assert_int_equal(add_with("{\"design\": \"a\", \"speed\": 0}"), MORTAR_EINVAL);
    assert_int_equal(add_with("{\"design\": \"a\", \"speed\": -1}"), MORTAR_EINVAL);
    assert_int_equal(add_with("{\"design\": \"a\", \"speed\": \"fast\"}"), MORTAR_EINVAL);
    assert_int_equal(add_with("{\"design\": \"b\", \"dma_chunk\": 0}"), MORTAR_EINVAL);
    assert_int_equal(add_with("{\"design\": \"b\", \"dma_outstanding\": 0}"),
                     MORTAR_EINVAL);
    assert_int_equal(add_with("{\"design\": \"b\", \"msix\": 3}"), MORTAR_EINVAL);
    assert_int_equal(add_with("{\"design\": \"b\", \"clock_mhz\": 0}"), MORTAR_EINVAL);
    assert_int_equal(add_with("{\"design\": \"b\", \"speed\": 0.5, \"msix\": true, "
                              "\"cycles_b\": 8000, \"n\": 1024}"),
                     0);
}

static void test_step_time_is_exact_integer_picoseconds(void **state)
{
    (void)state;
    assert_int_equal(matmul_step_ps(12000, 400, 1000000), 30000000);
    assert_int_equal(matmul_step_ps(12000, 400, 250000), 120000000);
    assert_int_equal(matmul_step_ps(12000, 400, 500000), 60000000);
    assert_int_equal(matmul_step_ps(12000, 400, 2000000), 15000000);
    assert_int_equal(matmul_step_ps(16000, 400, 1000000), 40000000);
    assert_int_equal(matmul_step_ps(12000, 400, 3000000), 10000000);
    assert_int_equal(matmul_step_ps(1, 400, 3000000), 833);  /* 833.33 rounds down */
    assert_int_equal(matmul_step_ps(1, 400, 1500000), 1667); /* 1666.67 rounds up */
    assert_int_equal(matmul_step_ps(12000, 400, 0), 0);
}

static void test_intro_describes_each_design(void **state)
{
    (void)state;
    static const uint16_t ids[] = {MATMUL_DEVICE_A, MATMUL_DEVICE_B,
                                   MATMUL_DEVICE_REGCOPY};
    for (int i = 0; i < 3; i++) {
        char params[64];
        matmul_bench b;
        snprintf(params, sizeof params, "{\"design\": \"%s\"}", designs[i]);
        open_bench(&b, params, MORTAR_NS(100));
        const mortar_pcie_dev_intro *in = mortar_hoststub_dev_intro(b.h);
        assert_non_null(in);
        assert_int_equal(in->vendor_id, MATMUL_VENDOR_ID);
        assert_int_equal(in->device_id, ids[i]);
        assert_int_equal(in->class_code, 0x12);
        assert_int_equal(in->intx_pin, 1);
        assert_int_equal(in->bars[0].size, 4096);
        assert_int_equal(in->bars[2].size, i == 2 ? 2u << 20 : 0);
        assert_int_equal(in->msix_vectors, i == 1 ? 1 : 0);
        if (i == 1) {
            assert_int_equal(in->msix_table_bar, 0);
            assert_int_equal(in->msix_table_offset, MATMUL_MSIX_TABLE);
            assert_int_equal(in->msix_pba_offset, MATMUL_MSIX_PBA);
        }
        matmul_bench_close(&b);
    }
}

/* Accesses no register answers; each must read as 0 and be counted. */
static uint64_t poke_bad_mmio(mortar_hoststub *h)
{
    uint64_t n = 0;
    assert_int_equal(mortar_hoststub_mmio_read(h, 0, 0x1000, 4), 0); /* past BAR0 */
    n++;
    assert_int_equal(mortar_hoststub_mmio_read(h, 0, 0xffc, 4),
                     0); /* no register there */
    n++;
    assert_int_equal(mortar_hoststub_mmio_read(h, 0, 0x000, 2), 0); /* size 2 */
    n++;
    assert_int_equal(mortar_hoststub_mmio_read(h, 0, 0x002, 4), 0); /* unaligned */
    n++;
    assert_int_equal(mortar_hoststub_mmio_read(h, 4, 0x000, 4), 0); /* no BAR4 */
    n++;
    assert_int_equal(mortar_hoststub_mmio_read(h, 0, ~0ull - 3, 4), 0); /* wraps */
    n++;
    mortar_hoststub_mmio_write(h, 0, MATMUL_REG_ID, 4, 0x12345678); /* read-only */
    mortar_hoststub_mmio_write(h, 0, 0xf00, 4, 1);
    mortar_hoststub_mmio_write(h, 0, 0x1, 1, 1);
    mortar_hoststub_mmio_write(h, 5, 0x0, 4, 1);
    uint8_t big[64] = {0};
    mortar_hoststub_mmio_write_block(h, 0, 0x10, big,
                                     sizeof big);      /* not a register size */
    mortar_hoststub_mmio_read(h, 0, MATMUL_REG_ID, 4); /* the posted writes have landed */
    return n + 5;
}

static void test_bad_mmio_reads_zero_is_counted_and_the_device_keeps_working(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        char params[80];
        matmul_bench b;
        snprintf(params, sizeof params, "{\"design\": \"%s\", \"n\": 256}", designs[i]);
        open_bench(&b, params, MORTAR_NS(100));
        uint64_t expected = poke_bad_mmio(b.h);
        matmul_counters c;
        matmul_get_counters(b.dev, &c);
        assert_int_equal(c.unknown_reg_accesses, expected);
        uint32_t id = (uint32_t)mortar_hoststub_mmio_read(b.h, 0, MATMUL_REG_ID, 4);
        assert_int_equal(id >> 16, 0x4d4d);
        run_checked(&b, 256, 7);
        matmul_bench_close(&b);
    }
}

/* Delivers a raw PCIe message to the device as if the host had sent it. */
static void inject(matmul_bench *b, uint8_t type, const void *payload, uint32_t size)
{
    mortar_msg m = {.type = type,
                    .size = size,
                    .timestamp_ps = mortar_loop_now(b->loop),
                    .payload = payload};
    mortar_matmul_ops.message(mortar_component_state(b->dev), 0, &m);
}

static void test_completions_with_unknown_ids_are_counted_not_trusted(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        char params[80];
        matmul_bench b;
        snprintf(params, sizeof params, "{\"design\": \"%s\", \"n\": 256}", designs[i]);
        open_bench(&b, params, MORTAR_NS(100));
        uint8_t buf[sizeof(mortar_pcie_dma_done) + 64] = {0};
        mortar_pcie_dma_done *d = (mortar_pcie_dma_done *)buf;
        d->req_id = 12345;
        d->size = 64;
        inject(&b, MORTAR_PCIE_DMA_READ_DONE, buf, sizeof buf);
        d->req_id = 0;
        inject(&b, MORTAR_PCIE_DMA_WRITE_DONE, buf, sizeof *d);
        d->req_id = (77ull << 16) | 3; /* a plausible slot, wrong sequence */
        inject(&b, MORTAR_PCIE_DMA_READ_DONE, buf, sizeof buf);
        inject(&b, MORTAR_PCIE_DMA_READ_DONE, buf, 4); /* truncated */
        inject(&b, 0x7f, buf, sizeof buf);             /* unknown type */
        inject(&b, MORTAR_PCIE_MMIO_WRITE, buf, 8);    /* truncated */
        matmul_counters c;
        matmul_get_counters(b.dev, &c);
        assert_int_equal(c.bad_completions, 3);
        assert_int_equal(c.bad_messages, 3);
        assert_int_equal(c.errors, 6);
        run_checked(&b, 256, 11);
        matmul_bench_close(&b);
    }
}

static void test_stats_name_every_counter(void **state)
{
    (void)state;
    matmul_bench b;
    open_bench(&b, "{\"design\": \"b\", \"n\": 256}", MORTAR_NS(100));
    run_checked(&b, 256, 3);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(mortar_loop_write_stats(b.loop, f), 0);
    fclose(f);
    static const char *const names[] = {"requests",    "steps",
                                        "busy_ps",     "compute_ps",
                                        "dma_reads",   "dma_writes",
                                        "dma_bytes",   "mmio_reads",
                                        "mmio_writes", "bad_completions",
                                        "errors",      "queued_on_finish",
                                        "interrupts",  "unknown_reg_accesses",
                                        NULL};
    for (int i = 0; names[i]; i++)
        if (!strstr(text, names[i]))
            fail_msg("stats lack \"%s\": %s", names[i], text);
    assert_non_null(strstr(text, "\"compute_ps\": 320000000"));
    free(text);
    matmul_bench_close(&b);
}

/* A device whose unit is broken gives wrong products in either format (n =
 * 128: one tile, one step; the sanitizer build makes big products slow). */
static void test_corrupt_knob_makes_every_product_wrong_in_both_formats(void **state)
{
    (void)state;
    static const matmul_result formats[] = {MATMUL_RESULT_I8, MATMUL_RESULT_I32};
    for (int i = 0; i < 3; i++)
        for (int f = 0; f < 2; f++)
            for (int corrupt = 0; corrupt < 2; corrupt++) {
                char params[96];
                matmul_bench b;
                snprintf(params, sizeof params,
                         "{\"design\": \"%s\", \"n\": 128, \"corrupt\": %s}", designs[i],
                         corrupt ? "true" : "false");
                open_bench(&b, params, MORTAR_NS(100));
                assert_int_equal(run_in(&b, 128, 2, formats[f]), corrupt ? 0 : 2);
                matmul_bench_close(&b);
            }
}

static uint64_t alone_in(const char *design, double speed, uint32_t n,
                         matmul_result result)
{
    matmul_alone_result r;
    char err[512] = "";
    int rc = matmul_alone_run(design, speed, n, 1, result, &r, err, sizeof err);
    if (rc)
        fail_msg("alone %s %g: %s", design, speed, err);
    assert_true(r.product_ok);
    return r.compute_ps;
}

static uint64_t alone_ps(const char *design, double speed, uint32_t n)
{
    return alone_in(design, speed, n, MATMUL_RESULT_I8);
}

static void test_alone_reports_the_case_study_times_at_1x(void **state)
{
    (void)state;
    assert_int_equal(alone_ps("a", 1.0, 512), MORTAR_US(1920));
    assert_int_equal(alone_ps("b", 1.0, 512), MORTAR_US(2560));
    assert_int_equal(alone_ps("regcopy", 1.0, 512), MORTAR_US(1920));
}

/* Requantizing is part of the unit's pipeline: the compute time does not
 * depend on the result format. */
static void test_alone_times_do_not_depend_on_the_result_format(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        assert_int_equal(alone_in(designs[i], 1.0, 128, MATMUL_RESULT_I32),
                         alone_in(designs[i], 1.0, 128, MATMUL_RESULT_I8));
}

static void test_alone_time_scales_exactly_with_one_over_speed(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        uint64_t one = alone_ps(designs[i], 1.0, 256);
        assert_int_equal(alone_ps(designs[i], 0.5, 256), 2 * one);
        assert_int_equal(alone_ps(designs[i], 0.25, 256), 4 * one);
        assert_int_equal(2 * alone_ps(designs[i], 2.0, 256), one);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_plugin_carries_the_matmul_kind),
        cmocka_unit_test(test_params_reject_missing_unknown_and_out_of_range),
        cmocka_unit_test(test_step_time_is_exact_integer_picoseconds),
        cmocka_unit_test(test_intro_describes_each_design),
        cmocka_unit_test(
            test_bad_mmio_reads_zero_is_counted_and_the_device_keeps_working),
        cmocka_unit_test(test_completions_with_unknown_ids_are_counted_not_trusted),
        cmocka_unit_test(test_stats_name_every_counter),
        cmocka_unit_test(test_corrupt_knob_makes_every_product_wrong_in_both_formats),
        cmocka_unit_test(test_alone_reports_the_case_study_times_at_1x),
        cmocka_unit_test(test_alone_times_do_not_depend_on_the_result_format),
        cmocka_unit_test(test_alone_time_scales_exactly_with_one_over_speed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
