/*
 * reference.c - the reference multiply the model is checked against, the
 * operand generator, and the tiled layout conversions (see reference.h).
 * Deliberately plain code: it is the yardstick, not the model.
 */
#include "model/reference.h"

#include <string.h>

#include "model/matmul_regs.h"

void matmul_ref_fill(int8_t *dst, size_t count, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < count; i++) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        dst[i] = (int8_t)((x * 2685821657736338717ull) >> 56);
    }
}

void matmul_ref_multiply(uint32_t n, const int8_t *a, const int8_t *b, int32_t *c)
{
    memset(c, 0, (size_t)n * n * sizeof *c);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n; k++) {
            int32_t av = a[i * n + k];
            for (size_t j = 0; j < n; j++)
                c[i * n + j] += av * b[k * n + j];
        }
}

void matmul_tile_i8(uint32_t n, const int8_t *row_major, int8_t *tiled)
{
    uint32_t t = n / MATMUL_TILE;
    for (uint32_t tr = 0; tr < t; tr++)
        for (uint32_t tc = 0; tc < t; tc++) {
            int8_t *dst = tiled + matmul_tile_offset(n, tr, tc, MATMUL_TILE_I8);
            for (uint32_t r = 0; r < MATMUL_TILE; r++)
                memcpy(dst + r * MATMUL_TILE,
                       row_major + ((size_t)tr * MATMUL_TILE + r) * n +
                           (size_t)tc * MATMUL_TILE,
                       MATMUL_TILE);
        }
}

void matmul_untile(uint32_t n, uint32_t elem_bytes, const void *tiled, void *row_major)
{
    uint32_t t = n / MATMUL_TILE, row_bytes = MATMUL_TILE * elem_bytes;
    uint8_t *dst = row_major;
    for (uint32_t tr = 0; tr < t; tr++)
        for (uint32_t tc = 0; tc < t; tc++) {
            const uint8_t *src = (const uint8_t *)tiled +
                                 matmul_tile_offset(n, tr, tc, MATMUL_TILE * row_bytes);
            for (uint32_t r = 0; r < MATMUL_TILE; r++)
                memcpy(dst + (((size_t)tr * MATMUL_TILE + r) * n +
                              (size_t)tc * MATMUL_TILE) *
                                 elem_bytes,
                       src + (size_t)r * row_bytes, row_bytes);
        }
}

long matmul_ref_compare(const void *a, const void *b, size_t count, uint32_t elem_bytes)
{
    const uint8_t *pa = a, *pb = b;
    for (size_t i = 0; i < count; i++)
        if (memcmp(pa + i * elem_bytes, pb + i * elem_bytes, elem_bytes) != 0)
            return (long)i;
    return -1;
}
