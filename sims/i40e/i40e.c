/*
 * i40e.c - the i40e component: parameters, ports, message and timer
 * dispatch, PF reset and stats. The behaviour lives in the other files of
 * this directory (see i40e_internal.h for the map).
 *
 * Timing: the model does no work of its own between events. MMIO messages,
 * DMA completions, arriving frames and a few timers (interrupt throttling,
 * frame departures at line rate, the link coming up) drive it; the PCIe
 * link's latency gives register accesses and DMA their cost, the `speed`
 * parameter and the Ethernet link the wire's.
 */
#include "i40e_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mortar/error.h"
#include "mortar/eth.h"
#include "mortar/runtime.h"
#include "mortar/pcie_dispatch.h"
#include "sims/registry.h"

#define DEFAULT_SPEED_BPS 40000000000ull  /* 40 Gbit/s: the XL710 QSFP+ port */
#define MIN_SPEED_BPS     1000000ull      /* 1 Mbit/s */
#define MAX_SPEED_BPS     400000000000ull /* 400 Gbit/s */

uint64_t i40e_bits(const uint8_t *p, uint32_t lsb, uint32_t width)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < width; i++) {
        uint32_t bit = lsb + i;
        if (p[bit / 8] >> (bit % 8) & 1)
            v |= 1ull << i;
    }
    return v;
}

static void fill_intro(mortar_pcie_dev_intro *in)
{
    memset(in, 0, sizeof *in);
    in->vendor_id = I40E_VENDOR_INTEL;
    in->device_id = I40E_DEV_QSFP_A;
    in->subsystem_vendor_id = I40E_VENDOR_INTEL;
    in->subsystem_id = I40E_SUBSYS_ID;
    in->class_code = 0x02; /* network controller */
    in->subclass = 0x00;   /* Ethernet */
    in->revision = I40E_REVISION;
    in->msix_vectors = I40E_NVEC;
    in->msix_table_bar = 3;
    in->msix_pba_bar = 3;
    in->msix_table_offset = 0;
    in->msix_pba_offset = I40E_MSIX_PBA_OFF;
    in->intx_pin = 0; /* MSI-X only (see docs/models/i40e.md) */
    /* the XL710 is a PCIe 3.0 (8 GT/s) x8 device (its datasheet, 332464) */
    in->link_gen = 3;
    in->link_lanes = 8;
    in->bars[0] = (mortar_pcie_bar){.size = I40E_BAR0_SIZE, .flags = MORTAR_PCIE_BAR_64};
    in->bars[3] = (mortar_pcie_bar){.size = I40E_BAR3_SIZE};
}

static int read_params(i40e *d, const mortar_params *p, uint64_t *outstanding)
{
    static const char *const known[] = {"mac", "speed", "dma_outstanding", "flow_control",
                                        NULL};
    static const uint8_t def_mac[6] = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
    uint64_t bps = 0;
    int rc = mortar_params_check_known(p, known);
    if (!rc)
        rc = mortar_params_mac(p, "mac", def_mac, d->mac);
    if (!rc)
        rc = mortar_params_bandwidth(p, "speed", DEFAULT_SPEED_BPS, &bps);
    if (!rc)
        rc = mortar_params_u64(p, "dma_outstanding", 64, outstanding);
    if (!rc)
        rc = mortar_params_bool(p, "flow_control", true, &d->flow_control);
    if (!rc && (bps < MIN_SPEED_BPS || bps > MAX_SPEED_BPS))
        rc = mortar_params_error(p, "speed", "expected 1Mbps to 400Gbps");
    if (!rc && (*outstanding == 0 || *outstanding > 256))
        rc = mortar_params_error(p, "dma_outstanding", "expected 1 to 256");
    if (!rc && (d->mac[0] & 1))
        rc = mortar_params_error(p, "mac", "must be a unicast address");
    if (rc) {
        mortar_logf(d->self, MORTAR_LOG_ERROR, "%s", mortar_params_errmsg(p));
        return rc;
    }
    d->speed_bps = bps;
    d->ps_per_byte = (8000000000000ull + bps / 2) / bps;
    return MORTAR_OK;
}

/* The register file: 4 MiB of mostly unused words, mapped as zero pages so
 * that only the pages holding a written register fault in. calloc() would
 * clear all of it whenever it serves the block from the heap, which it does
 * once a first such block was freed (planning a run builds each NIC to
 * learn its identity: 17 ms of memset and a thousand page faults a NIC). */
static uint32_t *regs_alloc(void)
{
    void *p = mmap(NULL, I40E_REG_WORDS * sizeof(uint32_t), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void regs_free(uint32_t *regs)
{
    if (regs)
        munmap(regs, I40E_REG_WORDS * sizeof(uint32_t));
}

static void i40e_destroy(void *state)
{
    i40e *d = state;
    i40e_tx_free(d);
    i40e_rx_free(d);
    i40e_aq_free(d);
    dmaq_destroy(&d->dma);
    free(d->atq.buf);
    regs_free(d->regs);
    free(d);
}

static int i40e_create(mortar_component *self, const mortar_params *p, void **state)
{
    i40e *d = calloc(1, sizeof *d);
    if (!d)
        return MORTAR_ENOMEM;
    d->self = self;
    uint64_t outstanding = 64;
    int rc = read_params(d, p, &outstanding);
    d->regs = regs_alloc();
    d->atq.buf = malloc(I40E_AQ_MAX_BUF);
    if (!rc && (!d->regs || !d->atq.buf))
        rc = MORTAR_ENOMEM;
    if (!rc)
        rc = dmaq_init(&d->dma, self, I40E_PORT_PCIE, d, (uint32_t)outstanding);
    mortar_pcie_dev_intro intro;
    fill_intro(&intro);
    if (!rc)
        rc = mortar_port_declare(self, I40E_PORT_PCIE, MORTAR_PROTO_PCIE, &intro,
                                 sizeof intro);
    if (!rc)
        rc = mortar_port_declare(self, I40E_PORT_ETH, MORTAR_PROTO_ETH, NULL, 0);
    if (rc) {
        dmaq_destroy(&d->dma);
        free(d->atq.buf);
        regs_free(d->regs);
        free(d);
        return rc;
    }
    for (uint32_t q = 0; q < I40E_NQP; q++) {
        d->txq[q].idx = q;
        d->rxq[q].idx = q;
    }
    d->tk_tx = mortar_trace_kind(self, "tx_frame");
    d->tk_rx = mortar_trace_kind(self, "rx_frame");
    d->tk_irq = mortar_trace_kind(self, "irq");
    i40e_nvm_init(d);
    i40e_regs_defaults(d);
    i40e_fc_init(d);
    *state = d;
    return MORTAR_OK;
}

static void i40e_start(void *state)
{
    i40e *d = state;
    dmaq_start(&d->dma);
}

/* PF software reset (PFGEN_CTRL.PFSWR): queues, interrupts and the HMC
 * return to their reset state; the admin queue registers (reset only by
 * firmware resets) and the statistics survive; the link goes down until the
 * driver asks again. */
void i40e_pf_reset(i40e *d)
{
    i40e_tx_reset(d);
    i40e_rx_reset(d);
    i40e_irq_reset(d);
    i40e_hmc_reset(d);
    for (uint32_t q = 0; q < I40E_NQP; q++) {
        i40e_reg_set(d, I40E_QTX_ENA(q), 0);
        i40e_reg_set(d, I40E_QRX_ENA(q), 0);
        i40e_reg_set(d, I40E_QTX_TAIL(q), 0);
        i40e_reg_set(d, I40E_QRX_TAIL(q), 0);
    }
    for (uint32_t v = 0; v + 1 < I40E_NVEC; v++) {
        i40e_reg_set(d, I40E_PFINT_DYN_CTLN(v), 0);
        i40e_reg_set(d, I40E_PFINT_LNKLSTN(v), 0x7FF);
        for (uint32_t i = 0; i < 3; i++)
            i40e_reg_set(d, I40E_PFINT_ITRN(i, v), 0);
    }
    i40e_reg_set(d, I40E_PFINT_DYN_CTL0, 0);
    i40e_reg_set(d, I40E_PFINT_LNKLST0, 0x7FF);
    d->nvm_locked = false;
}

void i40e_send_pcie(i40e *d, uint8_t type, const void *msg, uint32_t size)
{
    if (mortar_send(d->self, I40E_PORT_PCIE, type, msg, size, 0, NULL) != 0)
        d->c.bad_messages++;
}

/* the PCIe messages, as mortar_pcie_dispatch hands them over */
static void on_mmio_read(void *d, const mortar_pcie_mmio *rd)
{
    i40e_mmio_read(d, rd);
}

static void on_mmio_write(void *d, const mortar_pcie_mmio *wr)
{
    i40e_mmio_write(d, wr);
}

static void on_devctrl(void *d, uint32_t flags)
{
    i40e_irq_devctrl(d, flags);
}

static void on_dma_done(void *d, const mortar_msg *msg)
{
    dmaq_completion(&((i40e *)d)->dma, msg);
}

static const mortar_pcie_device_ops pcie_ops = {.mmio_read = on_mmio_read,
                                                .mmio_write = on_mmio_write,
                                                .devctrl = on_devctrl,
                                                .dma_done = on_dma_done};

static void i40e_message(void *state, unsigned port, const mortar_msg *msg)
{
    i40e *d = state;
    if (port == I40E_PORT_PCIE) {
        if (!mortar_pcie_dispatch(&pcie_ops, d, msg))
            d->c.bad_messages++;
    } else if (port == I40E_PORT_ETH && msg->type == MORTAR_ETH_FRAME)
        i40e_rx_frame_in(d, msg->payload, msg->size);
    else
        d->c.bad_messages++;
}

static void i40e_timer(void *state, uint64_t cookie)
{
    i40e *d = state;
    uint32_t idx = (uint32_t)(cookie & 0xFFFF);
    switch (cookie >> 16) {
    case I40E_TIMER_ITR:
        i40e_irq_timer(d, idx);
        break;
    case I40E_TIMER_TX_WIRE:
        i40e_wire_timer(d);
        break;
    case I40E_TIMER_LINK:
        i40e_link_timer(d);
        break;
    }
}

static void collect(const i40e *d, i40e_counters *c)
{
    *c = d->c;
    c->dma_errors += d->dma.errors;
    c->bad_completions += d->dma.bad_completions;
    c->bad_messages += d->dma.bad_messages;
}

static void i40e_stats(void *state, mortar_stats *s)
{
    i40e_counters c;
    collect(state, &c);
    mortar_stats_u64(s, "line_rate_bps", ((const i40e *)state)->speed_bps);
    mortar_stats_u64(s, "tx_frames", c.tx_frames);
    mortar_stats_u64(s, "tx_bytes", c.tx_bytes);
    mortar_stats_u64(s, "tx_dropped", c.tx_dropped);
    mortar_stats_u64(s, "tso_segments", c.tso_segments);
    mortar_stats_u64(s, "csum_offloads", c.csum_offloads);
    mortar_stats_u64(s, "rx_frames", c.rx_frames);
    mortar_stats_u64(s, "rx_bytes", c.rx_bytes);
    mortar_stats_u64(s, "rx_missed", c.rx_missed);
    mortar_stats_u64(s, "rx_filtered", c.rx_filtered);
    mortar_stats_u64(s, "pause_rx", c.pause_rx);
    mortar_stats_u64(s, "xoff_tx", c.xoff_tx);
    mortar_stats_u64(s, "xon_tx", c.xon_tx);
    mortar_stats_u64(s, "rx_pause_enabled",
                     (((const i40e *)state)->fc.link_pause & I40E_PHY_PAUSE_RX) != 0);
    mortar_stats_u64(s, "tx_pause_enabled",
                     (((const i40e *)state)->fc.link_pause & I40E_PHY_PAUSE_TX) != 0);
    mortar_stats_u64(s, "interrupts", c.interrupts);
    mortar_stats_u64(s, "aq_commands", c.aq_commands);
    mortar_stats_u64(s, "aq_unsupported", c.aq_unsupported);
    mortar_stats_u64(s, "aq_events", c.aq_events);
    mortar_stats_u64(s, "unknown_reg_reads", c.unknown_reg_reads);
    mortar_stats_u64(s, "unknown_reg_writes", c.unknown_reg_writes);
    mortar_stats_u64(s, "bad_mmio", c.bad_mmio);
    mortar_stats_u64(s, "bad_messages", c.bad_messages);
    mortar_stats_u64(s, "bad_completions", c.bad_completions);
    mortar_stats_u64(s, "dma_errors", c.dma_errors);
    mortar_stats_u64(s, "bad_tail_writes", c.bad_tail_writes);
    mortar_stats_u64(s, "ring_errors", c.ring_errors);
    mortar_stats_u64(s, "bad_descriptors", c.bad_descriptors);
}

void i40e_get_counters(mortar_component *c, i40e_counters *out)
{
    collect(mortar_component_state(c), out);
}

/* The Ethernet port sends at the `speed` parameter's line rate. */
static uint64_t i40e_port_rate_bps(const mortar_params *p, unsigned port)
{
    uint64_t bps;
    if (port != I40E_PORT_ETH ||
        mortar_params_bandwidth(p, "speed", DEFAULT_SPEED_BPS, &bps))
        return 0;
    return bps;
}

/* Frames lost: received with no room in the packet buffer (or while no
 * queue could take them), and packets dropped on transmit. */
static const char *const i40e_lost_stats[] = {"rx_missed", "tx_dropped", NULL};

const mortar_component_ops mortar_i40e_ops = {
    .kind = "i40e",
    .summary = "Intel XL710 40 GbE controller (physical function), for the Linux i40e "
               "driver",
    .create = i40e_create,
    .start = i40e_start,
    .message = i40e_message,
    .timer = i40e_timer,
    .stats = i40e_stats,
    .destroy = i40e_destroy,
    .lost_stats = i40e_lost_stats,
    .port_rate_bps = i40e_port_rate_bps,
};
