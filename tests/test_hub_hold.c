/*
 * test_hub_hold.c - reads the QEMU host answers from a device's hold
 * (hosts/qemu/src/mortar_hub_hold.c, compiled in): every held answer has the
 * stamp and the bytes the real round trip gives on a twin link, at PCIe 3.0
 * x16 and without a transaction layer; a read outside the held bytes, one
 * that would reach the device at its next event, or whose completion would
 * still be on the wire then, is not answered; a hold is not taken when the
 * host sent something after the read, when it is malformed or too large, or
 * when skipping is off; taking one raises the link's input bound to the
 * device's promise.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mortar/error.h"
#include "mortar/pcie.h"
#include "mortar_hub_hold.h"

#define LAT   1000000ull /* 1 us */
#define BAR   2
#define BASE  0x1000u
#define HELD  256u
#define UNTIL 80000000ull /* the device's next event: 80 us */

typedef struct twin {
    mortar_link *host, *dev;
} twin;

static void make_twin(twin *t, unsigned lanes)
{
    mortar_link_params p;
    mortar_link_params_init(&p);
    p.name = "hold";
    p.protocol = MORTAR_PROTO_PCIE;
    p.slot_size = 8192;
    p.slot_count = 64;
    p.latency_ps = LAT;
    if (lanes) {
        mortar_pcie_wire_init(&p.pcie);
        p.pcie.lanes = (uint8_t)lanes;
    }
    assert_int_equal(mortar_link_pair(&t->host, &t->dev, &p), 0);
}

static void close_twin(twin *t)
{
    mortar_link_close(t->host);
    mortar_link_close(t->dev);
}

/* The device's bytes: a pattern a read can be checked against. */
static uint8_t dev_byte(uint64_t offset)
{
    return (uint8_t)(offset * 7 + 3);
}

static mortar_pcie_mmio read_of(uint64_t offset, uint32_t size, uint64_t id)
{
    return (mortar_pcie_mmio){.req_id = id, .offset = offset, .size = size, .bar = BAR};
}

/* The host's next message on `t`, which must be there. */
static mortar_msg next_msg(mortar_link *l)
{
    mortar_msg m;
    assert_int_equal(mortar_link_peek(l, &m), 1);
    return m;
}

/* The device answers the read waiting on its side at its arrival, holding
 * `held` bytes from BASE (0: none) with `flags`; returns the completion as
 * the host sees it (valid until popped). */
static mortar_msg device_answers(twin *t, uint32_t held, uint64_t until,
                                 uint32_t claimed_len)
{
    mortar_msg rq = next_msg(t->dev);
    assert_int_equal(rq.type, MORTAR_PCIE_MMIO_READ);
    mortar_pcie_mmio rd;
    memcpy(&rd, rq.payload, sizeof rd);
    uint64_t arrival = rq.timestamp_ps;
    mortar_link_pop(t->dev);
    uint8_t buf[sizeof(mortar_pcie_mmio_done) + 8 + sizeof(mortar_pcie_read_hold) + 1024];
    mortar_pcie_mmio_done d = {
        .req_id = rd.req_id, .size = rd.size, .flags = held ? MORTAR_PCIE_DONE_HOLD : 0};
    memcpy(buf, &d, sizeof d);
    for (uint32_t i = 0; i < rd.size; i++)
        buf[sizeof d + i] = dev_byte(rd.offset + i);
    uint32_t total = (uint32_t)sizeof d + rd.size;
    if (held) {
        mortar_pcie_read_hold h = {
            .until_ps = until, .offset = BASE, .len = claimed_len, .bar = BAR};
        memcpy(buf + total, &h, sizeof h);
        total += (uint32_t)sizeof h;
        for (uint32_t i = 0; i < held; i++)
            buf[total + i] = dev_byte(BASE + i);
        total += held;
    }
    assert_int_equal(mortar_link_send(t->dev, arrival, MORTAR_PCIE_MMIO_READ_DONE, buf,
                                      total, 0, NULL),
                     0);
    return next_msg(t->host);
}

/* The host reads at `now`; the device answers (with a hold of HELD bytes
 * until UNTIL); the host takes it. Returns the completion's stamp. */
static uint64_t round_trip(twin *t, mortar_hold *h, const mortar_pcie_mmio *rd,
                           uint64_t now, uint8_t *out)
{
    assert_int_equal(
        mortar_link_send(t->host, now, MORTAR_PCIE_MMIO_READ, rd, sizeof *rd, 0, NULL),
        0);
    mortar_link_counters c;
    mortar_link_get_counters(t->host, &c);
    mortar_msg m = device_answers(t, HELD, UNTIL, HELD);
    uint64_t stamp = m.timestamp_ps;
    memcpy(out, (const uint8_t *)m.payload + sizeof(mortar_pcie_mmio_done), rd->size);
    mortar_hold_take(h, t->host, &m, c.msgs_sent, true);
    mortar_link_pop(t->host);
    return stamp;
}

/* Reads answered from the hold on one twin, by round trips on the other:
 * the same stamps, the same bytes, read after read. */
static void held_reads_match_round_trips(unsigned lanes)
{
    twin held, real;
    make_twin(&held, lanes);
    make_twin(&real, lanes);
    mortar_hold *hh = calloc(1, sizeof *hh), *hr = calloc(1, sizeof *hr);
    uint8_t a[8], b[8];
    mortar_pcie_mmio first = read_of(BASE, 8, 1);
    uint64_t now = 5000000;
    uint64_t s1 = round_trip(&held, hh, &first, now, a);
    uint64_t s2 = round_trip(&real, hr, &first, now, b);
    assert_int_equal(s1, s2);
    assert_true(hh->valid);
    for (uint64_t i = 1; i < HELD / 8; i++) {
        now = s1 + 3000 * i; /* the CPU's time between two reads */
        mortar_pcie_mmio rd = read_of(BASE + 8 * i, (uint32_t)(i % 2 ? 8 : 4), i + 1);
        assert_true(mortar_hold_answer(hh, held.host, &rd, now, a, &s1));
        s2 = round_trip(&real, hr, &rd, now, b);
        assert_int_equal(s1, s2);
        assert_memory_equal(a, b, rd.size);
        assert_int_equal(a[0], dev_byte(rd.offset));
    }
    /* the host's side of the link was charged as if every read was sent:
     * a write now leaves both at the same stamp */
    uint64_t w1, w2;
    uint8_t wr[sizeof(mortar_pcie_mmio) + 4] = {0};
    assert_int_equal(
        mortar_link_send(held.host, s1, MORTAR_PCIE_MMIO_WRITE, wr, sizeof wr, 0, &w1),
        0);
    assert_int_equal(
        mortar_link_send(real.host, s2, MORTAR_PCIE_MMIO_WRITE, wr, sizeof wr, 0, &w2),
        0);
    assert_int_equal(w1, w2);
    free(hh);
    free(hr);
    close_twin(&held);
    close_twin(&real);
}

static void test_held_reads_match_round_trips_at_x16(void **state)
{
    (void)state;
    held_reads_match_round_trips(16);
}

static void test_held_reads_match_round_trips_without_a_layer(void **state)
{
    (void)state;
    held_reads_match_round_trips(0);
}

/* A hold taken on a fresh twin from the read of BASE at 1 us; its stamp. */
static uint64_t first_hold(twin *t, mortar_hold **h)
{
    make_twin(t, 16);
    *h = calloc(1, sizeof **h);
    assert_non_null(*h);
    uint8_t out[8];
    mortar_pcie_mmio rd = read_of(BASE, 8, 1);
    uint64_t stamp = round_trip(t, *h, &rd, 1000000, out);
    assert_true((*h)->valid);
    return stamp;
}

static void test_hold_raises_the_input_bound_to_the_promise(void **state)
{
    (void)state;
    twin t;
    mortar_hold *h;
    uint64_t stamp = first_hold(&t, &h);
    assert_int_equal(mortar_link_in_horizon(t.host), stamp);
    assert_int_equal(mortar_link_in_bound(t.host), UNTIL + LAT);
    free(h);
    close_twin(&t);
}

static void test_reads_the_hold_cannot_answer(void **state)
{
    (void)state;
    twin t;
    mortar_hold *h;
    uint64_t stamp = first_hold(&t, &h), s;
    uint8_t out[8];
    mortar_pcie_mmio outside = read_of(BASE + HELD - 4, 8, 2);
    assert_false(mortar_hold_answer(h, t.host, &outside, stamp, out, &s));
    mortar_pcie_mmio below = read_of(BASE - 8, 8, 2);
    assert_false(mortar_hold_answer(h, t.host, &below, stamp, out, &s));
    mortar_pcie_mmio other_bar = read_of(BASE, 8, 2);
    other_bar.bar = 0;
    assert_false(mortar_hold_answer(h, t.host, &other_bar, stamp, out, &s));
    /* arriving at the device's next event, or answered too close to it */
    mortar_pcie_mmio late = read_of(BASE + 8, 8, 2);
    assert_false(mortar_hold_answer(h, t.host, &late, UNTIL - LAT, out, &s));
    assert_false(mortar_hold_answer(h, t.host, &late, UNTIL - LAT - 1, out, &s));
    assert_true(mortar_hold_answer(h, t.host, &late, UNTIL - 2 * LAT - 100000, out, &s));
    assert_true(s <= UNTIL + LAT);
    /* dropped (the host sent something): nothing more */
    mortar_hold_drop(h);
    assert_false(mortar_hold_answer(h, t.host, &late, UNTIL - 2 * LAT - 50000, out, &s));
    free(h);
    close_twin(&t);
}

static void test_holds_not_taken(void **state)
{
    (void)state;
    twin t;
    make_twin(&t, 16);
    mortar_hold *h = calloc(1, sizeof *h);
    mortar_pcie_mmio rd = read_of(BASE, 8, 1);
    mortar_link_counters c;
    struct {
        uint32_t held, claimed;
        bool use, sent_after;
    } cases[] = {
        {HELD, HELD, false, false},               /* skipping off */
        {HELD, HELD, true, true},                 /* the host sent after the read */
        {HELD, HELD + 1, true, false},            /* claims more bytes than it carries */
        {0, 0, true, false},                      /* no hold */
        {HELD, 0, true, false},                   /* an empty one */
        {1024, MORTAR_HOLD_MAX + 1, true, false}, /* more than a host keeps */
    };
    uint64_t now = 1000000;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(
            mortar_link_send(t.host, now, MORTAR_PCIE_MMIO_READ, &rd, sizeof rd, 0, NULL),
            0);
        mortar_link_get_counters(t.host, &c);
        uint64_t sent = c.msgs_sent - (cases[i].sent_after ? 1 : 0);
        mortar_msg m = device_answers(&t, cases[i].held, UNTIL, cases[i].claimed);
        h->valid = true;
        mortar_hold_take(h, t.host, &m, sent, cases[i].use);
        assert_false(h->valid);
        now = m.timestamp_ps;
        mortar_link_pop(t.host);
    }
    free(h);
    close_twin(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_held_reads_match_round_trips_at_x16),
        cmocka_unit_test(test_held_reads_match_round_trips_without_a_layer),
        cmocka_unit_test(test_hold_raises_the_input_bound_to_the_promise),
        cmocka_unit_test(test_reads_the_hold_cannot_answer),
        cmocka_unit_test(test_holds_not_taken),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
