/*
 * test_link_wait.c - waiting on a link: a consumer that went to sleep on
 * the futex is woken by its producer's next message, within one process
 * (an in-process pair, two threads) and across processes; the producer
 * saw it waiting (it counts the wake), whichever way it publishes. A
 * consumer waiting for a bound sleeps through null messages below it. A
 * consumer that just took a stream in (and lets the next one run ahead
 * before it looks) still gets the single message that follows. Two peers
 * that keep meeting on one CPU are moved apart.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
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

/* Listens on a fresh socket path (into `path`) with `p` set for the BLOCK
 * policy. */
static mortar_link *listen_blocking(const char *tag, char *path, size_t size,
                                    mortar_link_params *p)
{
    snprintf(path, size, "/tmp/mortar-test-%s-%d.sock", tag, (int)getpid());
    params(p, MORTAR_WAIT_BLOCK);
    mortar_link *l;
    char err[256];
    assert_int_equal(mortar_link_listen(&l, path, p, err, sizeof err), 0);
    return l;
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
    mortar_link_params p;
    mortar_link *l = listen_blocking("wait", path, sizeof path, &p);
    char err[256];
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

/* Pins the calling thread to `cpu`, or to every CPU in `set` when cpu < 0. */
static void pin(int cpu, const cpu_set_t *set)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    if (cpu >= 0)
        CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, cpu >= 0 ? &one : set) != 0)
        _exit(3);
}

#define ROUND_TRIPS 2000

/* The connector's side: pinned to the listener's CPU at first, then free
 * to run anywhere; sends, then waits for the answer. */
static void ping(const char *path, const mortar_link_params *p, const cpu_set_t *all)
{
    mortar_link *c;
    char err[256];
    if (mortar_link_connect(&c, path, p, err, sizeof err) != 0)
        _exit(2);
    pin(-1, all);
    for (int i = 0; i < ROUND_TRIPS; i++) {
        mortar_msg m;
        if (mortar_link_send(c, 0, 0x10, &i, sizeof i, 0, NULL) != 0)
            _exit(4);
        while (mortar_link_peek(c, &m) != 1)
            if (mortar_link_wait(c, 5000) != 0)
                _exit(5);
        mortar_link_pop(c);
    }
    usleep(20000); /* the last answer is read before the socket closes */
    mortar_link_close(c);
    _exit(0);
}

/* Both sides start on one CPU; another runs a CPU-bound process pinned
 * there, so the scheduler sees two busy CPUs and no reason to part the
 * pair (each side is runnable only while the other waits). The
 * listener's side leaves after a run of waits that found its peer on its
 * CPU. */
static void test_link_wait_parts_peers_that_share_a_cpu(void **state)
{
    (void)state;
    cpu_set_t all;
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    int first = -1, second = -1;
    for (int cpu = 0; cpu < CPU_SETSIZE && second < 0; cpu++)
        if (CPU_ISSET(cpu, &all))
            *(first < 0 ? &first : &second) = cpu;
    if (second < 0)
        skip(); /* one CPU: nowhere to go */
    pid_t hog = fork();
    if (hog == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives a failed test */
        pin(second, NULL);
        for (volatile unsigned long x = 0;; x++)
            ;
    }
    pin(first, NULL);
    char path[64];
    mortar_link_params p;
    mortar_link *l = listen_blocking("apart", path, sizeof path, &p);
    pid_t child = fork();
    if (child == 0)
        ping(path, &p, &all);
    assert_int_equal(mortar_link_accept(l), 0);
    pin(-1, &all);
    bool left = false;
    for (int i = 0; i < ROUND_TRIPS; i++) {
        mortar_msg m;
        while (mortar_link_peek(l, &m) != 1)
            assert_int_equal(mortar_link_wait(l, 5000), 0);
        mortar_link_pop(l);
        left |= sched_getcpu() != first;
        assert_int_equal(mortar_link_send(l, 0, 0x10, &i, sizeof i, 0, NULL), 0);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    kill(hog, SIGKILL);
    waitpid(hog, NULL, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    mortar_link_close(l);
    assert_true(left);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_link_wait_wakes_a_sleeping_consumer_in_process),
        cmocka_unit_test(test_link_wait_wakes_a_sleeping_consumer_across_processes),
        cmocka_unit_test(test_link_wait_bound_sleeps_through_lower_null_messages),
        cmocka_unit_test(test_link_wait_after_a_stream_ends_at_the_next_message),
        cmocka_unit_test(test_link_wait_parts_peers_that_share_a_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
