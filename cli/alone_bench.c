/*
 * alone_bench.c - alone_measure(): the component benchmark of `mortar
 * alone` as a function, so the verdict can put each design's alone time
 * next to its in-system latency. It runs the real device model through
 * matmul_alone_run() (sims/matmul/bench.h); nothing here knows the numbers
 * it should produce. A process measures each design and speed once.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "alone.h"
#include "mortar/error.h"
#include "sims/matmul/bench.h"

/* The model is deterministic, so a process (mortar serve answers many
 * page loads) measures each design and speed once. */
#define ALONE_MEMO_MAX 64

typedef struct alone_memo {
    char design[16];
    double speed;
    double alone_us;
} alone_memo;

static alone_memo memo[ALONE_MEMO_MAX];
static int memo_len;
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

static bool memo_find(const char *design, double speed, double *alone_us)
{
    bool found = false;
    pthread_mutex_lock(&memo_lock);
    for (int i = 0; i < memo_len && !found; i++)
        if (memo[i].speed == speed && !strcmp(memo[i].design, design)) {
            *alone_us = memo[i].alone_us;
            found = true;
        }
    pthread_mutex_unlock(&memo_lock);
    return found;
}

static void memo_add(const char *design, double speed, double alone_us)
{
    pthread_mutex_lock(&memo_lock);
    if (memo_len < ALONE_MEMO_MAX && strlen(design) < sizeof memo[0].design) {
        alone_memo *m = &memo[memo_len++];
        snprintf(m->design, sizeof m->design, "%s", design);
        m->speed = speed;
        m->alone_us = alone_us;
    }
    pthread_mutex_unlock(&memo_lock);
}

int alone_measure(const char *design, double speed, double *alone_us, char *err,
                  size_t err_size)
{
    if (memo_find(design, speed, alone_us))
        return MORTAR_OK;
    matmul_alone_result r;
    int rc = matmul_alone_run(design, speed, ALONE_DEFAULT_N, ALONE_DEFAULT_SEED,
                              ALONE_DEFAULT_RESULT, &r, err, err_size);
    if (rc)
        return rc;
    if (!r.product_ok) {
        snprintf(err, err_size,
                 "alone %s at %gx: the product differs from the reference "
                 "multiply",
                 design, speed);
        return MORTAR_EPROTO;
    }
    *alone_us = (double)r.compute_ps / 1e6;
    memo_add(design, speed, *alone_us);
    return MORTAR_OK;
}
