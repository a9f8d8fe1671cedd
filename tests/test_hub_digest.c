/*
 * test_hub_digest.c - a run's fingerprint in the QEMU host
 * (hosts/qemu/src/mortar_hub_digest.c, compiled in): the same messages give
 * the same digests; a byte of a payload, a stamp, a type, the link or the
 * order changes them; MMIO reads and their completions, messages before
 * the start and links past the host's are not folded; a checkpoint keeps
 * what came before its time, and the first checkpoint that differs is the
 * one after the runs parted; the statistics' JSON carries all of it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mortar/pcie.h"
#include "mortar_hub_digest.h"

#define START 1000000000000ull /* 1 s */
#define EVERY MORTAR_DIGEST_EVERY_PS

static mortar_digest a, b; /* large: not on the stack */

/* A run: DMA writes of `n` payloads of 100 bytes, one every ms, on link 0,
 * each answered on link 1; payload byte `poke` of message `bad` xor 1
 * (bad < 0: none). With `before`, the digests of every link as message
 * `before_msg` came. */
static void run_noting(mortar_digest *d, int n, int bad, unsigned poke, int before_msg,
                       mortar_digest_pair *before)
{
    uint8_t payload[100];
    mortar_digest_start(d, 2, START);
    for (int i = 0; i < n; i++) {
        if (before && i == before_msg) {
            *before = d->all;
        }
        for (unsigned k = 0; k < sizeof payload; k++) {
            payload[k] = (uint8_t)(i * 7 + k);
        }
        if (i == bad) {
            payload[poke] ^= 1;
        }
        uint64_t t = START + (uint64_t)i * 1000000000ull;
        mortar_digest_fold(d, 0, false, t, MORTAR_PCIE_DMA_WRITE, payload,
                           sizeof payload);
        mortar_digest_fold(d, 1, true, t + 1000, MORTAR_PCIE_DMA_WRITE_DONE, payload, 8);
    }
}

static void run(mortar_digest *d, int n, int bad, unsigned poke)
{
    run_noting(d, n, bad, poke, 0, NULL);
}

static bool same(const mortar_digest *x, const mortar_digest *y)
{
    return x->all.received == y->all.received && x->all.sent == y->all.sent &&
           !memcmp(x->link, y->link, sizeof x->link) &&
           x->checkpoints == y->checkpoints &&
           !memcmp(x->at, y->at, sizeof x->at[0] * x->checkpoints);
}

static void same_messages_same_digests(void **state)
{
    (void)state;
    run(&a, 50, -1, 0);
    run(&b, 50, -1, 0);
    assert_true(same(&a, &b));
    assert_int_equal(a.link_received[0], 50);
    assert_int_equal(a.link_sent[1], 50);
    assert_int_equal(a.link_sent[0] + a.link_received[1], 0);
    assert_int_not_equal(a.all.received, 0);
}

/* Every byte of a payload counts, the tail after the last whole word too. */
static void every_payload_byte_counts(void **state)
{
    (void)state;
    run(&a, 50, -1, 0);
    for (unsigned poke = 0; poke < 100; poke++) {
        run(&b, 50, 20, poke);
        assert_int_not_equal(a.link[0].received, b.link[0].received);
        /* the answer carries the first 8 bytes */
        assert_int_equal(a.link[1].sent == b.link[1].sent, poke >= 8);
    }
}

typedef struct msg {
    unsigned link;
    uint64_t stamp_ps;
    uint8_t type;
    uint32_t size;
} msg;

/* The digest of every link after `n` messages received (a 4-byte payload,
 * cut to each one's size). */
static uint64_t received_digest(const msg *m, int n)
{
    static const uint8_t p[4] = {1, 2, 3, 4};
    mortar_digest_start(&a, 2, 0);
    for (int i = 0; i < n; i++) {
        mortar_digest_fold(&a, m[i].link, false, m[i].stamp_ps, m[i].type, p, m[i].size);
    }
    return a.all.received;
}

static void stamp_type_link_and_order_count(void **state)
{
    (void)state;
    const msg one = {0, 5000, MORTAR_PCIE_DMA_WRITE, 4};
    const msg other = {1, 5000, MORTAR_PCIE_DMA_WRITE, 3};
    const msg cases[][2] = {
        {one},
        {{0, 5001, MORTAR_PCIE_DMA_WRITE, 4}},
        {{0, 5000, MORTAR_PCIE_DMA_READ, 4}},
        {{1, 5000, MORTAR_PCIE_DMA_WRITE, 4}},
        {one, other},
        {other, one},
    };
    const int count[] = {1, 1, 1, 1, 2, 2};
    uint64_t seen[6];
    for (int i = 0; i < 6; i++) {
        seen[i] = received_digest(cases[i], count[i]);
    }
    for (int i = 0; i < 6; i++) {
        for (int j = i + 1; j < 6; j++) {
            assert_int_not_equal(seen[i], seen[j]);
        }
    }
}

static void reads_early_messages_and_extra_links_are_not_folded(void **state)
{
    (void)state;
    const uint8_t p[16] = {9};
    memset(&a, 0, sizeof a);
    mortar_digest_fold(&a, 0, false, 5000, MORTAR_PCIE_DMA_WRITE, p,
                       16); /* not started */
    assert_int_equal(a.all.received, 0);
    run(&a, 3, -1, 0);
    run(&b, 3, -1, 0);
    mortar_digest_fold(&b, 0, true, START, MORTAR_PCIE_MMIO_READ, p, 16);
    mortar_digest_fold(&b, 0, false, START, MORTAR_PCIE_MMIO_READ_DONE, p, 16);
    mortar_digest_fold(&b, 2, false, START, MORTAR_PCIE_DMA_WRITE, p, 16); /* no link 2 */
    assert_true(same(&a, &b));
    assert_false(mortar_digest_counts(MORTAR_PCIE_MMIO_READ));
    assert_false(mortar_digest_counts(MORTAR_PCIE_MMIO_READ_DONE));
    assert_true(mortar_digest_counts(MORTAR_PCIE_MMIO_WRITE));
    assert_true(mortar_digest_counts(MORTAR_PCIE_DMA_READ_DONE));
}

/* A message each ms for 50 ms: checkpoints at 10, 20, 30, 40 and 50 ms
 * (the last kept when a message at or after it comes: none does). Parting
 * at message 25 leaves the first two alike. */
static void checkpoints_bracket_the_parting(void **state)
{
    (void)state;
    run(&a, 50, -1, 0);
    assert_int_equal(a.checkpoints, 4);
    run(&b, 50, 25, 30);
    assert_int_equal(b.checkpoints, 4);
    for (uint32_t i = 0; i < 4; i++) {
        bool alike = !memcmp(&a.at[i], &b.at[i], sizeof a.at[i]);
        assert_int_equal(alike, i < 2);
        assert_int_equal(a.at[i].sent, b.at[i].sent); /* only the received side parted */
    }
    /* the checkpoint at 10 ms holds messages 0 to 9: the digests when the
     * 11th came */
    mortar_digest_pair before_11th = {0};
    run_noting(&b, 50, -1, 0, 10, &before_11th);
    assert_memory_equal(&a.at[0], &before_11th, sizeof before_11th);
}

/* A long run keeps MORTAR_DIGEST_CHECKPOINTS and then no more, and a late
 * first message keeps every checkpoint before it. */
static void checkpoints_stop_when_full(void **state)
{
    (void)state;
    const uint8_t p[8] = {1};
    mortar_digest_start(&a, 1, START);
    mortar_digest_fold(&a, 0, false, START + 3 * EVERY, MORTAR_PCIE_DMA_WRITE, p, 8);
    assert_int_equal(a.checkpoints, 3);
    mortar_digest_fold(&a, 0, false, START + 100000 * EVERY, MORTAR_PCIE_DMA_WRITE, p, 8);
    assert_int_equal(a.checkpoints, MORTAR_DIGEST_CHECKPOINTS);
    uint64_t all = a.all.received;
    mortar_digest_fold(&a, 0, false, START + 200000 * EVERY, MORTAR_PCIE_DMA_WRITE, p, 8);
    assert_int_equal(a.checkpoints, MORTAR_DIGEST_CHECKPOINTS);
    assert_int_not_equal(a.all.received, all); /* still folded */
}

static void json_carries_links_totals_and_checkpoints(void **state)
{
    (void)state;
    run(&a, 25, -1, 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    const char *names[] = {"nic\"0", "accel"};
    mortar_digest_write_json(&a, f, names);
    fclose(f);
    char want[256];
    assert_non_null(strstr(
        text,
        ", \"digest\": {\"every_ps\": 10000000000, \"links\": [{\"link\": \"nic\\\"0\""));
    snprintf(
        want, sizeof want,
        "\"link\": \"accel\", \"received\": \"0000000000000000\", \"sent\": \"%016llx\", "
        "\"messages_received\": 0, \"messages_sent\": 25}",
        (unsigned long long)a.link[1].sent);
    assert_non_null(strstr(text, want));
    snprintf(want, sizeof want, "\"checkpoints\": [[\"%016llx\", \"%016llx\"], [",
             (unsigned long long)a.at[0].received, (unsigned long long)a.at[0].sent);
    assert_non_null(strstr(text, want));
    assert_string_equal(text + len - 2, "]}");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_messages_same_digests),
        cmocka_unit_test(every_payload_byte_counts),
        cmocka_unit_test(stamp_type_link_and_order_count),
        cmocka_unit_test(reads_early_messages_and_extra_links_are_not_folded),
        cmocka_unit_test(checkpoints_bracket_the_parting),
        cmocka_unit_test(checkpoints_stop_when_full),
        cmocka_unit_test(json_carries_links_totals_and_checkpoints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
