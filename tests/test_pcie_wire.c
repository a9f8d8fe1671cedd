/*
 * test_pcie_wire.c - the PCIe transaction layer's arithmetic (lib/pcie_wire.c):
 * how many TLPs and bytes a write, a read request and its completions are,
 * what a message of each type costs, the line rate after coding and DLLPs,
 * the parameter checks and link training. Expected figures are computed
 * here from docs/pcie.md's constants, not from the library.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mortar/error.h"
#include "mortar/pcie.h"
#include "mortar/pcie_wire.h"

#define KIB 1024u

static mortar_pcie_wire wire(unsigned gen, unsigned lanes)
{
    mortar_pcie_wire w;
    mortar_pcie_wire_init(&w);
    w.gen = (uint8_t)gen;
    w.lanes = (uint8_t)lanes;
    return w;
}

/* docs/pcie.md: a byte on one lane takes 8 bits at the transfer rate after
 * coding; TLPs get 1 - 16/A - 4/1538 of the link, A the DLLP interval. */
static uint64_t expected_ps(uint64_t bytes, uint64_t lane_num, uint64_t lane_den,
                            uint64_t lanes, uint64_t a)
{
    unsigned __int128 num = (unsigned __int128)bytes * lane_num * a * 1538;
    unsigned __int128 den = (unsigned __int128)lane_den * lanes * (a * 1538 - 16 * 1538 - 4 * a);
    return (uint64_t)((num + den - 1) / den);
}

static void test_rate_follows_generation_width_and_dllp_share(void **state)
{
    (void)state;
    mortar_pcie_wire w = wire(3, 8); /* 8 GT/s: 1015.625 ps a byte a lane; A = 203 */
    assert_int_equal(mortar_pcie_wire_ps(&w, 17664), expected_ps(17664, 8125, 8, 8, 203));
    /* about 2.44 ns per 17664 bytes / 63 Gbit/s, less 8 % for DLLPs */
    assert_in_range(mortar_pcie_wire_ps(&w, 17664), 2440000, 2460000);
    w = wire(3, 16); /* A = 168 */
    assert_int_equal(mortar_pcie_wire_ps(&w, 1000), expected_ps(1000, 8125, 8, 16, 168));
    w = wire(1, 1); /* 2.5 GT/s, 8b/10b: 4 ns a byte; A = 416 */
    assert_int_equal(mortar_pcie_wire_ps(&w, 100), expected_ps(100, 4000, 1, 1, 416));
    w = wire(5, 4); /* 32 GT/s uses the 8 GT/s table: A = 214 */
    assert_int_equal(mortar_pcie_wire_ps(&w, 4096), expected_ps(4096, 8125, 32, 4, 214));
    w.mps = 512; /* the table's entry for MPS 512, x4: 250 */
    assert_int_equal(mortar_pcie_wire_ps(&w, 4096), expected_ps(4096, 8125, 32, 4, 250));
    assert_int_equal(mortar_pcie_wire_ps(&w, 0), 0);
    w.gen = 0;
    assert_int_equal(mortar_pcie_wire_ps(&w, 4096), 0);
}

static void test_write_splits_at_mps_with_headers_and_whole_doublewords(void **state)
{
    (void)state;
    mortar_pcie_wire w = wire(3, 8);
    uint32_t n;
    /* 16 KiB aligned: 64 TLPs of 8 + 12 + 256 */
    assert_int_equal(mortar_pcie_write_bytes(&w, 0x100000, 16 * KIB, &n), 64 * 276);
    assert_int_equal(n, 64);
    /* above 4 GiB: 4-doubleword headers */
    assert_int_equal(mortar_pcie_write_bytes(&w, 0x100000000ull, 16 * KIB, &n), 64 * 280);
    /* across an MPS boundary: cut there; partial doublewords round up */
    assert_int_equal(mortar_pcie_write_bytes(&w, 250, 10, &n), (20 + 8) + (20 + 4));
    assert_int_equal(n, 2);
    assert_int_equal(mortar_pcie_write_bytes(&w, 0x1003, 1, &n), 20 + 4);
    assert_int_equal(n, 1);
    /* the last TLP below 4 GiB keeps its short header */
    assert_int_equal(mortar_pcie_write_bytes(&w, 0xffffff00ull, 512, &n), 276 + 280);
}

static void test_read_request_splits_at_mrrs_into_header_only_tlps(void **state)
{
    (void)state;
    mortar_pcie_wire w = wire(3, 8);
    uint32_t n;
    assert_int_equal(mortar_pcie_read_request_bytes(&w, 0x200000, 16 * KIB, &n), 32 * 20);
    assert_int_equal(n, 32);
    assert_int_equal(mortar_pcie_read_request_bytes(&w, 0x200100, 512, &n), 2 * 20);
    assert_int_equal(mortar_pcie_read_request_bytes(&w, 0x100000000ull, 512, &n), 24);
    w.mrrs = 4096;
    assert_int_equal(mortar_pcie_read_request_bytes(&w, 0, 16 * KIB, &n), 4 * 20);
}

static void test_completions_split_at_rcb_then_mps(void **state)
{
    (void)state;
    mortar_pcie_wire w = wire(3, 8);
    uint32_t n;
    /* aligned: 256-byte completions, 3-doubleword headers at any address */
    assert_int_equal(mortar_pcie_completion_bytes(&w, 0, 16 * KIB, &n), 64 * 276);
    assert_int_equal(n, 64);
    /* from 32: to the RCB boundary (32), then 256, then the request ends at
     * 512 (224), then the next request's 256 + 256 ... */
    assert_int_equal(mortar_pcie_completion_bytes(&w, 32, 1024, &n),
                     (20 + 32) + (20 + 256) + (20 + 192) + (20 + 256) + (20 + 256) + (20 + 32));
    assert_int_equal(n, 6);
    /* MPS above MRRS: one completion per request */
    w.mps = 1024;
    w.mrrs = 256;
    assert_int_equal(mortar_pcie_completion_bytes(&w, 0, 1024, &n), 4 * 276);
    /* RCB 128 from 64: a 64-byte first completion */
    w = wire(3, 8);
    w.rcb = 128;
    assert_int_equal(mortar_pcie_completion_bytes(&w, 64, 320, &n),
                     (20 + 64) + (20 + 256));
}

static void test_each_message_costs_its_tlps(void **state)
{
    (void)state;
    mortar_pcie_wire w = wire(3, 8);
    w.dma_read_host_ps = 400000;
    w.mmio_read_host_ps = 100000;
    mortar_pcie_cost c;
    uint8_t buf[sizeof(mortar_pcie_dma) + 4096] = {0};

    mortar_pcie_dma *d = (mortar_pcie_dma *)buf;
    *d = (mortar_pcie_dma){.req_id = 1, .addr = 0x10000, .size = 4096};
    mortar_pcie_wire_cost(&w, MORTAR_PCIE_DMA_READ, d, sizeof *d, &c);
    assert_int_equal(c.tlps, 8);
    assert_int_equal(c.bytes, 8 * 20);
    assert_int_equal(c.wire_ps, mortar_pcie_wire_ps(&w, 160));
    assert_int_equal(c.first_ps, mortar_pcie_wire_ps(&w, 20)); /* acted on at its first TLP */
    assert_int_equal(c.host_ps, 0);

    mortar_pcie_wire_cost(&w, MORTAR_PCIE_DMA_WRITE, d, sizeof *d + 4096, &c);
    assert_int_equal(c.bytes, 16 * 276);
    assert_int_equal(c.first_ps, c.wire_ps);
    /* a write that says more than it carries costs what it carries */
    mortar_pcie_wire_cost(&w, MORTAR_PCIE_DMA_WRITE, d, sizeof *d + 256, &c);
    assert_int_equal(c.bytes, 276);

    mortar_pcie_dma_done *done = (mortar_pcie_dma_done *)buf;
    *done = (mortar_pcie_dma_done){.req_id = 1, .size = 4096, .addr_low = 0};
    mortar_pcie_wire_cost(&w, MORTAR_PCIE_DMA_READ_DONE, done, sizeof *done + 4096, &c);
    assert_int_equal(c.bytes, 16 * 276);
    assert_int_equal(c.host_ps, 400000);
    done->status = 1; /* refused: one completion without data */
    mortar_pcie_wire_cost(&w, MORTAR_PCIE_DMA_READ_DONE, done, sizeof *done, &c);
    assert_int_equal(c.bytes, 20);

    mortar_pcie_mmio rd = {.req_id = 2, .offset = 0x28, .size = 4};
    mortar_pcie_wire_cost(&w, MORTAR_PCIE_MMIO_READ, &rd, sizeof rd, &c);
    assert_int_equal(c.bytes, 20);
    assert_int_equal(c.host_ps, 100000);
    uint8_t wr[sizeof(mortar_pcie_mmio) + 8] = {0};
    *(mortar_pcie_mmio *)wr = (mortar_pcie_mmio){.req_id = 3, .offset = 0x10, .size = 8,
                                                 .posted = 1};
    mortar_pcie_wire_cost(&w, MORTAR_PCIE_MMIO_WRITE, wr, sizeof wr, &c);
    assert_int_equal(c.bytes, 28);
    assert_int_equal(c.host_ps, 0);

    uint8_t md[sizeof(mortar_pcie_mmio_done) + 4] = {0};
    *(mortar_pcie_mmio_done *)md = (mortar_pcie_mmio_done){.req_id = 2, .size = 4};
    mortar_pcie_wire_cost(&w, MORTAR_PCIE_MMIO_READ_DONE, md, sizeof md, &c);
    assert_int_equal(c.bytes, 24);
    mortar_pcie_wire_cost(&w, MORTAR_PCIE_MMIO_WRITE_DONE, md, sizeof(mortar_pcie_mmio_done),
                          &c);
    assert_int_equal(c.bytes, 20);

    mortar_pcie_interrupt in = {.vector = 0, .kind = MORTAR_PCIE_INT_MSIX};
    mortar_pcie_wire_cost(&w, MORTAR_PCIE_INTERRUPT, &in, sizeof in, &c);
    assert_int_equal(c.bytes, 24); /* a one-doubleword memory write */
    in.kind = MORTAR_PCIE_INT_LEGACY_HIGH;
    mortar_pcie_wire_cost(&w, MORTAR_PCIE_INTERRUPT, &in, sizeof in, &c);
    assert_int_equal(c.bytes, 24); /* Assert_INTx: a 4-doubleword message */
}

static void test_non_packets_and_short_messages_cost_nothing(void **state)
{
    (void)state;
    mortar_pcie_wire w = wire(3, 8);
    mortar_pcie_cost c;
    mortar_pcie_devctrl dc = {.flags = 1};
    mortar_pcie_wire_cost(&w, MORTAR_PCIE_DEVCTRL, &dc, sizeof dc, &c);
    assert_int_equal(c.wire_ps, 0);
    mortar_pcie_dma_done done = {.req_id = 1};
    mortar_pcie_wire_cost(&w, MORTAR_PCIE_DMA_WRITE_DONE, &done, sizeof done, &c);
    assert_int_equal(c.wire_ps, 0);
    uint8_t shortmsg[4] = {0};
    mortar_pcie_wire_cost(&w, MORTAR_PCIE_DMA_READ, shortmsg, sizeof shortmsg, &c);
    assert_int_equal(c.wire_ps, 0);
    assert_int_equal(c.bytes, 0);
    mortar_pcie_wire_cost(&w, 0x7f, shortmsg, sizeof shortmsg, &c);
    assert_int_equal(c.wire_ps, 0);
}

static void test_a_dma_of_any_size_is_counted_at_once(void **state)
{
    (void)state;
    mortar_pcie_wire w = wire(3, 16);
    w.mps = 128;
    w.mrrs = 128;
    uint32_t n;
    /* 4 GiB - 1 at an odd place: counted in O(1), no overflow */
    uint64_t b = mortar_pcie_read_request_bytes(&w, 0xffffffff00000000ull, 0xffffffffull, &n);
    assert_int_equal(n, 33554432);
    assert_int_equal(b, 33554432ull * 24);
    b = mortar_pcie_write_bytes(&w, UINT64_MAX - 10, 100, &n); /* clipped at the top */
    assert_true(n >= 1 && b > 0);
}

static void test_check_names_the_bad_field(void **state)
{
    (void)state;
    char err[128];
    mortar_pcie_wire w = wire(3, 8);
    assert_int_equal(mortar_pcie_wire_check(&w, err, sizeof err), 0);
    w.lanes = 3;
    assert_int_equal(mortar_pcie_wire_check(&w, err, sizeof err), MORTAR_EINVAL);
    assert_non_null(strstr(err, "lanes: 3"));
    w = wire(6, 8);
    assert_int_equal(mortar_pcie_wire_check(&w, err, sizeof err), MORTAR_EINVAL);
    assert_non_null(strstr(err, "gen: 6"));
    w = wire(3, 8);
    w.mps = 100;
    assert_int_equal(mortar_pcie_wire_check(&w, err, sizeof err), MORTAR_EINVAL);
    assert_non_null(strstr(err, "mps: 100"));
    w = wire(3, 8);
    w.mrrs = 8192;
    assert_int_equal(mortar_pcie_wire_check(&w, err, sizeof err), MORTAR_EINVAL);
    w = wire(3, 8);
    w.rcb = 256;
    assert_int_equal(mortar_pcie_wire_check(&w, err, sizeof err), MORTAR_EINVAL);
    assert_non_null(strstr(err, "rcb: 256"));
    w = (mortar_pcie_wire){0}; /* no layer: valid */
    assert_int_equal(mortar_pcie_wire_check(&w, err, sizeof err), 0);
}

static void test_a_link_trains_to_the_lower_of_slot_and_device(void **state)
{
    (void)state;
    mortar_pcie_wire slot = wire(3, 16);
    mortar_pcie_dev_intro dev = {.link_gen = 3, .link_lanes = 8};
    mortar_pcie_wire_train(&slot, &dev);
    assert_int_equal(slot.gen, 3);
    assert_int_equal(slot.lanes, 8);
    slot = wire(2, 4); /* a slower, narrower slot wins */
    mortar_pcie_wire_train(&slot, &dev);
    assert_int_equal(slot.gen, 2);
    assert_int_equal(slot.lanes, 4);
    slot = wire(4, 16); /* a device that states nothing takes the slot's */
    dev = (mortar_pcie_dev_intro){0};
    mortar_pcie_wire_train(&slot, &dev);
    assert_int_equal(slot.gen, 4);
    assert_int_equal(slot.lanes, 16);
    dev.link_lanes = 12; /* x12 trains to the next width down */
    mortar_pcie_wire_train(&slot, &dev);
    assert_int_equal(slot.lanes, 8);
    slot = (mortar_pcie_wire){0}; /* no layer stays none */
    dev = (mortar_pcie_dev_intro){.link_gen = 1, .link_lanes = 1};
    mortar_pcie_wire_train(&slot, &dev);
    assert_int_equal(slot.gen, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rate_follows_generation_width_and_dllp_share),
        cmocka_unit_test(test_write_splits_at_mps_with_headers_and_whole_doublewords),
        cmocka_unit_test(test_read_request_splits_at_mrrs_into_header_only_tlps),
        cmocka_unit_test(test_completions_split_at_rcb_then_mps),
        cmocka_unit_test(test_each_message_costs_its_tlps),
        cmocka_unit_test(test_non_packets_and_short_messages_cost_nothing),
        cmocka_unit_test(test_a_dma_of_any_size_is_counted_at_once),
        cmocka_unit_test(test_check_names_the_bad_field),
        cmocka_unit_test(test_a_link_trains_to_the_lower_of_slot_and_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
