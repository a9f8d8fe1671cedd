/*
 * test_rtl_matmul.c - design B of the matmul block in RTL (studies/matmul/rtl/),
 * alone: the Verilated model driven edge by edge through rtl_model.h by a
 * host-memory model in C that serves its DMA (reads in order after a fixed
 * latency, writes into memory, a response per write). Products are checked
 * bit-exact against the reference multiply (studies/matmul/model/reference.c) in
 * both result formats; the programming model (registers, ring, descriptor,
 * completion record, errors, MSI-X) is that of studies/matmul/docs/matmul.md; the
 * step time is the one studies/matmul/docs/rtl-matmul.md derives from the RTL, and
 * the RTL's alone time against the behavioural design B's differs by
 * exactly the ratio of their cycles per step.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mortar/pcie.h"
#include "mortar/runtime.h"
#include "mortar/hoststub.h"
#include "model/bench.h"
#include "model/drivers_hoststub.h"
#include "model/matmul_regs.h"
#include "model/reference.h"
#include "model/result.h"
#include "mortar/rtl.h"
#include "mortar/rtl_model.h"

/* studies/matmul/docs/rtl-matmul.md: a tile step is TILE * TILE + 3 cycles
 * (studies/matmul/rtl/mm_mac.sv, mm_ctrl.sv); the clock is 400 MHz (2500 ps). */
#define RTL_STEP_CYCLES      (MATMUL_TILE * MATMUL_TILE + 3)
#define PERIOD_PS            2500ull
#define BEHAVIOURAL_B_CYCLES 16000ull /* studies/matmul/docs/matmul.md, cycles_b */

/* trace codes (studies/matmul/rtl/mm_pkg.sv) */
enum {
    TR_DOORBELL = 1,
    TR_DESC_FETCH,
    TR_DMA_READ,
    TR_DMA_READ_DONE,
    TR_DMA_WRITE,
    TR_DMA_WRITE_DONE,
    TR_COMPUTE_START,
    TR_COMPUTE_END,
    TR_COMPLETION,
    TR_INTERRUPT,
    TR_ERROR,
    TR_KINDS
};

/* ---- host memory and the bench ------------------------------------------------ */

#define MEM_BASE     0x100000ull
#define MEM_SIZE     (4u << 20)
#define RING         (MEM_BASE)
#define RING_SIZE    8u
#define RECORDS      (MEM_BASE + 0x1000)
#define OPERAND_A    (MEM_BASE + 0x10000)
#define OPERAND_B    (OPERAND_A + 512u * 512u)
#define RESULT_C     (OPERAND_B + 512u * 512u)
#define READ_LATENCY 8 /* edges from a read request to its first beat */
#define MAX_READS    64

typedef struct pending_read {
    uint64_t addr;
    uint32_t len, sent;
    uint8_t tag;
    uint64_t ready_edge;
} pending_read;

typedef struct bench {
    mortar_rtl_model *m;
    mortar_rtl_ports p;
    uint8_t *mem;
    uint64_t edge;
    /* MMIO: one request presented at a time */
    bool mmio_pending, mmio_answered;
    uint64_t mmio_rdata;
    /* DMA */
    pending_read reads[MAX_READS];
    unsigned nreads, max_in_flight;
    uint64_t write_addr;
    uint32_t write_len, write_got;
    uint8_t write_tag;
    bool writing, write_refused;
    uint8_t wresp_tag[64];
    bool wresp_err[64];
    unsigned nwresp;
    uint64_t refuse_read_at, refuse_write_at; /* fault injection: 0 none */
    uint64_t max_request_len;
    /* what came out */
    unsigned irqs;
    unsigned trace_count[TR_KINDS];
    uint64_t step_start_edge, step_cycles_min, step_cycles_max;
} bench;

static bench *bench_new(void)
{
    bench *b = calloc(1, sizeof *b);
    assert_non_null(b);
    b->mem = calloc(1, MEM_SIZE);
    assert_non_null(b->mem);
    char err[1024];
    const mortar_rtl_design *design = mortar_rtl_design_lookup("matmul_b", err, sizeof err);
    if (!design)
        fail_msg("%s", err);
    b->m = mortar_rtl_model_create(design);
    assert_non_null(b->m);
    b->step_cycles_min = UINT64_MAX;
    return b;
}

static void bench_free(bench *b)
{
    mortar_rtl_model_destroy(b->m);
    free(b->mem);
    free(b);
}

static bool in_mem(uint64_t addr, uint64_t len)
{
    return addr >= MEM_BASE && addr + len <= MEM_BASE + MEM_SIZE && addr + len >= addr;
}

static uint8_t *host(bench *b, uint64_t addr)
{
    return b->mem + (addr - MEM_BASE);
}

/* Inputs for the next edge: the read beat due, a write response, ready. */
static void present(bench *b)
{
    mortar_rtl_ports *p = &b->p;
    p->rst_n = b->edge >= 4;
    p->now_ps = b->edge * PERIOD_PS;
    p->dma_req_ready = 1;
    p->dma_wdata_ready = 1;
    p->mmio_req_valid = b->mmio_pending;
    p->dma_rdata_valid = 0;
    if (b->nreads && b->reads[0].ready_edge <= b->edge) {
        pending_read *r = &b->reads[0];
        bool refused = !in_mem(r->addr, r->len) || r->addr == b->refuse_read_at;
        p->dma_rdata_valid = 1;
        p->dma_rdata_tag = r->tag;
        p->dma_rdata_err = refused;
        p->dma_rdata_last = refused || r->sent + 64 >= r->len;
        uint32_t n = refused ? 0 : r->len - r->sent < 64 ? r->len - r->sent : 64;
        memset(p->dma_rdata, 0, sizeof p->dma_rdata);
        memcpy(p->dma_rdata, host(b, r->addr + r->sent), n);
    }
    p->dma_wresp_valid = 0;
    if (b->nwresp) {
        p->dma_wresp_valid = 1;
        p->dma_wresp_tag = b->wresp_tag[0];
        p->dma_wresp_err = b->wresp_err[0];
    }
}

static void take_dma_request(bench *b)
{
    mortar_rtl_ports *p = &b->p;
    assert_true(p->dma_req_len >= 1 && p->dma_req_len <= 4096);
    if (p->dma_req_len > b->max_request_len)
        b->max_request_len = p->dma_req_len;
    if (p->dma_req_write) {
        assert_false(b->writing); /* a write's beats come before the next write */
        b->writing = true;
        b->write_addr = p->dma_req_addr;
        b->write_len = p->dma_req_len;
        b->write_got = 0;
        b->write_tag = p->dma_req_tag;
        b->write_refused = !in_mem(p->dma_req_addr, p->dma_req_len) ||
                           p->dma_req_addr == b->refuse_write_at;
        return;
    }
    assert_true(b->nreads < MAX_READS);
    b->reads[b->nreads++] = (pending_read){.addr = p->dma_req_addr,
                                           .len = p->dma_req_len,
                                           .tag = p->dma_req_tag,
                                           .ready_edge = b->edge + READ_LATENCY};
    if (b->nreads > b->max_in_flight)
        b->max_in_flight = b->nreads;
}

static void take_write_beat(bench *b)
{
    mortar_rtl_ports *p = &b->p;
    assert_true(b->writing);
    uint32_t n = b->write_len - b->write_got < 64 ? b->write_len - b->write_got : 64;
    if (!b->write_refused)
        memcpy(host(b, b->write_addr + b->write_got), p->dma_wdata, n);
    b->write_got += n;
    assert_int_equal(p->dma_wdata_last, b->write_got == b->write_len);
    if (b->write_got == b->write_len) {
        b->writing = false;
        assert_true(b->nwresp < 64);
        b->wresp_tag[b->nwresp] = b->write_tag;
        b->wresp_err[b->nwresp++] = b->write_refused;
    }
}

static void note_trace(bench *b)
{
    mortar_rtl_ports *p = &b->p;
    assert_true(p->trace_kind > 0 && p->trace_kind < TR_KINDS);
    b->trace_count[p->trace_kind]++;
    if (p->trace_kind == TR_COMPUTE_START)
        b->step_start_edge = b->edge;
    if (p->trace_kind == TR_COMPUTE_END) {
        uint64_t c = b->edge - b->step_start_edge;
        b->step_cycles_min = c < b->step_cycles_min ? c : b->step_cycles_min;
        b->step_cycles_max = c > b->step_cycles_max ? c : b->step_cycles_max;
    }
}

/* One rising edge, with the host's side of every handshake. */
static void edge(bench *b)
{
    present(b);
    mortar_rtl_model_edge(b->m, &b->p);
    mortar_rtl_ports *p = &b->p;
    if (p->mmio_req_valid && p->mmio_req_ready)
        b->mmio_pending = false;
    if (p->mmio_rsp_valid) {
        b->mmio_rdata = p->mmio_rsp_rdata;
        b->mmio_answered = true;
    }
    if (p->dma_req_valid && p->dma_req_ready)
        take_dma_request(b);
    if (p->dma_wdata_valid && p->dma_wdata_ready)
        take_write_beat(b);
    if (p->dma_rdata_valid && p->dma_rdata_ready) {
        pending_read *r = &b->reads[0];
        r->sent += 64;
        if (p->dma_rdata_last) {
            memmove(b->reads, b->reads + 1, --b->nreads * sizeof b->reads[0]);
        }
    }
    if (p->dma_wresp_valid)
        memmove(b->wresp_tag, b->wresp_tag + 1, --b->nwresp),
            memmove(b->wresp_err, b->wresp_err + 1, b->nwresp);
    if (p->irq_valid) {
        assert_int_equal(p->irq_vector, 0);
        b->irqs++;
    }
    if (p->trace_valid)
        note_trace(b);
    b->edge++;
}

static void reset(bench *b)
{
    while (b->edge < 6)
        edge(b);
}

static void mmio(bench *b, bool write, uint32_t offset, uint8_t size, uint64_t value)
{
    b->p.mmio_req_write = write;
    b->p.mmio_req_bar = 0;
    b->p.mmio_req_addr = offset;
    b->p.mmio_req_size = size;
    b->p.mmio_req_wdata = value;
    b->mmio_pending = true;
    b->mmio_answered = false;
    for (int i = 0; i < 100 && (b->mmio_pending || (!write && !b->mmio_answered)); i++)
        edge(b);
    assert_false(b->mmio_pending);
    assert_true(write || b->mmio_answered);
}

static void wr32(bench *b, uint32_t offset, uint32_t value)
{
    mmio(b, true, offset, 4, value);
}

static uint32_t rd32(bench *b, uint32_t offset)
{
    mmio(b, false, offset, 4, 0);
    return (uint32_t)b->mmio_rdata;
}

static void ring_setup(bench *b, uint32_t control)
{
    mmio(b, true, MATMUL_B_RING_BASE, 8, RING);
    wr32(b, MATMUL_B_RING_SIZE, RING_SIZE);
    wr32(b, MATMUL_B_CONTROL, control);
}

static matmul_completion *record_at(bench *b, unsigned i)
{
    return (matmul_completion *)host(b, RECORDS + 64ull * i);
}

/* Writes descriptor `d` at ring entry `slot` (its record at RECORDS + 64 *
 * slot, cleared). */
static void queue_desc(bench *b, unsigned slot, matmul_desc d)
{
    memset(record_at(b, slot), 0, sizeof(matmul_completion));
    memcpy(host(b, RING + 64ull * slot), &d, sizeof d);
}

static void ring_tail(bench *b, uint32_t tail)
{
    wr32(b, MATMUL_B_RING_TAIL, tail);
}

/* Runs until record `slot` is DONE (and the edges after it that send the
 * interrupt), failing after `max_edges`. */
static void wait_record(bench *b, unsigned slot, uint64_t max_edges)
{
    volatile matmul_completion *c = record_at(b, slot);
    uint64_t end = b->edge + max_edges;
    while (!(c->status & MATMUL_CPL_DONE) && b->edge < end)
        edge(b);
    assert_true(c->status & MATMUL_CPL_DONE);
    for (int i = 0; i < 8; i++)
        edge(b);
}

static matmul_desc make_desc(uint64_t id, uint32_t n, uint32_t flags, unsigned slot)
{
    return (matmul_desc){.req_id = id,
                         .a_addr = OPERAND_A,
                         .b_addr = OPERAND_B,
                         .c_addr = RESULT_C,
                         .completion_addr = RECORDS + 64ull * slot,
                         .n = n,
                         .flags = flags};
}

/* ---- products ------------------------------------------------------------------ */

typedef enum { FILL_RANDOM, FILL_MIN, FILL_MAX, FILL_ZERO } fill_kind;

static void fill(int8_t *m, size_t count, fill_kind kind, uint64_t seed)
{
    if (kind == FILL_RANDOM)
        matmul_ref_fill(m, count, seed);
    else
        memset(m, kind == FILL_MIN ? -128 : kind == FILL_MAX ? 127 : 0, count);
}

typedef struct product_run {
    uint64_t cycles;     /* TAIL write to the record */
    uint64_t compute_ps; /* from the record */
    uint32_t steps;
} product_run;

/* One request of n x n operands through the ring; the product must equal
 * the reference bit for bit and the record must describe the request. */
static product_run check_product(uint32_t n, bool i32, fill_kind kind, uint64_t seed)
{
    bench *b = bench_new();
    reset(b);
    size_t count = (size_t)n * n;
    int8_t *a = malloc(count), *bm = malloc(count);
    int32_t *ref = malloc(count * 4), *got32 = malloc(count * 4);
    int8_t *ref8 = malloc(count);
    assert_true(a && bm && ref && got32 && ref8);
    fill(a, count, kind, seed);
    fill(bm, count, kind, seed + 1);
    matmul_tile_i8(n, a, (int8_t *)host(b, OPERAND_A));
    matmul_tile_i8(n, bm, (int8_t *)host(b, OPERAND_B));
    matmul_ref_multiply(n, a, bm, ref);

    ring_setup(b, MATMUL_B_CTRL_ENABLE);
    queue_desc(b, 0,
               make_desc(0x5eed0000 + seed, n, i32 ? MATMUL_DESC_RESULT_I32 : 0, 0));
    uint64_t t0 = b->edge;
    ring_tail(b, 1);
    uint32_t steps = (n / MATMUL_TILE) * (n / MATMUL_TILE) * (n / MATMUL_TILE);
    wait_record(b, 0, (uint64_t)steps * (RTL_STEP_CYCLES + 4000) + 20000);

    matmul_completion *c = record_at(b, 0);
    assert_int_equal(c->status, MATMUL_CPL_DONE);
    assert_int_equal(c->error, MATMUL_ERR_NONE);
    assert_int_equal(c->req_id, 0x5eed0000 + seed);
    assert_int_equal(c->steps, steps);
    assert_true(c->t_accept_ps < c->t_start_ps && c->t_start_ps < c->t_end_ps &&
                c->t_end_ps < c->t_done_ps);
    assert_int_equal(c->compute_ps, (uint64_t)steps * RTL_STEP_CYCLES * PERIOD_PS);

    if (i32) {
        matmul_untile(n, 4, host(b, RESULT_C), got32);
        assert_int_equal(matmul_ref_compare(got32, ref, count, 4), -1);
    } else {
        matmul_requantize_all(ref, ref8, count);
        matmul_untile(n, 1, host(b, RESULT_C), got32);
        assert_int_equal(matmul_ref_compare(got32, ref8, count, 1), -1);
    }
    /* every step traced once; each took exactly the documented cycles */
    assert_int_equal(b->trace_count[TR_COMPUTE_START], steps);
    assert_int_equal(b->trace_count[TR_COMPUTE_END], steps);
    assert_int_equal(b->step_cycles_min, RTL_STEP_CYCLES);
    assert_int_equal(b->step_cycles_max, RTL_STEP_CYCLES);
    assert_int_equal(b->trace_count[TR_DMA_READ], 1 + 2 * steps);
    assert_int_equal(b->trace_count[TR_DMA_READ_DONE], 2 * steps);
    assert_int_equal(b->trace_count[TR_COMPLETION], 1);
    assert_true(b->max_request_len <= 4096);
    assert_true(b->max_in_flight <= 8);
    assert_int_equal(rd32(b, MATMUL_B_RING_HEAD), 1);
    assert_int_equal(rd32(b, MATMUL_B_COMPLETED), 1);
    assert_int_equal(rd32(b, MATMUL_B_STATUS), 0);

    product_run run = {.cycles = (c->t_done_ps - t0 * PERIOD_PS) / PERIOD_PS,
                       .compute_ps = c->compute_ps,
                       .steps = steps};
    print_message(
        "n=%u %s: %u steps of %llu cycles, request %llu cycles (TAIL to record)\n", n,
        i32 ? "int32" : "int8", steps, (unsigned long long)b->step_cycles_max,
        (unsigned long long)run.cycles);
    free(a);
    free(bm);
    free(ref);
    free(got32);
    free(ref8);
    bench_free(b);
    return run;
}

static void test_random_int8_product_is_the_reference(void **state)
{
    check_product(128, false, FILL_RANDOM, 11);
}

static void test_random_int32_product_is_the_reference(void **state)
{
    check_product(256, true, FILL_RANDOM, 12);
}

static void test_all_minus_128_saturates_in_int8_and_is_exact_in_int32(void **state)
{
    check_product(128, false, FILL_MIN, 0);
    check_product(128, true, FILL_MIN, 0);
}

static void test_all_127_saturates_in_int8_and_is_exact_in_int32(void **state)
{
    check_product(128, false, FILL_MAX, 0);
    check_product(128, true, FILL_MAX, 0);
}

static void test_zeros_give_zeros(void **state)
{
    check_product(128, false, FILL_ZERO, 0);
    check_product(128, true, FILL_ZERO, 0);
}

/* n = 512, the case study's request, against the behavioural design B:
 * same product (both bit-exact against the reference), and compute times
 * in exactly the ratio of the cycles per step. */
static void test_full_request_matches_behavioural_b_up_to_cycles_per_step(void **state)
{
    product_run rtl = check_product(512, false, FILL_RANDOM, 7);
    matmul_alone_result model;
    char err[256];
    assert_int_equal(
        matmul_alone_run("b", 1.0, 512, 7, MATMUL_RESULT_I8, &model, err, sizeof err), 0);
    assert_true(model.product_ok);
    assert_int_equal(model.steps, rtl.steps);
    assert_int_equal(rtl.compute_ps * BEHAVIOURAL_B_CYCLES,
                     model.compute_ps * (uint64_t)RTL_STEP_CYCLES);
    print_message("alone n=512: RTL %llu ps, behavioural B %llu ps\n",
                  (unsigned long long)rtl.compute_ps,
                  (unsigned long long)model.compute_ps);
}

/* `mortar alone --design rtl-b`: the alone bench with the rtl component as
 * its device and design B's driver gives the RTL's own compute time, in
 * the ratio of the cycles per step to behavioural B's for the same request;
 * the RTL has no speed knob, so another speed is refused. */
static void test_alone_bench_runs_rtl_b_and_refuses_other_speeds(void **state)
{
    matmul_alone_result rtl, model;
    char err[256];
    assert_int_equal(matmul_alone_run(MATMUL_ALONE_RTL_B, 1.0, 256, 9, MATMUL_RESULT_I8,
                                      &rtl, err, sizeof err),
                     0);
    assert_true(rtl.product_ok);
    assert_int_equal(rtl.steps, 8);
    assert_int_equal(rtl.compute_ps, 8ull * RTL_STEP_CYCLES * PERIOD_PS);
    assert_int_equal(
        matmul_alone_run("b", 1.0, 256, 9, MATMUL_RESULT_I8, &model, err, sizeof err), 0);
    assert_int_equal(rtl.compute_ps * BEHAVIOURAL_B_CYCLES,
                     model.compute_ps * (uint64_t)RTL_STEP_CYCLES);
    assert_int_not_equal(matmul_alone_run(MATMUL_ALONE_RTL_B, 2.0, 256, 9,
                                          MATMUL_RESULT_I8, &rtl, err, sizeof err),
                         0);
    assert_non_null(strstr(err, "speed 1 only"));
}

/* ---- registers and errors ------------------------------------------------------- */

static void test_identity_registers_read_as_design_b(void **state)
{
    bench *b = bench_new();
    reset(b);
    assert_int_equal(rd32(b, MATMUL_REG_ID), MATMUL_ID(MATMUL_CODE_B));
    assert_int_equal(rd32(b, MATMUL_REG_TILE), MATMUL_TILE);
    assert_int_equal(rd32(b, MATMUL_REG_N), 512);
    edge(b); /* the edge after the response pulse */
    assert_true(b->p.idle);
    /* a 64-bit RING_BASE access, its halves, and no register at 0x100 */
    mmio(b, true, MATMUL_B_RING_BASE, 8, 0x1122334455667788ull);
    assert_int_equal(rd32(b, MATMUL_B_RING_BASE), 0x55667788);
    assert_int_equal(rd32(b, MATMUL_B_RING_BASE + 4), 0x11223344);
    mmio(b, false, MATMUL_B_RING_BASE, 8, 0);
    assert_int_equal(b->mmio_rdata, 0x1122334455667788ull);
    assert_int_equal(rd32(b, 0x100), 0);
    mmio(b, false, MATMUL_REG_ID, 2, 0); /* wrong size: no register */
    assert_int_equal(b->mmio_rdata, 0);
    bench_free(b);
}

static void test_bad_ring_settings_are_refused(void **state)
{
    bench *b = bench_new();
    reset(b);
    wr32(b, MATMUL_B_RING_SIZE, 0);
    assert_int_equal(rd32(b, MATMUL_B_STATUS), MATMUL_B_ST_ERR_RING);
    wr32(b, MATMUL_B_STATUS, MATMUL_B_ST_ERR_RING);
    assert_int_equal(rd32(b, MATMUL_B_STATUS), 0);
    wr32(b, MATMUL_B_CONTROL, MATMUL_B_CTRL_ENABLE); /* no ring yet */
    assert_int_equal(rd32(b, MATMUL_B_CONTROL), 0);
    assert_int_equal(rd32(b, MATMUL_B_STATUS), MATMUL_B_ST_ERR_RING);
    wr32(b, MATMUL_B_STATUS, MATMUL_B_ST_ERR_RING);
    ring_setup(b, MATMUL_B_CTRL_ENABLE);
    assert_int_equal(rd32(b, MATMUL_B_CONTROL), MATMUL_B_CTRL_ENABLE);
    wr32(b, MATMUL_B_RING_SIZE, 4); /* while enabled */
    assert_int_equal(rd32(b, MATMUL_B_RING_SIZE), RING_SIZE);
    ring_tail(b, RING_SIZE); /* past the ring */
    assert_int_equal(rd32(b, MATMUL_B_RING_TAIL), 0);
    assert_int_equal(rd32(b, MATMUL_B_STATUS), MATMUL_B_ST_ERR_RING);
    assert_int_equal(b->trace_count[TR_ERROR], 4);
    bench_free(b);
}

/* Runs one descriptor and returns its record. */
static matmul_completion run_one(bench *b, unsigned slot, matmul_desc d)
{
    queue_desc(b, slot, d);
    ring_tail(b, (slot + 1) % RING_SIZE);
    wait_record(b, slot, 200000);
    return *record_at(b, slot);
}

static void test_bad_n_gets_an_error_record_and_the_ring_goes_on(void **state)
{
    bench *b = bench_new();
    reset(b);
    ring_setup(b, MATMUL_B_CTRL_ENABLE);
    matmul_completion c = run_one(b, 0, make_desc(1, 200, 0, 0));
    assert_int_equal(c.status, MATMUL_CPL_DONE | MATMUL_CPL_ERROR);
    assert_int_equal(c.error, MATMUL_ERR_BAD_N);
    assert_int_equal(c.steps, 0);
    c = run_one(b, 1, make_desc(2, 1024, 0, 1)); /* above the N register */
    assert_int_equal(c.error, MATMUL_ERR_BAD_N);
    assert_int_equal(rd32(b, MATMUL_B_STATUS), MATMUL_B_ST_ERR_DESC);
    c = run_one(b, 2, make_desc(3, 128, 0, 2));
    assert_int_equal(c.status, MATMUL_CPL_DONE);
    assert_int_equal(rd32(b, MATMUL_B_RING_HEAD), 3);
    assert_int_equal(rd32(b, MATMUL_B_COMPLETED), 3);
    bench_free(b);
}

static void test_zero_or_wrapping_address_gets_bad_addr(void **state)
{
    bench *b = bench_new();
    reset(b);
    ring_setup(b, MATMUL_B_CTRL_ENABLE);
    matmul_desc d = make_desc(1, 128, 0, 0);
    d.a_addr = 0;
    assert_int_equal(run_one(b, 0, d).error, MATMUL_ERR_BAD_ADDR);
    d = make_desc(2, 128, MATMUL_DESC_RESULT_I32, 1);
    d.c_addr = UINT64_MAX - 128 * 128; /* fits int8, wraps as int32 */
    assert_int_equal(run_one(b, 1, d).error, MATMUL_ERR_BAD_ADDR);
    assert_int_equal(b->trace_count[TR_ERROR], 2);
    bench_free(b);
}

static void test_unusable_completion_address_is_skipped_without_record(void **state)
{
    bench *b = bench_new();
    reset(b);
    ring_setup(b, MATMUL_B_CTRL_ENABLE);
    matmul_desc d = make_desc(1, 128, 0, 0);
    d.completion_addr = 0;
    queue_desc(b, 0, d);
    queue_desc(b, 1, make_desc(2, 128, 0, 1));
    ring_tail(b, 2);
    wait_record(b, 1, 200000);
    assert_int_equal(record_at(b, 1)->status, MATMUL_CPL_DONE);
    assert_int_equal(rd32(b, MATMUL_B_COMPLETED), 1);
    assert_int_equal(rd32(b, MATMUL_B_RING_HEAD), 2);
    assert_int_equal(rd32(b, MATMUL_B_STATUS), MATMUL_B_ST_ERR_DESC);
    bench_free(b);
}

static void test_refused_operand_read_ends_the_request_with_dma_error(void **state)
{
    bench *b = bench_new();
    reset(b);
    ring_setup(b, MATMUL_B_CTRL_ENABLE);
    /* n = 256: 8 steps; the B tile of step 1 (k = 1) is refused */
    b->refuse_read_at = OPERAND_B + 2ull * MATMUL_TILE_I8;
    matmul_completion c = run_one(b, 0, make_desc(1, 256, 0, 0));
    assert_int_equal(c.status, MATMUL_CPL_DONE | MATMUL_CPL_ERROR);
    assert_int_equal(c.error, MATMUL_ERR_DMA);
    assert_true(c.steps < 8);
    assert_int_equal(rd32(b, MATMUL_B_STATUS), MATMUL_B_ST_ERR_DMA);
    assert_int_equal(b->nreads, 0); /* every read answered before the record */
    b->refuse_read_at = 0;
    wr32(b, MATMUL_B_STATUS, MATMUL_B_ST_ERR_DMA);
    c = run_one(b, 1, make_desc(2, 128, 0, 1));
    assert_int_equal(c.status, MATMUL_CPL_DONE);
    bench_free(b);
}

static void test_unreadable_descriptor_is_skipped(void **state)
{
    bench *b = bench_new();
    reset(b);
    b->refuse_read_at = RING; /* entry 0 */
    ring_setup(b, MATMUL_B_CTRL_ENABLE);
    queue_desc(b, 1, make_desc(2, 128, 0, 1));
    ring_tail(b, 2);
    wait_record(b, 1, 200000);
    assert_int_equal(record_at(b, 0)->status, 0);
    assert_int_equal(record_at(b, 1)->status, MATMUL_CPL_DONE);
    assert_int_equal(rd32(b, MATMUL_B_STATUS), MATMUL_B_ST_ERR_DMA);
    bench_free(b);
}

static void test_interrupt_follows_each_record_when_enabled(void **state)
{
    bench *b = bench_new();
    reset(b);
    ring_setup(b, MATMUL_B_CTRL_ENABLE);
    run_one(b, 0, make_desc(1, 128, 0, 0));
    assert_int_equal(b->irqs, 0);
    wr32(b, MATMUL_B_CONTROL, MATMUL_B_CTRL_ENABLE | MATMUL_B_CTRL_IRQ);
    run_one(b, 1, make_desc(2, 128, 0, 1));
    assert_int_equal(b->irqs, 1);
    assert_int_equal(b->trace_count[TR_INTERRUPT], 1);
    bench_free(b);
}

static void test_queued_descriptors_run_back_to_back_and_idle_after(void **state)
{
    bench *b = bench_new();
    reset(b);
    ring_setup(b, MATMUL_B_CTRL_ENABLE);
    for (unsigned i = 0; i < 3; i++)
        queue_desc(b, i, make_desc(10 + i, 128, i == 1 ? MATMUL_DESC_RESULT_I32 : 0, i));
    ring_tail(b, 3);
    wait_record(b, 2, 3 * 200000);
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(record_at(b, i)->req_id, 10 + i);
        assert_int_equal(record_at(b, i)->status, MATMUL_CPL_DONE);
    }
    /* the second started on the first's record, without waiting for the host */
    assert_true(record_at(b, 1)->t_accept_ps - record_at(b, 0)->t_done_ps <=
                16 * PERIOD_PS);
    assert_int_equal(rd32(b, MATMUL_B_RING_HEAD), 3);
    edge(b);
    assert_true(b->p.idle);
    bench_free(b);
}

/* ---- through the adapter, with design B's driver ----------------------------------- */

/* The `rtl` component running matmul_b on a PCIe link of 1 µs to the host
 * stub, driven by the same design B driver as the behavioural model
 * (studies/matmul/model/drivers_hoststub.c): it finds the device by the ID register,
 * sets up the ring and runs requests; the products are the reference's. */
static void run_through_adapter(uint32_t n, const matmul_drv_opts *o, uint64_t seed)
{
    mortar_loop *loop;
    mortar_component *host, *dev;
    assert_int_equal(mortar_loop_create(&loop), 0);
    assert_int_equal(mortar_loop_add(loop, &mortar_hoststub_ops, "host", NULL, &host), 0);
    mortar_params *p =
        mortar_params_parse("{\"design\": \"matmul_b\"}", "params", NULL, 0);
    assert_non_null(p);
    assert_int_equal(mortar_loop_add(loop, &mortar_rtl_ops, "rtl", p, &dev), 0);
    mortar_params_free(p);
    mortar_link_params lp;
    mortar_link_params_init(&lp);
    lp.protocol = MORTAR_PROTO_PCIE;
    lp.slot_size = MORTAR_PCIE_SLOT_SIZE;
    lp.latency_ps = 1000000;
    assert_int_equal(mortar_loop_connect(loop, host, 0, dev, 0, &lp), 0);
    assert_int_equal(mortar_loop_start(loop), 0);
    mortar_hoststub *h = mortar_hoststub_get(host, loop);

    matmul_drv d;
    int rc = matmul_drv_open(&d, h, n, o);
    if (rc)
        fail_msg("driver: %s", d.err);
    assert_int_equal(d.code, MATMUL_CODE_B);
    for (uint64_t i = 0; i < 2; i++) {
        matmul_drv_result r;
        bool ok;
        assert_int_equal(matmul_bench_check(&d, n, seed + i, &r, &ok), 0);
        assert_true(ok);
        uint32_t steps = (n / MATMUL_TILE) * (n / MATMUL_TILE) * (n / MATMUL_TILE);
        assert_int_equal(r.steps, steps);
        assert_int_equal(r.error, 0);
        assert_int_equal(r.dev_compute_ps, (uint64_t)steps * RTL_STEP_CYCLES * PERIOD_PS);
        print_message("adapter n=%u %s%s: service %llu ns\n", n,
                      matmul_result_name(o->result), o->use_irq ? " irq" : "",
                      (unsigned long long)((r.done_ps - r.submit_ps) / 1000));
    }
    assert_false(mortar_hoststub_failed(h));
    mortar_loop_destroy(loop);
}

static void test_design_b_driver_runs_the_rtl_through_the_adapter(void **state)
{
    matmul_drv_opts o = {.result = MATMUL_RESULT_I8};
    run_through_adapter(128, &o, 21);
    o = (matmul_drv_opts){.result = MATMUL_RESULT_I32, .use_irq = true};
    run_through_adapter(256, &o, 22);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_registers_read_as_design_b),
        cmocka_unit_test(test_bad_ring_settings_are_refused),
        cmocka_unit_test(test_bad_n_gets_an_error_record_and_the_ring_goes_on),
        cmocka_unit_test(test_zero_or_wrapping_address_gets_bad_addr),
        cmocka_unit_test(test_unusable_completion_address_is_skipped_without_record),
        cmocka_unit_test(test_refused_operand_read_ends_the_request_with_dma_error),
        cmocka_unit_test(test_unreadable_descriptor_is_skipped),
        cmocka_unit_test(test_interrupt_follows_each_record_when_enabled),
        cmocka_unit_test(test_queued_descriptors_run_back_to_back_and_idle_after),
        cmocka_unit_test(test_zeros_give_zeros),
        cmocka_unit_test(test_all_minus_128_saturates_in_int8_and_is_exact_in_int32),
        cmocka_unit_test(test_all_127_saturates_in_int8_and_is_exact_in_int32),
        cmocka_unit_test(test_random_int8_product_is_the_reference),
        cmocka_unit_test(test_random_int32_product_is_the_reference),
        cmocka_unit_test(test_full_request_matches_behavioural_b_up_to_cycles_per_step),
        cmocka_unit_test(test_design_b_driver_runs_the_rtl_through_the_adapter),
        cmocka_unit_test(test_alone_bench_runs_rtl_b_and_refuses_other_speeds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
