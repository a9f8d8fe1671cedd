/*
 * matmul_data.h - the data of the matmul case study, shared by the guest
 * programs (mortar-matmul-server, mortar-matmul-client) and the build-host
 * tool that computes the expected products (studies/matmul/tools/matmul-reference.c):
 *
 *   operands   request `index` of a run with seed `seed` multiplies two
 *              n x n int8 matrices generated from (seed, index) alone, so
 *              the client, the server's self-test and the build host all
 *              produce the same bytes;
 *   hash       a 64-bit hash of a matrix's bytes, to compare a product with
 *              the expected one without shipping every product (one hash
 *              per result format: int8, the requantized product, and int32);
 *   reference  the file of expected hashes the build host writes
 *              (matmul-expected.bin, installed next to the programs in the
 *              guest image), and its reader.
 *
 * Plain C, no guest library: it compiles for the build host too.
 *
 * Reference file, all integers little-endian:
 *
 *   header   8  magic "MMREF\0\0\1"
 *            4  version (2)
 *            4  sections
 *   section  8  seed
 *            4  n
 *            4  count: requests 0..count-1
 *            4  flags: bit 0, the full product of request 0 follows
 *            4  reserved (0)
 *            count x 32: hash of A, hash of B, hash of C as int32, hash of
 *                        C as int8 (requantized), each 8
 *            [n*n x 4: C of request 0, row-major int32, when flags bit 0;
 *             its int8 form is its requantization]
 */
#ifndef MORTAR_MATMUL_DATA_H
#define MORTAR_MATMUL_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/result.h"

#define MATMUL_EXPECTED_MAGIC     "MMREF\0\0\1"
#define MATMUL_EXPECTED_VERSION   2u
#define MATMUL_EXPECTED_FULL_C0   0x1u
#define MATMUL_EXPECTED_FILE_NAME "matmul-expected.bin"

/* Fill a and b (n*n int8 each, row-major) with the operands of request
 * `index` of a run with `seed`. n*n must be a multiple of 8. */
void matmul_operands(uint64_t seed, uint64_t index, uint32_t n, int8_t *a, int8_t *b);

/* Hash of `size_bytes` bytes (a multiple of 8), read as little-endian
 * 64-bit words. Changing any single word always changes the hash. */
uint64_t matmul_hash(const void *data, size_t size_bytes);

/* The expected results of one (seed, n): per request the hashes of A, B and
 * C (int32 and int8), and the full int32 C of request 0 when the file has
 * it. */
typedef struct matmul_expected_entry {
    uint64_t hash_a, hash_b, hash_c32, hash_c8;
} matmul_expected_entry;

typedef struct matmul_expected {
    uint64_t seed;
    uint32_t n;
    uint32_t count;
    matmul_expected_entry *entries; /* count entries */
    int32_t *c0;                    /* n*n, or NULL */
} matmul_expected;

/* Read the section for (seed, n) from the reference file at `path` into
 * *ref (the caller's, to matmul_expected_free). Returns 0, or -1 with the reason
 * in err: unreadable, not a reference file, or no such section (the message
 * lists the sections the file has). */
int matmul_expected_load(const char *path, uint64_t seed, uint32_t n,
                         matmul_expected *ref, char *err, size_t err_size);

void matmul_expected_free(matmul_expected *ref);

/* The default reference file: matmul-expected.bin in the directory of the
 * running program (/usr/bin in the guest image, build/guest-bin on the
 * build machine). Writes the path into buf; returns buf. */
const char *matmul_expected_default_path(char *buf, size_t size);

/* Checks a received product in format `result` (n*n int8_t or int32_t)
 * against request `index` of `ref`: its hash, and for request 0 every
 * element when the file has the full product (requantized for int8).
 * Returns true when it matches; otherwise false with what differs in
 * `why`. */
bool matmul_expected_check(const matmul_expected *ref, uint64_t index,
                           matmul_result result, const void *c, char *why,
                           size_t why_size);

#endif
