/*
 * snapshot_key.c - hashing a machine description and its files into a
 * snapshot's cache key (see snapshot_key.h).
 */
#include "errbuf.h"
#include "snapshot_key.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FNV_PRIME 0x100000001b3ull
/* The standard offset basis, and a second, arbitrary one: two lanes give
 * 128 bits. */
#define FNV_BASIS_A 0xcbf29ce484222325ull
#define FNV_BASIS_B 0x6c62272e07bb0142ull

typedef struct key_hash {
    uint64_t a, b;
} key_hash;

static void hash_bytes(key_hash *h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++) {
        h->a = (h->a ^ p[i]) * FNV_PRIME;
        h->b = (h->b ^ p[i]) * FNV_PRIME;
    }
}

/* Files are hashed 8 bytes a step (the QEMU binary alone is 38 MB, and a
 * run computes its keys before it starts): FNV-1a's step on a 64-bit word,
 * with the high half folded down so that every bit reaches the low ones.
 * Each step is a bijection of the state, so any single change of the
 * input changes the key. */
static void hash_words(key_hash *h, const unsigned char *p, size_t size)
{
    size_t i = 0;
    for (; i + 8 <= size; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, sizeof w);
        h->a = (h->a ^ w) * FNV_PRIME;
        h->a ^= h->a >> 32;
        h->b = (h->b ^ w) * FNV_PRIME;
        h->b ^= h->b >> 29;
    }
    hash_bytes(h, p + i, size - i);
}

/* The text and a NUL, so "ab"+"c" and "a"+"bc" differ. */
static void hash_text(key_hash *h, const char *text)
{
    hash_bytes(h, text, strlen(text) + 1);
}

static int hash_file(key_hash *h, const char *path, char *err, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return errbuf_fail(err, size, "cannot read %s (an input of the snapshot)", path);
    hash_text(h, path);
    unsigned char buf[65536];
    size_t n;
    uint64_t total = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        hash_words(h, buf, n);
        total += n;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return errbuf_fail(err, size, "error while reading %s", path);
    hash_bytes(h, &total, sizeof total);
    return 0;
}

int snapshot_key(json_t *machine, const char *const files[], char key[SNAPSHOT_KEY_HEX + 1],
                 char *err, size_t size)
{
    key_hash h = {FNV_BASIS_A, FNV_BASIS_B};
    char *text = json_dumps(machine, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
    if (!text)
        return errbuf_fail(err, size, "cannot describe the machine");
    hash_text(&h, text);
    free(text);
    for (size_t i = 0; files && files[i]; i++)
        if (hash_file(&h, files[i], err, size))
            return -1;
    snprintf(key, SNAPSHOT_KEY_HEX + 1, "%016llx%016llx", (unsigned long long)h.a,
             (unsigned long long)h.b);
    return 0;
}
