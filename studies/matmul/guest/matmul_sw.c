/*
 * matmul_sw.c - the software baseline: the product on the server's own CPU.
 *
 * Inside the simulation a product costs guest time by the instruction, so
 * the kernel aims at few instructions: B is transposed and widened to int16
 * once per request (columns become contiguous rows), A two rows at a time;
 * each 2 x 4 block of C is then eight dot products of int16 vectors done
 * with SSE2's PMADDWD (8 multiply-adds per instruction, exact in int32:
 * |a*b| <= 2^14, a pair <= 2^15, a sum over n <= 4096 terms < 2^31). About
 * 50 M instructions for n = 512. Without SSE2 the same blocking in plain C.
 *
 * For an int8 product (the default) each pair of rows is computed into two
 * int32 scratch rows and requantized on this CPU with the device's rule
 * (studies/matmul/model/result.h): about 3 M instructions more at n = 512.
 */
#include <stdlib.h>
#include <string.h>

#include "matmul_internal.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

size_t matmul_guest_sw_work_bytes(uint32_t n)
{
    return (size_t)n * n * sizeof(int16_t) + 2 * (size_t)n * sizeof(int16_t) +
           2 * (size_t)n * sizeof(int32_t);
}

/* bt[j * n + k] = b[k * n + j], widened. */
static void transpose_widen(uint32_t n, const int8_t *b, int16_t *bt)
{
    for (size_t k = 0; k < n; k++) {
        const int8_t *row = b + k * n;
        for (size_t j = 0; j < n; j++) {
            bt[j * n + k] = row[j];
        }
    }
}

#ifdef __SSE2__
/* Sums each accumulator's four lanes: {sum(a0), sum(a1), sum(a2), sum(a3)}. */
static inline __m128i hsum4(__m128i a0, __m128i a1, __m128i a2, __m128i a3)
{
    __m128i s01 = _mm_add_epi32(_mm_unpacklo_epi32(a0, a1), _mm_unpackhi_epi32(a0, a1));
    __m128i s23 = _mm_add_epi32(_mm_unpacklo_epi32(a2, a3), _mm_unpackhi_epi32(a2, a3));
    return _mm_add_epi32(_mm_unpacklo_epi64(s01, s23), _mm_unpackhi_epi64(s01, s23));
}

/* c rows i, i+1, columns j..j+3, from widened rows x0, x1 and bt. */
static void block_2x4(uint32_t n, const int16_t *x0, const int16_t *x1, const int16_t *bt,
                      size_t j, int32_t *c0, int32_t *c1)
{
    const int16_t *y0 = bt + j * n, *y1 = y0 + n, *y2 = y1 + n, *y3 = y2 + n;
    __m128i a00 = _mm_setzero_si128(), a01 = a00, a02 = a00, a03 = a00;
    __m128i a10 = a00, a11 = a00, a12 = a00, a13 = a00;
    for (size_t k = 0; k < n; k += 8) {
        __m128i u0 = _mm_load_si128((const __m128i *)(x0 + k));
        __m128i u1 = _mm_load_si128((const __m128i *)(x1 + k));
        __m128i v = _mm_load_si128((const __m128i *)(y0 + k));
        a00 = _mm_add_epi32(a00, _mm_madd_epi16(u0, v));
        a10 = _mm_add_epi32(a10, _mm_madd_epi16(u1, v));
        v = _mm_load_si128((const __m128i *)(y1 + k));
        a01 = _mm_add_epi32(a01, _mm_madd_epi16(u0, v));
        a11 = _mm_add_epi32(a11, _mm_madd_epi16(u1, v));
        v = _mm_load_si128((const __m128i *)(y2 + k));
        a02 = _mm_add_epi32(a02, _mm_madd_epi16(u0, v));
        a12 = _mm_add_epi32(a12, _mm_madd_epi16(u1, v));
        v = _mm_load_si128((const __m128i *)(y3 + k));
        a03 = _mm_add_epi32(a03, _mm_madd_epi16(u0, v));
        a13 = _mm_add_epi32(a13, _mm_madd_epi16(u1, v));
    }
    _mm_storeu_si128((__m128i *)(c0 + j), hsum4(a00, a01, a02, a03));
    _mm_storeu_si128((__m128i *)(c1 + j), hsum4(a10, a11, a12, a13));
}
#else
static void block_2x4(uint32_t n, const int16_t *x0, const int16_t *x1, const int16_t *bt,
                      size_t j, int32_t *c0, int32_t *c1)
{
    for (size_t q = 0; q < 4; q++) {
        const int16_t *y = bt + (j + q) * n;
        int32_t s0 = 0, s1 = 0;
        for (size_t k = 0; k < n; k++) {
            s0 += (int32_t)x0[k] * y[k];
            s1 += (int32_t)x1[k] * y[k];
        }
        c0[j + q] = s0;
        c1[j + q] = s1;
    }
}
#endif

void matmul_guest_sw_multiply(uint32_t n, const int8_t *a, const int8_t *b,
                              matmul_result result, void *c, void *work)
{
    /* work: bt (n*n int16), two widened rows of A, two int32 scratch rows
     * (int8 products); 16-byte aligned as long as work is (malloc) and n is
     * a multiple of 8. */
    int16_t *bt = work, *x0 = bt + (size_t)n * n, *x1 = x0 + n;
    int32_t *scratch = (int32_t *)(x1 + n);
    bool i32 = result == MATMUL_RESULT_I32;
    transpose_widen(n, b, bt);
    for (size_t i = 0; i < n; i += 2) {
        for (size_t k = 0; k < n; k++) {
            x0[k] = a[i * n + k];
            x1[k] = a[(i + 1) * n + k];
        }
        int32_t *c0 = i32 ? (int32_t *)c + i * n : scratch, *c1 = c0 + n;
        for (size_t j = 0; j < n; j += 4) {
            block_2x4(n, x0, x1, bt, j, c0, c1);
        }
        if (!i32) {
            matmul_requantize_all(scratch, (int8_t *)c + i * n, 2 * (size_t)n);
        }
    }
}

static int sw_open(matmul_guest *d)
{
    d->work =
        aligned_alloc(64, (matmul_guest_sw_work_bytes(d->o.max_n) + 63) & ~(size_t)63);
    if (!d->work) {
        return matmul_fail(d, MORTAR_ENOMEM, "no memory for n = %u", d->o.max_n);
    }
    return 0;
}

static int sw_submit(matmul_guest *d, matmul_slot *s, const int8_t *a, const int8_t *b)
{
    s->t.submit_ns = mortar_guest_now_ns();
    matmul_guest_sw_multiply(s->n, a, b, d->o.result, s->c, d->work);
    s->t.done_ns = mortar_guest_now_ns();
    s->t.dev_compute_ps = (s->t.done_ns - s->t.submit_ns) * 1000;
    s->done = true;
    return 0;
}

const matmul_ops matmul_ops_software = {
    .open = sw_open,
    .submit = sw_submit,
};
