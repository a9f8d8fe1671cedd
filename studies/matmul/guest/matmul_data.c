/*
 * matmul_data.c - operands from seeds, the product hash and the reference
 * file reader of the matmul case study (see matmul_data.h).
 *
 * The generator is cheap on purpose: inside the simulation every
 * instruction costs guest time, so it makes 8 bytes per step (xorshift64*)
 * from a state derived from (seed, request, operand) by the splitmix64
 * finalizer. Words are stored and hashed in the machine's byte order: the
 * guest and the build machine are both x86-64, hence little-endian.
 */
#include "matmul_data.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEADER_BYTES  16u
#define SECTION_BYTES 24u
#define ENTRY_BYTES   32u

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void fill(int8_t *dst, size_t count, uint64_t state)
{
    uint64_t x = state ? state : 0x6d6f72746172ull; /* xorshift needs x != 0 */
    for (size_t i = 0; i < count; i += 8) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        uint64_t w = x * 0x2545f4914f6cdd1dull;
        memcpy(dst + i, &w, 8); /* little-endian: byte b is bits 8b..8b+7 */
    }
}

void matmul_operands(uint64_t seed, uint64_t index, uint32_t n, int8_t *a, int8_t *b)
{
    uint64_t base = mix64(seed + 0x9e3779b97f4a7c15ull);
    size_t count = (size_t)n * n;
    fill(a, count, mix64(base ^ (index * 2 + 0)));
    fill(b, count, mix64(base ^ (index * 2 + 1)));
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) {
        v = v << 8 | p[i];
    }
    return v;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

uint64_t matmul_hash(const void *data, size_t size_bytes)
{
    const uint8_t *p = data;
    uint64_t h = 0x6d6f727461720001ull ^ size_bytes;
    for (size_t off = 0; off + 8 <= size_bytes; off += 8) {
        uint64_t w;
        memcpy(&w, p + off, 8); /* the guest and the build host are little-endian */
        h ^= w;
        h *= 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return mix64(h);
}

/* ---- reference file -------------------------------------------------------------- */

static int ref_fail(char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int ref_fail(char *err, size_t err_size, const char *fmt, ...)
{
    if (err && err_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_size, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Reads the whole file; *size gets its length. NULL on failure (errno). */
static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 1u << 20;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            break;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    *size = len;
    return buf;
}

int matmul_expected_load(const char *path, uint64_t seed, uint32_t n,
                         matmul_expected *ref, char *err, size_t err_size)
{
    memset(ref, 0, sizeof *ref);
    size_t size;
    uint8_t *buf = read_file(path, &size);
    if (!buf) {
        return ref_fail(err, err_size, "reading the reference %s: %s", path,
                        strerror(errno));
    }
    int rc = -1;
    char have[256] = "";
    size_t have_len = 0;
    if (size < HEADER_BYTES || memcmp(buf, MATMUL_EXPECTED_MAGIC, 8) != 0 ||
        get32(buf + 8) != MATMUL_EXPECTED_VERSION) {
        ref_fail(err, err_size, "%s is not a matmul reference file (version %u)", path,
                 MATMUL_EXPECTED_VERSION);
        goto out;
    }
    uint32_t sections = get32(buf + 12);
    size_t off = HEADER_BYTES;
    for (uint32_t s = 0; s < sections; s++) {
        if (size - off < SECTION_BYTES) {
            ref_fail(err, err_size, "%s: truncated at section %u", path, s);
            goto out;
        }
        uint64_t sec_seed = get64(buf + off);
        uint32_t sec_n = get32(buf + off + 8), count = get32(buf + off + 12);
        uint32_t flags = get32(buf + off + 16);
        off += SECTION_BYTES;
        size_t body = (size_t)count * ENTRY_BYTES;
        size_t full = flags & MATMUL_EXPECTED_FULL_C0 ? (size_t)sec_n * sec_n * 4 : 0;
        if (size - off < body || size - off - body < full) {
            ref_fail(err, err_size, "%s: truncated in section %u", path, s);
            goto out;
        }
        have_len += (size_t)snprintf(have + have_len,
                                     have_len < sizeof have ? sizeof have - have_len : 0,
                                     "%sseed %" PRIu64 " n %u (%u requests)",
                                     s ? ", " : "", sec_seed, sec_n, count);
        if (have_len >= sizeof have) {
            have_len = sizeof have - 1;
        }
        if (sec_seed == seed && sec_n == n && !ref->entries) {
            ref->seed = seed;
            ref->n = n;
            ref->count = count;
            ref->entries = calloc(count ? count : 1, sizeof *ref->entries);
            ref->c0 = full ? malloc(full) : NULL;
            if (!ref->entries || (full && !ref->c0)) {
                ref_fail(err, err_size, "out of memory for the reference");
                goto out;
            }
            for (uint32_t i = 0; i < count; i++) {
                const uint8_t *e = buf + off + (size_t)i * ENTRY_BYTES;
                ref->entries[i] = (matmul_expected_entry){.hash_a = get64(e),
                                                          .hash_b = get64(e + 8),
                                                          .hash_c32 = get64(e + 16),
                                                          .hash_c8 = get64(e + 24)};
            }
            for (size_t i = 0; i < full / 4; i++) {
                ref->c0[i] = (int32_t)get32(buf + off + body + i * 4);
            }
        }
        off += body + full;
    }
    if (ref->entries) {
        rc = 0;
    } else {
        ref_fail(err, err_size,
                 "%s has no reference for seed %" PRIu64 " n %u (it has: %s)", path, seed,
                 n, have[0] ? have : "nothing");
    }
out:
    free(buf);
    if (rc) {
        matmul_expected_free(ref);
    }
    return rc;
}

void matmul_expected_free(matmul_expected *ref)
{
    free(ref->entries);
    free(ref->c0);
    memset(ref, 0, sizeof *ref);
}

const char *matmul_expected_default_path(char *buf, size_t size)
{
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        snprintf(buf, size, "/usr/bin/%s", MATMUL_EXPECTED_FILE_NAME);
        return buf;
    }
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
        *slash = '\0';
    }
    snprintf(buf, size, "%s/%s", slash ? exe : ".", MATMUL_EXPECTED_FILE_NAME);
    return buf;
}

/* Element i of a product in format `result`. */
static int32_t element(matmul_result result, const void *c, size_t i)
{
    if (result == MATMUL_RESULT_I32) {
        return ((const int32_t *)c)[i];
    }
    return ((const int8_t *)c)[i];
}

/* Request 0 element by element against the full product of the file. */
static bool check_c0(const matmul_expected *ref, matmul_result result, const void *c,
                     char *why, size_t why_size)
{
    size_t count = (size_t)ref->n * ref->n;
    for (size_t i = 0; i < count; i++) {
        int32_t want =
            result == MATMUL_RESULT_I32 ? ref->c0[i] : matmul_requantize(ref->c0[i]);
        int32_t got = element(result, c, i);
        if (got != want) {
            ref_fail(why, why_size,
                     "request 0: %s C[%zu][%zu] = %" PRId32 ", expected %" PRId32,
                     matmul_result_name(result), i / ref->n, i % ref->n, got, want);
            return false;
        }
    }
    return true;
}

bool matmul_expected_check(const matmul_expected *ref, uint64_t index,
                           matmul_result result, const void *c, char *why,
                           size_t why_size)
{
    size_t count = (size_t)ref->n * ref->n;
    if (index >= ref->count) {
        ref_fail(why, why_size, "no reference for request %" PRIu64 " (the file has %u)",
                 index, ref->count);
        return false;
    }
    if (index == 0 && ref->c0 && !check_c0(ref, result, c, why, why_size)) {
        return false;
    }
    bool i32 = result == MATMUL_RESULT_I32;
    uint64_t want = i32 ? ref->entries[index].hash_c32 : ref->entries[index].hash_c8;
    uint64_t h = matmul_hash(c, count * matmul_result_bytes(result));
    if (h != want) {
        ref_fail(why, why_size,
                 "request %" PRIu64 ": %s product hash %016" PRIx64
                 ", expected %016" PRIx64,
                 index, matmul_result_name(result), h, want);
        return false;
    }
    return true;
}
