/*
 * rx.c - the i40e model's receive path: the on-chip receive packet buffer
 * and the receive queues.
 *
 * A frame that arrives while the link is up passes the filters (the port
 * address and the unicast addresses the driver added, broadcast, multicast,
 * or anything in unicast promiscuous mode), is checked (length, IP and
 * TCP/UDP checksums, packet type) and waits in the receive packet buffer
 * (I40E_RX_BUFFER_BYTES, the device's). Only a full buffer drops a frame:
 * counted in rx_missed and in the driver-visible GLPRT_RDPC/GLV_RDPC. Frames
 * go to queue 0, the main VSI's first queue (RSS is not modelled); a frame
 * that arrives while that queue is disabled is dropped (rx_filtered).
 *
 * The buffer drains into host memory through the queue's descriptor ring:
 * hardware owns the descriptors from the head up to the tail (QRX_TAIL).
 * They are prefetched by DMA (sims/common/desc_prefetch.h), 16 or 32 bytes
 * each as the queue context says, as soon as the driver hands them over
 * (a tail write) and whenever the on-chip cache has room again, never only
 * when a frame is waiting for them: the driver returns buffers 32 at a
 * time (I40E_RX_BUFFER_WRITE, "one at a time is too slow"), and a fetch
 * started by a frame would hold that frame in the buffer for a PCIe round
 * trip, once per 32 frames. A frame of n bytes (plus the FCS unless the
 * context strips it) takes ceil(n / buffer size) descriptors, the buffer
 * size being the context's DBUFF x 128; the head frame waits until that
 * many are available. Its data goes to the buffers, then each descriptor is
 * written back in the write-back format the driver parses: DD, the length
 * in that buffer, and on the last one EOP, L3L4P with the IPE/L4E error
 * bits, and the packet type. The queue's interrupt cause follows the last
 * write-back onto the link.
 *
 * MAC control frames (PAUSE) are consumed before the filters; the buffer's
 * fill level drives the PAUSE frames the port sends (flow_ctrl.c).
 */
#include "i40e_internal.h"

#include <stdlib.h>
#include <string.h>

#include "mortar/runtime.h"
#include "sims/common/pkt.h"

#define ETH_HLEN_ 14

/* Counts a frame the model does not deliver (rx_filtered) and says why at
 * debug level. */
static void filtered(i40e *d, const char *why, uint32_t len)
{
    d->c.rx_filtered++;
    mortar_logf(d->self, MORTAR_LOG_DEBUG, "receive: %u-byte frame dropped: %s", len,
                why);
}

/* ---- queue state ------------------------------------------------------------ */

static uint32_t desc_size(const i40e_rxq *r)
{
    return r->desc32 ? 32 : 16;
}

static void prefetch(i40e *d, i40e_rxq *r);

static void queue_stop(i40e *d, i40e_rxq *r)
{
    r->gen++;
    dmaq_flush(&d->dma, OWNER_RX(r->idx));
    r->enabled = r->ctx_loading = r->ctx_ready = false;
    desc_prefetch_reset(&r->cache, 0);
}

static void drop_queued(i40e *d, uint32_t q)
{
    i40e_rx *rx = &d->rx;
    i40e_rx_frame **pp = &rx->head;
    rx->tail = NULL;
    while (*pp) {
        i40e_rx_frame *f = *pp;
        if (f->queue == q) {
            *pp = f->next;
            rx->bytes -= f->len;
            filtered(d, "its queue was disabled", f->len);
            free(f);
        } else {
            rx->tail = f;
            pp = &f->next;
        }
    }
}

void i40e_rx_free(i40e *d)
{
    i40e_rx *rx = &d->rx;
    while (rx->head) {
        i40e_rx_frame *f = rx->head;
        rx->head = f->next;
        free(f);
    }
    rx->tail = NULL;
    rx->bytes = 0;
}

void i40e_rx_reset(i40e *d)
{
    for (uint32_t q = 0; q < I40E_NQP; q++)
        queue_stop(d, &d->rxq[q]);
    i40e_rx_free(d);
    i40e_fc_rx_level(d);
}

void i40e_rx_ena_write(i40e *d, uint32_t q, uint32_t v)
{
    i40e_rxq *r = &d->rxq[q];
    if (!(v & I40E_QENA_REQ)) {
        queue_stop(d, r);
        drop_queued(d, q);
        i40e_fc_rx_level(d);
        i40e_reg_set(d, I40E_QRX_ENA(q), 0);
        return;
    }
    if (r->enabled)
        return;
    queue_stop(d, r);
    r->enabled = r->ctx_loading = true;
    i40e_reg_set(d, I40E_QRX_ENA(q), I40E_QENA_REQ);
    i40e_hmc_read_ctx(d, true, q, r->gen);
}

void i40e_rx_ctx_loaded(i40e *d, uint32_t q, uint32_t gen, const uint8_t *ctx)
{
    i40e_rxq *r = &d->rxq[q];
    if (gen != r->gen || !r->ctx_loading)
        return;
    r->ctx_loading = false;
    if (!ctx) {
        d->c.ring_errors++; /* QENA_STAT stays clear: the driver times out */
        return;
    }
    r->head = (uint32_t)i40e_bits(ctx, 0, 13);
    r->base = i40e_bits(ctx, 32, 57) * 128;
    r->len = (uint32_t)i40e_bits(ctx, 89, 13);
    r->dbuff = (uint32_t)i40e_bits(ctx, 102, 7) * 128;
    r->desc32 = i40e_bits(ctx, 116, 1);
    r->crcstrip = i40e_bits(ctx, 117, 1);
    r->rxmax = (uint32_t)i40e_bits(ctx, 174, 14);
    if (r->len < 2 || r->head >= r->len || r->dbuff == 0 || i40e_bits(ctx, 114, 2) != 0) {
        d->c.ring_errors++; /* header split and empty rings are not modelled */
        return;
    }
    desc_prefetch_reset(&r->cache, r->head);
    r->ctx_ready = true;
    i40e_reg_set(d, I40E_QRX_ENA(q), I40E_QENA_REQ | I40E_QENA_STAT);
    prefetch(d, r);
    i40e_rx_kick(d);
}

void i40e_rx_tail_write(i40e *d, uint32_t q, uint32_t v)
{
    i40e_rxq *r = &d->rxq[q];
    if (r->ctx_ready && v >= r->len) {
        d->c.bad_tail_writes++;
        return;
    }
    i40e_reg_set(d, I40E_QRX_TAIL(q), v);
    r->cache.failed = false;
    prefetch(d, r);
    i40e_rx_kick(d);
}

/* ---- descriptor prefetch ------------------------------------------------------ */

static desc_ring_view ring_view(const i40e_rxq *r)
{
    return (desc_ring_view){.base = r->base, .n = r->len, .desc_size = desc_size(r)};
}

static void fetch_done(void *ctx, const dmaq_req *req, uint32_t status,
                       const uint8_t *data, uint32_t size)
{
    i40e *d = ctx;
    i40e_rxq *r = &d->rxq[req->owner - OWNER_RX(0)];
    if (req->gen != r->gen)
        return;
    switch (desc_prefetch_complete(&r->cache, req, status, data, size, ring_view(r))) {
    case DESC_FETCH_PENDING:
        return;
    case DESC_FETCH_FAILED:
        d->c.ring_errors++; /* retried at the next tail write */
        return;
    case DESC_FETCH_DONE:
        prefetch(d, r);
        i40e_rx_kick(d);
        return;
    }
}

/* Reads the descriptors the driver has handed over, as many as the cache
 * takes (nothing while a fetch is in flight or after a failed one). */
static void prefetch(i40e *d, i40e_rxq *r)
{
    if (!r->ctx_ready)
        return;
    desc_prefetch_start(&r->cache, &d->dma, OWNER_RX(r->idx), r->gen, ring_view(r),
                        i40e_reg(d, I40E_QRX_TAIL(r->idx)), fetch_done);
}

/* ---- delivering a frame ---------------------------------------------------------- */

static void written_back(void *ctx, uint64_t q)
{
    i40e_irq_queue_cause(ctx, true, (uint32_t)q);
}

static void write_descriptor(i40e *d, i40e_rxq *r, uint32_t idx, uint32_t len,
                             const i40e_rx_frame *f, bool last)
{
    uint8_t wb[32];
    memset(wb, 0, sizeof wb);
    uint64_t qw1 = I40E_RXD_STATUS_DD | (uint64_t)len << I40E_RXD_LEN_PBUF_SHIFT;
    if (last)
        qw1 |= I40E_RXD_STATUS_EOP | f->qw1;
    le64_put(wb + 8, qw1);
    dmaq_write(&d->dma, OWNER_RX(r->idx), r->gen, r->base + (uint64_t)idx * desc_size(r),
               wb, desc_size(r), last ? written_back : NULL, r->idx);
}

static void deliver(i40e *d, i40e_rxq *r, const i40e_rx_frame *f, const uint8_t *data,
                    uint32_t len, uint32_t need)
{
    uint32_t idx[DESC_CACHE_MAX], blen[DESC_CACHE_MAX];
    for (uint32_t i = 0; i < need; i++) {
        uint64_t addr;
        uint32_t off = i * r->dbuff;
        blen[i] = len - off < r->dbuff ? len - off : r->dbuff;
        desc_prefetch_pop(&r->cache, &addr, &idx[i]);
        dmaq_write(&d->dma, OWNER_RX(r->idx), r->gen, addr, data + off, blen[i], NULL, 0);
    }
    for (uint32_t i = 0; i < need; i++)
        write_descriptor(d, r, idx[i], blen[i], f, i + 1 == need);
    r->head = (idx[need - 1] + 1) % r->len;
    d->c.rx_frames++;
    d->c.rx_bytes += f->len;
    mortar_trace(d->self, d->tk_rx, d->rx.seq++, f->len,
                 (uint32_t)(f->qw1 >> I40E_RXD_PTYPE_SHIFT & 0xFF));
}

static void pop_head(i40e_rx *rx)
{
    i40e_rx_frame *f = rx->head;
    rx->head = f->next;
    if (!rx->head)
        rx->tail = NULL;
    rx->bytes -= f->len;
    free(f);
}

/* The frame as it goes to memory: with its FCS unless the queue strips it. */
static const uint8_t *with_fcs(const i40e_rxq *r, i40e_rx_frame *f, uint8_t *buf,
                               uint32_t *len)
{
    *len = f->len;
    if (r->crcstrip)
        return f->data;
    memcpy(buf, f->data, f->len);
    uint32_t crc = pkt_crc32(f->data, f->len);
    for (int i = 0; i < 4; i++)
        buf[f->len + (uint32_t)i] = (uint8_t)(crc >> (8 * i));
    *len = f->len + I40E_ETH_FCS;
    return buf;
}

/* Moves frames from the buffer to their queues while descriptors last. */
static void drain(i40e *d)
{
    uint8_t *buf = d->rxbuf;
    i40e_rx *rx = &d->rx;
    while (rx->head) {
        i40e_rx_frame *f = rx->head;
        i40e_rxq *r = &d->rxq[f->queue];
        if (!r->ctx_ready)
            return;
        uint32_t len = 0;
        const uint8_t *data = with_fcs(r, f, buf, &len);
        uint32_t need = (len + r->dbuff - 1) / r->dbuff;
        if (need > r->len - 1 || need > DESC_CACHE_MAX || (r->rxmax && f->len > r->rxmax)) {
            d->st.roc++;
            filtered(d, "larger than the queue's buffers or maximum", f->len);
            pop_head(rx);
        } else if (r->cache.count >= need) {
            deliver(d, r, f, data, len, need);
            pop_head(rx);
            prefetch(d, r);
        } else {
            prefetch(d, r);
            return;
        }
    }
}

void i40e_rx_kick(i40e *d)
{
    uint32_t before = d->rx.bytes;
    drain(d);
    if (d->rx.bytes != before)
        i40e_fc_rx_level(d);
}

/* ---- arrival ------------------------------------------------------------------------
 */

static bool accept(const i40e *d, const uint8_t *f)
{
    if (f[0] & 1)
        return true; /* broadcast and multicast */
    if (d->promisc || memcmp(f, d->mac, 6) == 0)
        return true;
    for (uint32_t i = 0; i < d->nuc; i++)
        if (memcmp(f, d->uc[i], 6) == 0)
            return true;
    return false;
}

static void count_accepted(i40e *d, const uint8_t *f, uint32_t len)
{
    static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    uint32_t wire = len + I40E_ETH_FCS;
    d->st.gorc += wire;
    i40e_stat_size_bin(d->st.prc, wire);
    if (memcmp(f, bcast, 6) == 0)
        d->st.bprc++;
    else if (f[0] & 1)
        d->st.mprc++;
    else
        d->st.uprc++;
}

/* The L4 checksum of a TCP/UDP packet is right (sum over pseudo-header and
 * segment folds to 0xFFFF). */
static bool l4_ok(const uint8_t *ip, uint32_t l4off, uint32_t l4len, uint8_t proto,
                  bool v6)
{
    uint32_t sum = 0;
    if (v6) {
        sum = pkt_sum(ip + 8, 32, 0);
    } else {
        sum = pkt_sum(ip + 12, 8, 0);
    }
    sum += proto;
    sum += l4len;
    sum = pkt_sum(ip + l4off, l4len, sum);
    if (proto == 17 && l4len >= 8 && pkt_get16(ip + l4off + 6) == 0 && !v6)
        return true; /* UDP over IPv4 without a checksum */
    return pkt_fold(sum) == 0xFFFF;
}

/* Packet type, checksum status and errors for the write-back. */
static uint64_t classify(const uint8_t *f, uint32_t len)
{
    uint32_t off = ETH_HLEN_;
    uint16_t type = pkt_get16(f + 12);
    if (type == 0x8100 && len >= 18) {
        type = pkt_get16(f + 16);
        off += 4;
    }
    uint64_t ptype = I40E_PTYPE_L2_PAY2, bits = 0;
    if (type == 0x0806) {
        ptype = I40E_PTYPE_L2_ARP;
    } else if (type == 0x0800 && len >= off + 20) {
        const uint8_t *ip = f + off;
        uint32_t ihl = (ip[0] & 0xF) * 4u;
        uint32_t tot = pkt_get16(ip + 2);
        bool frag = (pkt_get16(ip + 6) & 0x3FFF) != 0;
        uint8_t proto = ip[9];
        ptype = frag ? I40E_PTYPE_IPV4_FRAG : I40E_PTYPE_IPV4_PAY3;
        bits = I40E_RXD_STATUS_L3L4P;
        if (ihl < 20 || off + ihl > len || pkt_fold(pkt_sum(ip, ihl, 0)) != 0xFFFF) {
            bits |= I40E_RXD_ERROR_IPE << I40E_RXD_ERROR_SHIFT;
        } else if (!frag && (proto == 6 || proto == 17) && tot >= ihl &&
                   off + tot <= len) {
            ptype = proto == 6 ? I40E_PTYPE_IPV4_TCP : I40E_PTYPE_IPV4_UDP;
            if (!l4_ok(ip, ihl, tot - ihl, proto, false))
                bits |= I40E_RXD_ERROR_L4E << I40E_RXD_ERROR_SHIFT;
        }
    } else if (type == 0x86DD && len >= off + 40) {
        const uint8_t *ip = f + off;
        uint32_t pay = pkt_get16(ip + 4);
        uint8_t next = ip[6];
        ptype = I40E_PTYPE_IPV6_PAY3;
        bits = I40E_RXD_STATUS_L3L4P;
        if ((next == 6 || next == 17) && off + 40 + pay <= len) {
            ptype = next == 6 ? I40E_PTYPE_IPV6_TCP : I40E_PTYPE_IPV6_UDP;
            if (!l4_ok(ip, 40, pay, next, true))
                bits |= I40E_RXD_ERROR_L4E << I40E_RXD_ERROR_SHIFT;
        } else if (next == 44) {
            ptype = I40E_PTYPE_IPV6_FRAG;
        }
    }
    return bits | ptype << I40E_RXD_PTYPE_SHIFT;
}

static uint32_t max_frame(const i40e *d)
{
    return (d->max_frame ? d->max_frame : I40E_MAX_FRAME_FCS) - I40E_ETH_FCS;
}

void i40e_rx_frame_in(i40e *d, const uint8_t *frame, uint32_t len)
{
    i40e_rx *rx = &d->rx;
    if (len < ETH_HLEN_) {
        d->st.ruc++;
        filtered(d, "shorter than an Ethernet header", len);
        return;
    }
    if (!d->link_up) {
        filtered(d, "link down", len);
        return;
    }
    if (i40e_fc_frame_in(d, frame, len))
        return; /* MAC control: consumed by the MAC */
    if (!accept(d, frame)) {
        filtered(d, "not for this port", len);
        return;
    }
    if (len > max_frame(d)) {
        d->st.roc++;
        filtered(d, "longer than the maximum frame size", len);
        return;
    }
    if (!d->rxq[0].enabled) {
        filtered(d, "queue 0 disabled", len);
        return;
    }
    if (rx->bytes + len > I40E_RX_BUFFER_BYTES) {
        d->c.rx_missed++;
        d->st.rdpc++;
        return;
    }
    i40e_rx_frame *f = malloc(sizeof *f + len);
    if (!f) {
        d->c.rx_missed++;
        d->st.rdpc++;
        return;
    }
    memcpy(f->data, frame, len);
    f->len = len;
    f->queue = 0;
    f->next = NULL;
    f->qw1 = classify(frame, len);
    count_accepted(d, frame, len);
    if (rx->tail)
        rx->tail->next = f;
    else
        rx->head = f;
    rx->tail = f;
    rx->bytes += len;
    i40e_rx_kick(d);
    i40e_fc_rx_level(d);
}
