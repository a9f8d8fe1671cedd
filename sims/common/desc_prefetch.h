/*
 * desc_prefetch.h - a receive ring's descriptor prefetch: the descriptors
 * software has handed to the device (from the next unfetched index up to
 * the tail) are read by DMA, a batch at a time, into a small cache of
 * buffer addresses that frames then take in ring order.
 *
 * The owner (a NIC model's receive queue) starts fetches when it needs
 * buffers, passes its DMA completions in, and pops buffers as it writes
 * frames. A failed fetch (the host refused the read) stops prefetching
 * until the owner clears `failed`, on software's next tail write. Only
 * the first 8 bytes of each descriptor are kept: the buffer address in
 * every receive format the models implement.
 */
#ifndef MORTAR_SIMS_DESC_PREFETCH_H
#define MORTAR_SIMS_DESC_PREFETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "sims/common/dma_queue.h"

#define DESC_CACHE_MAX 64 /* prefetched descriptors held */
#define DESC_FETCH_MAX 32 /* descriptors read by one fetch */

typedef struct desc_prefetch {
    uint64_t addr[DESC_CACHE_MAX]; /* buffer address of each cached descriptor */
    uint32_t idx[DESC_CACHE_MAX];  /* and its index in the ring */
    uint32_t head, count;          /* the cached ones, oldest first */
    uint32_t next;                 /* ring index of the next descriptor to fetch */
    bool fetching, failed;
    uint32_t fetch_len, fetch_chunks; /* the fetch in flight */
    uint64_t staging[DESC_FETCH_MAX];
} desc_prefetch;

/* The ring a fetch reads: `n` descriptors of `desc_size` bytes at `base`. */
typedef struct desc_ring_view {
    uint64_t base;
    uint32_t n, desc_size;
} desc_ring_view;

typedef enum desc_fetch_result {
    DESC_FETCH_PENDING, /* more chunks of the fetch are outstanding */
    DESC_FETCH_DONE,    /* the fetched descriptors are in the cache */
    DESC_FETCH_FAILED,  /* the host refused the read: nothing cached */
} desc_fetch_result;

/* Empties the cache; the next fetch starts at ring index `next`. */
void desc_prefetch_reset(desc_prefetch *p, uint32_t next);

/* Reads the descriptors from p->next up to `tail` (not past the ring's end,
 * at most DESC_FETCH_MAX, at most what the cache has room for) through `q`
 * for (owner, gen), completing into `done`, unless a fetch is in flight,
 * one failed, or there is nothing to read. */
void desc_prefetch_start(desc_prefetch *p, dmaq *q, uint32_t owner, uint32_t gen,
                         desc_ring_view ring, uint32_t tail, dmaq_done_fn done);

/* One chunk of the fetch completed (the owner checked it is current). */
desc_fetch_result desc_prefetch_complete(desc_prefetch *p, const dmaq_req *r, uint32_t status,
                                         const uint8_t *data, uint32_t size, desc_ring_view ring);

/* Takes the oldest cached descriptor (p->count > 0). */
void desc_prefetch_pop(desc_prefetch *p, uint64_t *addr, uint32_t *idx);

#endif
