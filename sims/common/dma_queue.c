/*
 * dma_queue.c - the bounded, in-order DMA request queue of a device model
 * (see dma_queue.h).
 */
#include "sims/common/dma_queue.h"

#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"
#include "mortar/runtime.h"

int dmaq_init(dmaq *q, mortar_component *self, unsigned port, void *ctx,
              uint32_t max_inflight)
{
    memset(q, 0, sizeof *q);
    q->self = self;
    q->port = port;
    q->ctx = ctx;
    q->max_inflight = max_inflight;
    q->inflight = calloc(max_inflight, sizeof *q->inflight);
    q->chunk = MORTAR_PCIE_MAX_DMA;
    q->msgbuf = malloc(sizeof(mortar_pcie_dma) + MORTAR_PCIE_MAX_DMA);
    q->next_id = 1;
    return q->inflight && q->msgbuf ? MORTAR_OK : MORTAR_ENOMEM;
}

void dmaq_start(dmaq *q)
{
    uint32_t max = mortar_port_max_payload(q->self, q->port);
    uint32_t hdr = (uint32_t)sizeof(mortar_pcie_dma);
    uint32_t chunk = max > hdr ? max - hdr : 64;
    q->chunk = chunk < MORTAR_PCIE_MAX_DMA ? chunk : MORTAR_PCIE_MAX_DMA;
}

static void free_list(dmaq_req *r)
{
    while (r) {
        dmaq_req *next = r->next;
        free(r);
        r = next;
    }
}

void dmaq_destroy(dmaq *q)
{
    free_list(q->head);
    for (uint32_t i = 0; q->inflight && i < q->max_inflight; i++)
        free(q->inflight[i]);
    free(q->inflight);
    free(q->msgbuf);
    q->head = q->tail = NULL;
    q->inflight = NULL;
    q->msgbuf = NULL;
}

/* O(max_inflight) searches: max_inflight is at most a few hundred and a
 * request is looked up once when issued and once when completed. */
static int free_slot(const dmaq *q)
{
    for (uint32_t i = 0; i < q->max_inflight; i++)
        if (!q->inflight[i])
            return (int)i;
    return -1;
}

static int find_inflight(const dmaq *q, uint64_t id)
{
    for (uint32_t i = 0; i < q->max_inflight; i++)
        if (q->inflight[i] && q->inflight[i]->id == id)
            return (int)i;
    return -1;
}

/* A send fails only when the link is gone; the request is then dropped
 * without a completion. */
static void issue(dmaq *q, dmaq_req *r, int slot)
{
    mortar_pcie_dma *m = (mortar_pcie_dma *)q->msgbuf;
    r->id = q->next_id++;
    *m = (mortar_pcie_dma){.req_id = r->id, .addr = r->addr, .size = r->size};
    uint32_t size = (uint32_t)sizeof *m;
    if (r->write) {
        memcpy(m->data, r->data, r->size);
        size += r->size;
    }
    q->inflight[slot] = r;
    q->ninflight++;
    int rc = mortar_send(q->self, q->port,
                         r->write ? MORTAR_PCIE_DMA_WRITE : MORTAR_PCIE_DMA_READ, m, size,
                         0, NULL);
    if (rc != 0) {
        q->inflight[slot] = NULL;
        q->ninflight--;
        q->errors++;
        free(r);
    } else if (r->issued) {
        r->issued(q->ctx, r->tag);
    }
}

static void kick(dmaq *q)
{
    while (q->head && q->ninflight < q->max_inflight) {
        int slot = free_slot(q);
        if (slot < 0)
            return;
        dmaq_req *r = q->head;
        q->head = r->next;
        if (!q->head)
            q->tail = NULL;
        r->next = NULL;
        issue(q, r, slot);
    }
}

static dmaq_req *enqueue(dmaq *q, uint32_t payload)
{
    dmaq_req *r = calloc(1, sizeof *r + payload);
    if (!r)
        return NULL;
    if (q->tail)
        q->tail->next = r;
    else
        q->head = r;
    q->tail = r;
    return r;
}

uint32_t dmaq_read(dmaq *q, uint32_t owner, uint32_t gen, uint64_t addr, uint32_t size,
                   dmaq_done_fn done, uint64_t tag)
{
    uint32_t chunks = 0;
    for (uint32_t off = 0; off < size; off += q->chunk) {
        uint32_t n = size - off < q->chunk ? size - off : q->chunk;
        dmaq_req *r = enqueue(q, 0);
        if (!r)
            break;
        r->addr = addr + off;
        r->tag = tag;
        r->size = n;
        r->offset = off;
        r->owner = owner;
        r->gen = gen;
        r->done = done;
        chunks++;
    }
    kick(q);
    return chunks;
}

uint32_t dmaq_write(dmaq *q, uint32_t owner, uint32_t gen, uint64_t addr,
                    const void *data, uint32_t size, dmaq_issued_fn issued, uint64_t tag)
{
    uint32_t chunks = 0;
    for (uint32_t off = 0; off < size; off += q->chunk) {
        uint32_t n = size - off < q->chunk ? size - off : q->chunk;
        dmaq_req *r = enqueue(q, n);
        if (!r)
            break;
        r->addr = addr + off;
        r->size = n;
        r->offset = off;
        r->owner = owner;
        r->gen = gen;
        r->write = true;
        r->tag = tag;
        r->issued = off + n == size ? issued : NULL;
        memcpy(r->data, (const uint8_t *)data + off, n);
        chunks++;
    }
    kick(q);
    return chunks;
}

void dmaq_flush(dmaq *q, uint32_t owner)
{
    dmaq_req **pp = &q->head;
    q->tail = NULL;
    while (*pp) {
        dmaq_req *r = *pp;
        if (r->owner == owner) {
            *pp = r->next;
            free(r);
        } else {
            q->tail = r;
            pp = &r->next;
        }
    }
}

void dmaq_completion(dmaq *q, const mortar_msg *msg)
{
    const mortar_pcie_dma_done *c = msg->payload;
    bool is_write = msg->type == MORTAR_PCIE_DMA_WRITE_DONE;
    /* a write completion may echo the size it wrote with no data after it */
    if (msg->size < sizeof *c || (!is_write && msg->size - sizeof *c < c->size)) {
        q->bad_messages++;
        return;
    }
    int slot = find_inflight(q, c->req_id);
    if (slot < 0) {
        q->bad_completions++;
        return;
    }
    dmaq_req *r = q->inflight[slot];
    uint32_t status = c->status;
    if (is_write != r->write || (!r->write && status == 0 && c->size != r->size))
        status = 0xffffffffu; /* a completion that does not match its request */
    if (status != 0) {
        q->bad_completions++;
        q->errors++;
    }
    q->inflight[slot] = NULL;
    q->ninflight--;
    if (r->done)
        r->done(q->ctx, r, status, status == 0 ? c->data : NULL,
                status == 0 ? c->size : 0);
    free(r);
    kick(q);
}
