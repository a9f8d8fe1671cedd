/*
 * dma.c - the e1000 model's bus master: DMA reads and writes to host memory
 * as PCIe protocol messages.
 *
 * Engines queue requests; the queue issues them in order, at most
 * `dma_outstanding` at a time, each at most one message's payload (the
 * link's limit, capped at MORTAR_PCIE_MAX_DMA). Because requests leave in
 * queue order and the host serves them in arrival order, a descriptor
 * write-back queued after its data is seen after the data. Completions come
 * back by request id; an unknown id or an error status is counted, never
 * trusted. A request carries its owner's generation so that an engine that
 * was reset ignores completions of its old requests.
 *
 * A write may name a function to call once it has been sent: engines raise
 * their interrupt there, so that the interrupt message follows the
 * descriptor write-back on the link (PCIe keeps posted writes and interrupt
 * messages in order) even when the write had to wait for a free slot.
 */
#include "e1000_internal.h"

#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"

int e1000_dma_init(e1000 *d, uint32_t max_inflight)
{
    e1000_dma *q = &d->dma;
    q->max_inflight = max_inflight;
    q->inflight = calloc(max_inflight, sizeof *q->inflight);
    q->chunk = MORTAR_PCIE_MAX_DMA;
    q->msgbuf = malloc(sizeof(mortar_pcie_dma) + MORTAR_PCIE_MAX_DMA);
    q->next_id = 1;
    return q->inflight && q->msgbuf ? MORTAR_OK : MORTAR_ENOMEM;
}

/* Called when the ports are connected: size chunks to the link. */
void e1000_dma_start(e1000 *d)
{
    uint32_t max = mortar_port_max_payload(d->self, E1000_PORT_PCIE);
    uint32_t hdr = (uint32_t)sizeof(mortar_pcie_dma);
    uint32_t chunk = max > hdr ? max - hdr : 64;
    d->dma.chunk = chunk < MORTAR_PCIE_MAX_DMA ? chunk : MORTAR_PCIE_MAX_DMA;
}

static void free_list(e1000_dma_req *r)
{
    while (r) {
        e1000_dma_req *next = r->next;
        free(r);
        r = next;
    }
}

void e1000_dma_destroy(e1000 *d)
{
    e1000_dma *q = &d->dma;
    free_list(q->head);
    for (uint32_t i = 0; q->inflight && i < q->max_inflight; i++)
        free(q->inflight[i]);
    free(q->inflight);
    free(q->msgbuf);
}

static int free_slot(const e1000_dma *q)
{
    for (uint32_t i = 0; i < q->max_inflight; i++)
        if (!q->inflight[i])
            return (int)i;
    return -1;
}

/* Sends one request. A send fails only when the link is gone; the request is
 * then dropped without a completion (nothing more will happen on the link). */
static void issue(e1000 *d, e1000_dma_req *r, int slot)
{
    e1000_dma *q = &d->dma;
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
    int rc = mortar_send(d->self, E1000_PORT_PCIE,
                         r->write ? MORTAR_PCIE_DMA_WRITE : MORTAR_PCIE_DMA_READ, m, size,
                         0, NULL);
    if (rc != 0) {
        q->inflight[slot] = NULL;
        q->ninflight--;
        d->c.dma_errors++;
        free(r);
    } else if (r->issued) {
        r->issued(d, r->tag);
    }
}

static void kick(e1000 *d)
{
    e1000_dma *q = &d->dma;
    while (q->head && q->ninflight < q->max_inflight) {
        int slot = free_slot(q);
        if (slot < 0)
            return;
        e1000_dma_req *r = q->head;
        q->head = r->next;
        if (!q->head)
            q->tail = NULL;
        r->next = NULL;
        issue(d, r, slot);
    }
}

static e1000_dma_req *enqueue(e1000 *d, uint32_t payload)
{
    e1000_dma *q = &d->dma;
    e1000_dma_req *r = calloc(1, sizeof *r + payload);
    if (!r)
        return NULL;
    if (q->tail)
        q->tail->next = r;
    else
        q->head = r;
    q->tail = r;
    return r;
}

uint32_t e1000_dma_read(e1000 *d, e1000_dma_owner owner, uint32_t gen, uint64_t addr,
                        uint32_t size, e1000_dma_done_fn done, uint64_t tag)
{
    uint32_t chunks = 0;
    for (uint32_t off = 0; off < size; off += d->dma.chunk) {
        uint32_t n = size - off < d->dma.chunk ? size - off : d->dma.chunk;
        e1000_dma_req *r = enqueue(d, 0);
        if (!r)
            break;
        *r = (e1000_dma_req){.addr = addr + off,
                             .tag = tag,
                             .size = n,
                             .offset = off,
                             .gen = gen,
                             .owner = (uint8_t)owner,
                             .done = done};
        chunks++;
    }
    kick(d);
    return chunks;
}

uint32_t e1000_dma_write(e1000 *d, e1000_dma_owner owner, uint32_t gen, uint64_t addr,
                         const void *data, uint32_t size, e1000_dma_issued_fn issued,
                         uint64_t tag)
{
    uint32_t chunks = 0;
    for (uint32_t off = 0; off < size; off += d->dma.chunk) {
        uint32_t n = size - off < d->dma.chunk ? size - off : d->dma.chunk;
        e1000_dma_req *r = enqueue(d, n);
        if (!r)
            break;
        r->addr = addr + off;
        r->size = n;
        r->offset = off;
        r->gen = gen;
        r->owner = (uint8_t)owner;
        r->write = true;
        r->tag = tag;
        r->issued = off + n == size ? issued : NULL;
        memcpy(r->data, (const uint8_t *)data + off, n);
        chunks++;
    }
    kick(d);
    return chunks;
}

/* Drops queued (not yet issued) requests of `owner`: its engine was reset. */
void e1000_dma_flush(e1000 *d, e1000_dma_owner owner)
{
    e1000_dma *q = &d->dma;
    e1000_dma_req **pp = &q->head;
    q->tail = NULL;
    while (*pp) {
        e1000_dma_req *r = *pp;
        if (r->owner == (uint8_t)owner) {
            *pp = r->next;
            free(r);
        } else {
            q->tail = r;
            pp = &r->next;
        }
    }
}

static int find_inflight(const e1000_dma *q, uint64_t id)
{
    for (uint32_t i = 0; i < q->max_inflight; i++)
        if (q->inflight[i] && q->inflight[i]->id == id)
            return (int)i;
    return -1;
}

void e1000_dma_completion(e1000 *d, const mortar_msg *msg)
{
    const mortar_pcie_dma_done *c = msg->payload;
    bool is_write = msg->type == MORTAR_PCIE_DMA_WRITE_DONE;
    /* Only a read completion carries `size` bytes of data; a write
     * completion may echo the size it wrote (QEMU's mortar-pci does) with
     * no data after it. Counting that as malformed leaked the request's
     * slot, and after dma_outstanding writes all DMA stopped. */
    if (msg->size < sizeof *c || (!is_write && msg->size - sizeof *c < c->size)) {
        d->c.bad_messages++;
        return;
    }
    int slot = find_inflight(&d->dma, c->req_id);
    if (slot < 0) {
        d->c.bad_completions++;
        return;
    }
    e1000_dma_req *r = d->dma.inflight[slot];
    uint32_t status = c->status;
    if (is_write != r->write || (!r->write && status == 0 && c->size != r->size))
        status = 0xffffffffu; /* a completion that does not match its request */
    if (status != 0) {
        d->c.bad_completions++;
        d->c.dma_errors++;
    }
    d->dma.inflight[slot] = NULL;
    d->dma.ninflight--;
    if (r->done)
        r->done(d, r, status, status == 0 ? c->data : NULL, status == 0 ? c->size : 0);
    free(r);
    kick(d);
}
