/*
 * mortar_hub_digest.c - a run's fingerprint (see mortar_hub_digest.h).
 * Plain C over libmortar's headers: tests/test_hub_digest.c compiles it in.
 */
#include <string.h>

#include "mortar/pcie.h"
#include "mortar_hub_digest.h"
#include "mortar_hub_json.h"

/* One 64-bit word into a digest: a multiply spreads it over every bit, the
 * shift brings the high bits back down for the next word. */
static inline uint64_t fold_word(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 32);
}

static inline uint64_t word_at(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* A payload's digest. Four lanes side by side: a run carries hundreds of
 * MB of DMA data, and one lane waits on each multiply (8 ms for 134 MB
 * here, against 41 ms with one). */
static uint64_t payload_digest(const uint8_t *p, uint32_t size)
{
    uint64_t l0 = 1, l1 = 2, l2 = 3, l3 = 4;
    uint32_t i = 0;
    for (; i + 32 <= size; i += 32) {
        l0 = fold_word(l0, word_at(p + i));
        l1 = fold_word(l1, word_at(p + i + 8));
        l2 = fold_word(l2, word_at(p + i + 16));
        l3 = fold_word(l3, word_at(p + i + 24));
    }
    uint64_t h = fold_word(fold_word(l0, l1), fold_word(l2, l3));
    for (; i < size; i += 8) {
        uint64_t w = 0;
        memcpy(&w, p + i, size - i < 8 ? size - i : 8);
        h = fold_word(h, w);
    }
    return fold_word(h, size);
}

void mortar_digest_start(mortar_digest *d, unsigned links, uint64_t start_ps)
{
    memset(d, 0, sizeof *d);
    d->started = true;
    d->links = links < MORTAR_DIGEST_LINKS ? links : MORTAR_DIGEST_LINKS;
    d->next_ps = start_ps + MORTAR_DIGEST_EVERY_PS;
}

bool mortar_digest_counts(uint8_t type)
{
    return type != MORTAR_PCIE_MMIO_READ && type != MORTAR_PCIE_MMIO_READ_DONE;
}

static void keep_checkpoints_before(mortar_digest *d, uint64_t stamp_ps)
{
    while (stamp_ps >= d->next_ps) {
        if (d->checkpoints == MORTAR_DIGEST_CHECKPOINTS) {
            d->next_ps = UINT64_MAX;
            return;
        }
        d->at[d->checkpoints++] = d->all;
        d->next_ps += MORTAR_DIGEST_EVERY_PS;
    }
}

void mortar_digest_fold(mortar_digest *d, unsigned link, bool sent, uint64_t stamp_ps,
                        uint8_t type, const void *payload, uint32_t size)
{
    if (!d->started || link >= d->links || !mortar_digest_counts(type)) {
        return;
    }
    keep_checkpoints_before(d, stamp_ps);
    uint64_t m = fold_word(fold_word(stamp_ps, (uint64_t)type << 32 | size),
                           payload_digest(payload, size));
    if (sent) {
        d->link[link].sent = fold_word(d->link[link].sent, m);
        d->link_sent[link]++;
        d->all.sent = fold_word(d->all.sent, fold_word(m, link));
    } else {
        d->link[link].received = fold_word(d->link[link].received, m);
        d->link_received[link]++;
        d->all.received = fold_word(d->all.received, fold_word(m, link));
    }
}

void mortar_digest_write_json(const mortar_digest *d, FILE *f, const char *const *names)
{
    fprintf(f, ", \"digest\": {\"every_ps\": %llu, \"links\": [",
            (unsigned long long)MORTAR_DIGEST_EVERY_PS);
    for (unsigned i = 0; i < d->links; i++) {
        fprintf(f, "%s{\"link\": ", i ? ", " : "");
        mortar_json_string(f, names[i]);
        fprintf(
            f,
            ", \"received\": \"%016llx\", \"sent\": \"%016llx\", \"messages_received\": "
            "%llu, \"messages_sent\": %llu}",
            (unsigned long long)d->link[i].received, (unsigned long long)d->link[i].sent,
            (unsigned long long)d->link_received[i], (unsigned long long)d->link_sent[i]);
    }
    fprintf(f, "], \"received\": \"%016llx\", \"sent\": \"%016llx\", \"checkpoints\": [",
            (unsigned long long)d->all.received, (unsigned long long)d->all.sent);
    for (uint32_t i = 0; i < d->checkpoints; i++) {
        fprintf(f, "%s[\"%016llx\", \"%016llx\"]", i ? ", " : "",
                (unsigned long long)d->at[i].received, (unsigned long long)d->at[i].sent);
    }
    fprintf(f, "]}");
}
