/*
 * test_sync_rule.c - the conservative synchronization rule (lib/sync_rule.c,
 * docs/protocol.md §4) over a side of in-process link pairs: the safe time
 * is the smallest bound of the synchronized links, the first link at equal
 * bounds holding it; the earliest input prefers the lower link index at
 * equal times, a waiting message counting at its stamp; null messages are
 * due one interval after the last send, carry the side's promise (its own
 * next event, the other links' inputs plus their latency, never below now);
 * a null message the full ring refuses stays due but is no deadline, and
 * goes out once the peer reads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mortar/error.h"
#include "mortar/link.h"
#include "sync_rule.h"

#define LAT 1000 /* ps */
#define NLINKS 3
#define SLOTS 16

/* A side with NLINKS links; peer[i] is the other end of side[i]. */
typedef struct fixture {
    mortar_link *side[NLINKS], *peer[NLINKS];
    sync_link links[NLINKS];
} fixture;

static int setup(void **state)
{
    static fixture f;
    memset(&f, 0, sizeof f);
    for (int i = 0; i < NLINKS; i++) {
        mortar_link_params p;
        mortar_link_params_init(&p);
        p.name = "rule";
        p.slot_size = 128;
        p.slot_count = SLOTS;
        p.latency_ps = LAT;
        assert_int_equal(mortar_link_pair(&f.side[i], &f.peer[i], &p), 0);
        f.links[i] = (sync_link){.link = f.side[i], .synchronized = true};
    }
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    for (int i = 0; i < NLINKS; i++) {
        mortar_link_close(f->side[i]);
        mortar_link_close(f->peer[i]);
    }
    return 0;
}

/* The peer of link i says it sends nothing stamped before `at` (a null
 * message sent at at - LAT); the side reads it. */
static void peer_promises(fixture *f, int i, uint64_t at)
{
    assert_int_equal(mortar_link_send_sync(f->peer[i], at - LAT), 0);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(f->side[i], &m), 0);
    assert_int_equal(mortar_link_in_bound(f->side[i]), at);
}

/* The peer of link i sends a data message stamped `at`. */
static void peer_sends(fixture *f, int i, uint64_t at)
{
    uint32_t v = (uint32_t)i;
    uint64_t stamp;
    assert_int_equal(mortar_link_send(f->peer[i], at - LAT, 0x10, &v, sizeof v, 0, &stamp), 0);
    assert_int_equal(stamp, at);
}

/* Reads what the side sent on link i: how many null messages, and the
 * peer's bound afterwards. */
static unsigned peer_reads(fixture *f, int i)
{
    mortar_link_counters before, after;
    mortar_link_get_counters(f->peer[i], &before);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(f->peer[i], &m), 0);
    mortar_link_get_counters(f->peer[i], &after);
    return (unsigned)(after.syncs_received - before.syncs_received);
}

/* ---- the safe time -------------------------------------------------------------- */

static void test_safe_time_is_the_smallest_bound_first_link_at_ties(void **state)
{
    fixture *f = *state;
    peer_promises(f, 0, 5000);
    peer_promises(f, 1, 3000);
    peer_promises(f, 2, 3000);
    int holder;
    assert_int_equal(sync_rule_safe_time(f->links, NLINKS, &holder), 3000);
    assert_int_equal(holder, 1);
}

static void test_safe_time_leaves_out_unsynchronized_links(void **state)
{
    fixture *f = *state;
    peer_promises(f, 0, 2000);
    peer_promises(f, 1, 7000);
    peer_promises(f, 2, 9000);
    f->links[0].synchronized = false;
    int holder;
    assert_int_equal(sync_rule_safe_time(f->links, NLINKS, &holder), 7000);
    assert_int_equal(holder, 1);
    for (int i = 0; i < NLINKS; i++)
        f->links[i].synchronized = false;
    assert_int_equal(sync_rule_safe_time(f->links, NLINKS, &holder), MORTAR_TIME_MAX);
    assert_int_equal(holder, -1);
}

static void test_safe_time_follows_a_peer_promise(void **state)
{
    fixture *f = *state;
    assert_int_equal(mortar_link_send_promise(f->peer[0], 0, 40000), 0);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(f->side[0], &m), 0);
    peer_promises(f, 1, 60000);
    peer_promises(f, 2, 60000);
    int holder;
    assert_int_equal(sync_rule_safe_time(f->links, NLINKS, &holder), 40000 + LAT);
    assert_int_equal(holder, 0);
}

/* ---- the earliest input -------------------------------------------------------- */

static void test_earliest_input_is_a_waiting_message_before_a_later_bound(void **state)
{
    fixture *f = *state;
    peer_promises(f, 0, 6000);
    peer_sends(f, 1, 4000);
    peer_promises(f, 2, 9000);
    sync_input in;
    assert_int_equal(sync_rule_earliest(f->links, NLINKS, &in), 0);
    assert_int_equal(in.index, 1);
    assert_int_equal(in.time, 4000);
    assert_true(in.is_msg);
    assert_int_equal(in.msg.timestamp_ps, 4000);
    /* still on the ring: the side pops it when it handled it */
    assert_true(mortar_link_has_input(f->side[1]));
}

static void test_earliest_input_at_equal_times_is_the_lower_link(void **state)
{
    fixture *f = *state;
    peer_promises(f, 0, 5000);
    peer_sends(f, 1, 5000);
    peer_sends(f, 2, 5000);
    sync_input in;
    /* link 0's bound equals the messages' stamps: it comes first */
    assert_int_equal(sync_rule_earliest(f->links, NLINKS, &in), 0);
    assert_int_equal(in.index, 0);
    assert_int_equal(in.time, 5000);
    assert_false(in.is_msg);
    /* once it moved on, the lower of the two messages */
    peer_promises(f, 0, 6000);
    assert_int_equal(sync_rule_earliest(f->links, NLINKS, &in), 0);
    assert_int_equal(in.index, 1);
    assert_true(in.is_msg);
    /* handled: link 1 may still bring something at 5000, so it holds */
    mortar_link_pop(f->side[1]);
    assert_int_equal(sync_rule_earliest(f->links, NLINKS, &in), 0);
    assert_int_equal(in.index, 1);
    assert_false(in.is_msg);
    peer_promises(f, 1, 6000);
    assert_int_equal(sync_rule_earliest(f->links, NLINKS, &in), 0);
    assert_int_equal(in.index, 2);
    assert_true(in.is_msg);
}

static void test_earliest_bound_without_messages(void **state)
{
    fixture *f = *state;
    peer_promises(f, 0, 3000);
    peer_promises(f, 1, 2000);
    peer_promises(f, 2, 2000);
    sync_input in;
    assert_int_equal(sync_rule_earliest(f->links, NLINKS, &in), 0);
    assert_int_equal(in.index, 1);
    assert_int_equal(in.time, 2000);
    assert_false(in.is_msg);
}

static void test_earliest_names_the_link_of_a_protocol_error(void **state)
{
    fixture *f = *state;
    assert_int_equal(mortar_link_send_promise(f->peer[2], 0, 90000), 0);
    uint32_t v = 1;
    assert_int_equal(mortar_link_send(f->peer[2], 5000, 0x10, &v, sizeof v, 0, NULL), 0);
    sync_input in;
    assert_int_equal(sync_rule_earliest(f->links, NLINKS, &in), MORTAR_EPROTO);
    assert_int_equal(in.index, 2);
}

/* ---- promises ------------------------------------------------------------------- */

typedef struct promise_ctx {
    uint64_t own;               /* own_next for every link */
    uint64_t lat[NLINKS][NLINKS]; /* latency from i to j */
} promise_ctx;

static uint64_t test_own_next(void *ctx, unsigned j)
{
    (void)j;
    return ((promise_ctx *)ctx)->own;
}

static uint64_t test_latency(void *ctx, unsigned i, unsigned j)
{
    return ((promise_ctx *)ctx)->lat[i][j];
}

static sync_promiser promiser(promise_ctx *c, bool peek)
{
    return (sync_promiser){.own_next = test_own_next, .latency = test_latency, .peek = peek,
                           .ctx = c};
}

static void test_promise_is_the_earliest_of_own_events_and_other_inputs(void **state)
{
    fixture *f = *state;
    promise_ctx c = {.own = 50000};
    for (int i = 0; i < NLINKS; i++)
        for (int j = 0; j < NLINKS; j++)
            c.lat[i][j] = 700;
    peer_promises(f, 0, 1000); /* link 0 itself: left out */
    peer_promises(f, 1, 30000);
    peer_promises(f, 2, 45000);
    sync_promiser p = promiser(&c, false);
    assert_int_equal(sync_rule_next_send(f->links, NLINKS, 0, 100, &p), 30000 + 700);
    /* an input that cannot reach link 0 is left out */
    c.lat[1][0] = MORTAR_TIME_MAX;
    assert_int_equal(sync_rule_next_send(f->links, NLINKS, 0, 100, &p), 45000 + 700);
    /* the side's own next event first */
    c.own = 20000;
    assert_int_equal(sync_rule_next_send(f->links, NLINKS, 0, 100, &p), 20000);
}

static void test_promise_is_never_before_now(void **state)
{
    fixture *f = *state;
    promise_ctx c = {.own = 10};
    peer_promises(f, 1, 2000);
    peer_promises(f, 2, 2000);
    sync_promiser p = promiser(&c, false);
    assert_int_equal(sync_rule_next_send(f->links, NLINKS, 0, 1500, &p), 1500);
}

static void test_promise_an_unsynchronized_input_brings_messages_now(void **state)
{
    fixture *f = *state;
    promise_ctx c = {.own = MORTAR_TIME_MAX};
    for (int i = 0; i < NLINKS; i++)
        for (int j = 0; j < NLINKS; j++)
            c.lat[i][j] = 300;
    peer_promises(f, 1, 80000);
    peer_promises(f, 2, 90000);
    f->links[2].synchronized = false;
    sync_promiser p = promiser(&c, false);
    assert_int_equal(sync_rule_next_send(f->links, NLINKS, 0, 5000, &p), 5000 + 300);
}

static void test_promise_peeking_counts_a_waiting_message_at_its_stamp(void **state)
{
    fixture *f = *state;
    promise_ctx c = {.own = MORTAR_TIME_MAX};
    peer_promises(f, 1, 3000);
    peer_promises(f, 2, 90000);
    peer_sends(f, 1, 7000);
    /* without peeking, link 1 brings its bound (its messages are the side's
     * own events once it moved them) */
    sync_promiser quiet = promiser(&c, false);
    assert_int_equal(sync_rule_next_send(f->links, NLINKS, 0, 0, &quiet), 3000);
    /* peeking, the waiting message's stamp */
    sync_promiser peek = promiser(&c, true);
    assert_int_equal(sync_rule_next_send(f->links, NLINKS, 0, 0, &peek), 7000);
    /* without a latency table every input reaches every link at once */
    peek.latency = NULL;
    assert_int_equal(sync_rule_next_send(f->links, NLINKS, 0, 0, &peek), 7000);
}

/* ---- due null messages ---------------------------------------------------------- */

static void test_null_message_is_due_one_interval_after_the_last_send(void **state)
{
    fixture *f = *state;
    sync_due due;
    /* a new link last sent at 0: due at one interval (the latency) */
    assert_int_equal(sync_rule_send_due(f->links, NLINKS, LAT - 1, NULL, &due), 0);
    assert_int_equal(due.next_due, LAT);
    assert_int_equal(due.sent, 0);
    for (int i = 0; i < NLINKS; i++)
        assert_int_equal(peer_reads(f, i), 0);
    assert_int_equal(sync_rule_send_due(f->links, NLINKS, LAT, NULL, &due), 0);
    assert_int_equal(due.next_due, 2 * LAT);
    assert_int_equal(due.failed, -1);
    assert_int_equal(due.sent, NLINKS);
    for (int i = 0; i < NLINKS; i++) {
        assert_int_equal(peer_reads(f, i), 1);
        assert_int_equal(mortar_link_in_bound(f->peer[i]), 2 * LAT);
    }
    /* a data message counts as a send */
    uint32_t v = 0;
    assert_int_equal(mortar_link_send(f->side[1], 3 * LAT, 0x10, &v, sizeof v, 0, NULL), 0);
    assert_int_equal(sync_rule_send_due(f->links, NLINKS, 3 * LAT, NULL, &due), 0);
    assert_int_equal(peer_reads(f, 0), 1);
    assert_int_equal(peer_reads(f, 2), 1);
    assert_int_equal(due.next_due, 4 * LAT);
    assert_int_equal(mortar_link_sync_due(f->side[1]), 4 * LAT);
}

static void test_due_null_message_carries_the_promise(void **state)
{
    fixture *f = *state;
    promise_ctx c = {.own = 50000};
    peer_promises(f, 1, 90000);
    peer_promises(f, 2, 90000);
    sync_promiser p = promiser(&c, false);
    sync_due due;
    assert_int_equal(sync_rule_send_due(f->links, NLINKS, LAT, &p, &due), 0);
    assert_int_equal(peer_reads(f, 0), 1);
    /* the promise is for sends: their stamps are a latency later */
    assert_int_equal(mortar_link_in_bound(f->peer[0]), 50000 + LAT);
}

static void test_unsynchronized_links_get_no_null_messages(void **state)
{
    fixture *f = *state;
    f->links[1].synchronized = false;
    sync_due due;
    assert_int_equal(sync_rule_send_due(f->links, NLINKS, 5 * LAT, NULL, &due), 0);
    assert_int_equal(due.sent, NLINKS - 1);
    assert_int_equal(peer_reads(f, 0), 1);
    assert_int_equal(peer_reads(f, 1), 0);
    assert_int_equal(peer_reads(f, 2), 1);
    sync_rule_start(f->links, NLINKS, 6 * LAT);
    assert_int_equal(peer_reads(f, 0), 1);
    assert_int_equal(peer_reads(f, 1), 0);
    assert_int_equal(peer_reads(f, 2), 1);
}

static void test_start_sends_a_null_message_on_every_link(void **state)
{
    fixture *f = *state;
    sync_rule_start(f->links, NLINKS, 0);
    for (int i = 0; i < NLINKS; i++) {
        assert_int_equal(peer_reads(f, i), 1);
        assert_int_equal(mortar_link_in_horizon(f->peer[i]), LAT);
    }
}

static void test_refused_null_message_stays_due(void **state)
{
    fixture *f = *state;
    sync_due due;
    uint64_t now = 0;
    /* the peer of link 0 does not read: its ring fills */
    for (int k = 0; k < SLOTS; k++) {
        now += LAT;
        assert_int_equal(sync_rule_send_due(f->links, NLINKS, now, NULL, &due), 0);
        peer_reads(f, 1);
        peer_reads(f, 2);
    }
    now += LAT;
    assert_int_equal(sync_rule_send_due(f->links, NLINKS, now, NULL, &due), 0);
    /* link 0's is refused and still due: tried again at every step */
    assert_true(due.next_due <= now);
    assert_true(mortar_link_sync_due(f->side[0]) <= now);
    assert_int_equal(mortar_link_sync_due(f->side[1]), now + LAT);
    /* the same clock, the peer reads (the refused one is not there): the
     * retry goes out */
    assert_int_equal(peer_reads(f, 0), SLOTS);
    assert_int_equal(sync_rule_send_due(f->links, NLINKS, now, NULL, &due), 0);
    assert_int_equal(peer_reads(f, 0), 1);
    assert_int_equal(mortar_link_in_horizon(f->peer[0]), now + LAT);
    assert_int_equal(mortar_link_sync_due(f->side[0]), now + LAT);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_safe_time_is_the_smallest_bound_first_link_at_ties),
        T(test_safe_time_leaves_out_unsynchronized_links),
        T(test_safe_time_follows_a_peer_promise),
        T(test_earliest_input_is_a_waiting_message_before_a_later_bound),
        T(test_earliest_input_at_equal_times_is_the_lower_link),
        T(test_earliest_bound_without_messages),
        T(test_earliest_names_the_link_of_a_protocol_error),
        T(test_promise_is_the_earliest_of_own_events_and_other_inputs),
        T(test_promise_is_never_before_now),
        T(test_promise_an_unsynchronized_input_brings_messages_now),
        T(test_promise_peeking_counts_a_waiting_message_at_its_stamp),
        T(test_null_message_is_due_one_interval_after_the_last_send),
        T(test_due_null_message_carries_the_promise),
        T(test_unsynchronized_links_get_no_null_messages),
        T(test_start_sends_a_null_message_on_every_link),
        T(test_refused_null_message_stays_due),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
