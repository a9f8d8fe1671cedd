/*
 * matmul-reference.c - the expected products of the matmul case study,
 * computed on the build machine, outside the simulation.
 *
 *   matmul-reference --out FILE [--set SEED:N:COUNT]...
 *
 * For each set, requests 0..COUNT-1 of a run with SEED and matrix size N:
 * the operands come from matmul_operands() (studies/matmul/guest/matmul_data.c, the
 * same code the guest programs run), the product from
 * matmul_ref_multiply() (studies/matmul/model/reference.c, the plain yardstick the
 * device model is tested against; neither the software backend nor any
 * device computes it), and its int8 form from matmul_requantize_all()
 * (studies/matmul/model/result.h, the one requantize rule). FILE gets the hashes of
 * A, B and C (int32 and int8) per request and the full int32 C of request
 * 0 (format in studies/matmul/guest/matmul_data.h). Default sets: 1:512:128 1:256:16
 * 1:128:16.
 *
 * The build (guest/CMakeLists.txt) writes build/guest-bin/matmul-expected.bin,
 * which guest/build-image.sh puts next to the programs in /usr/bin. The file
 * is written to FILE.tmp and renamed, so a failed run leaves no half file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matmul_data.h"
#include "model/reference.h"

#define MAX_SETS 32

typedef struct ref_set {
    uint64_t seed;
    uint32_t n, count;
} ref_set;

static const char *prog = "matmul-reference";

static void put32(FILE *f, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
                    (uint8_t)(v >> 24)};
    fwrite(b, 1, sizeof b, f);
}

static void put64(FILE *f, uint64_t v)
{
    put32(f, (uint32_t)v);
    put32(f, (uint32_t)(v >> 32));
}

static int parse_set(const char *s, ref_set *set)
{
    unsigned long long seed;
    unsigned n, count;
    char tail;
    if (sscanf(s, "%llu:%u:%u%c", &seed, &n, &count, &tail) != 3 || n == 0 || n % 128 ||
        n > 4096 || count == 0 || count > 100000) {
        return -1;
    }
    *set = (ref_set){.seed = seed, .n = n, .count = count};
    return 0;
}

/* Writes one section; returns 0 or -1 (out of memory). */
static int write_section(FILE *f, const ref_set *set)
{
    size_t nn = (size_t)set->n * set->n;
    int8_t *a = malloc(nn), *b = malloc(nn);
    int32_t *c = malloc(nn * sizeof *c), *c0 = malloc(nn * sizeof *c0);
    int8_t *c8 = malloc(nn);
    matmul_expected_entry *e = calloc(set->count, sizeof *e);
    if (!a || !b || !c || !c0 || !c8 || !e) {
        free(a), free(b), free(c), free(c0), free(c8), free(e);
        return -1;
    }
    for (uint32_t i = 0; i < set->count; i++) {
        matmul_operands(set->seed, i, set->n, a, b);
        matmul_ref_multiply(set->n, a, b, c);
        matmul_requantize_all(c, c8, nn);
        e[i] = (matmul_expected_entry){.hash_a = matmul_hash(a, nn),
                                       .hash_b = matmul_hash(b, nn),
                                       .hash_c32 = matmul_hash(c, nn * sizeof *c),
                                       .hash_c8 = matmul_hash(c8, nn)};
        if (i == 0) {
            memcpy(c0, c, nn * sizeof *c);
        }
    }
    put64(f, set->seed);
    put32(f, set->n);
    put32(f, set->count);
    put32(f, MATMUL_EXPECTED_FULL_C0);
    put32(f, 0);
    for (uint32_t i = 0; i < set->count; i++) {
        put64(f, e[i].hash_a);
        put64(f, e[i].hash_b);
        put64(f, e[i].hash_c32);
        put64(f, e[i].hash_c8);
    }
    for (size_t i = 0; i < nn; i++) {
        put32(f, (uint32_t)c0[i]);
    }
    free(a), free(b), free(c), free(c0), free(c8), free(e);
    return 0;
}

int main(int argc, char **argv)
{
    ref_set sets[MAX_SETS];
    unsigned nsets = 0;
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--set") && i + 1 < argc && nsets < MAX_SETS) {
            if (parse_set(argv[++i], &sets[nsets++]) != 0) {
                fprintf(stderr,
                        "%s: --set wants SEED:N:COUNT (N a multiple of 128), not '%s'\n",
                        prog, argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, "usage: %s --out FILE [--set SEED:N:COUNT]...\n", prog);
            return 2;
        }
    }
    if (!out) {
        fprintf(stderr, "usage: %s --out FILE [--set SEED:N:COUNT]...\n", prog);
        return 2;
    }
    if (nsets == 0) {
        sets[nsets++] = (ref_set){.seed = 1, .n = 512, .count = 128};
        sets[nsets++] = (ref_set){.seed = 1, .n = 256, .count = 16};
        sets[nsets++] = (ref_set){.seed = 1, .n = 128, .count = 16};
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", prog, tmp, strerror(errno));
        return 1;
    }
    fwrite(MATMUL_EXPECTED_MAGIC, 1, 8, f);
    put32(f, MATMUL_EXPECTED_VERSION);
    put32(f, nsets);
    for (unsigned s = 0; s < nsets; s++) {
        if (write_section(f, &sets[s]) != 0) {
            fprintf(stderr, "%s: out of memory for n = %u\n", prog, sets[s].n);
            fclose(f);
            remove(tmp);
            return 1;
        }
    }
    if (ferror(f) | fclose(f) || rename(tmp, out) != 0) {
        fprintf(stderr, "%s: writing %s: %s\n", prog, out, strerror(errno));
        remove(tmp);
        return 1;
    }
    for (unsigned s = 0; s < nsets; s++) {
        printf("%s: seed %" PRIu64 " n %u: %u requests\n", out, sets[s].seed, sets[s].n,
               sets[s].count);
    }
    return 0;
}
