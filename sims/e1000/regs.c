/*
 * regs.c - the e1000 model's register file: MMIO on BAR0, the IOADDR/IODATA
 * window on BAR1 (the Linux driver resets the 82540 through it), and the
 * read-to-clear statistics counters.
 *
 * Registers with behaviour are dispatched by offset; registers the driver
 * programs but the model does not act on (flow control, LEDs, wake-up, ...)
 * are plain storage. Anything else reads as zero, ignores writes and is
 * counted as unknown. Accesses that are not 4 bytes at a 4-aligned offset
 * are counted as bad and read as zero.
 */
#include "e1000_internal.h"

#include <string.h>

/* ---- statistics ---------------------------------------------------------- */

static bool is_stat(uint32_t off)
{
    return off >= E1000_STATS_FIRST && off <= E1000_STATS_LAST;
}

static uint64_t *stat_slot(e1000 *d, uint32_t off)
{
    return &d->stat[(off - E1000_STATS_FIRST) / 4];
}

void e1000_stat_add(e1000 *d, uint32_t off, uint64_t n)
{
    *stat_slot(d, off) += n;
}

/* Counts a frame of `len` bytes (FCS included) in the 64/127/255/511/1023/
 * 1522 size bins that start at `first_bin_off` (PRC64 or PTC64). */
void e1000_stat_size_bin(e1000 *d, uint32_t first_bin_off, uint32_t len)
{
    static const uint32_t limits[] = {64, 127, 255, 511, 1023, 1522};
    for (uint32_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        if (len <= limits[i]) {
            e1000_stat_add(d, first_bin_off + 4 * i, 1);
            return;
        }
    }
}

/* 64-bit counters: the value lives in the low register's slot; reading the
 * high register returns the upper half and clears the counter. */
static bool is_stat_high(uint32_t off)
{
    return off == E1000_GORCH || off == E1000_GOTCH || off == E1000_TORH ||
           off == E1000_TOTH;
}

static bool is_stat_low(uint32_t off)
{
    return off == E1000_GORCL || off == E1000_GOTCL || off == E1000_TORL ||
           off == E1000_TOTL;
}

static uint32_t stat_read(e1000 *d, uint32_t off)
{
    if (is_stat_low(off))
        return (uint32_t)*stat_slot(d, off);
    if (is_stat_high(off)) {
        uint64_t *v = stat_slot(d, off - 4);
        uint32_t high = (uint32_t)(*v >> 32);
        *v = 0;
        return high;
    }
    uint64_t *v = stat_slot(d, off);
    uint32_t r = *v > 0xffffffffu ? 0xffffffffu : (uint32_t)*v;
    *v = 0;
    return r;
}

/* ---- plain storage -------------------------------------------------------- */

static bool in_array(uint32_t off, uint32_t base, uint32_t bytes)
{
    return off >= base && off < base + bytes;
}

/* Registers the driver programs but the model does not act on. */
static const uint32_t storage_regs[] = {
    E1000_CTRL_EXT, E1000_FLA,    E1000_FCAL,   E1000_FCAH,     E1000_FCT,   E1000_VET,
    E1000_FCTTV,    E1000_TXCW,   E1000_RXCW,   E1000_TCTL_EXT, E1000_TIPG,  E1000_TBT,
    E1000_AIT,      E1000_LEDCTL, E1000_PBA,    E1000_FCRTL,    E1000_FCRTH, E1000_RDFH,
    E1000_RDFT,     E1000_RDFHS,  E1000_RDFTS,  E1000_RDFPC,    E1000_RDTR,  E1000_RXDCTL,
    E1000_RADV,     E1000_RSRPD,  E1000_TXDMAC, E1000_TDFH,     E1000_TDFT,  E1000_TDFHS,
    E1000_TDFTS,    E1000_TDFPC,  E1000_TIDV,   E1000_TXDCTL,   E1000_TADV,  E1000_TSPMT,
    E1000_RXCSUM,   E1000_WUC,    E1000_WUFC,   E1000_WUS,      E1000_MANC,  E1000_IPAV,
    E1000_WUPL,     E1000_EERD,   E1000_MDIC,
};

static bool is_storage(uint32_t off)
{
    for (size_t i = 0; i < sizeof storage_regs / sizeof storage_regs[0]; i++)
        if (storage_regs[i] == off)
            return true;
    return in_array(off, E1000_MTA, 4 * E1000_MTA_WORDS) ||
           in_array(off, E1000_RA, 8 * E1000_RAR_COUNT) ||
           in_array(off, E1000_VFTA, 4 * E1000_VFTA_WORDS) ||
           in_array(off, E1000_IP4AT, 0x20) || in_array(off, E1000_IP6AT, 0x10) ||
           in_array(off, E1000_WUPM, 0x80) || in_array(off, E1000_FFLT, 0x20) ||
           in_array(off, E1000_FFMT, 0x400) || in_array(off, E1000_FFVT, 0x400);
}

void e1000_regs_defaults(e1000 *d)
{
    memset(d->regs, 0, sizeof d->regs);
    memset(d->stat, 0, sizeof d->stat);
    e1000_reg_set(d, E1000_CTRL, E1000_CTRL_DEFAULT);
    e1000_reg_set(d, E1000_LEDCTL, E1000_LEDCTL_DEFAULT);
    e1000_reg_set(d, E1000_PBA, E1000_PBA_DEFAULT);
    e1000_reg_set(d, E1000_VET, E1000_VET_DEFAULT);
    /* the MAC loads receive address 0 from the EEPROM */
    const uint8_t *m = d->mac;
    e1000_reg_set(d, E1000_RA,
                  (uint32_t)m[0] | m[1] << 8 | m[2] << 16 | (uint32_t)m[3] << 24);
    e1000_reg_set(d, E1000_RA + 4, (uint32_t)m[4] | m[5] << 8 | E1000_RAH_AV);
}

/* ---- registers with behaviour ---------------------------------------------- */

static void ctrl_write(e1000 *d, uint32_t v)
{
    uint32_t old = e1000_reg(d, E1000_CTRL);
    if ((v & E1000_CTRL_PHY_RST) && !(old & E1000_CTRL_PHY_RST)) {
        bool was_up = e1000_link_up(d);
        e1000_phy_reset(d);
        if (!was_up)
            e1000_irq_cause(d, E1000_ICR_LSC);
    }
    e1000_reg_set(d, E1000_CTRL, v & ~E1000_CTRL_RST);
    if (v & E1000_CTRL_RST)
        e1000_device_reset(d);
}

static void rctl_write(e1000 *d, uint32_t v)
{
    uint32_t old = e1000_reg(d, E1000_RCTL);
    e1000_reg_set(d, E1000_RCTL, v);
    if ((old & E1000_RCTL_EN) && !(v & E1000_RCTL_EN))
        e1000_rx_ring_changed(d); /* receiver stopped: drop its state */
    if (v & E1000_RCTL_EN)
        e1000_rx_kick(d);
}

static void tctl_write(e1000 *d, uint32_t v)
{
    e1000_reg_set(d, E1000_TCTL, v);
    if (v & E1000_TCTL_EN)
        e1000_tx_kick(d);
}

static void mask_write(e1000 *d, uint32_t off, uint32_t v)
{
    uint32_t ims = e1000_reg(d, E1000_IMS);
    if (off == E1000_IMS)
        ims |= v;
    else
        ims &= ~v;
    e1000_reg_set(d, E1000_IMS, ims & E1000_ICR_VALID);
    e1000_irq_update(d);
}

/* Head writes outside the ring are refused like bad tails. */
static void head_write(e1000 *d, uint32_t off, uint32_t len_off, uint32_t v)
{
    if (v >= e1000_ring_count(d, len_off) && v != 0) {
        d->c.bad_tail_writes++;
        return;
    }
    e1000_reg_set(d, off, v & 0xFFFF);
    if (off == E1000_RDH)
        e1000_rx_ring_changed(d);
    else
        e1000_tx_ring_changed(d);
}

static bool ring_write(e1000 *d, uint32_t off, uint32_t v)
{
    switch (off) {
    case E1000_RDBAL:
    case E1000_TDBAL:
        e1000_reg_set(d, off, v & ~0xFu);
        break;
    case E1000_RDBAH:
    case E1000_TDBAH:
        e1000_reg_set(d, off, v);
        break;
    case E1000_RDLEN:
    case E1000_TDLEN:
        e1000_reg_set(d, off, v & 0x000FFF80u);
        break;
    case E1000_RDH:
        head_write(d, off, E1000_RDLEN, v);
        return true;
    case E1000_TDH:
        head_write(d, off, E1000_TDLEN, v);
        return true;
    case E1000_RDT:
        e1000_rx_tail_write(d, v);
        return true;
    case E1000_TDT:
        e1000_tx_tail_write(d, v);
        return true;
    default:
        return false;
    }
    if (off == E1000_RDBAL || off == E1000_RDBAH || off == E1000_RDLEN)
        e1000_rx_ring_changed(d);
    else
        e1000_tx_ring_changed(d);
    return true;
}

void e1000_reg_write(e1000 *d, uint32_t off, uint32_t v)
{
    switch (off) {
    case E1000_CTRL:
    case E1000_CTRL_DUP:
        ctrl_write(d, v);
        return;
    case E1000_STATUS:
        return; /* read-only */
    case E1000_EECD:
        e1000_eecd_write(d, v);
        return;
    case E1000_EERD:
        e1000_eerd_write(d, v);
        return;
    case E1000_MDIC:
        e1000_mdic_write(d, v);
        return;
    case E1000_ICR:
        e1000_reg_set(d, E1000_ICR, e1000_reg(d, E1000_ICR) & ~v);
        e1000_irq_update(d);
        return;
    case E1000_ITR:
        e1000_reg_set(d, off, v & 0xFFFF);
        e1000_irq_update(d);
        return;
    case E1000_ICS:
        e1000_irq_cause(d, v);
        return;
    case E1000_IMS:
    case E1000_IMC:
        mask_write(d, off, v);
        return;
    case E1000_RCTL:
        rctl_write(d, v);
        return;
    case E1000_TCTL:
        tctl_write(d, v);
        return;
    }
    if (ring_write(d, off, v) || is_stat(off))
        return;
    if (is_storage(off)) {
        e1000_reg_set(d, off, v);
        return;
    }
    d->c.unknown_reg_writes++;
}

uint32_t e1000_reg_read(e1000 *d, uint32_t off)
{
    switch (off) {
    case E1000_CTRL:
    case E1000_CTRL_DUP:
        return e1000_reg(d, E1000_CTRL);
    case E1000_STATUS:
        return e1000_status(d);
    case E1000_EECD:
        return e1000_eecd_read(d);
    case E1000_ICR:
        return e1000_irq_read_icr(d);
    case E1000_ICS:
    case E1000_IMC:
        return 0; /* write-only */
    case E1000_ITR:
    case E1000_IMS:
    case E1000_RCTL:
    case E1000_TCTL:
    case E1000_RDBAL:
    case E1000_RDBAH:
    case E1000_RDLEN:
    case E1000_RDH:
    case E1000_RDT:
    case E1000_TDBAL:
    case E1000_TDBAH:
    case E1000_TDLEN:
    case E1000_TDH:
    case E1000_TDT:
        return e1000_reg(d, off);
    }
    if (is_stat(off))
        return stat_read(d, off);
    if (is_storage(off))
        return e1000_reg(d, off);
    d->c.unknown_reg_reads++;
    return 0;
}

/* ---- MMIO and I/O ----------------------------------------------------------- */

static bool io_read(e1000 *d, uint64_t off, uint32_t *v)
{
    if (off == E1000_IOADDR) {
        *v = d->ioaddr;
    } else if (off == E1000_IODATA) {
        if (d->ioaddr % 4 || d->ioaddr >= E1000_BAR0_SIZE) {
            d->c.unknown_reg_reads++;
            *v = 0;
        } else {
            *v = e1000_reg_read(d, d->ioaddr);
        }
    } else {
        return false;
    }
    return true;
}

static bool io_write(e1000 *d, uint64_t off, uint32_t v)
{
    if (off == E1000_IOADDR) {
        d->ioaddr = v;
    } else if (off == E1000_IODATA) {
        if (d->ioaddr % 4 || d->ioaddr >= E1000_BAR0_SIZE)
            d->c.unknown_reg_writes++;
        else
            e1000_reg_write(d, d->ioaddr, v);
    } else {
        return false;
    }
    return true;
}

/* A 4-byte access at a 4-aligned offset of BAR0 or BAR1: the normal case. */
static bool regular(const mortar_pcie_mmio *m)
{
    return m->size == 4 && m->offset % 4 == 0 && (m->bar == 0 || m->bar == 1);
}

static uint32_t access_read(e1000 *d, const mortar_pcie_mmio *rd)
{
    uint32_t v = 0;
    if (!regular(rd)) {
        d->c.bad_mmio++;
    } else if (rd->bar == 0) {
        if (rd->offset < E1000_BAR0_SIZE)
            v = e1000_reg_read(d, (uint32_t)rd->offset);
        else
            d->c.unknown_reg_reads++;
    } else if (!io_read(d, rd->offset, &v)) {
        d->c.unknown_reg_reads++;
    }
    return v;
}

void e1000_mmio_read(e1000 *d, const mortar_pcie_mmio *rd)
{
    uint8_t buf[sizeof(mortar_pcie_mmio_done) + 256];
    mortar_pcie_mmio_done *done = (mortar_pcie_mmio_done *)buf;
    uint32_t size = rd->size <= 256 ? rd->size : 256;
    if (rd->size > 256)
        d->c.bad_mmio++; /* answered with the first 256 bytes, all zero */
    memset(buf, 0, sizeof buf);
    done->req_id = rd->req_id;
    done->size = size;
    uint32_t v = access_read(d, rd);
    if (size >= 4)
        le32_put(done->data, v);
    e1000_send_pcie(d, MORTAR_PCIE_MMIO_READ_DONE, done, (uint32_t)sizeof *done + size);
}

void e1000_mmio_write(e1000 *d, const mortar_pcie_mmio *wr)
{
    if (!regular(wr)) {
        d->c.bad_mmio++;
    } else if (wr->bar == 0) {
        if (wr->offset < E1000_BAR0_SIZE)
            e1000_reg_write(d, (uint32_t)wr->offset, le32_get(wr->data));
        else
            d->c.unknown_reg_writes++;
    } else if (!io_write(d, wr->offset, le32_get(wr->data))) {
        d->c.unknown_reg_writes++;
    }
    if (!wr->posted) {
        mortar_pcie_mmio_done done = {.req_id = wr->req_id};
        e1000_send_pcie(d, MORTAR_PCIE_MMIO_WRITE_DONE, &done, sizeof done);
    }
}
