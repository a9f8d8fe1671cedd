/*
 * dma_queue.h - a device model's bus master: DMA reads and writes to host
 * memory as PCIe protocol messages, with a bounded number in flight.
 *
 * Engines queue requests; the queue issues them in order, at most
 * `max_inflight` at a time, each at most one message's payload (the link's
 * limit, capped at MORTAR_PCIE_MAX_DMA). Requests leave in queue order and
 * the host serves them in arrival order, so a write-back queued after its
 * data is seen after the data. Completions come back by request id; an
 * unknown id or an error status is counted, never trusted. Each request
 * carries its owner's id and generation so that an engine that was reset
 * can drop its queued requests and ignore completions of old ones.
 *
 * Used by the e1000 and i40e models. A write may name a function to call
 * once it has been sent: engines raise their interrupt there, so that the
 * interrupt message follows the descriptor write-back on the link (PCIe
 * keeps posted writes and interrupt messages in order) even when the write
 * had to wait for a free slot.
 */
#ifndef MORTAR_SIMS_DMA_QUEUE_H
#define MORTAR_SIMS_DMA_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "mortar/component.h"
#include "mortar/pcie.h"

typedef struct dmaq_req dmaq_req;

/* Called when a chunk completes; `status` is the host's (0 = success),
 * `data`/`size` the read data (reads only). `ctx` is the queue's. */
typedef void (*dmaq_done_fn)(void *ctx, const dmaq_req *r, uint32_t status,
                             const uint8_t *data, uint32_t size);

/* Called once a write's last chunk has left on the link. */
typedef void (*dmaq_issued_fn)(void *ctx, uint64_t tag);

struct dmaq_req {
    dmaq_req *next;
    uint64_t id; /* request id on the link once issued */
    uint64_t addr;
    uint64_t tag; /* the caller's context */
    uint32_t size;
    uint32_t offset; /* offset of this chunk within the caller's transfer */
    uint32_t owner;  /* the caller's engine id */
    uint32_t gen;    /* the owner's generation when queued */
    bool write;
    dmaq_done_fn done;     /* may be NULL */
    dmaq_issued_fn issued; /* may be NULL */
    uint8_t data[];        /* write payload */
};

typedef struct dmaq {
    mortar_component *self;
    unsigned port;
    void *ctx; /* passed to the callbacks */
    dmaq_req *head, *tail;
    dmaq_req **inflight;
    uint32_t max_inflight, ninflight;
    uint64_t next_id;
    uint32_t chunk;
    uint8_t *msgbuf;
    /* counters */
    uint64_t errors;          /* error completions and failed sends */
    uint64_t bad_completions; /* unknown ids, mismatched or failed completions */
    uint64_t bad_messages;    /* malformed completion messages */
} dmaq;

/* Sets up `q` for the PCIe port `port` of `self`. 0 or MORTAR_ENOMEM. */
int dmaq_init(dmaq *q, mortar_component *self, unsigned port, void *ctx,
              uint32_t max_inflight);
/* Sizes chunks to the link (call from the component's start). */
void dmaq_start(dmaq *q);
void dmaq_destroy(dmaq *q);

/* Queue a read or write of `size` bytes; returns the number of chunks
 * queued (0 when out of memory or size 0). */
uint32_t dmaq_read(dmaq *q, uint32_t owner, uint32_t gen, uint64_t addr, uint32_t size,
                   dmaq_done_fn done, uint64_t tag);
uint32_t dmaq_write(dmaq *q, uint32_t owner, uint32_t gen, uint64_t addr,
                    const void *data, uint32_t size, dmaq_issued_fn issued, uint64_t tag);

/* Drops queued (not yet issued) requests of `owner`. */
void dmaq_flush(dmaq *q, uint32_t owner);

/* Handles a MORTAR_PCIE_DMA_READ_DONE / _WRITE_DONE message. */
void dmaq_completion(dmaq *q, const mortar_msg *msg);

/* Requests queued or in flight. */
static inline bool dmaq_idle(const dmaq *q)
{
    return !q->head && q->ninflight == 0;
}

#endif
