/*
 * dma.c - the matmul device's DMA engine.
 *
 * A request (read or write at a host address) is cut into chunks of at most
 * `dma_chunk` bytes, one PCIe DMA message each. Reads are non-posted: at most
 * `dma_outstanding` read chunks are in flight, issued in request order (two
 * reads submitted one after the other are fetched in that order). Writes are
 * posted: all their chunks go out at once and their completions only report
 * errors; PCIe ordering (nothing passes a posted write on the link) means
 * whatever the device sends after a write reaches the host after its data.
 *
 * Each chunk in flight has a slot; the message's request id is
 * (sequence << 16 | slot), so a completion finds its chunk in O(1) and a
 * stale or invented id is recognised and counted (bad_completions), never
 * trusted. A completion with an error status fails its request: the owner's
 * callback gets MATMUL_ERR_DMA once, and the request's other chunks are
 * absorbed quietly when they come back. Rule for callers and for this file:
 * a request is never touched after its callback ran.
 */
#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"
#include "model/matmul_internal.h"

#define MAX_SLOTS 65536u

struct dma_req {
    dma_req *prev, *next; /* the engine's list of live requests */
    dma_req *qnext;       /* the read queue */
    bool write, queued;
    bool closed; /* the callback ran or the owner cancelled: no more calls */
    uint64_t addr;
    uint32_t size, issued, done, in_flight;
    uint8_t *buf; /* read: the caller's buffer; write: our copy */
    uint64_t owner, req_id, cookie;
    matmul_dma_cb cb;
};

/* ---- setup ------------------------------------------------------------------ */

int matmul_dma_init(matmul_dma *d, uint32_t chunk, uint32_t max_reads)
{
    memset(d, 0, sizeof *d);
    d->chunk = chunk;
    d->max_reads = max_reads;
    d->msg = malloc(sizeof(mortar_pcie_dma) + chunk);
    return d->msg ? MORTAR_OK : MORTAR_ENOMEM;
}

void matmul_dma_fit(matmul_dma *d, uint32_t max_payload)
{
    uint32_t room =
        max_payload > sizeof(mortar_pcie_dma) ? max_payload - sizeof(mortar_pcie_dma) : 1;
    if (d->chunk > room)
        d->chunk = room;
}

static void free_req(matmul_dma *d, dma_req *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        d->live = r->next;
    if (r->next)
        r->next->prev = r->prev;
    if (r->write)
        free(r->buf);
    free(r);
}

void matmul_dma_free(matmul_dma *d)
{
    while (d->live)
        free_req(d, d->live);
    free(d->slots);
    free(d->free_slots);
    free(d->msg);
    memset(d, 0, sizeof *d);
}

/* ---- slots -------------------------------------------------------------------- */

static bool grow_slots(matmul_dma *d)
{
    uint32_t cap = d->nslots ? d->nslots * 2 : 64;
    if (cap > MAX_SLOTS)
        return false;
    dma_slot *s = realloc(d->slots, cap * sizeof *s);
    if (!s)
        return false;
    d->slots = s;
    uint32_t *f = realloc(d->free_slots, cap * sizeof *f);
    if (!f)
        return false;
    d->free_slots = f;
    for (uint32_t i = cap; i > d->nslots; i--) {
        d->slots[i - 1] = (dma_slot){0};
        d->free_slots[d->nfree++] = i - 1;
    }
    d->nslots = cap;
    return true;
}

/* Takes a free slot for a chunk; its id in *id. False when none is left. */
static bool take_slot(matmul_dma *d, dma_req *r, uint32_t offset, uint32_t size,
                      uint64_t *id)
{
    if (d->nfree == 0 && !grow_slots(d))
        return false;
    uint32_t idx = d->free_slots[--d->nfree];
    *id = (++d->seq << 16) | idx;
    d->slots[idx] = (dma_slot){.id = *id, .req = r, .offset = offset, .size = size};
    return true;
}

static void release_slot(matmul_dma *d, uint32_t idx)
{
    d->slots[idx] = (dma_slot){0};
    d->free_slots[d->nfree++] = idx;
}

/* ---- the read queue ------------------------------------------------------------ */

static void enqueue(matmul_dma *d, dma_req *r)
{
    r->queued = true;
    r->qnext = NULL;
    if (d->queue_tail)
        d->queue_tail->qnext = r;
    else
        d->queue_head = r;
    d->queue_tail = r;
}

static void dequeue(matmul_dma *d, dma_req *r)
{
    if (!r->queued)
        return;
    dma_req **pp = &d->queue_head, *prev = NULL;
    while (*pp && *pp != r) {
        prev = *pp;
        pp = &(*pp)->qnext;
    }
    if (*pp)
        *pp = r->qnext;
    if (d->queue_tail == r)
        d->queue_tail = prev;
    r->queued = false;
}

/* Frees a closed request once nothing of it is in flight or queued. */
static void maybe_free(matmul_dma *d, dma_req *r)
{
    if (r->closed && r->in_flight == 0 && !r->queued)
        free_req(d, r);
}

/* Closes `r` and calls its callback; `r` may be freed before the call. */
static void finish(matmul *m, dma_req *r, int status)
{
    matmul_dma_cb cb = r->cb;
    uint64_t cookie = r->cookie;
    dequeue(&m->dma, r);
    r->closed = true;
    if (status == 0)
        matmul_trace(m, r->write ? m->tk.dma_write_done : m->tk.dma_read_done, r->req_id,
                     r->addr, r->size);
    maybe_free(&m->dma, r);
    if (cb)
        cb(m, cookie, status);
}

/* ---- issuing ------------------------------------------------------------------ */

/* Sends the chunk [offset, offset + size) of `r`. */
static int send_chunk(matmul *m, dma_req *r, uint32_t offset, uint32_t size)
{
    matmul_dma *d = &m->dma;
    mortar_pcie_dma *msg = (mortar_pcie_dma *)d->msg;
    if (!take_slot(d, r, offset, size, &msg->req_id))
        return MORTAR_EAGAIN;
    msg->addr = r->addr + offset;
    msg->size = size;
    msg->reserved = 0;
    uint32_t len = sizeof *msg;
    if (r->write) {
        memcpy(msg->data, r->buf + offset, size);
        len += size;
    }
    int rc = mortar_send(m->self, MATMUL_PORT,
                         r->write ? MORTAR_PCIE_DMA_WRITE : MORTAR_PCIE_DMA_READ, msg,
                         len, 0, NULL);
    if (rc != 0) {
        release_slot(d, (uint32_t)(msg->req_id & 0xffff));
        return rc;
    }
    r->in_flight++;
    if (r->write)
        m->c.dma_writes++;
    else
        m->c.dma_reads++;
    m->c.dma_bytes += size;
    return MORTAR_OK;
}

/* Issues the next chunk of `r`; fails the request when it cannot be sent. */
static bool issue_next(matmul *m, dma_req *r)
{
    uint32_t size = r->size - r->issued;
    if (size > m->dma.chunk)
        size = m->dma.chunk;
    if (r->issued == 0)
        matmul_trace(m, r->write ? m->tk.dma_write : m->tk.dma_read, r->req_id, r->addr,
                     r->size);
    if (send_chunk(m, r, r->issued, size) != 0) {
        m->c.errors++;
        finish(m, r, MATMUL_ERR_DMA);
        return false;
    }
    r->issued += size;
    return true;
}

/* Issues read chunks in queue order while tags are free. */
static void pump(matmul *m)
{
    matmul_dma *d = &m->dma;
    while (d->reads_in_flight < d->max_reads && d->queue_head) {
        dma_req *r = d->queue_head;
        if (!issue_next(m, r))
            continue; /* finish() dequeued it */
        d->reads_in_flight++;
        if (r->issued == r->size)
            dequeue(d, r);
    }
}

static dma_req *new_req(matmul *m, bool write, uint64_t addr, uint32_t size,
                        uint64_t owner, uint64_t req_id, matmul_dma_cb cb,
                        uint64_t cookie)
{
    dma_req *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    *r = (dma_req){.write = write,
                   .addr = addr,
                   .size = size,
                   .owner = owner,
                   .req_id = req_id,
                   .cb = cb,
                   .cookie = cookie};
    r->next = m->dma.live;
    if (r->next)
        r->next->prev = r;
    m->dma.live = r;
    return r;
}

void matmul_dma_read(matmul *m, uint64_t addr, void *dst, uint32_t size, uint64_t owner,
                     uint64_t req_id, matmul_dma_cb cb, uint64_t cookie)
{
    dma_req *r = new_req(m, false, addr, size, owner, req_id, cb, cookie);
    if (!r || size == 0) {
        if (r)
            finish(m, r, 0);
        else if (cb)
            cb(m, cookie, MATMUL_ERR_DMA);
        return;
    }
    r->buf = dst;
    enqueue(&m->dma, r);
    pump(m);
}

void matmul_dma_write(matmul *m, uint64_t addr, const void *src, uint32_t size,
                      uint64_t owner, uint64_t req_id, matmul_dma_cb cb, uint64_t cookie)
{
    dma_req *r = new_req(m, true, addr, size, owner, req_id, cb, cookie);
    if (r && size && !(r->buf = malloc(size))) {
        r->closed = true;
        maybe_free(&m->dma, r);
        r = NULL;
    }
    if (!r || size == 0) {
        if (r)
            finish(m, r, 0);
        else if (cb)
            cb(m, cookie, MATMUL_ERR_DMA);
        return;
    }
    memcpy(r->buf, src, size);
    while (r->issued < r->size)
        if (!issue_next(m, r))
            return;
}

void matmul_dma_cancel(matmul *m, uint64_t owner)
{
    matmul_dma *d = &m->dma;
    dma_req *r = d->live;
    while (r) {
        dma_req *next = r->next;
        if (r->owner == owner && !r->closed) {
            dequeue(d, r);
            r->closed = true;
            maybe_free(d, r);
        }
        r = next;
    }
}

/* ---- completions --------------------------------------------------------------- */

/* The slot index of a completion's id, or -1 when no chunk has that id. */
static long find_slot(const matmul_dma *d, uint64_t id, bool write)
{
    uint32_t idx = (uint32_t)(id & 0xffff);
    if (id == 0 || idx >= d->nslots || d->slots[idx].id != id)
        return -1;
    if (d->slots[idx].req->write != write)
        return -1;
    return idx;
}

void matmul_dma_completion(matmul *m, bool write, const void *payload, uint32_t size)
{
    matmul_dma *d = &m->dma;
    mortar_pcie_dma_done hdr;
    if (size < sizeof hdr) {
        m->c.bad_messages++;
        m->c.errors++;
        return;
    }
    memcpy(&hdr, payload, sizeof hdr);
    long idx = find_slot(d, hdr.req_id, write);
    if (idx < 0) {
        m->c.bad_completions++;
        m->c.errors++;
        return;
    }
    dma_slot s = d->slots[idx];
    dma_req *r = s.req;
    release_slot(d, (uint32_t)idx);
    r->in_flight--;
    if (!write)
        d->reads_in_flight--;
    bool short_data =
        !write && hdr.status == 0 && (hdr.size != s.size || size - sizeof hdr < s.size);
    if (short_data)
        m->c.bad_completions++;
    if (hdr.status != 0)
        m->c.dma_errors++;
    if (r->closed) {
        maybe_free(d, r);
    } else if (hdr.status != 0 || short_data) {
        m->c.errors++;
        matmul_trace(m, m->tk.error, r->req_id, MATMUL_ERR_DMA, r->addr + s.offset);
        finish(m, r, MATMUL_ERR_DMA);
    } else {
        if (!write)
            memcpy(r->buf + s.offset, (const uint8_t *)payload + sizeof hdr, s.size);
        r->done += s.size;
        if (r->done == r->size)
            finish(m, r, 0);
    }
    pump(m);
}
