/*
 * rx.c - the e1000 model's receive path: the on-chip receive FIFO and the
 * receive descriptor ring.
 *
 * A frame that arrives while the link is up and RCTL.EN is set passes the
 * filters (rx_filter.c), is counted, and waits in the receive FIFO, whose
 * size is the receive share of the packet buffer (PBA, 48 KiB by default).
 * A frame that does not fit the FIFO, or arrives while receiving is off, is
 * dropped and counted in MPC (and raises RXO when the FIFO overflowed).
 *
 * The FIFO drains into host memory through the descriptor ring: hardware
 * owns the descriptors from RDH up to RDT. They are prefetched by DMA
 * (sims/common/desc_prefetch.h). A frame of n bytes (FCS included unless
 * SECRC) takes ceil(n / buffer size) descriptors, the buffer size coming from RCTL.BSIZE
 * and BSEX; the head frame waits until that many are available (counted once
 * in RNBC). Its data is written to the buffers, then each descriptor is
 * written back (length, checksum, status DD, and on the last EOP with the
 * checksum/VLAN status), RDH moves on, RXT0 is raised through the RDTR/RADV
 * timers, and RXDMT0 when the free descriptors fall to the RDMTS fraction of
 * the ring. With flow control on, the FIFO's fill sends PAUSE frames
 * (flow_ctrl.c).
 */
#include "e1000_internal.h"

#include <stdlib.h>
#include <string.h>

#include "sims/common/pkt.h"

static uint64_t ring_base(const e1000 *d)
{
    return e1000_reg64(d, E1000_RDBAL);
}

static uint32_t buffer_size(const e1000 *d)
{
    static const uint32_t normal[4] = {2048, 1024, 512, 256};
    static const uint32_t extended[4] = {2048, 16384, 8192, 4096};
    uint32_t rctl = e1000_reg(d, E1000_RCTL);
    uint32_t bsize = (rctl & E1000_RCTL_BSIZE_MASK) >> E1000_RCTL_BSIZE_SHIFT;
    return (rctl & E1000_RCTL_BSEX) ? extended[bsize] : normal[bsize];
}

static uint32_t fifo_capacity(const e1000 *d)
{
    uint32_t rx_kb = e1000_reg(d, E1000_PBA) & 0xFFFF;
    if (rx_kb == 0 || rx_kb >= E1000_PBA_TOTAL_KB)
        rx_kb = E1000_PBA_DEFAULT & 0xFFFF;
    return rx_kb * 1024;
}

/* Descriptors hardware owns beyond `from`: up to the tail. */
static uint32_t owned_from(const e1000 *d, uint32_t from, uint32_t n)
{
    uint32_t tail = e1000_reg(d, E1000_RDT);
    return (tail + n - from) % n;
}

void e1000_rx_free(e1000 *d)
{
    e1000_rx *rx = &d->rx;
    while (rx->head) {
        e1000_rx_frame *f = rx->head;
        rx->head = f->next;
        free(f);
    }
    rx->tail = NULL;
    rx->fifo_bytes = 0;
}

void e1000_rx_reset(e1000 *d)
{
    e1000_rx *rx = &d->rx;
    rx->gen++;
    dmaq_flush(&d->dma, DMA_OWNER_RX);
    e1000_rx_free(d);
    desc_prefetch_reset(&rx->cache, e1000_reg(d, E1000_RDH));
    rx->waiting = false;
    rx->dmt_armed = true;
}

void e1000_rx_ring_changed(e1000 *d)
{
    e1000_rx_reset(d);
}

/* ---- descriptor thresholds ------------------------------------------------ */

/* RXDMT0 fires when the free descriptors fall to 1/2, 1/4 or 1/8 of the ring. */
static uint32_t dmt_threshold(const e1000 *d, uint32_t n)
{
    uint32_t rdmts =
        (e1000_reg(d, E1000_RCTL) & E1000_RCTL_RDMTS_MASK) >> E1000_RCTL_RDMTS_SHIFT;
    return n >> (1 + (rdmts < 3 ? rdmts : 2));
}

static void check_threshold(e1000 *d)
{
    uint32_t n = e1000_ring_count(d, E1000_RDLEN);
    if (n == 0)
        return;
    uint32_t free = owned_from(d, e1000_reg(d, E1000_RDH), n);
    if (free > dmt_threshold(d, n)) {
        d->rx.dmt_armed = true;
    } else if (d->rx.dmt_armed) {
        d->rx.dmt_armed = false;
        e1000_irq_cause(d, E1000_ICR_RXDMT0);
    }
}

void e1000_rx_tail_write(e1000 *d, uint32_t v)
{
    uint32_t n = e1000_ring_count(d, E1000_RDLEN);
    if (n == 0 ? v != 0 : v >= n) {
        d->c.bad_tail_writes++;
        return;
    }
    e1000_reg_set(d, E1000_RDT, v);
    d->rx.cache.failed = false;
    if (n && owned_from(d, e1000_reg(d, E1000_RDH), n) > dmt_threshold(d, n))
        d->rx.dmt_armed = true;
    e1000_rx_kick(d);
}

/* ---- descriptor prefetch --------------------------------------------------- */

static desc_ring_view ring_view(const e1000 *d, uint32_t n)
{
    return (desc_ring_view){.base = ring_base(d), .n = n, .desc_size = DESC_SIZE};
}

static void fetch_done(void *ctx, const dmaq_req *r, uint32_t status, const uint8_t *data,
                       uint32_t size)
{
    e1000 *d = ctx;
    if (r->gen != d->rx.gen)
        return;
    desc_ring_view ring = ring_view(d, e1000_ring_count(d, E1000_RDLEN));
    switch (desc_prefetch_complete(&d->rx.cache, r, status, data, size, ring)) {
    case DESC_FETCH_PENDING:
        return;
    case DESC_FETCH_FAILED:
        d->c.ring_errors++; /* retried when software writes RDT again */
        return;
    case DESC_FETCH_DONE:
        e1000_rx_kick(d);
        return;
    }
}

static void fetch(e1000 *d, uint32_t n)
{
    desc_prefetch_start(&d->rx.cache, &d->dma, DMA_OWNER_RX, d->rx.gen, ring_view(d, n),
                        e1000_reg(d, E1000_RDT), fetch_done);
}

/* ---- delivering a frame ---------------------------------------------------- */

static void count_delivered(e1000 *d, const e1000_rx_frame *f)
{
    d->c.rx_frames++;
    d->c.rx_bytes += f->frame_len;
    mortar_trace(d->self, d->tk_rx, d->rx.seq++, f->frame_len, f->status);
}

/* The frame's last descriptor write-back is on the link: interrupts may follow. */
static void written_back(void *ctx, uint64_t tag)
{
    e1000 *d = ctx;
    (void)tag;
    e1000_irq_rx_event(d);
    check_threshold(d);
}

static void write_descriptor(e1000 *d, uint32_t idx, uint32_t len,
                             const e1000_rx_frame *f, bool last)
{
    uint8_t wb[8];
    le16_put(wb, (uint16_t)len);
    le16_put(wb + 2, last ? f->csum : 0);
    wb[4] = E1000_RXD_STAT_DD | (last ? E1000_RXD_STAT_EOP | f->status : 0);
    wb[5] = last ? f->errors : 0;
    le16_put(wb + 6, last ? f->special : 0);
    dmaq_write(&d->dma, DMA_OWNER_RX, d->rx.gen,
               ring_base(d) + (uint64_t)idx * DESC_SIZE + 8, wb, sizeof wb,
               last ? written_back : NULL, 0);
}

static void deliver(e1000 *d, e1000_rx_frame *f, uint32_t need, uint32_t bufsize)
{
    e1000_rx *rx = &d->rx;
    uint32_t idx[DESC_CACHE_MAX], len[DESC_CACHE_MAX];
    if (need == 0 || need > DESC_CACHE_MAX)
        return;
    for (uint32_t i = 0; i < need; i++) {
        uint64_t addr;
        uint32_t off = i * bufsize;
        len[i] = f->len - off < bufsize ? f->len - off : bufsize;
        desc_prefetch_pop(&rx->cache, &addr, &idx[i]);
        dmaq_write(&d->dma, DMA_OWNER_RX, rx->gen, addr, f->data + off, len[i], NULL, 0);
    }
    for (uint32_t i = 0; i < need; i++)
        write_descriptor(d, idx[i], len[i], f, i + 1 == need);
    uint32_t n = e1000_ring_count(d, E1000_RDLEN);
    e1000_reg_set(d, E1000_RDH, (idx[need - 1] + 1) % n);
    count_delivered(d, f);
}

static void pop_head(e1000 *d)
{
    e1000_rx *rx = &d->rx;
    e1000_rx_frame *f = rx->head;
    rx->head = f->next;
    if (!rx->head)
        rx->tail = NULL;
    rx->fifo_bytes -= f->len;
    rx->waiting = false;
    free(f);
    e1000_fc_rx_drained(d, rx->fifo_bytes);
}

void e1000_rx_kick(e1000 *d)
{
    e1000_rx *rx = &d->rx;
    while (rx->head && (e1000_reg(d, E1000_RCTL) & E1000_RCTL_EN)) {
        uint32_t n = e1000_ring_count(d, E1000_RDLEN);
        uint32_t bufsize = buffer_size(d);
        uint32_t need = (rx->head->len + bufsize - 1) / bufsize;
        if (n == 0)
            return;
        if (need > n - 1 || need > DESC_CACHE_MAX) {
            d->c.rx_missed++; /* can never fit the ring */
            e1000_stat_add(d, E1000_MPC, 1);
            pop_head(d);
        } else if (rx->cache.count >= need) {
            deliver(d, rx->head, need, bufsize);
            pop_head(d);
        } else {
            if (rx->cache.count + owned_from(d, rx->cache.next, n) < need &&
                !rx->waiting) {
                rx->waiting = true;
                e1000_stat_add(d, E1000_RNBC, 1);
            }
            fetch(d, n);
            return;
        }
    }
}

/* ---- arrival ------------------------------------------------------------------ */

static void count_accepted(e1000 *d, const uint8_t *f, uint32_t len)
{
    static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    uint32_t wire = len + E1000_ETH_FCS;
    e1000_stat_add(d, E1000_GPRC, 1);
    e1000_stat_add(d, E1000_GORCL, wire);
    e1000_stat_size_bin(d, E1000_PRC64, wire);
    if (memcmp(f, bcast, 6) == 0)
        e1000_stat_add(d, E1000_BPRC, 1);
    else if (f[0] & 1)
        e1000_stat_add(d, E1000_MPRC, 1);
}

static void miss(e1000 *d, uint32_t cause)
{
    d->c.rx_missed++;
    e1000_stat_add(d, E1000_MPC, 1);
    if (cause)
        e1000_irq_cause(d, cause);
}

/* Length limits: without LPE a frame (with FCS) may be at most 1522 bytes. */
static bool too_long(const e1000 *d, uint32_t len)
{
    uint32_t max = (e1000_reg(d, E1000_RCTL) & E1000_RCTL_LPE)
                       ? E1000_MAX_FRAME + E1000_ETH_FCS
                       : E1000_STD_FRAME_FCS;
    return len + E1000_ETH_FCS > max;
}

void e1000_rx_frame_in(e1000 *d, const uint8_t *frame, uint32_t len)
{
    e1000_rx *rx = &d->rx;
    e1000_stat_add(d, E1000_TPR, 1);
    e1000_stat_add(d, E1000_TORL, (uint64_t)len + E1000_ETH_FCS);
    if (len < ETH_HLEN) {
        e1000_stat_add(d, E1000_RUC, 1);
        d->c.rx_filtered++;
        return;
    }
    if (e1000_link_up(d) && e1000_fc_frame_in(d, frame, len))
        return; /* PAUSE: consumed by the MAC, whether receiving is on or not */
    if (!e1000_link_up(d) || !(e1000_reg(d, E1000_RCTL) & E1000_RCTL_EN)) {
        miss(d, 0);
        return;
    }
    if (!e1000_rx_accept(d, frame, len)) {
        d->c.rx_filtered++;
        return;
    }
    if (too_long(d, len)) {
        e1000_stat_add(d, E1000_ROC, 1);
        d->c.rx_filtered++;
        return;
    }
    e1000_rx_frame *f = e1000_rx_prepare(d, frame, len);
    if (!f || rx->fifo_bytes + f->len > fifo_capacity(d)) {
        free(f);
        miss(d, E1000_ICR_RXO);
        return;
    }
    count_accepted(d, frame, len);
    if (rx->tail)
        rx->tail->next = f;
    else
        rx->head = f;
    rx->tail = f;
    rx->fifo_bytes += f->len;
    e1000_fc_rx_filled(d, rx->fifo_bytes);
    e1000_rx_kick(d);
}
