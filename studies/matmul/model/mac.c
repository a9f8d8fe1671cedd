/*
 * mac.c - the compute unit's arithmetic: acc += a x b for one pair of
 * 128 x 128 int8 tiles, about two million multiply-accumulates a step and
 * most of mortar-sim's time in a case-study run.
 *
 * The plain loop is the definition. Where the CPU has AVX2 or AVX-512BW
 * the same sums come from vpmaddwd: b's rows are taken two at a time,
 * interleaved as int16 pairs (b[k][c], b[k+1][c]), and each pair is
 * multiplied by the pair (a[r][k], a[r][k+1]) and summed in one int32 lane.
 * With AVX-512 VNNI, vpdpbusd takes four rows at once, as bytes.
 * Integer sums are exact in any order, so every way gives the same
 * accumulator bit for bit (test_matmul_mac checks each against the plain
 * loop); the way is chosen once, from what the CPU says it has.
 */
#include <stdint.h>
#include <string.h>

#include "model/matmul_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define MAC_X86 1
#endif

#define T MATMUL_TILE

/* `restrict` lets the compiler vectorize the inner loop (int8 may alias
 * anything otherwise). */
static void mac_plain(int32_t *restrict acc, const int8_t *restrict a, size_t lda,
                      const int8_t *restrict b, size_t ldb)
{
    for (size_t r = 0; r < T; r++) {
        int32_t *restrict out = acc + r * T;
        for (size_t k = 0; k < T; k++) {
            int32_t av = a[r * lda + k];
            const int8_t *restrict brow = b + k * ldb;
            for (size_t c = 0; c < T; c++)
                out[c] += av * brow[c];
        }
    }
}

#ifdef MAC_X86
/* b's rows 2p and 2p+1 interleaved, sign-extended to int16:
 * pairs[p][2c] = b[2p][c], pairs[p][2c+1] = b[2p+1][c]. 32 KiB. */
typedef int16_t b_pairs[T / 2][2 * T];

__attribute__((target("avx2"))) static void interleave_b(b_pairs pairs, const int8_t *b,
                                                         size_t ldb)
{
    for (size_t k = 0; k < T; k += 2)
        for (size_t c = 0; c < T; c += 16) {
            __m128i r0 = _mm_loadu_si128((const __m128i *)(const void *)(b + k * ldb + c));
            __m128i r1 = _mm_loadu_si128((const __m128i *)(const void *)(b + (k + 1) * ldb + c));
            __m256i lo = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(r0, r1));
            __m256i hi = _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(r0, r1));
            _mm256_storeu_si256((__m256i *)(void *)&pairs[k / 2][2 * c], lo);
            _mm256_storeu_si256((__m256i *)(void *)&pairs[k / 2][2 * c + 16], hi);
        }
}

/* (a[r][2p], a[r][2p+1]) as the two int16 halves of one int32 lane. */
static inline int32_t a_pair(const int8_t *arow, size_t p)
{
    uint32_t lo = (uint16_t)(int16_t)arow[2 * p], hi = (uint16_t)(int16_t)arow[2 * p + 1];
    return (int32_t)(lo | hi << 16);
}

/* Half a row (64 columns) at a time in eight 8-lane accumulators. */
__attribute__((target("avx2"))) static void mac_avx2(int32_t *restrict acc,
                                                     const int8_t *restrict a, size_t lda,
                                                     const int8_t *restrict b, size_t ldb)
{
    _Alignas(64) b_pairs pairs;
    interleave_b(pairs, b, ldb);
    for (size_t r = 0; r < T; r++) {
        const int8_t *arow = a + r * lda;
        for (size_t c0 = 0; c0 < T; c0 += 64) {
            __m256i *out = (__m256i *)(void *)(acc + r * T + c0);
            __m256i s[8];
            for (int j = 0; j < 8; j++)
                s[j] = _mm256_loadu_si256(out + j);
            for (size_t p = 0; p < T / 2; p++) {
                __m256i ap = _mm256_set1_epi32(a_pair(arow, p));
                const __m256i *bp = (const __m256i *)(const void *)&pairs[p][2 * c0];
#pragma GCC unroll 8 /* the sums stay in registers */
                for (int j = 0; j < 8; j++)
                    s[j] = _mm256_add_epi32(s[j], _mm256_madd_epi16(ap, _mm256_load_si256(bp + j)));
            }
            for (int j = 0; j < 8; j++)
                _mm256_storeu_si256(out + j, s[j]);
        }
    }
}

/* A whole row (128 columns) at a time in eight 16-lane accumulators. */
__attribute__((target("avx2,avx512f,avx512bw"))) static void
mac_avx512(int32_t *restrict acc, const int8_t *restrict a, size_t lda,
           const int8_t *restrict b, size_t ldb)
{
    _Alignas(64) b_pairs pairs;
    interleave_b(pairs, b, ldb);
    for (size_t r = 0; r < T; r++) {
        const int8_t *arow = a + r * lda;
        int32_t *out = acc + r * T;
        __m512i s[8];
        for (int j = 0; j < 8; j++)
            s[j] = _mm512_loadu_si512(out + 16 * j);
        for (size_t p = 0; p < T / 2; p++) {
            __m512i ap = _mm512_set1_epi32(a_pair(arow, p));
            const int16_t *bp = pairs[p];
#pragma GCC unroll 8 /* the sums stay in registers */
            for (int j = 0; j < 8; j++)
                s[j] = _mm512_add_epi32(s[j], _mm512_madd_epi16(ap, _mm512_load_si512(bp + 32 * j)));
        }
        for (int j = 0; j < 8; j++)
            _mm512_storeu_si512(out + 16 * j, s[j]);
    }
}

/* b's rows 4q..4q+3 interleaved as bytes: quads[q][4c + i] = b[4q + i][c].
 * 16 KiB. */
typedef int8_t b_quads[T / 4][4 * T];

__attribute__((target("avx2"))) static void interleave_b4(b_quads quads, const int8_t *b,
                                                          size_t ldb)
{
    for (size_t k = 0; k < T; k += 4)
        for (size_t c = 0; c < T; c += 16) {
            __m128i r0 = _mm_loadu_si128((const __m128i *)(const void *)(b + k * ldb + c));
            __m128i r1 = _mm_loadu_si128((const __m128i *)(const void *)(b + (k + 1) * ldb + c));
            __m128i r2 = _mm_loadu_si128((const __m128i *)(const void *)(b + (k + 2) * ldb + c));
            __m128i r3 = _mm_loadu_si128((const __m128i *)(const void *)(b + (k + 3) * ldb + c));
            __m128i lo01 = _mm_unpacklo_epi8(r0, r1), hi01 = _mm_unpackhi_epi8(r0, r1);
            __m128i lo23 = _mm_unpacklo_epi8(r2, r3), hi23 = _mm_unpackhi_epi8(r2, r3);
            __m128i *out = (__m128i *)(void *)&quads[k / 4][4 * c];
            _mm_storeu_si128(out + 0, _mm_unpacklo_epi16(lo01, lo23));
            _mm_storeu_si128(out + 1, _mm_unpackhi_epi16(lo01, lo23));
            _mm_storeu_si128(out + 2, _mm_unpacklo_epi16(hi01, hi23));
            _mm_storeu_si128(out + 3, _mm_unpackhi_epi16(hi01, hi23));
        }
}

/* (a[r][4q] .. a[r][4q+3]) + 128 as the four unsigned bytes of one lane. */
static inline int32_t a_quad_biased(const int8_t *arow, size_t q)
{
    uint32_t v;
    memcpy(&v, arow + 4 * q, sizeof v);
    return (int32_t)(v ^ 0x80808080u);
}

/*
 * vpdpbusd multiplies unsigned bytes by signed ones, four to a lane, and
 * adds them to the lane exactly (no saturation). a is signed, so each of
 * its bytes goes in with 128 added; the sums then hold 128 times each
 * column's sum of b too, which the accumulator is given less beforehand.
 * A whole row (128 columns) at a time in eight 16-lane accumulators.
 */
__attribute__((target("avx2,avx512f,avx512bw,avx512vnni"))) static void
mac_avx512vnni(int32_t *restrict acc, const int8_t *restrict a, size_t lda,
               const int8_t *restrict b, size_t ldb)
{
    _Alignas(64) b_quads quads;
    _Alignas(64) int32_t bias[T];
    interleave_b4(quads, b, ldb);
    for (size_t c = 0; c < T; c++)
        bias[c] = 0;
    for (size_t k = 0; k < T; k++)
        for (size_t c = 0; c < T; c++)
            bias[c] -= 128 * b[k * ldb + c];
    for (size_t r = 0; r < T; r++) {
        const int8_t *arow = a + r * lda;
        int32_t *out = acc + r * T;
        __m512i s[8];
        for (int j = 0; j < 8; j++)
            s[j] = _mm512_add_epi32(_mm512_loadu_si512(out + 16 * j),
                                    _mm512_load_si512(bias + 16 * j));
        for (size_t q = 0; q < T / 4; q++) {
            __m512i aq = _mm512_set1_epi32(a_quad_biased(arow, q));
            const int8_t *bq = quads[q];
#pragma GCC unroll 8 /* the sums stay in registers */
            for (int j = 0; j < 8; j++)
                s[j] = _mm512_dpbusd_epi32(s[j], aq, _mm512_load_si512(bq + 64 * j));
        }
        for (int j = 0; j < 8; j++)
            _mm512_storeu_si512(out + 16 * j, s[j]);
    }
}
#endif

/* Fastest first; the plain loop is always last. */
static const matmul_mac_way all_ways[] = {
#ifdef MAC_X86
    {"avx512vnni", mac_avx512vnni},
    {"avx512bw", mac_avx512},
    {"avx2", mac_avx2},
#endif
    {"plain", mac_plain},
};
#define N_WAYS (sizeof all_ways / sizeof all_ways[0])

static bool cpu_has(const char *way)
{
#ifdef MAC_X86
    __builtin_cpu_init();
    if (strcmp(way, "avx512vnni") == 0)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vnni");
    if (strcmp(way, "avx512bw") == 0)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    if (strcmp(way, "avx2") == 0)
        return __builtin_cpu_supports("avx2");
#endif
    return strcmp(way, "plain") == 0;
}

size_t matmul_mac_ways(const matmul_mac_way **ways, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < N_WAYS; i++)
        if (cpu_has(all_ways[i].name) && n < max)
            ways[n++] = &all_ways[i];
    return n;
}

void matmul_unit_mac(int32_t *restrict acc, const int8_t *restrict a, size_t lda,
                     const int8_t *restrict b, size_t ldb)
{
    static matmul_mac_fn *fastest;
    if (!fastest) {
        const matmul_mac_way *w;
        matmul_mac_ways(&w, 1);
        fastest = w->mac;
    }
    fastest(acc, a, lda, b, ldb);
}
