/*
 * test_loop.c - the event loop delivers messages intact: every payload byte,
 * the size and the stamp, for sizes on both sides of the limit below which a
 * payload travels inside the event (no allocation), between co-located
 * components and from a link.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "mortar/component.h"
#include "mortar/error.h"
#include "mortar/link.h"
#include "mortar/runtime.h"

#define TYPE 0x10
#define LATENCY_PS 1000

static const uint32_t sizes[] = {0, 1, 16, 23, 24, 25, 32, 64, 1000};
#define N_SIZES (sizeof sizes / sizeof sizes[0])

static uint8_t pattern(uint32_t size, uint32_t i)
{
    return (uint8_t)(size * 7 + i * 13 + 1);
}

static void fill(uint8_t *buf, uint32_t size)
{
    for (uint32_t i = 0; i < size; i++)
        buf[i] = pattern(size, i);
}

typedef struct probe {
    mortar_component *self;
    bool sender;
    unsigned received, bad_bytes, bad_stamp, bad_size;
} probe;

static int probe_create(mortar_component *self, const mortar_params *params, void **state)
{
    (void)params;
    probe *p = calloc(1, sizeof *p);
    if (!p)
        return MORTAR_ENOMEM;
    p->self = self;
    mortar_port_declare(self, 0, MORTAR_PROTO_TEST, NULL, 0);
    *state = p;
    return MORTAR_OK;
}

/* The sender sends one message of each size, the k-th at k ns. */
static void probe_start(void *state)
{
    probe *p = state;
    if (p->sender)
        mortar_timer_set(p->self, 0, 0);
}

static void probe_timer(void *state, uint64_t k)
{
    probe *p = state;
    uint8_t buf[1000];
    fill(buf, sizes[k]);
    assert_int_equal(mortar_send(p->self, 0, TYPE, buf, sizes[k], 0, NULL), 0);
    if (k + 1 < N_SIZES)
        mortar_timer_set(p->self, mortar_now(p->self) + 1000, k + 1);
}

static void probe_message(void *state, unsigned port, const mortar_msg *msg)
{
    probe *p = state;
    (void)port;
    unsigned k = p->received++;
    if (k >= N_SIZES || msg->size != sizes[k]) {
        p->bad_size++;
        return;
    }
    if (msg->timestamp_ps != (uint64_t)k * 1000 + LATENCY_PS ||
        mortar_now(p->self) != msg->timestamp_ps)
        p->bad_stamp++;
    const uint8_t *b = msg->payload;
    for (uint32_t i = 0; i < msg->size; i++)
        if (b[i] != pattern(msg->size, i))
            p->bad_bytes++;
}

static void probe_destroy(void *state)
{
    free(state);
}

static const mortar_component_ops probe_ops = {
    .kind = "probe",
    .summary = "sends or checks patterned payloads",
    .create = probe_create,
    .start = probe_start,
    .message = probe_message,
    .timer = probe_timer,
    .destroy = probe_destroy,
};

static void link_params(mortar_link_params *p)
{
    mortar_link_params_init(p);
    p->name = "probe";
    p->slot_size = 2048;
    p->slot_count = 16;
    p->latency_ps = LATENCY_PS;
}

static void check_receiver(const probe *r)
{
    assert_int_equal(r->received, N_SIZES);
    assert_int_equal(r->bad_size, 0);
    assert_int_equal(r->bad_stamp, 0);
    assert_int_equal(r->bad_bytes, 0);
}

static void test_loop_delivers_colocated_payloads_intact(void **state)
{
    (void)state;
    mortar_loop *loop;
    assert_int_equal(mortar_loop_create(&loop), 0);
    mortar_component *a, *b;
    assert_int_equal(mortar_loop_add(loop, &probe_ops, "a", NULL, &a), 0);
    assert_int_equal(mortar_loop_add(loop, &probe_ops, "b", NULL, &b), 0);
    ((probe *)mortar_component_state(a))->sender = true;
    mortar_link_params lp;
    link_params(&lp);
    assert_int_equal(mortar_loop_connect(loop, a, 0, b, 0, &lp), 0);
    assert_int_equal(mortar_loop_run(loop, MORTAR_US(100)), 0);
    check_receiver(mortar_component_state(b));
    mortar_loop_destroy(loop);
}

/* A link pair: the outside end is the test's, the inside end the loop's. */
static void outside_and_inside(mortar_link **outside, mortar_link **inside)
{
    mortar_link_params lp;
    link_params(&lp);
    assert_int_equal(mortar_link_pair(outside, inside, &lp), 0);
}

/* The outside end of a link sends one message of each size, the k-th
 * sent at k ns. */
static void send_patterned(mortar_link *outside)
{
    for (unsigned k = 0; k < N_SIZES; k++) {
        uint8_t buf[1000];
        fill(buf, sizes[k]);
        assert_int_equal(mortar_link_send(outside, (uint64_t)k * 1000, TYPE, buf, sizes[k], 0,
                                          NULL),
                         0);
    }
}

/* A loop with one receiving probe *r bound to `inside`. */
static mortar_loop *receiving_loop(mortar_link *inside, mortar_component **r)
{
    mortar_loop *loop;
    assert_int_equal(mortar_loop_create(&loop), 0);
    assert_int_equal(mortar_loop_add(loop, &probe_ops, "r", NULL, r), 0);
    assert_int_equal(mortar_loop_bind(loop, *r, 0, inside), 0);
    return loop;
}

static void test_loop_delivers_payloads_from_a_link_intact(void **state)
{
    (void)state;
    mortar_link *outside, *inside;
    outside_and_inside(&outside, &inside);
    send_patterned(outside);
    assert_int_equal(mortar_link_terminate(outside, 100), 0);
    mortar_component *r;
    mortar_loop *loop = receiving_loop(inside, &r);
    assert_int_equal(mortar_loop_run(loop, MORTAR_US(100)), 0);
    check_receiver(mortar_component_state(r));
    mortar_loop_destroy(loop);
    mortar_link_close(outside);
}

/* A peer that stays but promises never to send again, having consumed all
 * we sent (another simulator whose hosts are gone): with nothing pending,
 * the loop ends instead of waiting forever (the alarm fails the test). */
static void test_loop_ends_when_nothing_can_happen_again(void **state)
{
    (void)state;
    mortar_link *outside, *inside;
    outside_and_inside(&outside, &inside);
    send_patterned(outside);
    assert_int_equal(mortar_link_send_promise(outside, N_SIZES * 1000, MORTAR_TIME_MAX), 0);
    mortar_component *r;
    mortar_loop *loop = receiving_loop(inside, &r);
    alarm(10);
    assert_int_equal(mortar_loop_run(loop, MORTAR_TIME_MAX), 0);
    alarm(0);
    check_receiver(mortar_component_state(r));
    assert_false(mortar_link_peer_terminated(inside));
    mortar_loop_destroy(loop);
    mortar_link_close(outside);
}

/* A promise that runs out is no end: the loop waits at its bound until
 * the peer says more (here: it terminates). */
typedef struct stepper {
    mortar_loop *loop;
    atomic_bool returned;
    int rc;
} stepper;

static void *step_to_the_end(void *arg)
{
    stepper *st = arg;
    st->rc = mortar_loop_step(st->loop, MORTAR_TIME_MAX);
    atomic_store(&st->returned, true);
    return NULL;
}

static void test_loop_waits_out_a_finite_promise(void **state)
{
    (void)state;
    mortar_link *outside, *inside;
    outside_and_inside(&outside, &inside);
    assert_int_equal(mortar_link_send_promise(outside, 0, MORTAR_US(50)), 0);
    mortar_component *r;
    stepper st = {.loop = receiving_loop(inside, &r), .rc = -1};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, step_to_the_end, &st), 0);
    usleep(50000);
    assert_false(atomic_load(&st.returned));
    assert_int_equal(mortar_link_terminate(outside, 100), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(st.rc, 0);
    assert_int_equal(mortar_loop_now(st.loop), MORTAR_US(50) + LATENCY_PS);
    mortar_loop_destroy(st.loop);
    mortar_link_close(outside);
}

/* mortar_port_quiet_until: a component with a timer at QUIET_AT, asked
 * while it handles a message on its link; with a neighbour in the process
 * whose own timer, at TICK_AT, could reach it sooner. */
#define QUIET_AT MORTAR_US(30)
#define TICK_AT  MORTAR_US(10)

#define QUIET_ASKS 16

typedef struct quiet {
    mortar_component *self;
    uint64_t said, own, now, unknown_port;
    /* the same questions asked again (with bound jitter, the answers vary) */
    uint64_t said_again[QUIET_ASKS], own_again[QUIET_ASKS];
} quiet;

/* A quiet component with `nports` test ports. */
static int quiet_make(mortar_component *self, unsigned nports, void **state)
{
    quiet *q = calloc(1, sizeof *q);
    if (!q)
        return MORTAR_ENOMEM;
    q->self = self;
    for (unsigned port = 0; port < nports; port++)
        mortar_port_declare(self, port, MORTAR_PROTO_TEST, NULL, 0);
    *state = q;
    return MORTAR_OK;
}

static int quiet_create(mortar_component *self, const mortar_params *params, void **state)
{
    (void)params;
    return quiet_make(self, 2, state);
}

static void quiet_start(void *state)
{
    quiet *q = state;
    mortar_timer_set(q->self, QUIET_AT, 0);
}

/* The neighbour: one port, and a timer at TICK_AT. */
static int ticker_create(mortar_component *self, const mortar_params *params, void **state)
{
    (void)params;
    return quiet_make(self, 1, state);
}

static void ticker_start(void *state)
{
    quiet *q = state;
    mortar_timer_set(q->self, TICK_AT, 0);
}

static void quiet_timer(void *state, uint64_t k)
{
    (void)state;
    (void)k;
}

static void quiet_message(void *state, unsigned port, const mortar_msg *msg)
{
    quiet *q = state;
    (void)msg;
    q->said = mortar_port_quiet_until(q->self, port);
    q->own = mortar_port_quiet_until_own(q->self, port);
    q->now = mortar_now(q->self);
    q->unknown_port = mortar_port_quiet_until(q->self, 5);
    for (unsigned i = 0; i < QUIET_ASKS; i++) {
        q->said_again[i] = mortar_port_quiet_until(q->self, port);
        q->own_again[i] = mortar_port_quiet_until_own(q->self, port);
    }
}

static const mortar_component_ops quiet_ops = {
    .kind = "quiet",
    .summary = "asks when it will next act",
    .create = quiet_create,
    .start = quiet_start,
    .message = quiet_message,
    .timer = quiet_timer,
    .destroy = probe_destroy,
};

static const mortar_component_ops ticker_ops = {
    .kind = "ticker",
    .summary = "acts once, at TICK_AT",
    .create = ticker_create,
    .start = ticker_start,
    .timer = quiet_timer,
    .destroy = probe_destroy,
};

static quiet quiet_run(bool promises, bool jitter)
{
    mortar_link *outside, *inside;
    outside_and_inside(&outside, &inside);
    uint8_t x = 0;
    assert_int_equal(mortar_link_send(outside, 1000, TYPE, &x, 1, 0, NULL), 0);
    assert_int_equal(mortar_link_terminate(outside, 100), 0);
    mortar_loop *loop;
    mortar_component *c, *t;
    assert_int_equal(mortar_loop_create(&loop), 0);
    mortar_loop_set_promises(loop, promises);
    mortar_loop_set_bound_jitter(loop, jitter);
    assert_int_equal(mortar_loop_add(loop, &quiet_ops, "q", NULL, &c), 0);
    assert_int_equal(mortar_loop_add(loop, &ticker_ops, "t", NULL, &t), 0);
    assert_int_equal(mortar_loop_bind(loop, c, 0, inside), 0);
    mortar_link_params lp;
    link_params(&lp);
    assert_int_equal(mortar_loop_connect(loop, t, 0, c, 1, &lp), 0);
    assert_int_equal(mortar_loop_run(loop, MORTAR_US(100)), 0);
    quiet q = *(quiet *)mortar_component_state(c);
    mortar_loop_destroy(loop);
    mortar_link_close(outside);
    return q;
}

static void test_port_quiet_until_the_next_event(void **state)
{
    (void)state;
    quiet q = quiet_run(true, false);
    assert_int_equal(q.now, 1000 + LATENCY_PS);
    assert_int_equal(q.said, TICK_AT + LATENCY_PS); /* the neighbour's tick could reach it */
    assert_int_equal(q.own, QUIET_AT);              /* its own timer alone */
    assert_int_equal(q.unknown_port, q.now);
    q = quiet_run(false, false); /* promises off: nothing to say */
    assert_int_equal(q.said, q.now);
    assert_int_equal(q.own, q.now);
}

/* With bound jitter the answers are now and then earlier, never later and
 * never before now; they vary from one question to the next. */
static void test_bound_jitter_answers_less_but_never_too_much(void **state)
{
    (void)state;
    quiet q = quiet_run(true, true);
    unsigned said_less = 0, own_less = 0;
    for (unsigned i = 0; i < QUIET_ASKS; i++) {
        assert_in_range(q.said_again[i], q.now, TICK_AT + LATENCY_PS);
        assert_in_range(q.own_again[i], q.now, QUIET_AT);
        said_less += q.said_again[i] < TICK_AT + LATENCY_PS;
        own_less += q.own_again[i] < QUIET_AT;
    }
    assert_true(said_less > 0 && said_less < QUIET_ASKS);
    assert_true(own_less > 0 && own_less < QUIET_ASKS);
    q = quiet_run(true, false); /* off: the same answer every time */
    for (unsigned i = 0; i < QUIET_ASKS; i++) {
        assert_int_equal(q.said_again[i], TICK_AT + LATENCY_PS);
        assert_int_equal(q.own_again[i], QUIET_AT);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_delivers_colocated_payloads_intact),
        cmocka_unit_test(test_loop_delivers_payloads_from_a_link_intact),
        cmocka_unit_test(test_loop_ends_when_nothing_can_happen_again),
        cmocka_unit_test(test_loop_waits_out_a_finite_promise),
        cmocka_unit_test(test_port_quiet_until_the_next_event),
        cmocka_unit_test(test_bound_jitter_answers_less_but_never_too_much),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
