/*
 * regs.c - the i40e model's register file on BAR0.
 *
 * Registers with behaviour are dispatched by offset (resets, NVM access,
 * admin queue tails and lengths, HMC segment commands, queue enables and
 * tails, interrupt control, read-to-clear PFINT_ICR0). Registers inside the
 * blocks the driver programs but the model does not act on (RSS keys and
 * tables, filter control, rate limits, ...) are plain storage. Anything else
 * reads as zero, ignores writes and is counted as unknown.
 *
 * Statistics (GLPRT_* for port 0, GLV_* for VSI statistics index 0) are
 * free-running 48-bit counters read as a low/high pair or one 8-byte read,
 * as the driver does; unmodelled counters in the statistics block read 0.
 *
 * Accesses are 4 bytes at a 4-aligned offset, or 8-byte reads (the driver's
 * readq of a statistics pair); anything else is counted as bad and reads 0.
 */
#include "i40e_internal.h"

#include <string.h>

#include "mortar/runtime.h"

/* ---- storage blocks ------------------------------------------------------- */

typedef struct reg_block {
    uint32_t first, end;
} reg_block;

/* The blocks the driver programs (interrupts, admin queue, PF control, NVM,
 * HMC, queues, LAN and filter control, port MAC settings, RSS). */
static const reg_block storage_blocks[] = {
    {0x00030000, 0x00040000}, /* PFINT_*, QINT_* */
    {0x00044000, 0x00045000}, /* GLLAN_TSOMSK_* */
    {0x0006B000, 0x0006C000}, /* PFPM_* (wake-up) */
    {0x00080000, 0x00080500}, /* PF_ATQ*, PF_ARQ* */
    {0x00083000, 0x00084000}, /* GL_FWSTS and firmware status */
    {0x00085000, 0x00085100}, /* PRTTSYN_CTL1 and PTP auxiliaries */
    {0x00088000, 0x00089000}, /* GLGEN_* (VF timer, MDIO) */
    {0x00092000, 0x00093000}, /* PFGEN_* */
    {0x00098000, 0x000A0000}, /* PRTDCB_* transmit */
    {0x000B6000, 0x000B6200}, /* GLNVM_* */
    {0x000B8000, 0x000B8400}, /* GLGEN reset control, PRTGEN_* */
    {0x000BE000, 0x000BF000}, /* GLPCI_* */
    {0x000C0000, 0x000C7000}, /* PFHMC_*, GLHMC_* */
    {0x000E4000, 0x000E6600}, /* QTX_HEAD, GLLAN_TXPRE_QDIS */
    {0x00100000, 0x00110000}, /* QTX_ENA, QTX_CTL, QTX_TAIL */
    {0x00120000, 0x00130000}, /* QRX_ENA, QRX_TAIL, GLLAN_RCTL_0 */
    {0x001C0000, 0x001C1000}, /* PFLAN_*, PFQF_CTL_0, PF_VT_PFALLOC */
    {0x001E0000, 0x001E4400}, /* PRTGL_*, PRTMAC_*, PRTTSYN_* (PTP) */
    {0x00240000, 0x00260000}, /* PFQF_HLUT, PFQF_HKEY, PFQF_HENA */
    {0x00260000, 0x00280000}, /* GLQF_*, PRTQF_* */
};

static bool is_storage(uint32_t off)
{
    for (size_t i = 0; i < sizeof storage_blocks / sizeof storage_blocks[0]; i++)
        if (off >= storage_blocks[i].first && off < storage_blocks[i].end)
            return true;
    return false;
}

/* The registers that do not reset to zero, in a register file that comes
 * zeroed from calloc. It is not cleared again here: 4 MiB of which the
 * driver touches a few KiB, and a page the model never writes costs no
 * page fault (some 1,000 a NIC, in every process that makes one: each
 * run's mortar-sim and the planning of every run). */
void i40e_regs_defaults(i40e *d)
{
    i40e_reg_set(d, I40E_GLNVM_FLA, I40E_GLNVM_FLA_LOCKED);
    i40e_reg_set(d, I40E_GLNVM_SRCTL, I40E_GLNVM_SRCTL_DONE);
    i40e_reg_set(d, I40E_PRTGL_SAH, I40E_MAX_FRAME_FCS << I40E_PRTGL_SAH_MFS_SHIFT);
    i40e_reg_set(d, I40E_PFINT_LNKLST0, 0x7FF);
    for (uint32_t v = 0; v + 1 < I40E_NVEC; v++)
        i40e_reg_set(d, I40E_PFINT_LNKLSTN(v), 0x7FF);
}

/* ---- statistics ------------------------------------------------------------ */

void i40e_stat_size_bin(uint64_t bins[7], uint32_t len)
{
    static const uint32_t limits[] = {64, 127, 255, 511, 1023, 1522, 9522};
    for (uint32_t i = 0; i < 7; i++) {
        if (len <= limits[i]) {
            bins[i]++;
            return;
        }
    }
}

/* The counter behind the low register of a pair, or NULL (reads 0). */
static const uint64_t *stat_counter(const i40e *d, uint32_t lo)
{
    const i40e_port_stats *s = &d->st;
    if (lo >= I40E_GLPRT_PRC64L && lo < I40E_GLPRT_PRC64L + 7 * 0x20 &&
        (lo - I40E_GLPRT_PRC64L) % 0x20 == 0)
        return &s->prc[(lo - I40E_GLPRT_PRC64L) / 0x20];
    if (lo >= I40E_GLPRT_PTC64L && lo < I40E_GLPRT_PTC64L + 7 * 0x20 &&
        (lo - I40E_GLPRT_PTC64L) % 0x20 == 0)
        return &s->ptc[(lo - I40E_GLPRT_PTC64L) / 0x20];
    switch (lo) {
    case I40E_GLPRT_GORCL:
    case I40E_GLV_GORCL:
        return &s->gorc;
    case I40E_GLPRT_UPRCL:
    case I40E_GLV_UPRCL:
        return &s->uprc;
    case I40E_GLPRT_MPRCL:
    case I40E_GLV_MPRCL:
        return &s->mprc;
    case I40E_GLPRT_BPRCL:
    case I40E_GLV_BPRCL:
        return &s->bprc;
    case I40E_GLPRT_RDPC:
    case I40E_GLV_RDPC:
        return &s->rdpc;
    case I40E_GLPRT_GOTCL:
    case I40E_GLV_GOTCL:
        return &s->gotc;
    case I40E_GLPRT_UPTCL:
    case I40E_GLV_UPTCL:
        return &s->uptc;
    case I40E_GLPRT_MPTCL:
    case I40E_GLV_MPTCL:
        return &s->mptc;
    case I40E_GLPRT_BPTCL:
    case I40E_GLV_BPTCL:
        return &s->bptc;
    case I40E_GLPRT_TDOLD:
        return &s->tdold;
    case I40E_GLPRT_RUC:
        return &s->ruc;
    case I40E_GLPRT_ROC:
        return &s->roc;
    case I40E_GLPRT_CRCERRS:
        return &s->crcerrs;
    case I40E_GLPRT_LXONRXC:
        return &s->lxonrxc;
    case I40E_GLPRT_LXOFFRXC:
        return &s->lxoffrxc;
    case I40E_GLPRT_LXONTXC:
        return &s->lxontxc;
    case I40E_GLPRT_LXOFFTXC:
        return &s->lxofftxc;
    }
    return NULL;
}

/* 48-bit counters: the low register holds bits 0-31, the one after it bits
 * 32-47. Single 32-bit counters are read from their low register alone. */
static uint32_t stat_read(const i40e *d, uint32_t off)
{
    const uint64_t *c = stat_counter(d, off);
    if (c)
        return (uint32_t)*c;
    c = stat_counter(d, off - 4);
    if (c)
        return (uint32_t)(*c >> 32) & 0xFFFF;
    return 0;
}

/* ---- reads ---------------------------------------------------------------- */

/* The value a read of `off` returns, without the read's side effects
 * (PFINT_ICR0, cleared by its read, is i40e_reg_read's); `known` false: a
 * register the model does not know, read as zero. */
static uint32_t reg_value(const i40e *d, uint32_t off, bool *known)
{
    *known = true;
    if (off >= I40E_STATS_FIRST && off < I40E_STATS_END)
        return stat_read(d, off);
    if (off >= I40E_QTX_HEAD(0) && off < I40E_QTX_HEAD(I40E_NQP))
        return d->txq[(off - I40E_QTX_HEAD(0)) / 4].head;
    switch (off) {
    case I40E_GLGEN_RSTAT:
        return 0; /* no reset in progress */
    case I40E_GLNVM_ULD:
        return I40E_GLNVM_ULD_DONE;
    case I40E_GLNVM_GENS:
        return I40E_GLNVM_GENS_NVM_PRES | I40E_NVM_SR_SIZE_CODE << I40E_GLNVM_GENS_SR_SIZE_SHIFT;
    case I40E_GLPCI_CNF2:
        return (uint32_t)I40E_NVEC << I40E_GLPCI_CNF2_PF_N_SHIFT;
    case I40E_PFLAN_QALLOC:
        return (uint32_t)(I40E_NQP - 1) << I40E_PFLAN_QALLOC_LAST_SHIFT | I40E_PFLAN_QALLOC_VALID;
    case I40E_GLHMC_LANTXOBJSZ:
        return I40E_TXQ_CTX_ORDER;
    case I40E_GLHMC_LANRXOBJSZ:
        return I40E_RXQ_CTX_ORDER;
    case I40E_GLHMC_LANQMAX:
        return I40E_NQP;
    case I40E_GLHMC_FCOEFMAX:
        return I40E_FCOE_FILTERS_MAX; /* FCoE is not offered, but the driver checks */
    case I40E_GLVFGEN_TIMER:
        return (uint32_t)(mortar_now(d->self) / 1000000);
    case I40E_PRTGEN_CNF + 4:
    case I40E_PRTGEN_CNF + 8:
    case I40E_PRTGEN_CNF + 12:
        return I40E_PRTGEN_CNF_PORT_DIS; /* one port */
    }
    *known = is_storage(off);
    return *known ? i40e_reg(d, off) : 0;
}

uint32_t i40e_reg_read(i40e *d, uint32_t off)
{
    if (off == I40E_PFINT_ICR0)
        return i40e_irq_read_icr0(d);
    bool known;
    uint32_t v = reg_value(d, off, &known);
    if (!known) {
        d->c.unknown_reg_reads++;
        mortar_logf(d->self, MORTAR_LOG_DEBUG, "read of unknown register 0x%06x", off);
    }
    return v;
}

/* ---- writes --------------------------------------------------------------- */

static bool queue_write(i40e *d, uint32_t off, uint32_t v)
{
    if (off >= I40E_QTX_ENA(0) && off < I40E_QTX_ENA(I40E_NQP))
        i40e_tx_ena_write(d, (off - I40E_QTX_ENA(0)) / 4, v);
    else if (off >= I40E_QTX_TAIL(0) && off < I40E_QTX_TAIL(I40E_NQP))
        i40e_tx_tail_write(d, (off - I40E_QTX_TAIL(0)) / 4, v);
    else if (off >= I40E_QRX_ENA(0) && off < I40E_QRX_ENA(I40E_NQP))
        i40e_rx_ena_write(d, (off - I40E_QRX_ENA(0)) / 4, v);
    else if (off >= I40E_QRX_TAIL(0) && off < I40E_QRX_TAIL(I40E_NQP))
        i40e_rx_tail_write(d, (off - I40E_QRX_TAIL(0)) / 4, v);
    else if (off >= I40E_PFINT_DYN_CTLN(0) && off < I40E_PFINT_DYN_CTLN(I40E_NVEC - 1))
        i40e_irq_dyn_ctl_write(d, (off - I40E_PFINT_DYN_CTLN(0)) / 4 + 1, v);
    else
        return false;
    return true;
}

void i40e_reg_write(i40e *d, uint32_t off, uint32_t v)
{
    if (queue_write(d, off, v))
        return;
    switch (off) {
    case I40E_PFGEN_CTRL:
        i40e_reg_set(d, off, v & ~I40E_PFGEN_CTRL_PFSWR);
        if (v & I40E_PFGEN_CTRL_PFSWR)
            i40e_pf_reset(d); /* done at once: the bit reads back clear */
        return;
    case I40E_GLGEN_RTRIG:
        if (v)
            i40e_pf_reset(d); /* core/global reset: the PF's part of it */
        return;
    case I40E_GLNVM_SRCTL:
        i40e_nvm_srctl_write(d, v);
        return;
    case I40E_PF_ATQT:
        i40e_reg_set(d, off, v);
        i40e_atq_tail_write(d);
        return;
    case I40E_PF_ATQLEN:
    case I40E_PF_ARQLEN:
        i40e_reg_set(d, off, v);
        i40e_aq_len_write(d, off == I40E_PF_ATQLEN);
        return;
    case I40E_PF_ARQT:
        i40e_reg_set(d, off, v);
        i40e_arq_tail_write(d);
        return;
    case I40E_PFHMC_SDCMD:
        i40e_hmc_sdcmd_write(d, v);
        return;
    case I40E_PFINT_DYN_CTL0:
        i40e_irq_dyn_ctl_write(d, 0, v);
        return;
    case I40E_PFINT_ICR0_ENA:
        i40e_reg_set(d, off, v);
        i40e_irq_icr0_cause(d, 0);
        return;
    case I40E_PFINT_ICR0:
    case I40E_GLGEN_RSTAT:
    case I40E_GLNVM_ULD:
    case I40E_GLNVM_GENS:
    case I40E_GLPCI_CNF2:
    case I40E_PFLAN_QALLOC:
    case I40E_GLHMC_LANTXOBJSZ:
    case I40E_GLHMC_LANRXOBJSZ:
    case I40E_GLHMC_LANQMAX:
        return; /* read-only */
    }
    if (off >= I40E_STATS_FIRST && off < I40E_STATS_END)
        return; /* statistics are read-only */
    if (is_storage(off)) {
        i40e_reg_set(d, off, v);
    } else {
        d->c.unknown_reg_writes++;
        mortar_logf(d->self, MORTAR_LOG_DEBUG, "write of unknown register 0x%06x", off);
    }
}

/* ---- MMIO messages ---------------------------------------------------------- */

static bool regular(const mortar_pcie_mmio *m, bool read)
{
    if (m->bar != 0 || m->offset >= I40E_BAR0_SIZE)
        return false;
    if (m->size == 4)
        return (m->offset & 3) == 0;
    return read && m->size == 8 && (m->offset & 7) == 0;
}

/* A register a held read may answer: known, read without side effects,
 * changed only by the model's events or the host's messages (not by time),
 * and not a statistic (a frame from the network changes those, even one
 * the model drops). */
static bool holdable(const i40e *d, uint32_t off, uint32_t *v)
{
    if (off == I40E_PFINT_ICR0 || off == I40E_GLVFGEN_TIMER || off >= I40E_BAR0_SIZE ||
        (off >= I40E_STATS_FIRST && off < I40E_STATS_END))
        return false;
    bool known;
    *v = reg_value(d, off, &known);
    return known;
}

/* With every queue off and no frame waiting for the wire, what the network
 * brings is only counted (rx.c): a frame is dropped, a pause frame holds
 * back nothing. So it cannot make the model send to the host. */
static bool network_inert(const i40e *d)
{
    if (d->wire.head)
        return false;
    for (uint32_t q = 0; q < I40E_NQP; q++)
        if (d->txq[q].enabled || d->rxq[q].enabled)
            return false;
    return true;
}

/*
 * Held reads (mortar/pcie.h): the registers from the read's on, while they
 * are holdable, up to I40E_HOLD_MAX bytes, until the model's next event and,
 * once a queue is on, what the network can bring. A driver polling a
 * register, or reading a pair in turn (GLNVM_SRCTL then GLNVM_SRDATA, word
 * after word, as the driver sums the shadow RAM at probe), is then answered
 * by the host at the stamp this model's completions would have had. Returns
 * the hold's length (0: none); `out` has room for the hold and
 * I40E_HOLD_MAX bytes.
 */
static uint32_t fill_hold(i40e *d, const mortar_pcie_mmio *rd, uint8_t *out)
{
    mortar_pcie_read_hold h = {.offset = rd->offset};
    h.until_ps = network_inert(d) ? mortar_port_quiet_until_own(d->self, I40E_PORT_PCIE)
                                  : mortar_port_quiet_until(d->self, I40E_PORT_PCIE);
    if (h.until_ps <= mortar_now(d->self))
        return 0;
    uint32_t v;
    while (h.len < I40E_HOLD_MAX && holdable(d, (uint32_t)rd->offset + h.len, &v)) {
        le32_put(out + sizeof h + h.len, v);
        h.len += 4;
    }
    if (h.len < rd->size)
        return 0;
    memcpy(out, &h, sizeof h);
    return h.len;
}

void i40e_mmio_read(i40e *d, const mortar_pcie_mmio *rd)
{
    uint8_t buf[sizeof(mortar_pcie_mmio_done) + 256 + sizeof(mortar_pcie_read_hold) +
                I40E_HOLD_MAX];
    mortar_pcie_mmio_done *done = (mortar_pcie_mmio_done *)buf;
    uint32_t size = rd->size <= 256 ? rd->size : 256;
    uint32_t held = 0;
    memset(buf, 0, sizeof buf);
    done->req_id = rd->req_id;
    done->size = size;
    if (!regular(rd, true)) {
        if (rd->bar == 0)
            d->c.bad_mmio++;
        else
            d->c.unknown_reg_reads++; /* BAR3 belongs to the host's MSI-X */
    } else {
        uint32_t off = (uint32_t)rd->offset;
        le32_put(done->data, i40e_reg_read(d, off));
        if (rd->size == 8)
            le32_put(done->data + 4, i40e_reg_read(d, off + 4));
        held = fill_hold(d, rd, done->data + size);
    }
    done->flags = held ? MORTAR_PCIE_DONE_HOLD : 0;
    i40e_send_pcie(d, MORTAR_PCIE_MMIO_READ_DONE, done,
                   (uint32_t)sizeof *done + size +
                       (held ? (uint32_t)sizeof(mortar_pcie_read_hold) + held : 0));
}

void i40e_mmio_write(i40e *d, const mortar_pcie_mmio *wr)
{
    if (regular(wr, false))
        i40e_reg_write(d, (uint32_t)wr->offset, le32_get(wr->data));
    else if (wr->bar == 0)
        d->c.bad_mmio++;
    else
        d->c.unknown_reg_writes++;
    if (!wr->posted) {
        mortar_pcie_mmio_done done = {.req_id = wr->req_id};
        i40e_send_pcie(d, MORTAR_PCIE_MMIO_WRITE_DONE, &done, sizeof done);
    }
}
