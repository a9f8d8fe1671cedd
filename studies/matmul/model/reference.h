/*
 * reference.h - host-side helpers for the matmul model's drivers, benches
 * and tests: a fixed-seed operand generator, the straightforward reference
 * product (int32; its int8 form is matmul_requantize_all() of it, the rule
 * in result.h), and conversions between row-major matrices and the tiled
 * layout designs A and B use in host memory (matmul_regs.h).
 */
#ifndef MORTAR_MATMUL_REFERENCE_H
#define MORTAR_MATMUL_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/* Fills `count` int8 values from `seed` (xorshift64*; same seed, same data). */
void matmul_ref_fill(int8_t *dst, size_t count, uint64_t seed);

/* c = a x b for n x n row-major matrices, int8 in, int32 out. */
void matmul_ref_multiply(uint32_t n, const int8_t *a, const int8_t *b, int32_t *c);

/* Row-major n x n int8 -> tiled (tile (r, c) at (r * n/128 + c) * 16 KiB). */
void matmul_tile_i8(uint32_t n, const int8_t *row_major, int8_t *tiled);

/* Tiled n x n matrix of `elem_bytes`-byte elements (1: int8 result, 4:
 * int32) -> row-major. */
void matmul_untile(uint32_t n, uint32_t elem_bytes, const void *tiled, void *row_major);

/* Index of the first of `count` elements of `elem_bytes` bytes where a and
 * b differ, or -1 when equal. */
long matmul_ref_compare(const void *a, const void *b, size_t count, uint32_t elem_bytes);

#endif
