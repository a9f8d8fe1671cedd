/*
 * test_link_wait.c - waiting on a link: a consumer that went to sleep on
 * the futex is woken by its producer's next message, within one process
 * (an in-process pair, two threads) and across processes; the producer
 * saw it waiting (it counts the wake), whichever way it publishes. A
 * consumer waiting for a bound sleeps through null messages below it. A
 * consumer that just took a stream in (and lets the next one run ahead
 * before it looks) still gets the single message that follows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "mortar/error.h"
#include "mortar/link.h"
#include "mortar/time.h"

/* The producer waits this long before it sends: more than the consumer's
 * spinning and yielding before it sleeps (a few milliseconds). */
#define SEND_DELAY_US 80000

static void params(mortar_link_params *p, mortar_wait_policy w)
{
    mortar_link_params_init(p);
    p->name = "wait";
    p->slot_size = 128;
    p->slot_count = 16;
    p->sync_mode = MORTAR_SYNC_OFF;
    p->wait_policy = w;
}

/* Sleeps, then sends one message; returns the producer's wakes. */
static uint64_t send_late(mortar_link *l)
{
    usleep(SEND_DELAY_US);
    uint32_t v = 42;
    if (mortar_link_send(l, 0, 0x10, &v, sizeof v, 0, NULL) != 0)
        return 0;
    mortar_link_counters c;
    mortar_link_get_counters(l, &c);
    return c.wakes_sent;
}

typedef struct producer {
    mortar_link *link;
    uint64_t wakes;
} producer;

static void *producer_thread(void *arg)
{
    producer *p = arg;
    p->wakes = send_late(p->link);
    return NULL;
}

/* Waits for the one message on `l`; checks it arrived and that we slept. */
static void expect_message_after_sleeping(mortar_link *l)
{
    assert_int_equal(mortar_link_wait(l, 5000), 0);
    mortar_msg m;
    assert_int_equal(mortar_link_peek(l, &m), 1);
    uint32_t v;
    memcpy(&v, m.payload, sizeof v);
    assert_int_equal(v, 42);
    mortar_link_pop(l);
    mortar_link_counters c;
    mortar_link_get_counters(l, &c);
    assert_true(c.waits_blocked >= 1);
}

static void test_link_wait_wakes_a_sleeping_consumer_in_process(void **state)
{
    (void)state;
    mortar_link_params p;
    params(&p, MORTAR_WAIT_BLOCK);
    mortar_link *a, *b;
    assert_int_equal(mortar_link_pair(&a, &b, &p), 0);
    producer prod = {.link = a};
    pthread_t t;
    pthread_create(&t, NULL, producer_thread, &prod);
    expect_message_after_sleeping(b);
    pthread_join(t, NULL);
    assert_true(prod.wakes >= 1);
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_link_wait_wakes_a_sleeping_consumer_across_processes(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/mortar-test-wait-%d.sock", (int)getpid());
    mortar_link_params p;
    params(&p, MORTAR_WAIT_BLOCK);
    mortar_link *l;
    char err[256];
    assert_int_equal(mortar_link_listen(&l, path, &p, err, sizeof err), 0);
    pid_t child = fork();
    if (child == 0) {
        mortar_link *c;
        if (mortar_link_connect(&c, path, &p, err, sizeof err) != 0)
            _exit(2);
        uint64_t wakes = send_late(c);
        usleep(20000); /* the message is read before the socket closes */
        mortar_link_close(c);
        _exit(wakes >= 1 ? 0 : 1);
    }
    assert_int_equal(mortar_link_accept(l), 0);
    expect_message_after_sleeping(l);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0); /* the producer woke us */
    mortar_link_close(l);
}

/* Null messages whose stamp and promise stay below 100 us, then one that
 * promises beyond: returns the wakes the first ones cost. */
static void *send_steps_then_promise(void *arg)
{
    producer *p = arg;
    usleep(SEND_DELAY_US);
    for (uint64_t us = 1; us <= 10; us++)
        mortar_link_send_promise(p->link, MORTAR_US(us), MORTAR_US(us));
    mortar_link_counters c;
    mortar_link_get_counters(p->link, &c);
    p->wakes = c.wakes_sent;
    usleep(SEND_DELAY_US);
    mortar_link_send_promise(p->link, MORTAR_US(11), MORTAR_US(200));
    return NULL;
}

static void test_link_wait_bound_sleeps_through_lower_null_messages(void **state)
{
    (void)state;
    mortar_link_params p;
    params(&p, MORTAR_WAIT_BLOCK);
    p.sync_mode = MORTAR_SYNC_ON;
    mortar_link *a, *b;
    assert_int_equal(mortar_link_pair(&a, &b, &p), 0);
    producer prod = {.link = a};
    pthread_t t;
    pthread_create(&t, NULL, send_steps_then_promise, &prod);
    assert_int_equal(mortar_link_wait_bound(b, MORTAR_US(100), 5000), 0);
    assert_true(mortar_link_in_bound(b) >= MORTAR_US(100));
    pthread_join(t, NULL);
    assert_int_equal(prod.wakes, 0);
    mortar_link_counters c;
    mortar_link_get_counters(b, &c);
    assert_int_equal(c.syncs_received, 11);
    mortar_link_close(a);
    mortar_link_close(b);
}

static void test_link_wait_after_a_stream_ends_at_the_next_message(void **state)
{
    (void)state;
    mortar_link_params p;
    params(&p, MORTAR_WAIT_BLOCK);
    mortar_link *a, *b;
    assert_int_equal(mortar_link_pair(&a, &b, &p), 0);
    for (int i = 0; i < 200; i++) { /* a run far above the 16 that starts a hold */
        assert_int_equal(mortar_link_send(a, 0, 0x10, &i, sizeof i, 0, NULL), 0);
        mortar_msg m;
        assert_int_equal(mortar_link_peek(b, &m), 1);
        mortar_link_pop(b);
    }
    producer prod = {.link = a};
    pthread_t t;
    pthread_create(&t, NULL, producer_thread, &prod);
    expect_message_after_sleeping(b);
    pthread_join(t, NULL);
    mortar_link_close(a);
    mortar_link_close(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_link_wait_wakes_a_sleeping_consumer_in_process),
        cmocka_unit_test(test_link_wait_wakes_a_sleeping_consumer_across_processes),
        cmocka_unit_test(test_link_wait_bound_sleeps_through_lower_null_messages),
        cmocka_unit_test(test_link_wait_after_a_stream_ends_at_the_next_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
