/*
 * simd.c - mortar-simd: checks the vCPU's PMADDWD against the instruction's
 * definition, on the values where a translation could go wrong.
 *
 * The case study's software baseline runs PMADDWD in its inner loop, and
 * mortar's QEMU translates it inline instead of calling QEMU's helper
 * (hosts/qemu/patches/i386-pmaddwd-inline.patch). Each 32-bit lane of the
 * result is the sum of the two signed products of its 16-bit halves,
 * wrapping (0x8000 * 0x8000 twice makes 0x80000000). The check runs the
 * register form, the memory form and the form whose destination is also
 * its source, over every pair of edge halves and pseudo-random vectors,
 * and compares each lane with that sum in unsigned arithmetic.
 *
 * Prints "pmaddwd_cases=N pmaddwd_ok=1" and exits 0, or names the first
 * wrong case on stderr and exits 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct vec {
    int16_t h[8];
} __attribute__((aligned(16))) vec;

static const int16_t edges[] = {0, 1, -1, 2, -2, 127, -128, 255, 0x4000, 0x7fff, -0x7fff,
                                -0x8000};
#define NEDGES (sizeof edges / sizeof edges[0])

/* The instruction's definition, lane by lane. */
static void reference(const vec *a, const vec *b, uint32_t out[4])
{
    for (int i = 0; i < 4; i++) {
        uint32_t lo = (uint32_t)((int32_t)a->h[2 * i] * b->h[2 * i]);
        uint32_t hi = (uint32_t)((int32_t)a->h[2 * i + 1] * b->h[2 * i + 1]);
        out[i] = lo + hi;
    }
}

static void pmaddwd_reg(const vec *a, const vec *b, uint32_t out[4])
{
    vec r = *a;
    __asm__("movdqa %1, %%xmm1\n\t"
            "movdqa %2, %%xmm2\n\t"
            "pmaddwd %%xmm2, %%xmm1\n\t"
            "movdqa %%xmm1, %0"
            : "=m"(r)
            : "m"(*a), "m"(*b)
            : "xmm1", "xmm2");
    memcpy(out, &r, 16);
}

static void pmaddwd_mem(const vec *a, const vec *b, uint32_t out[4])
{
    vec r;
    __asm__("movdqa %1, %%xmm3\n\t"
            "pmaddwd %2, %%xmm3\n\t"
            "movdqa %%xmm3, %0"
            : "=m"(r)
            : "m"(*a), "m"(*b)
            : "xmm3");
    memcpy(out, &r, 16);
}

/* Destination and source the same register: a times itself. */
static void pmaddwd_self(const vec *a, const vec *b, uint32_t out[4])
{
    (void)b;
    vec r;
    __asm__("movdqa %1, %%xmm4\n\t"
            "pmaddwd %%xmm4, %%xmm4\n\t"
            "movdqa %%xmm4, %0"
            : "=m"(r)
            : "m"(*a)
            : "xmm4");
    memcpy(out, &r, 16);
}

typedef void (*form)(const vec *, const vec *, uint32_t[4]);
static const form forms[] = {pmaddwd_reg, pmaddwd_mem, pmaddwd_self};
static const char *const form_names[] = {"xmm,xmm", "xmm,m128", "xmm,same xmm"};

static long cases;

/* 0, or 1 after naming the case that differs. */
static int check(const vec *a, const vec *b)
{
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        uint32_t want[4], got[4];
        reference(a, f == 2 ? a : b, want);
        forms[f](a, b, got);
        cases++;
        for (int i = 0; i < 4; i++)
            if (got[i] != want[i]) {
                fprintf(stderr,
                        "mortar-simd: pmaddwd %s lane %d: %d*%d + %d*%d gave 0x%08x, "
                        "expected 0x%08x\n",
                        form_names[f], i, a->h[2 * i], (f == 2 ? a : b)->h[2 * i],
                        a->h[2 * i + 1], (f == 2 ? a : b)->h[2 * i + 1], got[i], want[i]);
                return 1;
            }
    }
    return 0;
}

/* Every pair of edge values in each half of each lane, the lanes shifted
 * against each other so that no two lanes hold the same case. */
static int check_edges(void)
{
    for (size_t i = 0; i < NEDGES * NEDGES; i++)
        for (size_t j = 0; j < NEDGES * NEDGES; j++) {
            vec a, b;
            for (int k = 0; k < 8; k++) {
                size_t x = (i + (size_t)k * 7) % (NEDGES * NEDGES);
                size_t y = (j + (size_t)k * 5) % (NEDGES * NEDGES);
                a.h[k] = edges[k % 2 ? x / NEDGES : x % NEDGES];
                b.h[k] = edges[k % 2 ? y / NEDGES : y % NEDGES];
            }
            if (check(&a, &b))
                return 1;
        }
    return 0;
}

static int check_random(int count)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int n = 0; n < count; n++) {
        vec a, b;
        for (int k = 0; k < 8; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            a.h[k] = (int16_t)x;
            b.h[k] = (int16_t)(x >> 16);
        }
        if (check(&a, &b))
            return 1;
    }
    return 0;
}

int main(void)
{
    if (check_edges() || check_random(20000))
        return 1;
    printf("pmaddwd_cases=%ld pmaddwd_ok=1\n", cases);
    return 0;
}
