/*
 * tx.c - the e1000 model's transmit descriptor ring.
 *
 * While TCTL.EN is set and the head (TDH) has not reached the tail (TDT), the
 * engine fetches descriptors by DMA (up to TX_CACHE at a time, never past the
 * tail or the ring's end) and consumes them in order:
 *   - a context descriptor (DEXT, DTYP 0) loads an offload context; the model
 *     keeps one for TCP segmentation (TSE set) and one for checksums;
 *   - a data descriptor (DEXT, DTYP 1) or a legacy descriptor appends its
 *     buffer to the packet being assembled, read by DMA.
 * At the descriptor with EOP, once all its data has arrived and the transmit
 * FIFO has room, the packet goes to tx_offload.c (checksums, segmentation,
 * VLAN tag) and out on the Ethernet port. Then every descriptor of the packet
 * with RS gets DD written back, TDH moves past the packet and TXDW is raised
 * (delayed by TIDV/TADV when the descriptor has IDE).
 *
 * The transmit FIFO (64 KiB minus the receive share in PBA) drains at the
 * 82540's 1 Gb/s line rate; a packet waits until it fits. That paces
 * write-backs like the hardware does, whatever the Ethernet link's settings.
 * While a received PAUSE holds the transmitter (flow_ctrl.c) no packet
 * starts.
 *
 * Errors: a tail beyond the ring is refused and counted; a failed descriptor
 * fetch stops the ring until software writes TDT again; a failed data read
 * drops the packet (its descriptors are still completed).
 */
#include "e1000_internal.h"

#include <stdlib.h>
#include <string.h>

static uint64_t ring_base(const e1000 *d)
{
    return e1000_reg64(d, E1000_TDBAL);
}

static void packet_clear(e1000_tx *tx)
{
    tx->pkt_len = 0;
    tx->reads_pending = 0;
    tx->opts_set = tx->eop = tx->error = false;
    tx->ide_all = true;
    memset(&tx->opts, 0, sizeof tx->opts);
    tx->nwb = 0;
}

void e1000_tx_reset(e1000 *d)
{
    e1000_tx *tx = &d->tx;
    tx->gen++;
    dmaq_flush(&d->dma, DMA_OWNER_TX);
    tx->fetching = tx->stalled = tx->fetch_failed = false;
    tx->fetch_chunks = 0;
    tx->fetch_next = e1000_reg(d, E1000_TDH);
    tx->cache_len = tx->cache_pos = 0;
    memset(&tx->ctx_tso, 0, sizeof tx->ctx_tso);
    memset(&tx->ctx_csum, 0, sizeof tx->ctx_csum);
    packet_clear(tx);
    if (tx->fifo_timer)
        mortar_timer_cancel(d->self, tx->fifo_timer);
    tx->fifo_timer = 0;
}

void e1000_tx_ring_changed(e1000 *d)
{
    e1000_tx_reset(d);
    e1000_tx_kick(d);
}

void e1000_tx_tail_write(e1000 *d, uint32_t v)
{
    uint32_t n = e1000_ring_count(d, E1000_TDLEN);
    if (n == 0 ? v != 0 : v >= n) {
        d->c.bad_tail_writes++;
        return;
    }
    e1000_reg_set(d, E1000_TDT, v);
    d->tx.stalled = false;
    e1000_tx_kick(d);
}

/* ---- descriptor fetch ---------------------------------------------------- */

static void fetch_done(void *ctx, const dmaq_req *r, uint32_t status, const uint8_t *data,
                       uint32_t size)
{
    e1000 *d = ctx;
    e1000_tx *tx = &d->tx;
    if (r->gen != tx->gen)
        return;
    uint32_t n = e1000_ring_count(d, E1000_TDLEN);
    if (status != 0 || n == 0) {
        tx->fetch_failed = true;
    } else {
        for (uint32_t i = 0; i < size / DESC_SIZE; i++) {
            uint32_t slot = r->offset / DESC_SIZE + i;
            const uint8_t *p = data + (size_t)i * DESC_SIZE;
            if (slot >= TX_CACHE)
                break;
            tx->cache[slot] = (e1000_tx_desc){.addr = le64_get(p),
                                              .lower = le32_get(p + 8),
                                              .upper = le32_get(p + 12),
                                              .idx = (tx->fetch_next + slot) % n};
        }
    }
    if (--tx->fetch_chunks > 0)
        return;
    tx->fetching = false;
    if (tx->fetch_failed) {
        d->c.ring_errors++;
        tx->stalled = true; /* retried when software writes TDT again */
        tx->fetch_failed = false;
        return;
    }
    tx->cache_len = tx->fetch_len;
    tx->cache_pos = 0;
    tx->fetch_next = (tx->fetch_next + tx->fetch_len) % n;
    e1000_tx_kick(d);
}

static void fetch(e1000 *d)
{
    e1000_tx *tx = &d->tx;
    uint32_t n = e1000_ring_count(d, E1000_TDLEN);
    uint32_t tail = e1000_reg(d, E1000_TDT);
    if (tx->fetching || tx->stalled || n == 0 || tx->fetch_next >= n ||
        tx->fetch_next == tail)
        return;
    uint32_t count = tx->fetch_next < tail ? tail - tx->fetch_next : n - tx->fetch_next;
    if (count > TX_CACHE)
        count = TX_CACHE;
    tx->fetching = true;
    tx->fetch_len = count;
    tx->fetch_chunks = dmaq_read(&d->dma, DMA_OWNER_TX, tx->gen,
                                 ring_base(d) + (uint64_t)tx->fetch_next * DESC_SIZE,
                                 count * DESC_SIZE, fetch_done, 0);
    if (tx->fetch_chunks == 0)
        tx->fetching = false;
}

/* ---- consuming descriptors ------------------------------------------------ */

static void data_done(void *ctx, const dmaq_req *r, uint32_t status, const uint8_t *data,
                      uint32_t size)
{
    e1000 *d = ctx;
    e1000_tx *tx = &d->tx;
    if (r->gen != tx->gen)
        return;
    tx->reads_pending--;
    uint64_t off = r->tag + r->offset;
    if (status != 0 || off + size > tx->pkt_cap)
        tx->error = true;
    else
        memcpy(tx->pkt + off, data, size);
    e1000_tx_kick(d);
}

static bool grow_packet(e1000_tx *tx, uint32_t need)
{
    if (need <= tx->pkt_cap)
        return true;
    uint32_t cap = tx->pkt_cap ? tx->pkt_cap : 2048;
    while (cap < need)
        cap *= 2;
    if (cap > TX_MAX_PKT)
        cap = TX_MAX_PKT;
    uint8_t *p = realloc(tx->pkt, cap);
    if (!p)
        return false;
    tx->pkt = p;
    tx->pkt_cap = cap;
    return true;
}

static void add_data(e1000 *d, uint64_t addr, uint32_t len)
{
    e1000_tx *tx = &d->tx;
    if (len == 0 || tx->error)
        return;
    if (tx->pkt_len + (uint64_t)len > TX_MAX_PKT || !grow_packet(tx, tx->pkt_len + len)) {
        tx->error = true;
        return;
    }
    tx->reads_pending +=
        dmaq_read(&d->dma, DMA_OWNER_TX, tx->gen, addr, len, data_done, tx->pkt_len);
    tx->pkt_len += len;
}

static void add_writeback(e1000 *d, const e1000_tx_desc *desc, uint8_t cmd)
{
    e1000_tx *tx = &d->tx;
    if (!(cmd & E1000_TXD_CMD_RS))
        return;
    if (tx->nwb == TX_MAX_WB) {
        d->c.ring_errors++;
        return;
    }
    tx->wb[tx->nwb++] = (e1000_tx_wb){.idx = desc->idx, .upper = desc->upper};
    if (!(cmd & E1000_TXD_CMD_IDE))
        tx->ide_all = false;
}

static void consume_context(e1000 *d, const e1000_tx_desc *desc, uint8_t cmd)
{
    e1000_tx_ctx *c = (cmd & E1000_TUCMD_TSE) ? &d->tx.ctx_tso : &d->tx.ctx_csum;
    uint64_t a = desc->addr;
    *c = (e1000_tx_ctx){.ipcss = (uint8_t)a,
                        .ipcso = (uint8_t)(a >> 8),
                        .ipcse = (uint16_t)(a >> 16),
                        .tucss = (uint8_t)(a >> 32),
                        .tucso = (uint8_t)(a >> 40),
                        .tucse = (uint16_t)(a >> 48),
                        .paylen = desc->lower & 0xFFFFF,
                        .tucmd = cmd,
                        .hdrlen = (uint8_t)(desc->upper >> 8),
                        .mss = (uint16_t)(desc->upper >> 16)};
    add_writeback(d, desc, cmd);
}

/* Data and legacy descriptors: what only the first or the last one says. */
static void consume_buffer(e1000 *d, const e1000_tx_desc *desc, uint8_t cmd, bool legacy)
{
    e1000_tx *tx = &d->tx;
    e1000_tx_pkt_opts *o = &tx->opts;
    if (!tx->opts_set) {
        tx->opts_set = true;
        if (legacy) {
            o->legacy_ic = cmd & E1000_TXD_CMD_IC;
            o->cso = (uint8_t)(desc->lower >> 16);
            o->css = (uint8_t)(desc->upper >> 8);
        } else {
            o->tse = cmd & E1000_TXD_CMD_TSE;
            o->popts = (uint8_t)(desc->upper >> 8);
        }
    }
    add_data(d, desc->addr, legacy ? desc->lower & 0xFFFF : desc->lower & 0xFFFFF);
    add_writeback(d, desc, cmd);
    if (cmd & E1000_TXD_CMD_EOP) {
        tx->eop = true;
        o->vle = cmd & E1000_TXD_CMD_VLE;
        o->vlan = (uint16_t)(desc->upper >> 16);
    }
}

static void consume(e1000 *d, const e1000_tx_desc *desc)
{
    uint8_t cmd = (uint8_t)(desc->lower >> 24);
    uint32_t dtyp = (desc->lower >> 20) & 0xF;
    uint32_t n = e1000_ring_count(d, E1000_TDLEN);
    d->tx.next_head = n ? (desc->idx + 1) % n : 0;
    if (!(cmd & E1000_TXD_CMD_DEXT))
        consume_buffer(d, desc, cmd, true);
    else if (dtyp == E1000_TXD_DTYP_CTX)
        consume_context(d, desc, cmd);
    else if (dtyp == E1000_TXD_DTYP_DATA)
        consume_buffer(d, desc, cmd, false);
    else
        d->c.ring_errors++; /* reserved type: skipped */
}

/* ---- finishing a packet --------------------------------------------------- */

static uint64_t fifo_bytes(const e1000 *d)
{
    uint32_t rx_kb = e1000_reg(d, E1000_PBA) & 0xFFFF;
    if (rx_kb == 0 || rx_kb >= E1000_PBA_TOTAL_KB)
        rx_kb = E1000_PBA_DEFAULT & 0xFFFF;
    return (uint64_t)(E1000_PBA_TOTAL_KB - rx_kb) * 1024;
}

/* Takes `wire` bytes into the transmit FIFO, or arms a timer for when they
 * fit and returns false. */
static bool fifo_admit(e1000 *d, uint64_t wire)
{
    e1000_tx *tx = &d->tx;
    uint64_t now = mortar_now(d->self);
    uint64_t size = fifo_bytes(d);
    uint64_t used =
        tx->wire_free_ps > now
            ? (tx->wire_free_ps - now + E1000_PS_PER_BYTE - 1) / E1000_PS_PER_BYTE
            : 0;
    uint64_t need = wire < size ? wire : size;
    if (used + need <= size) {
        tx->wire_free_ps =
            (tx->wire_free_ps > now ? tx->wire_free_ps : now) + wire * E1000_PS_PER_BYTE;
        return true;
    }
    if (!tx->fifo_timer) {
        uint64_t at = tx->wire_free_ps - (size - need) * E1000_PS_PER_BYTE;
        tx->fifo_timer = mortar_timer_set(d->self, at, E1000_TIMER_TX_FIFO);
    }
    return false;
}

void e1000_tx_timer(e1000 *d)
{
    d->tx.fifo_timer = 0;
    e1000_tx_kick(d);
}

/* The last write-back is on the link: TXDW may follow it. */
static void written_back(void *ctx, uint64_t ide_all)
{
    e1000 *d = ctx;
    e1000_irq_tx_event(d, ide_all != 0);
}

static void write_back(e1000 *d)
{
    e1000_tx *tx = &d->tx;
    for (uint32_t i = 0; i < tx->nwb; i++) {
        uint8_t v[4];
        bool last = i + 1 == tx->nwb;
        le32_put(v, tx->wb[i].upper | E1000_TXD_STAT_DD);
        dmaq_write(&d->dma, DMA_OWNER_TX, tx->gen,
                   ring_base(d) + (uint64_t)tx->wb[i].idx * DESC_SIZE + 12, v, 4,
                   last ? written_back : NULL, tx->ide_all);
    }
}

static bool finish_packet(e1000 *d)
{
    e1000_tx *tx = &d->tx;
    if (!tx->error && tx->pkt_len > 0) {
        if (e1000_fc_tx_paused(d) ||
            !fifo_admit(d, e1000_tx_wire_bytes(d, tx->pkt_len, &tx->opts)))
            return false;
        e1000_tx_emit(d, tx->pkt, tx->pkt_len, &tx->opts);
    } else if (tx->error) {
        d->c.tx_dropped++;
    }
    write_back(d);
    e1000_reg_set(d, E1000_TDH, tx->next_head);
    if (tx->next_head == e1000_reg(d, E1000_TDT))
        e1000_irq_cause(d, E1000_ICR_TXQE);
    packet_clear(tx);
    return true;
}

void e1000_tx_kick(e1000 *d)
{
    e1000_tx *tx = &d->tx;
    while (e1000_reg(d, E1000_TCTL) & E1000_TCTL_EN) {
        if (tx->eop) {
            if (tx->reads_pending || tx->fifo_timer || !finish_packet(d))
                return;
        } else if (tx->cache_pos < tx->cache_len) {
            consume(d, &tx->cache[tx->cache_pos++]);
        } else {
            fetch(d);
            return;
        }
    }
}
