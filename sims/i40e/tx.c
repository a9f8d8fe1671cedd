/*
 * tx.c - the i40e model's transmit queues and the wire they share.
 *
 * A queue starts when the driver sets QTX_ENA.QENA_REQ: the model reads the
 * queue's context from the HMC (ring base and length, head write-back
 * enable and address, starting head) and then reports QENA_STAT. Clearing
 * QENA_REQ stops the queue and returns its tail to 0. While
 * enabled and the head has not reached the tail (QTX_TAIL), it fetches
 * descriptors by DMA (up to TX_CACHE at a time, never past the tail or the
 * ring's end) and consumes them in order:
 *   - a context descriptor (DTYPE 1) sets up the next packet: TSO with its
 *     total payload length and MSS;
 *   - a data descriptor (DTYPE 0) appends its buffer, read by DMA; the first
 *     one of a packet carries the checksum offload fields (IIPT, L4T,
 *     MACLEN/IPLEN/L4LEN), the one with EOP ends the packet.
 * Other descriptor types are skipped and counted (bad_descriptors).
 *
 * A finished packet goes to tx_offload.c, which turns it into frames on the
 * wire stage; when the stage is full the queue waits. Then the queue reports
 * completion: with head write-back the new head (a 32-bit value) is written
 * to the context's address, else the EOP descriptor with RS gets DTYPE 0xF
 * (done) written back; the queue's interrupt cause follows once that write
 * is on the link, for packets with RS and when the queue runs empty.
 *
 * The wire: staged frames leave one after another at the line rate
 * (`speed`), each taking its length (at least 60 bytes) plus 24 bytes of
 * FCS, preamble and inter-frame gap; a frame is sent when its turn starts.
 * A received PAUSE holds data frames back; a PAUSE of ours goes between
 * frames, ahead of the data waiting (flow_ctrl.c).
 * At most I40E_TX_STAGE_BYTES wait (a packet larger than that waits for an
 * empty stage).
 *
 * Errors: a tail beyond the ring is refused and counted; a failed
 * descriptor fetch stops the queue until the next tail write; a failed data
 * read, a packet larger than TX_MAX_PKT or a malformed TSO request drops the
 * packet (counted in tx_dropped), its descriptors are still completed.
 */
#include "i40e_internal.h"

#include <stdlib.h>
#include <string.h>

#include "mortar/eth.h"
#include "mortar/runtime.h"
#include "sims/eth/pause.h"

/* ---- the wire ----------------------------------------------------------- */

static uint64_t frame_wire_bytes(uint32_t len)
{
    return (uint64_t)(len < I40E_ETH_MIN_FRAME ? I40E_ETH_MIN_FRAME : len) +
           MORTAR_ETH_OVERHEAD;
}

static void count_sent(i40e *d, const uint8_t *f, uint32_t len)
{
    static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    uint32_t wire = (len < I40E_ETH_MIN_FRAME ? I40E_ETH_MIN_FRAME : len) + I40E_ETH_FCS;
    d->c.tx_frames++;
    d->c.tx_bytes += len;
    d->st.gotc += wire;
    i40e_stat_size_bin(d->st.ptc, wire);
    if (memcmp(f, bcast, 6) == 0)
        d->st.bptc++;
    else if (f[0] & 1)
        d->st.mptc++;
    else
        d->st.uptc++;
    mortar_trace(d->self, d->tk_tx, d->wire.seq++, len, 0);
}

static void send_frame(i40e *d, i40e_tx_staged *f)
{
    uint8_t pad[I40E_ETH_MIN_FRAME];
    const uint8_t *data = f->data;
    uint32_t len = f->len;
    if (len < I40E_ETH_MIN_FRAME) { /* the MAC pads short frames */
        memset(pad, 0, sizeof pad);
        memcpy(pad, f->data, len);
        data = pad;
        len = I40E_ETH_MIN_FRAME;
    }
    if (len > mortar_port_max_payload(d->self, I40E_PORT_ETH) ||
        mortar_send(d->self, I40E_PORT_ETH, MORTAR_ETH_FRAME, data, len,
                    len + MORTAR_ETH_OVERHEAD, NULL) != 0) {
        d->c.tx_dropped++;
        d->st.tdold++;
        return;
    }
    count_sent(d, data, len);
}

/* When the wire can next start a frame: a PAUSE of ours as soon as the
 * frame on it has left, a data frame also not before a received PAUSE ends.
 * UINT64_MAX: nothing to send. */
static uint64_t next_start(const i40e *d)
{
    const i40e_wire *w = &d->wire;
    uint64_t now = mortar_now(d->self);
    uint64_t free_ps = w->busy_until_ps > now ? w->busy_until_ps : now;
    if (d->fc.ctl_pending)
        return free_ps;
    if (!w->head)
        return UINT64_MAX;
    uint64_t paused = i40e_fc_paused_until(d);
    return paused > free_ps ? paused : free_ps;
}

void i40e_wire_arm(i40e *d)
{
    i40e_wire *w = &d->wire;
    uint64_t at = next_start(d);
    if (w->timer && w->timer_ps == at)
        return;
    if (w->timer)
        mortar_timer_cancel(d->self, w->timer);
    w->timer = 0;
    if (at == UINT64_MAX)
        return;
    w->timer_ps = at;
    w->timer = mortar_timer_set(d->self, at, I40E_TIMER(I40E_TIMER_TX_WIRE, 0));
}

static void kick_all(i40e *d)
{
    for (uint32_t q = 0; q < I40E_NQP; q++)
        if (d->txq[q].enabled)
            i40e_tx_kick(d, q);
}

static void send_pause(i40e *d, const uint8_t *frame, uint32_t len)
{
    if (mortar_send(d->self, I40E_PORT_ETH, MORTAR_ETH_FRAME, frame, len,
                    len + MORTAR_ETH_OVERHEAD, NULL) != 0)
        d->c.bad_messages++;
}

/* Starts the next frame, when its time has come: our PAUSE first (a MAC
 * sends control frames between data frames), else the head data frame. */
static bool start_frame(i40e *d)
{
    i40e_wire *w = &d->wire;
    uint64_t now = mortar_now(d->self);
    if (next_start(d) > now)
        return false;
    uint8_t pause[ETH_PAUSE_FRAME_BYTES];
    uint32_t len = i40e_fc_take_ctl(d, pause);
    if (len) {
        send_pause(d, pause, len);
    } else {
        i40e_tx_staged *f = w->head;
        w->head = f->next;
        if (!w->head)
            w->tail = NULL;
        w->bytes -= f->len;
        len = f->len;
        send_frame(d, f);
        free(f);
    }
    w->busy_until_ps = now + frame_wire_bytes(len) * d->ps_per_byte;
    return true;
}

void i40e_wire_timer(i40e *d)
{
    d->wire.timer = 0;
    while (start_frame(d))
        ;
    i40e_wire_arm(d);
    kick_all(d);
}

bool i40e_wire_stage(i40e *d, const uint8_t *frame, uint32_t len)
{
    i40e_wire *w = &d->wire;
    i40e_tx_staged *f = malloc(sizeof *f + len);
    if (!f)
        return false;
    memcpy(f->data, frame, len);
    f->len = len;
    f->next = NULL;
    if (w->tail)
        w->tail->next = f;
    else
        w->head = f;
    w->tail = f;
    w->bytes += len;
    i40e_wire_arm(d);
    return true;
}

static bool stage_admits(const i40e *d, uint64_t bytes)
{
    return d->wire.bytes == 0 || d->wire.bytes + bytes <= I40E_TX_STAGE_BYTES;
}

void i40e_tx_free(i40e *d)
{
    i40e_wire *w = &d->wire;
    while (w->head) {
        i40e_tx_staged *f = w->head;
        w->head = f->next;
        free(f);
    }
    w->tail = NULL;
    w->bytes = 0;
    for (uint32_t q = 0; q < I40E_NQP; q++) {
        free(d->txq[q].pkt);
        d->txq[q].pkt = NULL;
        d->txq[q].pkt_cap = 0;
    }
}

/* ---- queue state -------------------------------------------------------- */

static void packet_clear(i40e_txq *t)
{
    t->pkt_len = 0;
    t->reads_pending = 0;
    t->eop = t->error = t->rs = t->have_first = false;
    t->first_qw1 = 0;
    t->tso = false;
    t->mss = t->tso_len = 0;
}

static void queue_stop(i40e *d, i40e_txq *t)
{
    t->gen++;
    dmaq_flush(&d->dma, OWNER_TX(t->idx));
    t->enabled = t->ctx_loading = t->ctx_ready = t->stalled = false;
    t->fetching = t->fetch_failed = false;
    t->fetch_chunks = 0;
    t->cache_len = t->cache_pos = 0;
    packet_clear(t);
}

void i40e_tx_reset(i40e *d)
{
    for (uint32_t q = 0; q < I40E_NQP; q++)
        queue_stop(d, &d->txq[q]);
}

void i40e_tx_ena_write(i40e *d, uint32_t q, uint32_t v)
{
    i40e_txq *t = &d->txq[q];
    if (!(v & I40E_QENA_REQ)) {
        /* the tail goes back to 0 with the queue: the driver restarts its
         * ring at 0 and writes the tail only when it posts a packet */
        queue_stop(d, t);
        i40e_reg_set(d, I40E_QTX_ENA(q), 0);
        i40e_reg_set(d, I40E_QTX_TAIL(q), 0);
        return;
    }
    if (t->enabled)
        return;
    queue_stop(d, t);
    t->enabled = t->ctx_loading = true;
    i40e_reg_set(d, I40E_QTX_ENA(q), I40E_QENA_REQ);
    i40e_hmc_read_ctx(d, false, q, t->gen);
}

void i40e_tx_ctx_loaded(i40e *d, uint32_t q, uint32_t gen, const uint8_t *ctx)
{
    i40e_txq *t = &d->txq[q];
    if (gen != t->gen || !t->ctx_loading)
        return;
    t->ctx_loading = false;
    if (!ctx) {
        d->c.ring_errors++; /* QENA_STAT stays clear: the driver times out */
        return;
    }
    t->head = (uint32_t)i40e_bits(ctx, 0, 13);
    t->base = i40e_bits(ctx, 32, 57) * 128;
    t->head_wb = i40e_bits(ctx, 160, 1);
    t->len = (uint32_t)i40e_bits(ctx, 161, 13);
    t->head_wb_addr = i40e_bits(ctx, 192, 64);
    if (t->len == 0 || t->head >= t->len) {
        d->c.ring_errors++;
        return;
    }
    t->fetch_next = t->head;
    t->ctx_ready = true;
    i40e_reg_set(d, I40E_QTX_ENA(q), I40E_QENA_REQ | I40E_QENA_STAT);
    i40e_tx_kick(d, q);
}

void i40e_tx_tail_write(i40e *d, uint32_t q, uint32_t v)
{
    i40e_txq *t = &d->txq[q];
    if (t->ctx_ready && v >= t->len) {
        d->c.bad_tail_writes++;
        return;
    }
    i40e_reg_set(d, I40E_QTX_TAIL(q), v);
    t->stalled = false;
    i40e_tx_kick(d, q);
}

/* ---- descriptor fetch ---------------------------------------------------- */

static void fetch_done(void *ctx, const dmaq_req *r, uint32_t status, const uint8_t *data,
                       uint32_t size)
{
    i40e *d = ctx;
    i40e_txq *t = &d->txq[r->owner - OWNER_TX(0)];
    if (r->gen != t->gen)
        return;
    if (status != 0) {
        t->fetch_failed = true;
    } else {
        for (uint32_t i = 0; i < size / TX_DESC; i++) {
            uint32_t slot = r->offset / TX_DESC + i;
            const uint8_t *p = data + (size_t)i * TX_DESC;
            if (slot >= TX_CACHE)
                break;
            t->cache[slot] = (i40e_txd){.qw0 = le64_get(p),
                                        .qw1 = le64_get(p + 8),
                                        .idx = (t->fetch_next + slot) % t->len};
        }
    }
    if (--t->fetch_chunks > 0)
        return;
    t->fetching = false;
    if (t->fetch_failed) {
        d->c.ring_errors++;
        t->stalled = true; /* retried at the next tail write */
        t->fetch_failed = false;
        return;
    }
    t->cache_len = t->fetch_len;
    t->cache_pos = 0;
    t->fetch_next = (t->fetch_next + t->fetch_len) % t->len;
    i40e_tx_kick(d, t->idx);
}

static void fetch(i40e *d, i40e_txq *t)
{
    uint32_t tail = i40e_reg(d, I40E_QTX_TAIL(t->idx));
    if (t->fetching || t->stalled || t->fetch_next == tail || tail >= t->len)
        return;
    uint32_t count = t->fetch_next < tail ? tail - t->fetch_next : t->len - t->fetch_next;
    if (count > TX_CACHE)
        count = TX_CACHE;
    t->fetching = true;
    t->fetch_len = count;
    t->fetch_chunks = dmaq_read(&d->dma, OWNER_TX(t->idx), t->gen,
                                t->base + (uint64_t)t->fetch_next * TX_DESC,
                                count * TX_DESC, fetch_done, 0);
    if (t->fetch_chunks == 0)
        t->fetching = false;
}

/* ---- consuming descriptors ------------------------------------------------ */

static void data_done(void *ctx, const dmaq_req *r, uint32_t status, const uint8_t *data,
                      uint32_t size)
{
    i40e *d = ctx;
    i40e_txq *t = &d->txq[r->owner - OWNER_TX(0)];
    if (r->gen != t->gen)
        return;
    t->reads_pending--;
    uint64_t off = r->tag + r->offset;
    if (status != 0 || off + size > t->pkt_cap)
        t->error = true;
    else
        memcpy(t->pkt + off, data, size);
    i40e_tx_kick(d, t->idx);
}

static bool grow_packet(i40e_txq *t, uint32_t need)
{
    if (need <= t->pkt_cap)
        return true;
    uint32_t cap = t->pkt_cap ? t->pkt_cap : 4096;
    while (cap < need)
        cap *= 2;
    if (cap > TX_MAX_PKT)
        cap = TX_MAX_PKT;
    uint8_t *p = realloc(t->pkt, cap);
    if (!p)
        return false;
    t->pkt = p;
    t->pkt_cap = cap;
    return true;
}

static void add_data(i40e *d, i40e_txq *t, uint64_t addr, uint32_t len)
{
    if (len == 0 || t->error)
        return;
    if (t->pkt_len + (uint64_t)len > TX_MAX_PKT || !grow_packet(t, t->pkt_len + len)) {
        t->error = true;
        return;
    }
    uint32_t chunks =
        dmaq_read(&d->dma, OWNER_TX(t->idx), t->gen, addr, len, data_done, t->pkt_len);
    if (chunks == 0)
        t->error = true;
    t->reads_pending += chunks;
    t->pkt_len += len;
}

static void consume(i40e *d, i40e_txq *t, const i40e_txd *desc)
{
    uint32_t dtype = (uint32_t)(desc->qw1 & I40E_TXD_DTYPE_MASK);
    t->next_head = (desc->idx + 1) % t->len;
    if (dtype == I40E_TXD_DTYPE_CONTEXT) {
        uint32_t cmd = (uint32_t)(desc->qw1 >> I40E_TXD_CMD_SHIFT) & 0xFFFF;
        t->tso = cmd & I40E_TXD_CTX_CMD_TSO;
        t->tso_len = (uint32_t)(desc->qw1 >> I40E_TXD_CTX_TSO_LEN_SHIFT &
                                I40E_TXD_CTX_TSO_LEN_MASK);
        t->mss = (uint32_t)(desc->qw1 >> I40E_TXD_CTX_MSS_SHIFT & I40E_TXD_CTX_MSS_MASK);
        return;
    }
    if (dtype != I40E_TXD_DTYPE_DATA) {
        d->c.bad_descriptors++; /* skipped */
        return;
    }
    uint32_t cmd = (uint32_t)(desc->qw1 >> I40E_TXD_CMD_SHIFT) & 0x3FF;
    if (!t->have_first) {
        t->have_first = true;
        t->first_qw1 = desc->qw1;
    }
    add_data(d, t, desc->qw0,
             (uint32_t)(desc->qw1 >> I40E_TXD_BUF_SZ_SHIFT & I40E_TXD_BUF_SZ_MASK));
    if (cmd & I40E_TXD_CMD_EOP) {
        t->eop = true;
        t->rs = cmd & I40E_TXD_CMD_RS;
    }
}

/* ---- finishing a packet --------------------------------------------------- */

static void written_back(void *ctx, uint64_t tag)
{
    i40e *d = ctx;
    i40e_irq_queue_cause(d, false, (uint32_t)tag);
}

static void complete(i40e *d, i40e_txq *t, uint32_t eop_idx)
{
    uint32_t tail = i40e_reg(d, I40E_QTX_TAIL(t->idx));
    bool notify = t->rs || t->next_head == tail;
    t->head = t->next_head;
    dmaq_issued_fn cb = notify ? written_back : NULL;
    if (t->head_wb) {
        uint8_t v[4];
        le32_put(v, t->head);
        dmaq_write(&d->dma, OWNER_TX(t->idx), t->gen, t->head_wb_addr, v, 4, cb, t->idx);
    } else if (t->rs) {
        uint8_t v[8];
        le64_put(v, I40E_TXD_DTYPE_DONE);
        dmaq_write(&d->dma, OWNER_TX(t->idx), t->gen,
                   t->base + (uint64_t)eop_idx * TX_DESC + 8, v, 8, cb, t->idx);
    } else if (notify) {
        i40e_irq_queue_cause(d, false, t->idx);
    }
}

static bool finish_packet(i40e *d, i40e_txq *t)
{

    uint32_t eop_idx = (t->next_head + t->len - 1) % t->len;
    if (!t->error && t->pkt_len > 0) {
        if (!stage_admits(d, i40e_tx_wire_bytes(t)))
            return false; /* the wire timer kicks the queue again */
        i40e_tx_emit(d, t);
    } else if (t->error) {
        d->c.tx_dropped++;
        d->st.tdold++;
    }
    complete(d, t, eop_idx);
    packet_clear(t);
    return true;
}

void i40e_tx_kick(i40e *d, uint32_t q)
{
    i40e_txq *t = &d->txq[q];
    while (t->enabled && t->ctx_ready) {
        if (t->eop) {
            if (t->reads_pending || !finish_packet(d, t))
                return;
        } else if (t->cache_pos < t->cache_len) {
            consume(d, t, &t->cache[t->cache_pos++]);
        } else {
            fetch(d, t);
            return;
        }
    }
}
