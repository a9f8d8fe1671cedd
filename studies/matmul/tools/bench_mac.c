/*
 * bench_mac.c - bench-matmul-mac: the tile pair's arithmetic
 * (model/mac.c), each way this CPU offers, side by side in one run. Prints
 * key=value lines: per way its time per tile step (128 x 128 x 128
 * multiply-accumulates) and its speed against the plain loop. Rounds
 * alternate the ways, as the machine drifts; the best round counts. Not a
 * test: the figures depend on the machine (test_matmul_mac checks that
 * every way gives the plain loop's sums).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model/matmul_internal.h"
#include "model/reference.h"

#define N      512 /* operands as wide as the case study's */
#define STEPS  256 /* tile steps a way runs per round */
#define ROUNDS 3
#define MAX_WAYS 8

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds per tile step, walking the tiles of a and b as a product would. */
static double time_way(const matmul_mac_way *w, int32_t *acc, const int8_t *a, const int8_t *b)
{
    size_t tiles = N / MATMUL_TILE;
    double start = now_s();
    for (size_t s = 0; s < STEPS; s++) {
        size_t k = s % tiles, col = (s / tiles) % tiles;
        w->mac(acc, a + k * MATMUL_TILE, N, b + k * MATMUL_TILE * N + col * MATMUL_TILE, N);
    }
    return (now_s() - start) / STEPS;
}

int main(void)
{
    const matmul_mac_way *ways[MAX_WAYS];
    size_t n = matmul_mac_ways(ways, MAX_WAYS);
    int8_t *a = malloc((size_t)N * N), *b = malloc((size_t)N * N);
    int32_t *acc = calloc((size_t)MATMUL_TILE * MATMUL_TILE, sizeof *acc);
    if (!a || !b || !acc) {
        fprintf(stderr, "bench-matmul-mac: out of memory\n");
        return 1;
    }
    matmul_ref_fill(a, (size_t)N * N, 1);
    matmul_ref_fill(b, (size_t)N * N, 2);
    double best[MAX_WAYS];
    for (size_t i = 0; i < n; i++)
        best[i] = 1e9;
    for (int r = 0; r < ROUNDS; r++)
        for (size_t i = 0; i < n; i++) {
            double t = time_way(ways[i], acc, a, b);
            if (t < best[i])
                best[i] = t;
        }
    double plain = best[n - 1]; /* the plain loop is always last */
    printf("mac_ways=%zu\nmac_fastest=%s\n", n, ways[0]->name);
    for (size_t i = 0; i < n; i++)
        printf("mac_%s_us_per_step=%.1f\nmac_%s_speedup_vs_plain=%.2f\n", ways[i]->name,
               best[i] * 1e6, ways[i]->name, plain / best[i]);
    free(a);
    free(b);
    free(acc);
    return 0;
}
