/*
 * result.h - the two formats the matmul accelerator returns a product in,
 * and the one requantize rule that turns an int32 accumulator into int8
 * (CASE_STUDY.md, "The request"):
 *
 *   int8   (the default, as int8 inference accelerators return it) each
 *          accumulator shifted right arithmetically by 12 with
 *          round-to-nearest (2^11 added before the shift, so a tie rounds
 *          up: -0.5 -> 0, 0.5 -> 1) and saturated to [-128, 127];
 *   int32  the raw accumulators.
 *
 * Header-only and plain C: the device model (compute.c), the reference
 * (reference.c, studies/matmul/tools/matmul-reference.c), the drivers over the host stub
 * and the guest programs (built statically for the guest, guest/lib) all
 * include this one file, so the rule exists once.
 */
#ifndef MORTAR_MATMUL_RESULT_H
#define MORTAR_MATMUL_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef enum matmul_result {
    MATMUL_RESULT_I8 = 0, /* requantized, 1 byte per element */
    MATMUL_RESULT_I32,    /* raw accumulators, 4 bytes per element */
} matmul_result;

#define MATMUL_REQUANT_SHIFT 12
#define MATMUL_REQUANT_ROUND (1 << (MATMUL_REQUANT_SHIFT - 1))

/* The rule needs >> on a negative number to be an arithmetic shift (it is
 * with GCC and Clang, the compilers the project builds with). */
_Static_assert((-5 >> 1) == -3, "signed >> must be an arithmetic shift");

/* One accumulator, requantized to int8. */
static inline int8_t matmul_requantize(int32_t acc)
{
    int64_t q = ((int64_t)acc + MATMUL_REQUANT_ROUND) >> MATMUL_REQUANT_SHIFT;
    if (q > INT8_MAX)
        return INT8_MAX;
    if (q < INT8_MIN)
        return INT8_MIN;
    return (int8_t)q;
}

/* `count` accumulators requantized into dst. */
static inline void matmul_requantize_all(const int32_t *src, int8_t *dst, size_t count)
{
    for (size_t i = 0; i < count; i++)
        dst[i] = matmul_requantize(src[i]);
}

/* Bytes per element of a product in format `r`. */
static inline uint32_t matmul_result_bytes(matmul_result r)
{
    return r == MATMUL_RESULT_I32 ? 4u : 1u;
}

static inline const char *matmul_result_name(matmul_result r)
{
    return r == MATMUL_RESULT_I32 ? "int32" : "int8";
}

/* "int8" or "int32". Returns false for anything else (*r unchanged). */
static inline bool matmul_result_parse(const char *name, matmul_result *r)
{
    if (!strcmp(name, "int8"))
        *r = MATMUL_RESULT_I8;
    else if (!strcmp(name, "int32"))
        *r = MATMUL_RESULT_I32;
    else
        return false;
    return true;
}

#endif
