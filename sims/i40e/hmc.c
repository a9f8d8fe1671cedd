/*
 * hmc.c - the i40e model's host memory cache (HMC): the LAN queue contexts
 * live in host memory, in backing pages the driver allocates and describes
 * with segment descriptors (PFHMC_SDCMD/SDDATALOW/SDDATAHIGH). The driver
 * writes the contexts there itself; the model reads one by DMA when its
 * queue is enabled.
 *
 * Address translation, as the driver lays the memory out: a context's
 * function-private address is GLHMC_LANTXBASE (or LANRXBASE) x 512 plus the
 * queue number times the object size (128 bytes for TX, 32 for RX). Segment
 * descriptor n covers 2 MiB from n x 2 MiB; a direct segment is one 2 MiB
 * backing buffer, a paged one points at a page of 512 page descriptors
 * (8 bytes, bit 0 valid) of 4 KiB pages, read by DMA too.
 */
#include "i40e_internal.h"

#include <string.h>

#define CTX_MAX 128

void i40e_hmc_reset(i40e *d)
{
    memset(d->sd, 0, sizeof d->sd);
}

void i40e_hmc_sdcmd_write(i40e *d, uint32_t v)
{
    uint32_t idx = v & I40E_PFHMC_SDCMD_IDX_MASK;
    i40e_reg_set(d, I40E_PFHMC_SDCMD, v);
    if (idx >= I40E_HMC_MAX_SD) {
        d->c.ring_errors++;
        return;
    }
    i40e_sd *sd = &d->sd[idx];
    if (v & I40E_PFHMC_SDCMD_WR) {
        uint32_t lo = i40e_reg(d, I40E_PFHMC_SDDATALOW);
        uint32_t hi = i40e_reg(d, I40E_PFHMC_SDDATAHIGH);
        sd->valid = lo & I40E_SD_VALID;
        sd->direct = lo & I40E_SD_DIRECT;
        sd->addr = (uint64_t)hi << 32 | (lo & ~0xFFFu);
    } else {
        uint32_t lo = (uint32_t)sd->addr | (sd->direct ? I40E_SD_DIRECT : 0) |
                      (sd->valid ? I40E_SD_VALID : 0);
        i40e_reg_set(d, I40E_PFHMC_SDDATALOW, lo);
        i40e_reg_set(d, I40E_PFHMC_SDDATAHIGH, (uint32_t)(sd->addr >> 32));
    }
}

/* tag: bit 63 RX, bits 32-47 queue, bits 0-31 the context's offset within
 * its page (paged segments) */
static uint64_t make_tag(bool rx, uint32_t q, uint32_t page_off)
{
    return (rx ? 1ull << 63 : 0) | (uint64_t)q << 32 | page_off;
}

static void deliver(i40e *d, uint64_t tag, uint32_t gen, const uint8_t *ctx)
{
    uint32_t q = (uint32_t)(tag >> 32) & 0xFFFF;
    if (tag >> 63)
        i40e_rx_ctx_loaded(d, q, gen, ctx);
    else
        i40e_tx_ctx_loaded(d, q, gen, ctx);
}

static void ctx_done(void *ctx, const dmaq_req *r, uint32_t status, const uint8_t *data,
                     uint32_t size)
{
    i40e *d = ctx;
    deliver(d, r->tag, r->gen, status == 0 && size == r->size ? data : NULL);
}

static uint32_t obj_size(bool rx)
{
    return 1u << (rx ? I40E_RXQ_CTX_ORDER : I40E_TXQ_CTX_ORDER);
}

static uint32_t owner_of(bool rx, uint32_t q)
{
    return rx ? OWNER_RX(q) : OWNER_TX(q);
}

static void pd_done(void *ctx, const dmaq_req *r, uint32_t status, const uint8_t *data,
                    uint32_t size)
{
    i40e *d = ctx;
    bool rx = r->tag >> 63;
    uint32_t q = (uint32_t)(r->tag >> 32) & 0xFFFF;
    uint64_t pd = status == 0 && size == 8 ? le64_get(data) : 0;
    if (!(pd & 1)) {
        d->c.ring_errors++;
        deliver(d, r->tag, r->gen, NULL);
        return;
    }
    uint64_t addr = (pd & ~0xFFFull) + (uint32_t)r->tag;
    if (dmaq_read(&d->dma, owner_of(rx, q), r->gen, addr, obj_size(rx), ctx_done,
                  make_tag(rx, q, 0)) == 0)
        deliver(d, r->tag, r->gen, NULL);
}

void i40e_hmc_read_ctx(i40e *d, bool rx, uint32_t q, uint32_t gen)
{
    uint32_t base = i40e_reg(d, rx ? I40E_GLHMC_LANRXBASE(0) : I40E_GLHMC_LANTXBASE(0));
    uint32_t cnt = i40e_reg(d, rx ? I40E_GLHMC_LANRXCNT(0) : I40E_GLHMC_LANTXCNT(0));
    uint64_t fpm =
        (uint64_t)(base & 0xFFFFFF) * I40E_HMC_BASE_UNIT + (uint64_t)q * obj_size(rx);
    uint64_t sd_idx = fpm / I40E_HMC_DIRECT_BP;
    uint32_t in_sd = (uint32_t)(fpm % I40E_HMC_DIRECT_BP);
    uint64_t tag = make_tag(rx, q, in_sd % I40E_HMC_PAGED_BP);
    if (q >= cnt || sd_idx >= I40E_HMC_MAX_SD || !d->sd[sd_idx].valid) {
        d->c.ring_errors++;
        deliver(d, tag, gen, NULL);
        return;
    }
    const i40e_sd *sd = &d->sd[sd_idx];
    uint32_t chunks;
    if (sd->direct)
        chunks = dmaq_read(&d->dma, owner_of(rx, q), gen, sd->addr + in_sd, obj_size(rx),
                           ctx_done, tag);
    else
        chunks = dmaq_read(&d->dma, owner_of(rx, q), gen,
                           sd->addr + (uint64_t)(in_sd / I40E_HMC_PAGED_BP) * 8, 8,
                           pd_done, tag);
    if (chunks == 0)
        deliver(d, tag, gen, NULL);
}
