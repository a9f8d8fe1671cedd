/*
 * adminq.c - the i40e model's admin queue: the send queue (ATQ), where the
 * driver posts commands for the firmware, and the receive queue (ARQ),
 * where the firmware posts events for the driver. Both are rings of 32-byte
 * descriptors in host memory (PF_ATQBAL/BAH/LEN/H/T, PF_ARQ*).
 *
 * ATQ: while the queue is enabled (LEN.ENABLE) and the head (ATQH) has not
 * reached the tail (ATQT), the model reads the descriptor at the head, and
 * when it carries a buffer with data for the firmware (flags BUF and RD) the
 * buffer as well; aq_cmds.c executes it; the answer buffer (if any) and then
 * the descriptor (DD, CMP, ERR with the return code) are written back, and
 * the head moves on once the write-back is on the link, so the driver, which
 * polls ATQH, finds the answer in place. Commands run one at a time, in
 * order, as on the hardware.
 *
 * ARQ: the driver posts empty buffers and moves the tail to the last one it
 * gave back; the model may fill the descriptors from the head up to, not
 * including, the tail. An event writes its descriptor (DD, CMP, opcode,
 * parameters) at the head, moves ARQH and raises the ADMINQ cause in
 * PFINT_ICR0. Events that find the ring full or disabled wait (at most
 * ARQ_MAX_PENDING; more are dropped and set ARQLEN.OVFL).
 */
#include "i40e_internal.h"

#include <stdlib.h>
#include <string.h>

#define ARQ_MAX_PENDING 64

static uint64_t ring_base(const i40e *d, bool send)
{
    uint32_t lo = i40e_reg(d, send ? I40E_PF_ATQBAL : I40E_PF_ARQBAL);
    uint32_t hi = i40e_reg(d, send ? I40E_PF_ATQBAH : I40E_PF_ARQBAH);
    return (uint64_t)hi << 32 | lo;
}

static uint32_t ring_len(const i40e *d, bool send)
{
    return i40e_reg(d, send ? I40E_PF_ATQLEN : I40E_PF_ARQLEN) & I40E_AQLEN_LEN_MASK;
}

/* ---- send queue ----------------------------------------------------------- */

static void atq_next(i40e *d);

static void atq_written_back(void *ctx, uint64_t tag)
{
    i40e *d = ctx;
    if ((uint32_t)tag != d->atq.r.gen)
        return;
    uint32_t n = ring_len(d, true);
    d->atq.busy = false;
    d->atq.cur = n ? (d->atq.cur + 1) % n : 0;
    i40e_reg_set(d, I40E_PF_ATQH, d->atq.cur);
    atq_next(d);
}

static void atq_answer(i40e *d)
{
    i40e_atq *q = &d->atq;
    uint8_t *desc = q->desc;
    uint16_t flags_in = le16_get(desc);
    d->c.aq_commands++;
    uint32_t resp_len = i40e_aq_execute(d);
    uint16_t retval = le16_get(desc + 6);
    uint16_t flags = (uint16_t)(flags_in & ~0x1FFu) | I40E_AQ_FLAG_DD | I40E_AQ_FLAG_CMP;
    if (retval)
        flags |= I40E_AQ_FLAG_ERR;
    le16_put(desc, flags);
    if ((flags_in & I40E_AQ_FLAG_BUF) && resp_len > 0) {
        uint64_t addr = (uint64_t)le32_get(desc + 24) << 32 | le32_get(desc + 28);
        dmaq_write(&d->dma, OWNER_AQ, q->r.gen, addr, q->buf, resp_len, NULL, 0);
    }
    dmaq_write(&d->dma, OWNER_AQ, q->r.gen,
               ring_base(d, true) + (uint64_t)q->cur * I40E_AQ_DESC_SIZE, desc,
               I40E_AQ_DESC_SIZE, atq_written_back, q->r.gen);
}

static void atq_buffer_done(void *ctx, const dmaq_req *r, uint32_t status,
                            const uint8_t *data, uint32_t size)
{
    i40e *d = ctx;
    i40e_atq *q = &d->atq;
    if (r->gen != q->r.gen)
        return;
    if (status == 0 && r->offset + size <= I40E_AQ_MAX_BUF)
        memcpy(q->buf + r->offset, data, size);
    else
        q->buf_failed = true;
    if (--q->buf_chunks > 0)
        return;
    if (q->buf_failed) {
        memset(q->buf, 0, I40E_AQ_MAX_BUF); /* unreadable buffer: the command sees none */
        q->buf_len = 0;
    }
    atq_answer(d);
}

static void atq_desc_done(void *ctx, const dmaq_req *r, uint32_t status,
                          const uint8_t *data, uint32_t size)
{
    i40e *d = ctx;
    i40e_atq *q = &d->atq;
    if (r->gen != q->r.gen)
        return;
    if (status != 0 || size != I40E_AQ_DESC_SIZE) {
        q->busy = false; /* retried when the driver writes the tail again */
        d->c.ring_errors++;
        return;
    }
    memcpy(q->desc, data, I40E_AQ_DESC_SIZE);
    uint16_t flags = le16_get(q->desc);
    uint16_t datalen = le16_get(q->desc + 4);
    memset(q->buf, 0, I40E_AQ_MAX_BUF);
    q->buf_len = 0;
    if (flags & I40E_AQ_FLAG_BUF)
        q->buf_len = datalen <= I40E_AQ_MAX_BUF ? datalen : I40E_AQ_MAX_BUF;
    if ((flags & I40E_AQ_FLAG_BUF) && (flags & I40E_AQ_FLAG_RD) && q->buf_len > 0) {
        uint64_t addr = (uint64_t)le32_get(q->desc + 24) << 32 | le32_get(q->desc + 28);
        q->buf_failed = false;
        q->buf_chunks =
            dmaq_read(&d->dma, OWNER_AQ, q->r.gen, addr, q->buf_len, atq_buffer_done, 0);
        if (q->buf_chunks == 0)
            atq_answer(d);
        return;
    }
    atq_answer(d);
}

static void atq_next(i40e *d)
{
    i40e_atq *q = &d->atq;
    uint32_t n = ring_len(d, true);
    uint32_t tail = i40e_reg(d, I40E_PF_ATQT);
    if (!q->r.enabled || q->busy || n == 0 || q->cur == tail || tail >= n || q->cur >= n)
        return;
    q->busy = true;
    if (dmaq_read(&d->dma, OWNER_AQ, q->r.gen,
                  ring_base(d, true) + (uint64_t)q->cur * I40E_AQ_DESC_SIZE,
                  I40E_AQ_DESC_SIZE, atq_desc_done, 0) == 0)
        q->busy = false;
}

void i40e_atq_tail_write(i40e *d)
{
    uint32_t n = ring_len(d, true);
    if (n && i40e_reg(d, I40E_PF_ATQT) >= n)
        d->c.bad_tail_writes++;
    atq_next(d);
}

/* ---- receive queue -------------------------------------------------------- */

static void arq_next(i40e *d);

static void arq_written_back(void *ctx, uint64_t tag)
{
    i40e *d = ctx;
    if ((uint32_t)tag != d->arq.r.gen)
        return;
    uint32_t n = ring_len(d, false);
    d->arq.busy = false;
    d->arq.cur = n ? (d->arq.cur + 1) % n : 0;
    i40e_reg_set(d, I40E_PF_ARQH, d->arq.cur);
    d->c.aq_events++;
    i40e_irq_icr0_cause(d, I40E_ICR0_ADMINQ);
    arq_next(d);
}

static void arq_next(i40e *d)
{
    i40e_arq *q = &d->arq;
    uint32_t n = ring_len(d, false);
    uint32_t tail = i40e_reg(d, I40E_PF_ARQT);
    if (!q->r.enabled || q->busy || !q->head || n == 0 || tail >= n || q->cur >= n ||
        q->cur == tail)
        return;
    i40e_arq_event *e = q->head;
    q->head = e->next;
    if (!q->head)
        q->tail = NULL;
    q->pending--;
    q->busy = true;
    dmaq_write(&d->dma, OWNER_AQ, q->r.gen,
               ring_base(d, false) + (uint64_t)q->cur * I40E_AQ_DESC_SIZE, e->desc,
               I40E_AQ_DESC_SIZE, arq_written_back, q->r.gen);
    free(e);
}

void i40e_arq_tail_write(i40e *d)
{
    uint32_t n = ring_len(d, false);
    if (n && i40e_reg(d, I40E_PF_ARQT) >= n)
        d->c.bad_tail_writes++;
    arq_next(d);
}

void i40e_arq_post(i40e *d, uint16_t opcode, const uint8_t params[16])
{
    i40e_arq *q = &d->arq;
    if (q->pending >= ARQ_MAX_PENDING) {
        i40e_reg_set(d, I40E_PF_ARQLEN, i40e_reg(d, I40E_PF_ARQLEN) | I40E_AQLEN_OVFL);
        return;
    }
    i40e_arq_event *e = calloc(1, sizeof *e);
    if (!e)
        return;
    le16_put(e->desc, I40E_AQ_FLAG_DD | I40E_AQ_FLAG_CMP);
    le16_put(e->desc + 2, opcode);
    memcpy(e->desc + 16, params, 16);
    if (q->tail)
        q->tail->next = e;
    else
        q->head = e;
    q->tail = e;
    q->pending++;
    arq_next(d);
}

/* ---- enabling and resetting ------------------------------------------------ */

void i40e_aq_len_write(i40e *d, bool send)
{
    i40e_aq_ring *r = send ? &d->atq.r : &d->arq.r;
    bool en = i40e_reg(d, send ? I40E_PF_ATQLEN : I40E_PF_ARQLEN) & I40E_AQLEN_ENABLE;
    if (en == r->enabled)
        return;
    r->enabled = en;
    r->gen++;
    if (send) {
        d->atq.busy = false;
        d->atq.cur = i40e_reg(d, I40E_PF_ATQH);
        atq_next(d);
    } else {
        d->arq.busy = false;
        d->arq.cur = i40e_reg(d, I40E_PF_ARQH);
        if (en)
            i40e_link_start(d); /* the firmware brings the PHY up */
        arq_next(d);
    }
}

void i40e_aq_free(i40e *d)
{
    i40e_arq *q = &d->arq;
    while (q->head) {
        i40e_arq_event *e = q->head;
        q->head = e->next;
        free(e);
    }
    q->tail = NULL;
    q->pending = 0;
}

void i40e_aq_reset(i40e *d)
{
    dmaq_flush(&d->dma, OWNER_AQ);
    d->atq.r.gen++;
    d->arq.r.gen++;
    d->atq.busy = d->arq.busy = false;
    i40e_aq_free(d);
}
