/*
 * test_rtl_adapter.c - the `rtl` component (sims/verilator/) on the testdev
 * design (rtl/testdev/testdev.sv) over a real PCIe link: parameters, MMIO
 * in order, DMA round trips through host memory, interrupts per the host's
 * device control, idle skipping, the clock's exact timing, and malformed or
 * unknown input from the link.
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
#include "mortar/pcie.h"
#include "mortar/runtime.h"
#include "mortar/trace.h"
#include "mortar/hoststub.h"
#include "sims/registry.h"
#include "mortar/rtl.h"
#include "mortar/rtl_model.h"

/* testdev's registers (rtl/testdev/testdev.sv) */
#define REG_ID            0x00
#define REG_SCRATCH       0x04
#define REG_SRC           0x08
#define REG_DST           0x10
#define REG_LEN           0x18
#define REG_VECTOR        0x1c
#define REG_DOORBELL      0x20
#define REG_STATUS        0x24
#define REG_CYCLES        0x28
#define REG_COPIES        0x30
#define REG_TIMER         0x34
#define REG_START_AT      0x38
#define REG_DONE_AT       0x40
#define REG_MODE          0x48
#define MODE_EARLY_IRQ    1u
#define MODE_NO_LEN_CHECK 2u
#define TESTDEV_ID        0x52544c01u
#define ST_BUSY           1u
#define ST_DONE           2u
#define ST_ERROR          4u

#define LATENCY MORTAR_NS(500)
#define MSIX    (MORTAR_PCIE_CTRL_MSIX_ENABLE | MORTAR_PCIE_CTRL_BUS_MASTER)

typedef struct bench {
    mortar_loop *loop;
    mortar_component *host, *dev;
    mortar_hoststub *h;
} bench;

static void connect(mortar_loop *loop, mortar_component *host, mortar_component *dev)
{
    mortar_link_params lp;
    mortar_link_params_init(&lp);
    lp.protocol = MORTAR_PROTO_PCIE;
    lp.slot_size = MORTAR_PCIE_SLOT_SIZE;
    lp.latency_ps = LATENCY;
    assert_int_equal(mortar_loop_connect(loop, host, 0, dev, 0, &lp), 0);
}

static mortar_component *add_rtl(mortar_loop *loop, const char *params)
{
    mortar_component *dev;
    mortar_params *p = mortar_params_parse(params, "params", NULL, 0);
    assert_non_null(p);
    int rc = mortar_loop_add(loop, &mortar_rtl_ops, "rtl", p, &dev);
    if (rc)
        fail_msg("rtl: %s", mortar_params_errmsg(p));
    mortar_params_free(p);
    return dev;
}

/* `trace`: a trace file path, or NULL. */
static void open_bench_traced(bench *b, const char *params, const char *trace)
{
    assert_int_equal(mortar_loop_create(&b->loop), 0);
    if (trace)
        assert_int_equal(mortar_loop_trace_to(b->loop, trace), 0);
    assert_int_equal(
        mortar_loop_add(b->loop, &mortar_hoststub_ops, "host", NULL, &b->host), 0);
    b->dev = add_rtl(b->loop, params);
    connect(b->loop, b->host, b->dev);
    b->h = mortar_hoststub_get(b->host, b->loop);
}

static void open_bench(bench *b, const char *params)
{
    open_bench_traced(b, params, NULL);
}

static void close_bench(bench *b)
{
    assert_false(mortar_hoststub_failed(b->h));
    mortar_loop_destroy(b->loop);
}

static mortar_rtl_counters counters(bench *b)
{
    mortar_rtl_counters c;
    mortar_rtl_get_counters(b->dev, &c);
    return c;
}

static uint32_t rd32(bench *b, uint64_t off)
{
    return (uint32_t)mortar_hoststub_mmio_read(b->h, 0, off, 4);
}

static void wr32(bench *b, uint64_t off, uint32_t v)
{
    mortar_hoststub_mmio_write(b->h, 0, off, 4, v);
}

/* The add fails with EINVAL and a message containing `want`. */
static void assert_rejected(const char *json, const char *want)
{
    mortar_loop *loop;
    assert_int_equal(mortar_loop_create(&loop), 0);
    mortar_params *p = mortar_params_parse(json, "params", NULL, 0);
    assert_non_null(p);
    assert_int_equal(mortar_loop_add(loop, &mortar_rtl_ops, "rtl", p, NULL),
                     MORTAR_EINVAL);
    if (!strstr(mortar_params_errmsg(p), want))
        fail_msg("\"%s\" not in \"%s\"", want, mortar_params_errmsg(p));
    mortar_params_free(p);
    mortar_loop_destroy(loop);
}

/* ---- parameters and identity ------------------------------------------------ */

static void test_registry_knows_the_rtl_kind_and_the_test_design(void **state)
{
    (void)state;
    assert_ptr_equal(mortar_registry_find("rtl"), &mortar_rtl_ops);
    const mortar_rtl_design *d = mortar_rtl_design_find("testdev");
    assert_non_null(d);
    assert_string_equal(d->name, "testdev");
    assert_null(mortar_rtl_design_find("nope"));
    assert_null(mortar_rtl_design_find(NULL));
}

static void test_params_reject_unknown_design_and_clock_out_of_range(void **state)
{
    (void)state;
    assert_rejected("{}", "testdev");
    assert_rejected("{\"design\": \"nope\"}",
                    "unknown RTL design \"nope\" (not built in, and no mortar-rtl-nope.so");
    assert_rejected("{\"design\": \"nope\"}", "built in: \"testdev\"");
    /* the name becomes a file name: it must be a mortar name */
    assert_rejected("{\"design\": \"../nope\"}", "unknown RTL design \"../nope\"");
    assert_rejected("{\"design\": 3}", "string");
    assert_rejected("{\"design\": \"testdev\", \"clock_mhz\": 0}", "1..10000");
    assert_rejected("{\"design\": \"testdev\", \"clock_mhz\": 10001}", "1..10000");
    assert_rejected("{\"design\": \"testdev\", \"colour\": 1}", "colour");
}

static void test_period_is_the_rounded_picoseconds_of_the_clock(void **state)
{
    (void)state;
    assert_int_equal(mortar_rtl_period_ps(400), 2500);
    assert_int_equal(mortar_rtl_period_ps(333), 3003); /* 3003.003 */
    assert_int_equal(mortar_rtl_period_ps(300), 3333); /* 3333.33 */
    assert_int_equal(mortar_rtl_period_ps(1500), 667); /* 666.67 rounds up */
    assert_int_equal(mortar_rtl_period_ps(1), 1000000);
}

static void test_link_intro_is_the_designs(void **state)
{
    (void)state;
    bench b;
    open_bench(&b, "{\"design\": \"testdev\"}");
    const mortar_pcie_dev_intro *in = mortar_hoststub_dev_intro(b.h);
    assert_non_null(in);
    assert_memory_equal(in, &mortar_rtl_design_find("testdev")->intro, sizeof *in);
    close_bench(&b);
}

/* ---- MMIO ------------------------------------------------------------------------ */

static void test_mmio_reads_and_writes_reach_the_registers(void **state)
{
    (void)state;
    bench b;
    open_bench(&b, "{\"design\": \"testdev\"}");
    assert_int_equal(rd32(&b, REG_ID), TESTDEV_ID);
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, REG_ID + 1, 1), 0x4c);
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, REG_ID + 2, 2), 0x5254);
    wr32(&b, REG_SCRATCH, 0xdeadbeef);
    assert_int_equal(rd32(&b, REG_SCRATCH), 0xdeadbeef);
    mortar_hoststub_mmio_write(b.h, 0, REG_SRC, 8, 0x0123456789abcdefull);
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, REG_SRC, 8),
                     0x0123456789abcdefull);
    mortar_hoststub_mmio_write(b.h, 0, REG_SRC + 4, 4, 0x11111111);
    assert_int_equal(mortar_hoststub_mmio_read(b.h, 0, REG_SRC, 8),
                     0x1111111189abcdefull);
    mortar_hoststub_mmio_write(b.h, 0, REG_SCRATCH + 1, 1, 0x55);
    assert_int_equal(rd32(&b, REG_SCRATCH), 0xdead55ef);
    mortar_rtl_counters c = counters(&b);
    assert_int_equal(c.mmio_reads, 7);
    assert_int_equal(c.mmio_writes, 4);
    assert_int_equal(c.design_errors, 0);
    close_bench(&b);
}

/* ---- a raw host: sends any message, records what comes back ------------------------ */

#define RAW_MAX 32

typedef struct raw_host {
    mortar_component *self;
    int count;
    uint8_t type[RAW_MAX];
    uint64_t at[RAW_MAX];
    uint32_t size[RAW_MAX];
    uint8_t payload[RAW_MAX][64];
} raw_host;

static int raw_create(mortar_component *self, const mortar_params *p, void **state)
{
    (void)p;
    raw_host *r = calloc(1, sizeof *r);
    r->self = self;
    mortar_port_declare(self, 0, MORTAR_PROTO_PCIE, NULL, 0);
    *state = r;
    return 0;
}

static void raw_message(void *state, unsigned port, const mortar_msg *msg)
{
    (void)port;
    raw_host *r = state;
    if (r->count == RAW_MAX)
        return;
    r->type[r->count] = msg->type;
    r->at[r->count] = mortar_now(r->self);
    r->size[r->count] = msg->size;
    memcpy(r->payload[r->count], msg->payload, msg->size < 64 ? msg->size : 64);
    r->count++;
}

static const mortar_component_ops raw_ops = {
    .kind = "raw", .create = raw_create, .message = raw_message, .destroy = free};

typedef struct raw_bench {
    mortar_loop *loop;
    mortar_component *host, *dev;
    raw_host *r;
} raw_bench;

static void open_raw(raw_bench *b)
{
    assert_int_equal(mortar_loop_create(&b->loop), 0);
    assert_int_equal(mortar_loop_add(b->loop, &raw_ops, "host", NULL, &b->host), 0);
    b->dev = add_rtl(b->loop, "{\"design\": \"testdev\"}");
    connect(b->loop, b->host, b->dev);
    assert_int_equal(mortar_loop_start(b->loop), 0);
    b->r = mortar_component_state(b->host);
}

static void raw_send(raw_bench *b, uint8_t type, const void *payload, uint32_t size)
{
    assert_int_equal(mortar_send(b->host, 0, type, payload, size, 0, NULL), 0);
}

static void raw_mmio(raw_bench *b, uint8_t type, uint64_t id, uint8_t bar, uint64_t off,
                     uint32_t size, uint8_t posted, uint32_t value)
{
    uint8_t buf[sizeof(mortar_pcie_mmio) + 8] = {0};
    mortar_pcie_mmio *m = (mortar_pcie_mmio *)buf;
    *m = (mortar_pcie_mmio){
        .req_id = id, .offset = off, .size = size, .bar = bar, .posted = posted};
    memcpy(m->data, &value, 4);
    raw_send(b, type, buf,
             type == MORTAR_PCIE_MMIO_WRITE ? (uint32_t)sizeof buf : sizeof *m);
}

static void raw_run(raw_bench *b)
{
    while (mortar_loop_step(b->loop, MORTAR_TIME_MAX) > 0)
        ;
}

static uint64_t raw_done_id(raw_bench *b, int i)
{
    mortar_pcie_mmio_done d;
    memcpy(&d, b->r->payload[i], sizeof d);
    return d.req_id;
}

static uint32_t raw_done_u32(raw_bench *b, int i)
{
    uint32_t v;
    memcpy(&v, b->r->payload[i] + sizeof(mortar_pcie_mmio_done), 4);
    return v;
}

static void test_mmio_requests_are_taken_and_answered_in_arrival_order(void **state)
{
    (void)state;
    raw_bench b;
    open_raw(&b);
    raw_mmio(&b, MORTAR_PCIE_MMIO_WRITE, 1, 0, REG_SCRATCH, 4, 1, 111);
    raw_mmio(&b, MORTAR_PCIE_MMIO_READ, 2, 0, REG_SCRATCH, 4, 0, 0);
    raw_mmio(&b, MORTAR_PCIE_MMIO_WRITE, 3, 0, REG_SCRATCH, 4, 1, 222);
    raw_mmio(&b, MORTAR_PCIE_MMIO_READ, 4, 0, REG_SCRATCH, 4, 0, 0);
    raw_run(&b);
    assert_int_equal(b.r->count, 2);
    assert_int_equal(b.r->type[0], MORTAR_PCIE_MMIO_READ_DONE);
    assert_int_equal(raw_done_id(&b, 0), 2);
    assert_int_equal(raw_done_u32(&b, 0), 111);
    assert_int_equal(raw_done_id(&b, 1), 4);
    assert_int_equal(raw_done_u32(&b, 1), 222);
    assert_true(b.r->at[0] < b.r->at[1]);
    mortar_loop_destroy(b.loop);
}

static void test_non_posted_write_is_answered_at_the_edge_that_takes_it(void **state)
{
    (void)state;
    raw_bench b;
    open_raw(&b);
    raw_mmio(&b, MORTAR_PCIE_MMIO_WRITE, 9, 0, REG_SCRATCH, 4, 0, 5);
    raw_run(&b);
    assert_int_equal(b.r->count, 1);
    assert_int_equal(b.r->type[0], MORTAR_PCIE_MMIO_WRITE_DONE);
    assert_int_equal(raw_done_id(&b, 0), 9);
    /* Sent at time 0, taken at the first grid edge at or after its arrival
     * (after the 4 reset edges and the one that found the design idle). */
    uint64_t period = mortar_rtl_period_ps(400);
    uint64_t edge = (LATENCY + period - 1) / period * period;
    assert_int_equal(b.r->at[0], edge + LATENCY);
    mortar_loop_destroy(b.loop);
}

static void test_bad_input_from_the_link_is_counted_and_answered(void **state)
{
    (void)state;
    raw_bench b;
    open_raw(&b);
    uint8_t junk[4] = {1, 2, 3, 4};
    raw_send(&b, MORTAR_PCIE_MMIO_READ, junk, sizeof junk); /* too short */
    raw_send(&b, 0x7f, junk, sizeof junk);                  /* unknown type */
    raw_send(&b, MORTAR_PCIE_DMA_WRITE, junk, sizeof junk); /* not for a device */
    mortar_pcie_dma_done done = {.req_id = 12345, .size = 0};
    raw_send(&b, MORTAR_PCIE_DMA_READ_DONE, &done, sizeof done); /* nothing in flight */
    raw_send(&b, MORTAR_PCIE_DMA_WRITE_DONE, &done, sizeof done);
    raw_mmio(&b, MORTAR_PCIE_MMIO_READ, 20, 0, 4096, 4, 0, 0);   /* past the BAR */
    raw_mmio(&b, MORTAR_PCIE_MMIO_READ, 21, 2, 0, 4, 0, 0);      /* no BAR 2 */
    raw_mmio(&b, MORTAR_PCIE_MMIO_READ, 22, 0, 0, 3, 0, 0);      /* size 3 */
    raw_mmio(&b, MORTAR_PCIE_MMIO_READ, 23, 9, 0, 4, 0, 0);      /* BAR 9 */
    raw_mmio(&b, MORTAR_PCIE_MMIO_WRITE, 24, 0, 4094, 4, 0, 0);  /* across the end */
    raw_mmio(&b, MORTAR_PCIE_MMIO_READ, 25, 0, REG_ID, 4, 0, 0); /* a good one after */
    raw_run(&b);
    mortar_rtl_counters c;
    mortar_rtl_get_counters(b.dev, &c);
    assert_int_equal(c.bad_messages, 5);
    assert_int_equal(c.mmio_refused, 5);
    assert_int_equal(c.mmio_reads, 1);
    assert_int_equal(c.mmio_writes, 0);
    assert_int_equal(b.r->count, 6); /* every read answered, the non-posted write too */
    for (int i = 0; i < 4; i++) {
        assert_int_equal(raw_done_id(&b, i), 20 + i);
        assert_int_equal(b.r->type[i], MORTAR_PCIE_MMIO_READ_DONE);
    }
    assert_int_equal(raw_done_u32(&b, 0), 0xffffffffu);
    assert_int_equal(b.r->type[4], MORTAR_PCIE_MMIO_WRITE_DONE);
    assert_int_equal(raw_done_id(&b, 5), 25);
    assert_int_equal(raw_done_u32(&b, 5), TESTDEV_ID);
    mortar_loop_destroy(b.loop);
}

static void test_read_completion_of_the_wrong_size_or_kind_is_counted(void **state)
{
    (void)state;
    raw_bench b;
    open_raw(&b);
    raw_mmio(&b, MORTAR_PCIE_MMIO_WRITE, 1, 0, REG_LEN, 4, 1, 128);
    raw_mmio(&b, MORTAR_PCIE_MMIO_WRITE, 2, 0, REG_DOORBELL, 4, 1, 1);
    raw_run(&b); /* the design now waits for its read, idle */
    assert_int_equal(b.r->count, 1);
    assert_int_equal(b.r->type[0], MORTAR_PCIE_DMA_READ);
    mortar_pcie_dma rd;
    memcpy(&rd, b.r->payload[0], sizeof rd);
    assert_int_equal(rd.size, 128);
    uint8_t buf[sizeof(mortar_pcie_dma_done) + 128] = {0};
    mortar_pcie_dma_done *done = (mortar_pcie_dma_done *)buf;
    *done = (mortar_pcie_dma_done){.req_id = rd.req_id, .size = 128};
    raw_send(&b, MORTAR_PCIE_DMA_WRITE_DONE, done, sizeof *done); /* wrong kind */
    done->size = 64;
    raw_send(&b, MORTAR_PCIE_DMA_READ_DONE, buf, sizeof buf); /* wrong size */
    raw_send(&b, MORTAR_PCIE_DMA_READ_DONE, buf, sizeof buf); /* no longer in flight */
    raw_run(&b);
    mortar_rtl_counters c;
    mortar_rtl_get_counters(b.dev, &c);
    assert_int_equal(c.bad_messages, 3);
    assert_int_equal(c.dma_read_bytes, 0);
    assert_int_equal(c.dma_writes, 0);   /* the design saw a refused read */
    assert_int_equal(c.irqs_dropped, 1); /* and said so; the host enabled nothing */
    mortar_loop_destroy(b.loop);
}

/* ---- DMA and interrupts ------------------------------------------------------ */

/* A copy of `len` bytes from src to dst; returns STATUS once it interrupted. */
static uint32_t copy(bench *b, uint64_t src, uint64_t dst, uint32_t len, uint32_t id)
{
    mortar_hoststub_mmio_write(b->h, 0, REG_SRC, 8, src);
    mortar_hoststub_mmio_write(b->h, 0, REG_DST, 8, dst);
    wr32(b, REG_LEN, len);
    wr32(b, REG_VECTOR, 2);
    wr32(b, REG_DOORBELL, id);
    uint16_t vector;
    uint8_t kind;
    assert_true(mortar_hoststub_wait_interrupt(b->h, MORTAR_US(100), &vector, &kind));
    assert_int_equal(vector, 2);
    assert_int_equal(kind, MORTAR_PCIE_INT_MSIX);
    return rd32(b, REG_STATUS);
}

static void test_dma_copy_round_trips_through_host_memory(void **state)
{
    (void)state;
    bench b;
    open_bench(&b, "{\"design\": \"testdev\"}");
    mortar_hoststub_devctrl(b.h, MSIX);
    uint64_t base = mortar_hoststub_mem_base(b.h);
    uint32_t lens[] = {1000, 4096, 1, 64};
    uint32_t copies = 0;
    for (size_t n = 0; n < sizeof lens / sizeof lens[0]; n++) {
        uint32_t len = lens[n];
        uint8_t *src = mortar_hoststub_mem(b.h, base + 0x10000, len);
        uint8_t *dst = mortar_hoststub_mem(b.h, base + 0x20000, len + 64);
        for (uint32_t i = 0; i < len; i++)
            src[i] = (uint8_t)(i * 7 + n);
        memset(dst, 0xaa, len + 64);
        assert_int_equal(copy(&b, base + 0x10000, base + 0x20000, len, 40 + (uint32_t)n),
                         ST_DONE);
        assert_memory_equal(dst, src, len);
        for (uint32_t i = len; i < len + 64; i++)
            assert_int_equal(dst[i], 0xaa); /* nothing written past the length */
        copies++;
    }
    assert_int_equal(rd32(&b, REG_COPIES), copies);
    mortar_rtl_counters c = counters(&b);
    assert_int_equal(c.dma_reads, copies);
    assert_int_equal(c.dma_writes, copies);
    assert_int_equal(c.dma_read_bytes, 1000 + 4096 + 1 + 64);
    assert_int_equal(c.dma_write_bytes, 1000 + 4096 + 1 + 64);
    assert_int_equal(c.irqs, copies);
    assert_int_equal(c.traces, 2 * copies); /* doorbell and copy_done */
    assert_int_equal(c.design_errors, 0);
    assert_int_equal(c.bad_messages, 0);
    close_bench(&b);
}

static void test_dma_the_host_refuses_reaches_the_design_as_an_error(void **state)
{
    (void)state;
    bench b;
    open_bench(&b, "{\"design\": \"testdev\"}");
    mortar_hoststub_devctrl(b.h, MSIX);
    uint64_t base = mortar_hoststub_mem_base(b.h);
    /* a read outside host memory, then a write outside it */
    assert_int_equal(copy(&b, 0x1000, base, 128, 1), ST_DONE | ST_ERROR);
    wr32(&b, REG_STATUS, ST_DONE | ST_ERROR);
    assert_int_equal(rd32(&b, REG_STATUS), 0);
    assert_int_equal(copy(&b, base, 0x1000, 128, 2), ST_DONE | ST_ERROR);
    mortar_rtl_counters c = counters(&b);
    assert_int_equal(c.dma_errors, 2);
    assert_int_equal(c.dma_reads, 2);
    assert_int_equal(c.dma_writes, 1);
    assert_int_equal(c.bad_messages, 0);
    close_bench(&b);
}

static void
test_interrupt_made_before_a_writes_data_reaches_the_host_after_it(void **state)
{
    (void)state;
    bench b;
    open_bench(&b, "{\"design\": \"testdev\"}");
    mortar_hoststub_devctrl(b.h, MSIX);
    uint64_t base = mortar_hoststub_mem_base(b.h);
    uint8_t *src = mortar_hoststub_mem(b.h, base, 4096),
            *dst = mortar_hoststub_mem(b.h, base + 8192, 4096);
    for (int i = 0; i < 4096; i++)
        src[i] = (uint8_t)(i * 13 + 1);
    wr32(&b, REG_MODE, MODE_EARLY_IRQ);
    mortar_hoststub_mmio_write(b.h, 0, REG_SRC, 8, base);
    mortar_hoststub_mmio_write(b.h, 0, REG_DST, 8, base + 8192);
    wr32(&b, REG_LEN, 4096);
    wr32(&b, REG_DOORBELL, 1);
    /* the design pulses the interrupt 64 beats before the write's last */
    assert_true(mortar_hoststub_wait_interrupt(b.h, MORTAR_US(100), NULL, NULL));
    assert_memory_equal(dst, src, 4096);
    mortar_hoststub_delay(b.h, MORTAR_US(10)); /* the write's response comes later */
    assert_int_equal(rd32(&b, REG_STATUS), ST_DONE);
    assert_int_equal(counters(&b).irqs, 1);
    close_bench(&b);
}

static void test_dma_length_out_of_range_is_refused_to_the_design(void **state)
{
    (void)state;
    bench b;
    open_bench(&b, "{\"design\": \"testdev\"}");
    mortar_hoststub_devctrl(b.h, MSIX);
    uint64_t base = mortar_hoststub_mem_base(b.h);
    wr32(&b, REG_MODE, MODE_NO_LEN_CHECK);
    assert_int_equal(copy(&b, base, base + 8192, 0, 1), ST_DONE | ST_ERROR);
    wr32(&b, REG_STATUS, ST_DONE | ST_ERROR);
    assert_int_equal(copy(&b, base, base + 8192, 5000, 2), ST_DONE | ST_ERROR);
    mortar_rtl_counters c = counters(&b);
    assert_int_equal(c.design_errors, 2);
    assert_int_equal(c.dma_reads, 0); /* nothing reached the host */
    assert_int_equal(c.dma_writes, 0);
    close_bench(&b);
}

static void test_interrupt_goes_as_msix_else_msi_else_is_dropped(void **state)
{
    (void)state;
    bench b;
    open_bench(&b, "{\"design\": \"testdev\"}");
    uint16_t vector;
    uint8_t kind;
    wr32(&b, REG_VECTOR, 3);
    mortar_hoststub_devctrl(b.h, MSIX);
    wr32(&b, REG_TIMER, 10);
    assert_true(mortar_hoststub_wait_interrupt(b.h, MORTAR_US(10), &vector, &kind));
    assert_int_equal(kind, MORTAR_PCIE_INT_MSIX);
    assert_int_equal(vector, 3);

    wr32(&b, REG_VECTOR, 0);
    mortar_hoststub_devctrl(b.h, MORTAR_PCIE_CTRL_MSI_ENABLE);
    wr32(&b, REG_TIMER, 10);
    assert_true(mortar_hoststub_wait_interrupt(b.h, MORTAR_US(10), &vector, &kind));
    assert_int_equal(kind, MORTAR_PCIE_INT_MSI);
    assert_int_equal(vector, 0);

    wr32(&b, REG_VECTOR, 3); /* MSI has one vector: 3 is out of range */
    wr32(&b, REG_TIMER, 10);
    assert_false(mortar_hoststub_wait_interrupt(b.h, MORTAR_US(10), NULL, NULL));
    mortar_hoststub_devctrl(b.h, 0);
    wr32(&b, REG_TIMER, 10);
    assert_false(mortar_hoststub_wait_interrupt(b.h, MORTAR_US(10), NULL, NULL));

    mortar_rtl_counters c = counters(&b);
    assert_int_equal(c.irqs, 2);
    assert_int_equal(c.irqs_dropped, 2);
    close_bench(&b);
}

/* ---- the clock -----------------------------------------------------------------------
 */

static void test_idle_design_evaluates_no_edges_while_quiet(void **state)
{
    (void)state;
    bench b;
    open_bench(&b, "{\"design\": \"testdev\"}");
    uint32_t cycles0 = rd32(&b, REG_CYCLES);
    mortar_rtl_counters before = counters(&b);
    uint64_t events = mortar_loop_events(b.loop);
    mortar_hoststub_delay(b.h, MORTAR_MS(1));
    mortar_rtl_counters after = counters(&b);
    assert_int_equal(after.edges, before.edges);
    assert_int_equal(mortar_loop_events(b.loop) - events, 1); /* the delay's own timer */
    assert_int_equal(after.edges_skipped - before.edges_skipped,
                     MORTAR_MS(1) / mortar_rtl_period_ps(400));
    /* the design's own cycle counter saw only the edges of the two reads */
    uint32_t cycles1 = rd32(&b, REG_CYCLES);
    mortar_rtl_counters last = counters(&b);
    assert_true(cycles1 - cycles0 <= last.edges - before.edges);
    assert_true(last.edges + last.edges_skipped >=
                mortar_hoststub_now(b.h) / mortar_rtl_period_ps(400));
    close_bench(&b);
}

/* The timer interrupts at the (N+1)-th edge after the edge that took the
 * write; that edge is the first on the grid at or after the write's
 * arrival, and not before edge 4 (edges 0-3 hold the design in reset). */
static uint64_t expected_timer_irq(uint64_t sent, uint64_t period, uint64_t n)
{
    uint64_t arrival = sent + LATENCY;
    uint64_t taken = (arrival + period - 1) / period * period;
    if (taken < 4 * period)
        taken = 4 * period;
    return taken + (n + 1) * period + LATENCY;
}

static void check_timer(const char *params, uint64_t mhz, uint64_t pause, uint32_t n)
{
    bench b;
    open_bench(&b, params);
    mortar_hoststub_devctrl(b.h, MSIX);
    mortar_hoststub_delay(b.h, pause); /* off the grid */
    uint64_t sent = mortar_hoststub_now(b.h);
    wr32(&b, REG_TIMER, n);
    assert_true(mortar_hoststub_wait_interrupt(b.h, MORTAR_MS(1), NULL, NULL));
    assert_int_equal(mortar_hoststub_now(b.h),
                     expected_timer_irq(sent, mortar_rtl_period_ps(mhz), n));
    close_bench(&b);
}

static void test_cycles_take_exactly_their_period_on_the_edge_grid(void **state)
{
    (void)state;
    check_timer("{\"design\": \"testdev\"}", 400, 1234567, 1000);
    check_timer("{\"design\": \"testdev\", \"clock_mhz\": 333}", 333, 7777, 100);
    check_timer("{\"design\": \"testdev\", \"clock_mhz\": 1}", 1, 1, 3);
}

static void test_design_stamps_edges_with_their_time(void **state)
{
    (void)state;
    bench b;
    open_bench(&b, "{\"design\": \"testdev\"}");
    mortar_hoststub_devctrl(b.h, MSIX);
    uint64_t base = mortar_hoststub_mem_base(b.h);
    uint32_t status = copy(&b, base, base + 8192, 256, 7);
    assert_int_equal(status, ST_DONE);
    uint64_t start = mortar_hoststub_mmio_read(b.h, 0, REG_START_AT, 8);
    uint64_t done = mortar_hoststub_mmio_read(b.h, 0, REG_DONE_AT, 8);
    uint64_t period = mortar_rtl_period_ps(400);
    assert_int_equal(start % period, 0);
    assert_int_equal(done % period, 0);
    assert_true(done > start + 2 * LATENCY); /* a read and a write went to the host */
    close_bench(&b);
}

/* One copy of 300 bytes with id 77; the time it ends. */
static uint64_t traced_copy(const char *trace)
{
    bench b;
    open_bench_traced(&b, "{\"design\": \"testdev\"}", trace);
    mortar_hoststub_devctrl(b.h, MSIX);
    uint64_t base = mortar_hoststub_mem_base(b.h);
    assert_int_equal(copy(&b, base, base + 4096, 300, 77), ST_DONE);
    uint64_t end = mortar_hoststub_now(b.h);
    close_bench(&b);
    return end;
}

static void test_trace_events_carry_the_descriptors_names_and_change_nothing(void **state)
{
    (void)state;
    char path[] = "/tmp/mortar-test-rtl-trace-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    uint64_t traced_end = traced_copy(path);
    assert_int_equal(traced_copy(NULL), traced_end);

    mortar_trace_reader *r;
    char err[256];
    assert_int_equal(mortar_trace_reader_open(&r, path, err, sizeof err), 0);
    mortar_trace_event ev;
    const char *want[] = {"doorbell", "copy_done"};
    uint64_t args[] = {300, ST_DONE};
    int seen = 0;
    while (mortar_trace_reader_next(r, &ev) == 1) {
        if (strcmp(mortar_trace_reader_component(r, ev.component), "rtl"))
            continue;
        assert_true(seen < 2);
        assert_string_equal(mortar_trace_reader_kind(r, ev.kind), want[seen]);
        assert_int_equal(ev.req_id, 77);
        assert_int_equal(ev.arg0, args[seen]);
        assert_int_equal(ev.time_ps % mortar_rtl_period_ps(400), 0);
        seen++;
    }
    assert_int_equal(seen, 2);
    mortar_trace_reader_close(r);
    unlink(path);
}

static void run_copies(mortar_rtl_counters *c, uint64_t *end, uint8_t *out)
{
    bench b;
    open_bench(&b, "{\"design\": \"testdev\"}");
    mortar_hoststub_devctrl(b.h, MSIX);
    uint64_t base = mortar_hoststub_mem_base(b.h);
    uint8_t *src = mortar_hoststub_mem(b.h, base, 3000);
    for (int i = 0; i < 3000; i++)
        src[i] = (uint8_t)(i ^ 0x5a);
    for (uint32_t i = 0; i < 5; i++)
        assert_int_equal(
            copy(&b, base + 200 * i, base + 0x4000 + 4096 * i, 1000 + 300 * i, i),
            ST_DONE);
    *c = counters(&b);
    *end = mortar_hoststub_now(b.h);
    memcpy(out, mortar_hoststub_mem(b.h, base + 0x4000, 5 * 4096), 5 * 4096);
    close_bench(&b);
}

static void test_runs_are_deterministic(void **state)
{
    (void)state;
    mortar_rtl_counters c1, c2;
    uint64_t end1, end2;
    static uint8_t m1[5 * 4096], m2[5 * 4096];
    run_copies(&c1, &end1, m1);
    run_copies(&c2, &end2, m2);
    assert_int_equal(end1, end2);
    assert_memory_equal(&c1, &c2, sizeof c1);
    assert_memory_equal(m1, m2, sizeof m1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_knows_the_rtl_kind_and_the_test_design),
        cmocka_unit_test(test_params_reject_unknown_design_and_clock_out_of_range),
        cmocka_unit_test(test_period_is_the_rounded_picoseconds_of_the_clock),
        cmocka_unit_test(test_link_intro_is_the_designs),
        cmocka_unit_test(test_mmio_reads_and_writes_reach_the_registers),
        cmocka_unit_test(test_mmio_requests_are_taken_and_answered_in_arrival_order),
        cmocka_unit_test(test_non_posted_write_is_answered_at_the_edge_that_takes_it),
        cmocka_unit_test(test_bad_input_from_the_link_is_counted_and_answered),
        cmocka_unit_test(test_read_completion_of_the_wrong_size_or_kind_is_counted),
        cmocka_unit_test(test_dma_copy_round_trips_through_host_memory),
        cmocka_unit_test(test_dma_the_host_refuses_reaches_the_design_as_an_error),
        cmocka_unit_test(
            test_interrupt_made_before_a_writes_data_reaches_the_host_after_it),
        cmocka_unit_test(test_dma_length_out_of_range_is_refused_to_the_design),
        cmocka_unit_test(test_interrupt_goes_as_msix_else_msi_else_is_dropped),
        cmocka_unit_test(test_idle_design_evaluates_no_edges_while_quiet),
        cmocka_unit_test(test_cycles_take_exactly_their_period_on_the_edge_grid),
        cmocka_unit_test(test_design_stamps_edges_with_their_time),
        cmocka_unit_test(
            test_trace_events_carry_the_descriptors_names_and_change_nothing),
        cmocka_unit_test(test_runs_are_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
