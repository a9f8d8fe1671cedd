/*
 * pcitest.c - a small PCIe test device for checking hosts: IDs and BARs,
 * MMIO round trips, DMA in both directions, and MSI/MSI-X/INTx interrupts.
 *
 * Vendor 0x1de5, device 0x7e57. BAR0: 4 KiB of registers (MSI-X table at
 * 0x800, PBA at 0xc00); BAR2: 1 MiB 64-bit prefetchable, unused (it is there
 * for BAR checks). Registers, 32-bit little-endian:
 *   0x00 ID = 0x7e570001           0x04 SCRATCH (rw)
 *   0x08 COUNTER (+1 on each read)
 *   0x10/0x14 DMA address lo/hi    0x18 DMA length (<= 1 MiB)
 *   0x1c DMA pattern seed          0x20 DMA command: 1 write pattern, 2 read and sum
 *   0x24 DMA status: bit0 busy, bit1 done, bit2 error (write 0 clears)
 *   0x28 DMA result (byte sum of a read)
 *   0x2c DMA time: ns from the command's arrival to the last completion
 *        of the last DMA (read-only; what the link's PCIe layer made of it)
 *   0x30 IRQ raise (write a vector)  0x34 IRQ ack (deassert INTx)
 *   0x38 IRQ count                 0x3c DMA-done vector (0xffffffff: none)
 * Interrupts go out as MSI-X if enabled, else MSI, else INTx.
 * Parameters: chunk (DMA bytes per message, default 4096), outstanding
 * (chunks in flight, default 1: one at a time; completions come back in
 * order on a PCIe link, so reads still sum in order).
 */
#include <stdlib.h>
#include <string.h>

#include "mortar/component.h"
#include "mortar/error.h"
#include "mortar/pcie.h"
#include "mortar/pcie_dispatch.h"
#include "sims/registry.h"

#define PORT 0
#define REG_ID 0x00
#define REG_SCRATCH 0x04
#define REG_COUNTER 0x08
#define REG_DMA_LO 0x10
#define REG_DMA_HI 0x14
#define REG_DMA_LEN 0x18
#define REG_DMA_SEED 0x1c
#define REG_DMA_CMD 0x20
#define REG_DMA_STATUS 0x24
#define REG_DMA_RESULT 0x28
#define REG_DMA_TIME 0x2c
#define REG_IRQ_RAISE 0x30
#define REG_IRQ_ACK 0x34
#define REG_IRQ_COUNT 0x38
#define REG_DMA_VECTOR 0x3c

#define ST_BUSY 1u
#define ST_DONE 2u
#define ST_ERROR 4u
#define MAX_DMA (1u << 20)
#define NO_VECTOR 0xffffffffu

typedef struct pcitest {
    mortar_component *self;
    uint32_t regs[0x40 / 4];
    uint32_t counter, irq_count, ctrl;
    uint64_t chunk, outstanding;
    /* the DMA in progress */
    uint64_t dma_addr, dma_start_ps;
    uint32_t dma_len, dma_sent, dma_done, dma_cmd;
    uint64_t first_req; /* the request id of its first chunk */
    uint64_t sum;
    uint64_t next_req;
    uint64_t mmio_reads, mmio_writes, unknown;
} pcitest;

static uint32_t reg(pcitest *t, unsigned off)
{
    return t->regs[off / 4];
}

static void raise_irq(pcitest *t, uint16_t vector)
{
    mortar_pcie_interrupt in = {.vector = vector};
    if (t->ctrl & MORTAR_PCIE_CTRL_MSIX_ENABLE)
        in.kind = MORTAR_PCIE_INT_MSIX;
    else if (t->ctrl & MORTAR_PCIE_CTRL_MSI_ENABLE)
        in.kind = MORTAR_PCIE_INT_MSI, in.vector = 0;
    else
        in.kind = MORTAR_PCIE_INT_LEGACY_HIGH;
    t->irq_count++;
    mortar_send(t->self, PORT, MORTAR_PCIE_INTERRUPT, &in, sizeof in, 0, NULL);
}

/* ---- DMA: up to `outstanding` chunks in flight, in order ------------------- */

static uint32_t chunks_in_flight(const pcitest *t)
{
    return (uint32_t)((t->dma_sent - t->dma_done + t->chunk - 1) / t->chunk);
}

/* Sends the next chunk; false when all are sent or enough are in flight. */
static bool dma_next(pcitest *t)
{
    uint32_t n = t->dma_len - t->dma_sent;
    if (n > t->chunk)
        n = (uint32_t)t->chunk;
    if (n == 0 || chunks_in_flight(t) >= t->outstanding)
        return false;
    uint8_t buf[sizeof(mortar_pcie_dma) + 8192];
    mortar_pcie_dma *d = (mortar_pcie_dma *)buf;
    *d = (mortar_pcie_dma){.req_id = ++t->next_req, .addr = t->dma_addr + t->dma_sent, .size = n};
    uint8_t type = MORTAR_PCIE_DMA_READ;
    uint32_t size = sizeof *d;
    if (t->dma_cmd == 1) {
        for (uint32_t i = 0; i < n; i++)
            d->data[i] = (uint8_t)(reg(t, REG_DMA_SEED) + t->dma_sent + i);
        type = MORTAR_PCIE_DMA_WRITE;
        size += n;
    }
    t->dma_sent += n;
    mortar_send(t->self, PORT, type, buf, size, 0, NULL);
    return true;
}

static void dma_fill(pcitest *t)
{
    while (dma_next(t))
        ;
}

static void dma_finish(pcitest *t, uint32_t status)
{
    t->regs[REG_DMA_STATUS / 4] = status;
    t->regs[REG_DMA_RESULT / 4] = (uint32_t)t->sum;
    t->regs[REG_DMA_TIME / 4] = (uint32_t)((mortar_now(t->self) - t->dma_start_ps) / 1000);
    if (reg(t, REG_DMA_VECTOR) != NO_VECTOR)
        raise_irq(t, (uint16_t)reg(t, REG_DMA_VECTOR));
}

static void dma_start(pcitest *t, uint32_t cmd)
{
    uint32_t len = reg(t, REG_DMA_LEN);
    if ((reg(t, REG_DMA_STATUS) & ST_BUSY) || (cmd != 1 && cmd != 2) || len == 0 ||
        len > MAX_DMA) {
        t->regs[REG_DMA_STATUS / 4] |= ST_ERROR;
        return;
    }
    t->dma_addr = (uint64_t)reg(t, REG_DMA_HI) << 32 | reg(t, REG_DMA_LO);
    t->dma_len = len;
    t->dma_sent = t->dma_done = 0;
    t->dma_cmd = cmd;
    t->sum = 0;
    t->regs[REG_DMA_STATUS / 4] = ST_BUSY;
    t->dma_start_ps = mortar_now(t->self);
    t->first_req = t->next_req + 1;
    dma_fill(t);
}

static void dma_completed(pcitest *t, const mortar_msg *m)
{
    const mortar_pcie_dma_done *d = m->payload;
    /* the link keeps completions in order: the next is the oldest chunk's */
    uint64_t expected = t->first_req + t->dma_done / t->chunk;
    if (m->size < sizeof *d || !(reg(t, REG_DMA_STATUS) & ST_BUSY) || d->req_id != expected) {
        t->unknown++;
        return;
    }
    if (d->status != 0) {
        dma_finish(t, ST_DONE | ST_ERROR);
        return;
    }
    if (m->type == MORTAR_PCIE_DMA_READ_DONE)
        for (uint32_t i = 0; i < d->size && sizeof *d + i < m->size; i++)
            t->sum += d->data[i];
    uint32_t n = t->dma_len - t->dma_done;
    t->dma_done += n < t->chunk ? n : (uint32_t)t->chunk;
    if (t->dma_done == t->dma_len)
        dma_finish(t, ST_DONE);
    else
        dma_fill(t);
}

/* ---- registers ---------------------------------------------------------------- */

static uint32_t read_reg(pcitest *t, uint64_t off)
{
    switch (off) {
    case REG_COUNTER:
        return t->counter++;
    case REG_IRQ_COUNT:
        return t->irq_count;
    default:
        if (off < sizeof t->regs && off % 4 == 0)
            return t->regs[off / 4];
        t->unknown++;
        return 0;
    }
}

static void write_reg(pcitest *t, uint64_t off, uint32_t v)
{
    switch (off) {
    case REG_SCRATCH: case REG_DMA_LO: case REG_DMA_HI: case REG_DMA_LEN: case REG_DMA_SEED:
    case REG_DMA_VECTOR:
        t->regs[off / 4] = v;
        break;
    case REG_DMA_CMD:
        dma_start(t, v);
        break;
    case REG_DMA_STATUS:
        if (!(reg(t, REG_DMA_STATUS) & ST_BUSY))
            t->regs[off / 4] = 0;
        break;
    case REG_IRQ_RAISE:
        raise_irq(t, (uint16_t)v);
        break;
    case REG_IRQ_ACK: {
        mortar_pcie_interrupt in = {.kind = MORTAR_PCIE_INT_LEGACY_LOW};
        mortar_send(t->self, PORT, MORTAR_PCIE_INTERRUPT, &in, sizeof in, 0, NULL);
        break;
    }
    default:
        t->unknown++;
    }
}

static void mmio_read(void *dev, const mortar_pcie_mmio *rd)
{
    pcitest *t = dev;
    uint8_t buf[sizeof(mortar_pcie_mmio_done) + 8] = {0};
    mortar_pcie_mmio_done *done = (mortar_pcie_mmio_done *)buf;
    done->req_id = rd->req_id;
    done->size = rd->size <= 8 ? rd->size : 8;
    uint32_t v = rd->bar == 0 ? read_reg(t, rd->offset & ~3ull) : 0;
    uint64_t wide = (uint64_t)v >> (8 * (rd->offset & 3));
    memcpy(done->data, &wide, sizeof wide);
    t->mmio_reads++;
    mortar_send(t->self, PORT, MORTAR_PCIE_MMIO_READ_DONE, buf,
                (uint32_t)sizeof *done + done->size, 0, NULL);
}

static void mmio_write(void *dev, const mortar_pcie_mmio *wr)
{
    pcitest *t = dev;
    t->mmio_writes++;
    if (wr->bar != 0 || wr->size != 4) {
        t->unknown++;
        return;
    }
    uint32_t v;
    memcpy(&v, wr->data, 4);
    write_reg(t, wr->offset, v);
}

static void devctrl(void *dev, uint32_t flags)
{
    ((pcitest *)dev)->ctrl = flags;
}

static void dma_done(void *dev, const mortar_msg *m)
{
    dma_completed(dev, m);
}

static const mortar_pcie_device_ops pcie_ops = {.mmio_read = mmio_read,
                                                .mmio_write = mmio_write,
                                                .devctrl = devctrl,
                                                .dma_done = dma_done};

static void pcitest_message(void *state, unsigned port, const mortar_msg *m)
{
    (void)port;
    pcitest *t = state;
    if (!mortar_pcie_dispatch(&pcie_ops, t, m))
        t->unknown++;
}

/* ---- component ------------------------------------------------------------------ */

static int pcitest_create(mortar_component *self, const mortar_params *p, void **state)
{
    static const char *const known[] = {"chunk", "outstanding", NULL};
    pcitest *t = calloc(1, sizeof *t);
    if (!t)
        return MORTAR_ENOMEM;
    int rc = mortar_params_check_known(p, known);
    if (!rc)
        rc = mortar_params_u64(p, "chunk", 4096, &t->chunk);
    if (!rc && (t->chunk == 0 || t->chunk > 8192))
        rc = mortar_params_error(p, "chunk", "must be between 1 and 8192 bytes");
    if (!rc)
        rc = mortar_params_u64(p, "outstanding", 1, &t->outstanding);
    if (!rc && (t->outstanding == 0 || t->outstanding > 1024))
        rc = mortar_params_error(p, "outstanding", "must be between 1 and 1024 chunks");
    if (rc) {
        free(t);
        return rc;
    }
    t->self = self;
    t->regs[REG_ID / 4] = 0x7e570001;
    t->regs[REG_DMA_VECTOR / 4] = NO_VECTOR;
    mortar_pcie_dev_intro intro = {
        .vendor_id = 0x1de5, .device_id = 0x7e57, .subsystem_vendor_id = 0x1de5,
        .subsystem_id = 0x0001, .class_code = 0xff, .revision = 1,
        .msi_vectors = 1, .msix_vectors = 4, .msix_table_bar = 0, .msix_pba_bar = 0,
        .msix_table_offset = 0x800, .msix_pba_offset = 0xc00, .intx_pin = 1,
    };
    intro.bars[0] = (mortar_pcie_bar){.size = 4096};
    intro.bars[2] = (mortar_pcie_bar){.size = 1u << 20,
                                      .flags = MORTAR_PCIE_BAR_64 | MORTAR_PCIE_BAR_PREFETCH};
    mortar_port_declare(self, PORT, MORTAR_PROTO_PCIE, &intro, sizeof intro);
    *state = t;
    return 0;
}

static void pcitest_stats(void *state, mortar_stats *s)
{
    pcitest *t = state;
    mortar_stats_u64(s, "mmio_reads", t->mmio_reads);
    mortar_stats_u64(s, "mmio_writes", t->mmio_writes);
    mortar_stats_u64(s, "interrupts", t->irq_count);
    mortar_stats_u64(s, "unknown", t->unknown);
}

const mortar_component_ops mortar_pcitest_ops = {
    .kind = "pcitest",
    .summary = "PCIe test device: IDs, MMIO round trips, DMA, interrupts",
    .create = pcitest_create,
    .message = pcitest_message,
    .stats = pcitest_stats,
    .destroy = free,
};
