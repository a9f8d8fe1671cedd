/*
 * rtl_bridge.c - the `rtl` adapter's bridge between a design's ports and
 * its PCIe link (docs/rtl-ports.md on one side, mortar/pcie.h on the other).
 *
 * Before each edge, rtl_bridge_present() sets the inputs from what waits:
 * the oldest MMIO request, the next read beat, the next write response, and
 * whether the adapter can take a DMA request or a write beat. After it,
 * rtl_bridge_collect() acts on what transferred and on the pulses: MMIO
 * answers, DMA requests (reads sent at once, writes once their beats are
 * gathered, everything to the host in the order the design made it),
 * interrupts and trace events. Messages from the host are checked here:
 * a malformed one, or one naming a request that is not in flight, is
 * counted and ignored.
 */
#include <string.h>

#include "mortar/pcie.h"
#include "mortar/pcie_dispatch.h"
#include "sims/verilator/rtl_adapter_internal.h"

enum { OUT_DMA, OUT_IRQ };

static void send(rtl_adapter *a, uint8_t type, const void *payload, uint32_t size)
{
    if (mortar_send(a->self, RTL_PORT, type, payload, size, 0, NULL) != 0)
        a->c.send_errors++;
}

static uint32_t beats_of(uint32_t len)
{
    return (len + MORTAR_RTL_BEAT_BYTES - 1) / MORTAR_RTL_BEAT_BYTES;
}

/* ---- MMIO ------------------------------------------------------------------ */

static void answer_read(rtl_adapter *a, uint64_t req_id, uint32_t size, uint64_t value)
{
    uint8_t buf[sizeof(mortar_pcie_mmio_done) + 8];
    mortar_pcie_mmio_done *done = (mortar_pcie_mmio_done *)buf;
    *done = (mortar_pcie_mmio_done){.req_id = req_id, .size = size};
    for (uint32_t i = 0; i < size; i++)
        done->data[i] = (uint8_t)(value >> (8 * i));
    send(a, MORTAR_PCIE_MMIO_READ_DONE, buf, (uint32_t)sizeof *done + size);
}

static void answer_write(rtl_adapter *a, uint64_t req_id)
{
    mortar_pcie_mmio_done done = {.req_id = req_id};
    send(a, MORTAR_PCIE_MMIO_WRITE_DONE, &done, sizeof done);
}

/* A register access inside a BAR the design declared, of a size the ports
 * carry. */
static bool mmio_fits_design(const rtl_adapter *a, const mortar_pcie_mmio *m)
{
    if (m->bar >= MORTAR_PCIE_BARS ||
        (m->size != 1 && m->size != 2 && m->size != 4 && m->size != 8))
        return false;
    uint64_t bar_size = a->design->intro.bars[m->bar].size;
    return m->offset < bar_size && m->size <= bar_size - m->offset &&
           m->offset <= UINT32_MAX;
}

/* Queues a request; false (the caller answers it) when it cannot be. */
static bool mmio_queue(rtl_adapter *a, const mortar_pcie_mmio *m, bool write)
{
    if (!mmio_fits_design(a, m)) {
        a->c.mmio_refused++;
        return false;
    }
    if (a->mmio_count == RTL_MMIO_QUEUE) {
        a->c.mmio_dropped++;
        return false;
    }
    rtl_mmio_req *r = &a->mmio[(a->mmio_head + a->mmio_count++) % RTL_MMIO_QUEUE];
    *r = (rtl_mmio_req){.req_id = m->req_id,
                        .addr = (uint32_t)m->offset,
                        .bar = m->bar,
                        .size = (uint8_t)m->size,
                        .write = write,
                        .posted = m->posted};
    for (uint32_t i = 0; write && i < m->size; i++)
        r->wdata |= (uint64_t)m->data[i] << (8 * i);
    return true;
}

static void on_mmio_read(void *dev, const mortar_pcie_mmio *rd)
{
    rtl_adapter *a = dev;
    if (mmio_queue(a, rd, false))
        a->woke = true;
    else
        answer_read(a, rd->req_id, rd->size <= 8 ? rd->size : 8, ~0ull);
}

static void on_mmio_write(void *dev, const mortar_pcie_mmio *wr)
{
    rtl_adapter *a = dev;
    if (mmio_queue(a, wr, true))
        a->woke = true;
    else if (!wr->posted)
        answer_write(a, wr->req_id);
}

static void on_devctrl(void *dev, uint32_t flags)
{
    ((rtl_adapter *)dev)->devctrl = flags;
}

static void take_mmio(rtl_adapter *a)
{
    rtl_mmio_req r = a->mmio[a->mmio_head];
    a->mmio_head = (a->mmio_head + 1) % RTL_MMIO_QUEUE;
    a->mmio_count--;
    if (r.write) {
        a->c.mmio_writes++;
        if (!r.posted)
            answer_write(a, r.req_id);
        return;
    }
    a->c.mmio_reads++;
    a->reads[(a->reads_head + a->reads_count++) % RTL_MMIO_QUEUE] = r;
}

static void mmio_response(rtl_adapter *a, uint64_t rdata)
{
    if (a->reads_count == 0) {
        a->c.design_errors++; /* an answer to no read */
        return;
    }
    rtl_mmio_req r = a->reads[a->reads_head];
    a->reads_head = (a->reads_head + 1) % RTL_MMIO_QUEUE;
    a->reads_count--;
    answer_read(a, r.req_id, r.size, rdata);
}

/* ---- DMA ------------------------------------------------------------------- */

static void slot_free(rtl_adapter *a, rtl_dma_slot *s)
{
    s->used = false;
    a->slots_used--;
}

static void push_u16(uint16_t *ring, uint32_t head, uint32_t *count, uint16_t v)
{
    ring[(head + (*count)++) % RTL_DMA_SLOTS] = v;
}

static uint16_t pop_u16(const uint16_t *ring, uint32_t *head, uint32_t *count)
{
    uint16_t v = ring[*head];
    *head = (*head + 1) % RTL_DMA_SLOTS;
    (*count)--;
    return v;
}

static void push_wresp(rtl_adapter *a, uint8_t tag, uint8_t err)
{
    a->wresp[(a->wresp_head + a->wresp_count++) % RTL_DMA_SLOTS] = (rtl_wresp){tag, err};
}

/* The slot a completion names, or NULL when none of that kind is on the
 * link under that id. */
static rtl_dma_slot *slot_of(rtl_adapter *a, uint64_t req_id, bool write)
{
    uint64_t index = req_id & 0xff;
    if (index >= RTL_DMA_SLOTS)
        return NULL;
    rtl_dma_slot *s = &a->slots[index];
    if (!s->used || !s->sent || s->write != write || s->req_id != req_id)
        return NULL;
    return s;
}

static void on_dma_done(void *dev, const mortar_msg *msg)
{
    rtl_adapter *a = dev;
    const mortar_pcie_dma_done *d = msg->payload;
    bool write = msg->type == MORTAR_PCIE_DMA_WRITE_DONE;
    rtl_dma_slot *s = slot_of(a, d->req_id, write);
    if (!s) {
        a->c.bad_messages++;
        return;
    }
    s->sent = false;
    if (d->status != 0) {
        a->c.dma_errors++;
        s->err = 1;
    } else if (!write && (d->size != s->len || msg->size - sizeof *d < s->len)) {
        a->c.bad_messages++; /* the design gets a refused read, not stale bytes */
        s->err = 1;
    }
    a->woke = true;
    if (write) {
        push_wresp(a, s->tag, s->err);
        slot_free(a, s);
        return;
    }
    if (!s->err) {
        uint32_t padded = beats_of(s->len) * MORTAR_RTL_BEAT_BYTES;
        memcpy(s->data, d->data, s->len);
        memset(s->data + s->len, 0, padded - s->len);
        a->c.dma_read_bytes += s->len;
    }
    push_u16(a->rdata, a->rdata_head, &a->rdata_count, (uint16_t)(s - a->slots));
}

static void send_dma(rtl_adapter *a, rtl_dma_slot *s)
{
    uint8_t buf[sizeof(mortar_pcie_dma) + RTL_DMA_MAX];
    mortar_pcie_dma *d = (mortar_pcie_dma *)buf;
    *d = (mortar_pcie_dma){.req_id = s->req_id, .addr = s->addr, .size = s->len};
    s->sent = true;
    if (!s->write) {
        a->c.dma_reads++;
        send(a, MORTAR_PCIE_DMA_READ, d, sizeof *d);
        return;
    }
    memcpy(d->data, s->data, s->len);
    a->c.dma_writes++;
    a->c.dma_write_bytes += s->len;
    send(a, MORTAR_PCIE_DMA_WRITE, d, (uint32_t)sizeof *d + s->len);
}

/* Sends what is complete at the head of the ordered queue: a write waits
 * for its last beat, and everything after it waits with it. */
static void flush_out(rtl_adapter *a)
{
    while (a->out_count > 0) {
        rtl_out_item it = a->out[a->out_head];
        if (it.what == OUT_DMA) {
            rtl_dma_slot *s = &a->slots[it.value];
            if (s->write && s->beats < beats_of(s->len))
                return;
            send_dma(a, s);
        } else {
            mortar_pcie_interrupt in = {.vector = it.value, .kind = it.kind};
            a->c.irqs++;
            send(a, MORTAR_PCIE_INTERRUPT, &in, sizeof in);
        }
        a->out_head = (a->out_head + 1) % RTL_OUT_QUEUE;
        a->out_count--;
    }
}

static void push_out(rtl_adapter *a, rtl_out_item it)
{
    a->out[(a->out_head + a->out_count++) % RTL_OUT_QUEUE] = it;
}

static void take_dma_request(rtl_adapter *a, const mortar_rtl_ports *p)
{
    uint16_t index = 0;
    while (a->slots[index].used)
        index++; /* O(slots), only at a transfer; a free one exists (ready was high) */
    rtl_dma_slot *s = &a->slots[index];
    s->used = true;
    s->write = p->dma_req_write;
    s->tag = p->dma_req_tag;
    s->len = p->dma_req_len;
    s->addr = p->dma_req_addr;
    s->refused = s->len == 0 || s->len > RTL_DMA_MAX;
    s->err = s->refused;
    s->sent = false;
    s->beats = 0;
    s->req_id = (++a->dma_seq << 8) | index;
    a->slots_used++;
    if (s->refused)
        a->c.design_errors++;
    if (s->write)
        push_u16(a->gather, a->gather_head, &a->gather_count, index);
    if (!s->refused)
        push_out(a, (rtl_out_item){.what = OUT_DMA, .value = index});
    else if (!s->write)
        push_u16(a->rdata, a->rdata_head, &a->rdata_count, index);
}

static void take_write_beat(rtl_adapter *a, const mortar_rtl_ports *p)
{
    rtl_dma_slot *s = &a->slots[a->gather[a->gather_head]];
    if (s->beats < RTL_DMA_BEATS) {
        uint8_t *dst = s->data + (size_t)s->beats * MORTAR_RTL_BEAT_BYTES;
        for (int i = 0; i < MORTAR_RTL_BEAT_WORDS; i++)
            for (int b = 0; b < 4; b++)
                dst[4 * i + b] = (uint8_t)(p->dma_wdata[i] >> (8 * b));
    }
    s->beats++;
    /* A length out of range has no beat count: its last beat (or a full
     * 4 KiB) ends it. */
    bool complete = s->refused ? p->dma_wdata_last || s->beats == RTL_DMA_BEATS
                               : s->beats == beats_of(s->len);
    if (complete != (p->dma_wdata_last != 0))
        a->c.design_errors++;
    if (!complete)
        return;
    pop_u16(a->gather, &a->gather_head, &a->gather_count);
    if (s->refused) {
        push_wresp(a, s->tag, 1);
        slot_free(a, s);
    }
}

static void take_read_beat(rtl_adapter *a)
{
    rtl_dma_slot *s = &a->slots[a->rdata[a->rdata_head]];
    uint32_t beats = s->err ? 1 : beats_of(s->len);
    if (++a->rdata_beat < beats)
        return;
    a->rdata_beat = 0;
    pop_u16(a->rdata, &a->rdata_head, &a->rdata_count);
    slot_free(a, s);
}

static void present_read_beat(rtl_adapter *a, mortar_rtl_ports *p)
{
    const rtl_dma_slot *s = &a->slots[a->rdata[a->rdata_head]];
    uint32_t beats = s->err ? 1 : beats_of(s->len);
    p->dma_rdata_valid = 1;
    p->dma_rdata_tag = s->tag;
    p->dma_rdata_last = a->rdata_beat + 1 == beats;
    p->dma_rdata_err = s->err;
    const uint8_t *src = s->data + (size_t)a->rdata_beat * MORTAR_RTL_BEAT_BYTES;
    for (int i = 0; i < MORTAR_RTL_BEAT_WORDS; i++)
        p->dma_rdata[i] = s->err ? 0
                                 : (uint32_t)src[4 * i] | (uint32_t)src[4 * i + 1] << 8 |
                                       (uint32_t)src[4 * i + 2] << 16 |
                                       (uint32_t)src[4 * i + 3] << 24;
}

/* ---- interrupts and traces --------------------------------------------------- */

static void take_irq(rtl_adapter *a, uint8_t vector)
{
    const mortar_pcie_dev_intro *intro = &a->design->intro;
    uint8_t kind;
    if ((a->devctrl & MORTAR_PCIE_CTRL_MSIX_ENABLE) && vector < intro->msix_vectors)
        kind = MORTAR_PCIE_INT_MSIX;
    else if (!(a->devctrl & MORTAR_PCIE_CTRL_MSIX_ENABLE) &&
             (a->devctrl & MORTAR_PCIE_CTRL_MSI_ENABLE) && vector < intro->msi_vectors)
        kind = MORTAR_PCIE_INT_MSI;
    else {
        a->c.irqs_dropped++;
        return;
    }
    if (a->out_count == RTL_OUT_QUEUE) {
        a->c.irqs_dropped++;
        return;
    }
    push_out(a, (rtl_out_item){.what = OUT_IRQ, .kind = kind, .value = vector});
}

static void take_trace(rtl_adapter *a, const mortar_rtl_ports *p)
{
    a->c.traces++;
    mortar_trace(a->self, a->trace_kind[p->trace_kind], p->trace_req, p->trace_arg, 0);
}

/* ---- the interface to the clock ------------------------------------------------ */

bool rtl_bridge_message(rtl_adapter *a, const mortar_msg *msg)
{
    static const mortar_pcie_device_ops ops = {.mmio_read = on_mmio_read,
                                               .mmio_write = on_mmio_write,
                                               .devctrl = on_devctrl,
                                               .dma_done = on_dma_done};
    a->woke = false;
    if (!mortar_pcie_dispatch(&ops, a, msg))
        a->c.bad_messages++;
    return a->woke;
}

void rtl_bridge_present(rtl_adapter *a)
{
    mortar_rtl_ports *p = &a->ports;
    p->mmio_req_valid = a->mmio_count > 0 && a->reads_count < RTL_MMIO_QUEUE;
    if (p->mmio_req_valid) {
        const rtl_mmio_req *r = &a->mmio[a->mmio_head];
        p->mmio_req_write = r->write;
        p->mmio_req_bar = r->bar;
        p->mmio_req_size = r->size;
        p->mmio_req_addr = r->addr;
        p->mmio_req_wdata = r->wdata;
    }
    /* A slot's write response waits in `wresp` after the slot is free:
     * counting both keeps that ring within its RTL_DMA_SLOTS. */
    p->dma_req_ready =
        a->slots_used + a->wresp_count < RTL_DMA_SLOTS && a->out_count < RTL_OUT_QUEUE;
    p->dma_wdata_ready = a->gather_count > 0;
    p->dma_rdata_valid = 0;
    p->dma_rdata_last = 0;
    p->dma_rdata_err = 0;
    if (a->rdata_count > 0)
        present_read_beat(a, p);
    p->dma_wresp_valid = a->wresp_count > 0;
    if (p->dma_wresp_valid) {
        p->dma_wresp_tag = a->wresp[a->wresp_head].tag;
        p->dma_wresp_err = a->wresp[a->wresp_head].err;
    }
}

bool rtl_bridge_collect(rtl_adapter *a)
{
    const mortar_rtl_ports *p = &a->ports;
    bool moved = false;
    if (p->mmio_req_valid && p->mmio_req_ready) {
        take_mmio(a);
        moved = true;
    }
    if (p->mmio_rsp_valid)
        mmio_response(a, p->mmio_rsp_rdata);
    if (p->dma_rdata_valid && p->dma_rdata_ready) {
        take_read_beat(a);
        moved = true;
    }
    if (p->dma_wresp_valid) {
        a->wresp_head = (a->wresp_head + 1) % RTL_DMA_SLOTS;
        a->wresp_count--;
        moved = true;
    }
    /* A beat taken at this edge belongs to a write already gathering (ready
     * was computed before the edge), so it goes before a new request. */
    if (p->dma_wdata_valid && p->dma_wdata_ready) {
        take_write_beat(a, p);
        moved = true;
    }
    if (p->dma_req_valid && p->dma_req_ready) {
        take_dma_request(a, p);
        moved = true;
    }
    if (p->irq_valid)
        take_irq(a, p->irq_vector);
    if (p->trace_valid)
        take_trace(a, p);
    flush_out(a);
    return moved;
}

bool rtl_bridge_pending(const rtl_adapter *a)
{
    return a->mmio_count > 0 || a->rdata_count > 0 || a->wresp_count > 0;
}
