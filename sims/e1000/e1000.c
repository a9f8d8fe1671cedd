/*
 * e1000.c - the e1000 component: parameters, ports, message and timer
 * dispatch, device reset and stats. The behaviour lives in the other files of
 * this directory (see e1000_internal.h for the map).
 *
 * Timing: the model does no work of its own between events. Everything is
 * driven by MMIO messages, DMA completions, arriving frames and a few timers
 * (interrupt moderation, transmit FIFO space); the PCIe link's latency gives
 * register accesses and DMA their cost, the Ethernet link's bandwidth and
 * latency the wire's.
 */
#include "e1000_internal.h"

#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"
#include "mortar/eth.h"
#include "mortar/runtime.h"
#include "mortar/pcie_dispatch.h"
#include "sims/registry.h"

static void fill_intro(mortar_pcie_dev_intro *in)
{
    memset(in, 0, sizeof *in);
    in->vendor_id = E1000_VENDOR_INTEL;
    in->device_id = E1000_DEV_82540EM;
    in->subsystem_vendor_id = E1000_SUBSYS_VENDOR;
    in->subsystem_id = E1000_SUBSYS_ID;
    in->class_code = 0x02; /* network controller */
    in->subclass = 0x00;   /* Ethernet */
    in->revision = E1000_REVISION;
    in->msi_vectors = 1;
    in->intx_pin = 1;
    /* The 82540EM is a 32-bit PCI device (33/66 MHz, 133/266 MB/s on a bus
     * both directions share); mortar has no shared bus and puts it on the
     * slowest PCIe link, 1.0 x1 (250 MB/s each way): docs/pcie.md. */
    in->link_gen = 1;
    in->link_lanes = 1;
    in->bars[0] = (mortar_pcie_bar){.size = E1000_BAR0_SIZE};
    in->bars[1] = (mortar_pcie_bar){.size = E1000_BAR1_SIZE, .flags = MORTAR_PCIE_BAR_IO};
}

static int read_params(e1000 *d, const mortar_params *p, uint64_t *outstanding)
{
    static const char *const known[] = {"mac", "dma_outstanding", "flow_control", NULL};
    static const uint8_t def_mac[6] = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
    int rc = mortar_params_check_known(p, known);
    if (!rc)
        rc = mortar_params_mac(p, "mac", def_mac, d->mac);
    if (!rc)
        rc = mortar_params_u64(p, "dma_outstanding", 8, outstanding);
    if (!rc)
        rc = mortar_params_bool(p, "flow_control", true, &d->flow_control);
    if (rc) {
        mortar_logf(d->self, MORTAR_LOG_ERROR, "%s", mortar_params_errmsg(p));
    } else if (*outstanding == 0 || *outstanding > 256) {
        mortar_logf(d->self, MORTAR_LOG_ERROR, "%s.dma_outstanding: expected 1 to 256",
                    mortar_params_path(p));
        rc = MORTAR_EINVAL;
    }
    return rc;
}

static void e1000_destroy(void *state)
{
    e1000 *d = state;
    e1000_rx_free(d);
    dmaq_destroy(&d->dma);
    free(d->tx.pkt);
    free(d);
}

static int e1000_create(mortar_component *self, const mortar_params *p, void **state)
{
    e1000 *d = calloc(1, sizeof *d);
    if (!d)
        return MORTAR_ENOMEM;
    d->self = self;
    uint64_t outstanding = 8;
    int rc = read_params(d, p, &outstanding);
    if (!rc)
        rc = dmaq_init(&d->dma, self, E1000_PORT_PCIE, d, (uint32_t)outstanding);
    mortar_pcie_dev_intro intro;
    fill_intro(&intro);
    if (!rc)
        rc = mortar_port_declare(self, E1000_PORT_PCIE, MORTAR_PROTO_PCIE, &intro,
                                 sizeof intro);
    if (!rc)
        rc = mortar_port_declare(self, E1000_PORT_ETH, MORTAR_PROTO_ETH, NULL, 0);
    if (rc) {
        dmaq_destroy(&d->dma);
        free(d);
        return rc;
    }
    d->tk_tx = mortar_trace_kind(self, "tx_frame");
    d->tk_rx = mortar_trace_kind(self, "rx_frame");
    d->tk_irq = mortar_trace_kind(self, "irq");
    d->irq.intx_enabled = true; /* PCI reset state: INTx not disabled */
    e1000_eeprom_init(d);
    e1000_phy_reset(d);
    e1000_regs_defaults(d);
    *state = d;
    return MORTAR_OK;
}

static void e1000_start(void *state)
{
    dmaq_start(&((e1000 *)state)->dma);
}

/* Global reset (CTRL.RST): registers to their power-on values (PBA kept),
 * engines and pending interrupt state cleared. The PHY and the PCI state
 * survive. */
void e1000_device_reset(e1000 *d)
{
    uint32_t pba = e1000_reg(d, E1000_PBA); /* repartitioning takes effect at reset */
    e1000_irq_reset(d);
    e1000_regs_defaults(d);
    e1000_reg_set(d, E1000_PBA, pba);
    e1000_tx_reset(d);
    e1000_rx_reset(d);
    e1000_fc_reset(d);
    d->ee.eecd = 0;
    d->ee.reading = false;
    d->ee.bits_in = 0;
}

void e1000_send_pcie(e1000 *d, uint8_t type, const void *msg, uint32_t size)
{
    if (mortar_send(d->self, E1000_PORT_PCIE, type, msg, size, 0, NULL) != 0)
        d->c.bad_messages++;
}

/* the PCIe messages, as mortar_pcie_dispatch hands them over */
static void on_mmio_read(void *d, const mortar_pcie_mmio *rd)
{
    e1000_mmio_read(d, rd);
}

static void on_mmio_write(void *d, const mortar_pcie_mmio *wr)
{
    e1000_mmio_write(d, wr);
}

static void on_devctrl(void *d, uint32_t flags)
{
    e1000_irq_devctrl(d, flags);
}

static void on_dma_done(void *d, const mortar_msg *msg)
{
    dmaq_completion(&((e1000 *)d)->dma, msg);
}

static const mortar_pcie_device_ops pcie_ops = {.mmio_read = on_mmio_read,
                                                .mmio_write = on_mmio_write,
                                                .devctrl = on_devctrl,
                                                .dma_done = on_dma_done};

static void e1000_message(void *state, unsigned port, const mortar_msg *msg)
{
    e1000 *d = state;
    if (port == E1000_PORT_PCIE) {
        if (!mortar_pcie_dispatch(&pcie_ops, d, msg))
            d->c.bad_messages++;
    } else if (port == E1000_PORT_ETH && msg->type == MORTAR_ETH_FRAME)
        e1000_rx_frame_in(d, msg->payload, msg->size);
    else
        d->c.bad_messages++;
}

static void e1000_timer(void *state, uint64_t cookie)
{
    e1000 *d = state;
    if (cookie == E1000_TIMER_TX_FIFO)
        e1000_tx_timer(d);
    else if (cookie == E1000_TIMER_TX_PAUSE)
        e1000_fc_timer(d);
    else
        e1000_irq_timer(d, cookie);
}

/* The model's counters with the DMA queue's. */
static void collect(const e1000 *d, e1000_counters *c)
{
    *c = d->c;
    c->dma_errors += d->dma.errors;
    c->bad_completions += d->dma.bad_completions;
    c->bad_messages += d->dma.bad_messages;
}

static void e1000_stats(void *state, mortar_stats *s)
{
    const e1000 *d = state;
    e1000_counters all;
    collect(d, &all);
    const e1000_counters *c = &all;
    uint32_t ctrl = e1000_reg(d, E1000_CTRL);
    mortar_stats_u64(s, "line_rate_bps", MORTAR_S(8) / E1000_PS_PER_BYTE);
    mortar_stats_u64(s, "tx_frames", c->tx_frames);
    mortar_stats_u64(s, "tx_bytes", c->tx_bytes);
    mortar_stats_u64(s, "tx_dropped", c->tx_dropped);
    mortar_stats_u64(s, "tso_segments", c->tso_segments);
    mortar_stats_u64(s, "csum_offloads", c->csum_offloads);
    mortar_stats_u64(s, "rx_frames", c->rx_frames);
    mortar_stats_u64(s, "rx_bytes", c->rx_bytes);
    mortar_stats_u64(s, "rx_missed", c->rx_missed);
    mortar_stats_u64(s, "rx_filtered", c->rx_filtered);
    mortar_stats_u64(s, "pause_rx", c->pause_rx);
    mortar_stats_u64(s, "xoff_tx", c->xoff_tx);
    mortar_stats_u64(s, "xon_tx", c->xon_tx);
    mortar_stats_u64(s, "rx_pause_enabled", (ctrl & E1000_CTRL_RFCE) != 0);
    mortar_stats_u64(s, "tx_pause_enabled", (ctrl & E1000_CTRL_TFCE) != 0);
    mortar_stats_u64(s, "interrupts", c->interrupts);
    mortar_stats_u64(s, "unknown_reg_reads", c->unknown_reg_reads);
    mortar_stats_u64(s, "unknown_reg_writes", c->unknown_reg_writes);
    mortar_stats_u64(s, "bad_mmio", c->bad_mmio);
    mortar_stats_u64(s, "bad_messages", c->bad_messages);
    mortar_stats_u64(s, "bad_completions", c->bad_completions);
    mortar_stats_u64(s, "dma_errors", c->dma_errors);
    mortar_stats_u64(s, "bad_tail_writes", c->bad_tail_writes);
    mortar_stats_u64(s, "ring_errors", c->ring_errors);
}

void e1000_get_counters(mortar_component *c, e1000_counters *out)
{
    collect(mortar_component_state(c), out);
}

/* The Ethernet port sends at the 82540's line rate, whatever the link. */
static uint64_t e1000_port_rate_bps(const mortar_params *p, unsigned port)
{
    (void)p;
    return port == E1000_PORT_ETH ? MORTAR_S(8) / E1000_PS_PER_BYTE : 0;
}

/* Frames lost: received with no room in the receive FIFO (or while receive
 * was off), and packets dropped on transmit. */
static const char *const e1000_lost_stats[] = {"rx_missed", "tx_dropped", NULL};

const mortar_component_ops mortar_e1000_ops = {
    .kind = "e1000",
    .summary =
        "Intel 82540EM gigabit Ethernet controller (8254x), for the Linux e1000 driver",
    .create = e1000_create,
    .start = e1000_start,
    .message = e1000_message,
    .timer = e1000_timer,
    .stats = e1000_stats,
    .destroy = e1000_destroy,
    .lost_stats = e1000_lost_stats,
    .port_rate_bps = e1000_port_rate_bps,
};
