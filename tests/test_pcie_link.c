/*
 * test_pcie_link.c - PCIe links with their transaction layer: a DMA read
 * completes at 2L plus its packets' wire time, read and write streams reach
 * the analytic effective rate (data over TLP bytes, at the line rate less
 * DLLPs) at x1, x8 and x16, a completion never passes a posted write, the
 * host's times delay what they should, and an in-process connection stamps
 * exactly as a shared-memory link. Expected stamps are computed here from
 * docs/pcie.md's constants.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mortar/error.h"
#include "mortar/pcie.h"
#include "mortar/runtime.h"

#define LAT     1000000ull /* 1 us */
#define KIB     1024u
#define BIGSLOT (64 * 1024 + 128)

/* ---- the arithmetic of docs/pcie.md, written out again -------------------- */

/* The DLLP interval A of the 8 GT/s table for MPS 256, by width. */
static uint64_t gen3_mps256_interval(unsigned lanes)
{
    switch (lanes) {
    case 1: return 512;
    case 8: return 203;
    case 16: return 168;
    default: fail(); return 0;
    }
}

/* ps for `bytes` on a PCIe 3.0 link of `lanes` lanes, MPS 256. */
static uint64_t gen3_ps(uint64_t bytes, unsigned lanes)
{
    uint64_t a = gen3_mps256_interval(lanes);
    unsigned __int128 num = (unsigned __int128)bytes * 8125 * a * 1538;
    unsigned __int128 den = (unsigned __int128)8 * lanes * (a * 1538 - 16 * 1538 - 4 * a);
    return (uint64_t)((num + den - 1) / den);
}

/* Data bytes per second the line gives a stream of full 256-byte TLPs of
 * `hdr` header bytes: the analytic effective rate (pcie-bench's model). */
static double gen3_stream_rate(unsigned lanes, unsigned hdr)
{
    double a = (double)gen3_mps256_interval(lanes);
    double line = 8e9 * 128.0 / 130.0 * lanes / 8.0; /* bytes per second */
    return line * (1.0 - 16.0 / a - 4.0 / 1538.0) * 256.0 / (256.0 + 8 + hdr);
}

/* ---- links ------------------------------------------------------------------ */

/* A PCIe link of latency LAT, PCIe 3.0 with `lanes` lanes (0: no layer). */
static mortar_link_params pcie_params(unsigned lanes)
{
    mortar_link_params p;
    mortar_link_params_init(&p);
    p.name = "pcie";
    p.protocol = MORTAR_PROTO_PCIE;
    p.slot_size = BIGSLOT;
    p.slot_count = 1024;
    p.latency_ps = LAT;
    if (lanes) {
        mortar_pcie_wire_init(&p.pcie);
        p.pcie.lanes = (uint8_t)lanes;
    }
    return p;
}

static void make_pcie_pair(mortar_link **host, mortar_link **dev, unsigned lanes)
{
    mortar_link_params p = pcie_params(lanes);
    assert_int_equal(mortar_link_pair(host, dev, &p), 0);
}

static uint8_t msgbuf[sizeof(mortar_pcie_dma_done) + 64 * KIB];

static uint64_t send_dma(mortar_link *dev, uint64_t now, uint8_t type, uint64_t addr,
                         uint32_t size)
{
    mortar_pcie_dma *d = (mortar_pcie_dma *)msgbuf;
    *d = (mortar_pcie_dma){.req_id = addr, .addr = addr, .size = size};
    uint32_t len = sizeof *d + (type == MORTAR_PCIE_DMA_WRITE ? size : 0);
    uint64_t stamp = 0;
    assert_int_equal(mortar_link_send(dev, now, type, d, len, 0, &stamp), 0);
    return stamp;
}

/* The host's side: takes the next message (it must be there) and, for a
 * DMA read, answers it at its stamp; returns the message's stamp and the
 * completion's in *done (0 for other messages). */
static uint64_t host_serves(mortar_link *host, uint64_t *done)
{
    mortar_msg m;
    assert_int_equal(mortar_link_peek(host, &m), 1);
    uint64_t at = m.timestamp_ps;
    *done = 0;
    if (m.type == MORTAR_PCIE_DMA_READ) {
        mortar_pcie_dma req;
        memcpy(&req, m.payload, sizeof req);
        mortar_link_pop(host);
        mortar_pcie_dma_done *c = (mortar_pcie_dma_done *)msgbuf;
        *c = (mortar_pcie_dma_done){.req_id = req.req_id, .size = req.size,
                                    .addr_low = (uint16_t)req.addr};
        assert_int_equal(mortar_link_send(host, at, MORTAR_PCIE_DMA_READ_DONE, c,
                                          (uint32_t)sizeof *c + req.size, 0, done),
                         0);
    } else {
        mortar_link_pop(host);
    }
    return at;
}

static void close_pair(mortar_link *a, mortar_link *b)
{
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_a_16_kib_dma_read_at_x8_completes_at_2l_plus_its_packets(void **state)
{
    (void)state;
    mortar_link *host, *dev;
    make_pcie_pair(&host, &dev, 8);
    uint64_t req = send_dma(dev, 0, MORTAR_PCIE_DMA_READ, 0x100000, 16 * KIB);
    /* acted on when its first of 32 read requests (20 bytes) has arrived */
    assert_int_equal(req, LAT + gen3_ps(20, 8));
    uint64_t done;
    host_serves(host, &done);
    /* 64 completions of 256 bytes, each 8 + 12 + 256 on the wire */
    assert_int_equal(done, req + gen3_ps(64 * 276, 8) + LAT);
    /* 2L plus about 2.44 us of x8 wire */
    assert_in_range(done - 2 * LAT, 2440000, 2460000);
    close_pair(host, dev);
}

/* Bytes per second of 256 DMA reads (writes) of 4 KiB sent at once on a
 * link of `lanes` lanes, the host serving each read when it arrives: data
 * over the time from the first byte's arrival to the last byte's. */
static double stream_rate(unsigned lanes, bool read)
{
    mortar_link *host, *dev;
    make_pcie_pair(&host, &dev, lanes);
    const int n = 256;
    uint8_t type = read ? MORTAR_PCIE_DMA_READ : MORTAR_PCIE_DMA_WRITE;
    uint64_t last = 0;
    for (int i = 0; i < n; i++)
        last = send_dma(dev, 0, type, 0x100000 + (uint64_t)i * 4 * KIB, 4 * KIB);
    uint64_t first = 0; /* a write stream leaves at 0 */
    for (int i = 0; read && i < n; i++) {
        uint64_t at = host_serves(host, &last);
        if (i == 0)
            first = at; /* the completions stream from the first request's arrival */
    }
    close_pair(host, dev);
    return n * 4.0 * KIB / ((double)(last - first - LAT) * 1e-12);
}

static void test_read_and_write_streams_reach_the_analytic_rate(void **state)
{
    (void)state;
    const unsigned widths[] = {1, 8, 16};
    for (int k = 0; k < 3; k++)
        for (int read = 0; read < 2; read++) {
            double rate = stream_rate(widths[k], read), expected = gen3_stream_rate(widths[k], 12);
            if (!(rate <= expected * 1.000001 && rate > expected * 0.9999))
                fail_msg("x%u %s: %.0f B/s, expected %.0f", widths[k], read ? "reads" : "writes",
                         rate, expected);
        }
}

static void test_an_mmio_read_completes_after_a_posted_write_before_it(void **state)
{
    (void)state;
    mortar_link *host, *dev;
    make_pcie_pair(&host, &dev, 16);
    /* the device posts a 16 KiB result write (4 messages) at 0 ... */
    uint64_t last_write = 0;
    for (int i = 0; i < 4; i++)
        last_write = send_dma(dev, 0, MORTAR_PCIE_DMA_WRITE, 0x200000 + i * 4 * KIB, 4 * KIB);
    assert_int_equal(last_write, 4 * gen3_ps(16 * 276, 16) + LAT);
    /* ... the host reads a status register at 0; the device answers when
     * the read arrives, long before the write has left */
    mortar_pcie_mmio rd = {.req_id = 7, .offset = 0x28, .size = 4};
    uint64_t rd_stamp = 0;
    assert_int_equal(mortar_link_send(host, 0, MORTAR_PCIE_MMIO_READ, &rd, sizeof rd, 0,
                                      &rd_stamp),
                     0);
    assert_int_equal(rd_stamp, LAT + gen3_ps(20, 16));
    uint8_t cpl[sizeof(mortar_pcie_mmio_done) + 4] = {0};
    *(mortar_pcie_mmio_done *)cpl = (mortar_pcie_mmio_done){.req_id = 7, .size = 4};
    uint64_t cpl_stamp = 0;
    assert_int_equal(mortar_link_send(dev, rd_stamp, MORTAR_PCIE_MMIO_READ_DONE, cpl,
                                      sizeof cpl, 0, &cpl_stamp),
                     0);
    /* its completion follows the write's last byte on the wire */
    assert_true(cpl_stamp > last_write);
    assert_int_equal(cpl_stamp, last_write + gen3_ps(24, 16));
    close_pair(host, dev);
}

static void test_host_times_delay_read_completions_and_mmio_reads(void **state)
{
    (void)state;
    mortar_link_params p = pcie_params(8);
    p.pcie.dma_read_host_ps = 400000;
    p.pcie.mmio_read_host_ps = 150000;
    mortar_link *host, *dev;
    assert_int_equal(mortar_link_pair(&host, &dev, &p), 0);
    uint64_t req = send_dma(dev, 0, MORTAR_PCIE_DMA_READ, 0x1000, 64);
    uint64_t done;
    host_serves(host, &done);
    assert_int_equal(done, req + 400000 + gen3_ps(20 + 64, 8) + LAT);
    mortar_pcie_mmio rd = {.req_id = 1, .offset = 0, .size = 4};
    uint64_t stamp = 0;
    assert_int_equal(mortar_link_send(host, done, MORTAR_PCIE_MMIO_READ, &rd, sizeof rd, 0,
                                      &stamp),
                     0);
    assert_int_equal(stamp, done + 150000 + gen3_ps(20, 8) + LAT);
    close_pair(host, dev);
}

static void test_a_link_without_the_layer_costs_the_latency_alone(void **state)
{
    (void)state;
    mortar_link *host, *dev;
    make_pcie_pair(&host, &dev, 0);
    assert_int_equal(send_dma(dev, 0, MORTAR_PCIE_DMA_WRITE, 0, 16 * KIB), LAT);
    close_pair(host, dev);
}

static void test_params_refuse_a_layer_where_it_does_not_belong(void **state)
{
    (void)state;
    mortar_link_params p;
    mortar_link_params_init(&p);
    mortar_pcie_wire_init(&p.pcie);
    char err[256];
    assert_int_equal(mortar_link_params_check(&p, err, sizeof err), MORTAR_EINVAL);
    assert_non_null(strstr(err, "does not speak PCIe"));
    p.protocol = MORTAR_PROTO_PCIE;
    p.bandwidth_bps = 1000000000;
    assert_int_equal(mortar_link_params_check(&p, err, sizeof err), MORTAR_EINVAL);
    assert_non_null(strstr(err, "not a bandwidth"));
    p.bandwidth_bps = 0;
    p.pcie.lanes = 5;
    assert_int_equal(mortar_link_params_check(&p, err, sizeof err), MORTAR_EINVAL);
    assert_non_null(strstr(err, "pcie.lanes: 5"));
}

/* ---- in-process: two components on one loop ------------------------------- */

typedef struct dev_side {
    mortar_component *self;
    bool is_device;
    uint64_t got[4];
    int n;
} dev_side;

static int side_create(mortar_component *self, const mortar_params *params, void **state)
{
    (void)params;
    dev_side *d = calloc(1, sizeof *d);
    d->self = self;
    d->is_device = !strcmp(mortar_component_name(self), "dev");
    mortar_port_declare(self, 0, MORTAR_PROTO_PCIE, NULL, 0);
    *state = d;
    return 0;
}

static void side_start(void *state)
{
    dev_side *d = state;
    if (!d->is_device)
        return;
    for (int i = 0; i < 4; i++) {
        mortar_pcie_dma *m = (mortar_pcie_dma *)msgbuf;
        *m = (mortar_pcie_dma){.req_id = (uint64_t)i, .addr = 0x4000 * (uint64_t)(i + 1),
                               .size = 4 * KIB};
        mortar_send(d->self, 0, i % 2 ? MORTAR_PCIE_DMA_READ : MORTAR_PCIE_DMA_WRITE, m,
                    (uint32_t)sizeof *m + (i % 2 ? 0 : 4 * KIB), 0, NULL);
    }
}

static void side_message(void *state, unsigned port, const mortar_msg *m)
{
    (void)port;
    (void)m;
    dev_side *d = state;
    d->got[d->n++] = mortar_now(d->self);
}

static const mortar_component_ops side_ops = {
    .kind = "side", .create = side_create, .start = side_start, .message = side_message,
    .destroy = free};

static void test_an_in_process_connection_stamps_like_a_link(void **state)
{
    (void)state;
    mortar_loop *loop;
    assert_int_equal(mortar_loop_create(&loop), 0);
    mortar_component *h, *d;
    assert_int_equal(mortar_loop_add(loop, &side_ops, "host", NULL, &h), 0);
    assert_int_equal(mortar_loop_add(loop, &side_ops, "dev", NULL, &d), 0);
    mortar_link_params p = pcie_params(16);
    assert_int_equal(mortar_loop_connect(loop, h, 0, d, 0, &p), 0);
    assert_int_equal(mortar_loop_run(loop, MORTAR_TIME_MAX), 0);
    dev_side *hs = mortar_component_state(h);
    assert_int_equal(hs->n, 4);

    /* the same four messages on a shared-memory link */
    mortar_link *host, *dev;
    make_pcie_pair(&host, &dev, 16);
    for (int i = 0; i < 4; i++) {
        uint8_t type = i % 2 ? MORTAR_PCIE_DMA_READ : MORTAR_PCIE_DMA_WRITE;
        assert_int_equal(send_dma(dev, 0, type, 0x4000 * (uint64_t)(i + 1), 4 * KIB),
                         hs->got[i]);
    }
    close_pair(host, dev);
    mortar_loop_destroy(loop);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_16_kib_dma_read_at_x8_completes_at_2l_plus_its_packets),
        cmocka_unit_test(test_read_and_write_streams_reach_the_analytic_rate),
        cmocka_unit_test(test_an_mmio_read_completes_after_a_posted_write_before_it),
        cmocka_unit_test(test_host_times_delay_read_completions_and_mmio_reads),
        cmocka_unit_test(test_a_link_without_the_layer_costs_the_latency_alone),
        cmocka_unit_test(test_params_refuse_a_layer_where_it_does_not_belong),
        cmocka_unit_test(test_an_in_process_connection_stamps_like_a_link),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
