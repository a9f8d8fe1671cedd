/*
 * desc_prefetch.c - a receive ring's descriptor prefetch (desc_prefetch.h).
 */
#include "desc_prefetch.h"

#include "sims/common/le.h"

void desc_prefetch_reset(desc_prefetch *p, uint32_t next)
{
    p->head = p->count = 0;
    p->fetching = p->failed = false;
    p->fetch_len = p->fetch_chunks = 0;
    p->next = next;
}

void desc_prefetch_start(desc_prefetch *p, dmaq *q, uint32_t owner, uint32_t gen,
                         desc_ring_view ring, uint32_t tail, dmaq_done_fn done)
{
    if (p->fetching || p->failed || p->next >= ring.n || tail >= ring.n || tail == p->next)
        return;
    uint32_t count = p->next < tail ? tail - p->next : ring.n - p->next;
    if (count > DESC_FETCH_MAX)
        count = DESC_FETCH_MAX;
    if (count > DESC_CACHE_MAX - p->count)
        count = DESC_CACHE_MAX - p->count;
    if (count == 0)
        return;
    p->fetching = true;
    p->fetch_len = count;
    p->fetch_chunks = dmaq_read(q, owner, gen, ring.base + (uint64_t)p->next * ring.desc_size,
                                count * ring.desc_size, done, 0);
    if (p->fetch_chunks == 0)
        p->fetching = false;
}

desc_fetch_result desc_prefetch_complete(desc_prefetch *p, const dmaq_req *r, uint32_t status,
                                         const uint8_t *data, uint32_t size, desc_ring_view ring)
{
    if (status != 0 || ring.n == 0)
        p->failed = true;
    for (uint32_t i = 0; !p->failed && i < size / ring.desc_size; i++) {
        uint32_t slot = r->offset / ring.desc_size + i;
        if (slot < DESC_FETCH_MAX)
            p->staging[slot] = le64_get(data + (size_t)i * ring.desc_size);
    }
    if (--p->fetch_chunks > 0)
        return DESC_FETCH_PENDING;
    p->fetching = false;
    if (p->failed)
        return DESC_FETCH_FAILED;
    for (uint32_t i = 0; i < p->fetch_len; i++) {
        uint32_t slot = (p->head + p->count++) % DESC_CACHE_MAX;
        p->addr[slot] = p->staging[i];
        p->idx[slot] = (p->next + i) % ring.n;
    }
    p->next = (p->next + p->fetch_len) % ring.n;
    return DESC_FETCH_DONE;
}

void desc_prefetch_pop(desc_prefetch *p, uint64_t *addr, uint32_t *idx)
{
    *addr = p->addr[p->head];
    *idx = p->idx[p->head];
    p->head = (p->head + 1) % DESC_CACHE_MAX;
    p->count--;
}
