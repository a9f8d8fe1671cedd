/*
 * e1000_internal.h - the state of the e1000 model and the functions its
 * files share. One file per concept:
 *
 *   e1000.c       component glue: params, ports, message and timer dispatch,
 *                 device reset, stats
 *   regs.c        MMIO/I-O register access, statistics registers
 *   eeprom_phy.c  the microwire EEPROM behind EECD/EERD, the M88 PHY behind MDIC
 *   irq.c         ICR/IMS, interrupt delay timers, ITR throttling, INTx/MSI
 *   ../common/dma_queue.c  DMA requests over PCIe: queue, bounded in-flight,
 *                 chunking (shared with the i40e model)
 *   tx.c          transmit descriptor ring
 *   tx_offload.c  checksum insertion, TCP segmentation, VLAN insertion, sending
 *   rx.c          receive FIFO and descriptor ring
 *   rx_filter.c   address/VLAN filtering, VLAN strip, receive checksums
 *   flow_ctrl.c   802.3x PAUSE: honoured (CTRL.RFCE), sent (CTRL.TFCE)
 *   ../common/pkt.c  checksum and CRC helpers (shared with the i40e model)
 */
#ifndef MORTAR_E1000_INTERNAL_H
#define MORTAR_E1000_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "e1000.h"
#include "e1000_regs.h"
#include "mortar/pcie.h"
#include "sims/common/desc_prefetch.h"
#include "sims/common/dma_queue.h"
#include "sims/common/le.h"

#define E1000_REG_WORDS (E1000_BAR0_SIZE / 4)
#define E1000_NSTATS    ((E1000_STATS_LAST - E1000_STATS_FIRST) / 4 + 1)

#define TX_CACHE   32           /* descriptors fetched at once */
#define TX_MAX_PKT (256 * 1024) /* largest packet (TSO) assembled */
#define TX_MAX_WB  64           /* RS descriptors remembered per packet */
#define DESC_SIZE  16

/* 1 Gb/s line rate: picoseconds per byte on the wire. */
#define E1000_PS_PER_BYTE 8000ull

/* Timer cookies. */
enum {
    E1000_TIMER_ITR = 1,
    E1000_TIMER_RX_PKT,
    E1000_TIMER_RX_ABS,
    E1000_TIMER_TX_PKT,
    E1000_TIMER_TX_ABS,
    E1000_TIMER_TX_FIFO,
    E1000_TIMER_TX_PAUSE,
};

typedef struct e1000 e1000;
/* DMA owners (dmaq_req.owner): an engine's reset drops its own requests. */
enum { DMA_OWNER_TX = 1, DMA_OWNER_RX = 2 };

typedef struct e1000_eeprom {
    uint16_t words[EEPROM_WORDS];
    uint32_t eecd;    /* the bits software last wrote */
    uint32_t bits_in; /* command bits clocked in since chip select */
    uint32_t shift;
    uint32_t data_pos; /* clock edges since the read address was complete */
    uint16_t addr;
    bool reading;
} e1000_eeprom;

typedef struct e1000_phy {
    uint16_t regs[PHY_REGS];
} e1000_phy;

typedef struct e1000_irq {
    bool asserted;  /* INTx held high, or an MSI sent for the pending causes */
    bool intx_line; /* INTx currently signalled high to the host */
    bool intx_enabled, msi_enabled;
    bool ever_asserted;
    uint64_t last_assert_ps;
    uint64_t itr_timer, rx_pkt_timer, rx_abs_timer, tx_pkt_timer, tx_abs_timer;
} e1000_irq;

typedef struct e1000_tx_ctx {
    uint8_t ipcss, ipcso, tucss, tucso, tucmd, hdrlen;
    uint16_t ipcse, tucse, mss;
    uint32_t paylen;
} e1000_tx_ctx;

typedef struct e1000_tx_desc {
    uint64_t addr;
    uint32_t lower, upper, idx;
} e1000_tx_desc;

typedef struct e1000_tx_wb {
    uint32_t idx, upper;
} e1000_tx_wb;

/* What the descriptors of one packet ask for. */
typedef struct e1000_tx_pkt_opts {
    bool tse, legacy_ic, vle;
    uint8_t popts, cso, css;
    uint16_t vlan;
} e1000_tx_pkt_opts;

typedef struct e1000_tx {
    uint32_t gen;
    bool fetching, stalled;
    uint32_t fetch_next, fetch_len, fetch_chunks;
    bool fetch_failed;
    e1000_tx_desc cache[TX_CACHE];
    uint32_t cache_len, cache_pos;
    /* the packet being assembled */
    uint8_t *pkt;
    uint32_t pkt_len, pkt_cap, reads_pending;
    bool opts_set, eop, error, ide_all;
    e1000_tx_pkt_opts opts;
    uint32_t next_head;
    e1000_tx_wb wb[TX_MAX_WB];
    uint32_t nwb;
    e1000_tx_ctx ctx_tso, ctx_csum;
    /* transmit FIFO draining at line rate */
    uint64_t wire_free_ps, fifo_timer;
    uint64_t seq;
    /* frame scratch buffers: a TSO segment, and a frame with its VLAN tag */
    uint8_t seg[E1000_MAX_FRAME + 8];
    uint8_t out[E1000_MAX_FRAME + 8];
} e1000_tx;

typedef struct e1000_rx_frame {
    struct e1000_rx_frame *next;
    uint32_t len;       /* bytes stored: frame plus FCS unless stripped */
    uint32_t frame_len; /* the frame without FCS */
    uint16_t csum, special;
    uint8_t status, errors;
    uint8_t data[];
} e1000_rx_frame;

typedef struct e1000_rx {
    uint32_t gen;
    e1000_rx_frame *head, *tail;
    uint32_t fifo_bytes;
    desc_prefetch cache;
    bool waiting, dmt_armed;
    uint64_t seq;
} e1000_rx;

/* 802.3x flow control state (flow_ctrl.c). */
typedef struct e1000_fc {
    uint64_t tx_paused_until_ps, resume_timer; /* a received PAUSE holds transmit */
    bool xoff_sent;                            /* we asked the partner to pause */
} e1000_fc;

struct e1000 {
    mortar_component *self;
    uint8_t mac[6];
    bool flow_control; /* EEPROM and link partner offer PAUSE (parameter) */
    uint32_t regs[E1000_REG_WORDS];
    uint32_t ioaddr;
    e1000_eeprom ee;
    e1000_phy phy;
    e1000_irq irq;
    dmaq dma;
    e1000_tx tx;
    e1000_rx rx;
    e1000_fc fc;
    uint64_t stat[E1000_NSTATS];
    e1000_counters c;
    uint16_t tk_tx, tk_rx, tk_irq;
};

static inline uint32_t e1000_reg(const e1000 *d, uint32_t off)
{
    return d->regs[off >> 2];
}

static inline void e1000_reg_set(e1000 *d, uint32_t off, uint32_t v)
{
    d->regs[off >> 2] = v;
}

static inline uint64_t e1000_reg64(const e1000 *d, uint32_t lo_off)
{
    return (uint64_t)e1000_reg(d, lo_off + 4) << 32 | e1000_reg(d, lo_off);
}

/* Descriptors in a ring of RDLEN/TDLEN bytes (0 when the ring is unusable). */
static inline uint32_t e1000_ring_count(const e1000 *d, uint32_t len_off)
{
    return (e1000_reg(d, len_off) & 0x000FFF80u) / DESC_SIZE;
}

/* e1000.c */
void e1000_device_reset(e1000 *d);
void e1000_send_pcie(e1000 *d, uint8_t type, const void *msg, uint32_t size);

/* regs.c */
uint32_t e1000_reg_read(e1000 *d, uint32_t off);
void e1000_reg_write(e1000 *d, uint32_t off, uint32_t v);
void e1000_mmio_read(e1000 *d, const mortar_pcie_mmio *rd);
void e1000_mmio_write(e1000 *d, const mortar_pcie_mmio *wr);
void e1000_regs_defaults(e1000 *d);
void e1000_stat_add(e1000 *d, uint32_t off, uint64_t n);
void e1000_stat_size_bin(e1000 *d, uint32_t first_bin_off, uint32_t len_with_fcs);

/* eeprom_phy.c */
void e1000_eeprom_init(e1000 *d);
uint32_t e1000_eecd_read(e1000 *d);
void e1000_eecd_write(e1000 *d, uint32_t v);
void e1000_eerd_write(e1000 *d, uint32_t v);
void e1000_mdic_write(e1000 *d, uint32_t v);
void e1000_phy_reset(e1000 *d);
bool e1000_link_up(const e1000 *d);
uint32_t e1000_status(const e1000 *d);

/* irq.c */
void e1000_irq_cause(e1000 *d, uint32_t causes);
void e1000_irq_update(e1000 *d);
uint32_t e1000_irq_read_icr(e1000 *d);
void e1000_irq_rx_event(e1000 *d);
void e1000_irq_tx_event(e1000 *d, bool delayed);
void e1000_irq_timer(e1000 *d, uint64_t cookie);
void e1000_irq_devctrl(e1000 *d, uint32_t flags);
void e1000_irq_reset(e1000 *d);

/* tx.c */
void e1000_tx_reset(e1000 *d);
void e1000_tx_kick(e1000 *d);
void e1000_tx_ring_changed(e1000 *d);
void e1000_tx_tail_write(e1000 *d, uint32_t v);
void e1000_tx_timer(e1000 *d);

/* tx_offload.c */
uint64_t e1000_tx_wire_bytes(const e1000 *d, uint32_t pkt_len,
                             const e1000_tx_pkt_opts *o);
void e1000_tx_emit(e1000 *d, uint8_t *pkt, uint32_t len, const e1000_tx_pkt_opts *o);

/* rx.c */
void e1000_rx_reset(e1000 *d);
void e1000_rx_free(e1000 *d);
void e1000_rx_kick(e1000 *d);
void e1000_rx_ring_changed(e1000 *d);
void e1000_rx_tail_write(e1000 *d, uint32_t v);
void e1000_rx_frame_in(e1000 *d, const uint8_t *frame, uint32_t len);

/* flow_ctrl.c */
bool e1000_fc_frame_in(e1000 *d, const uint8_t *frame, uint32_t len);
bool e1000_fc_tx_paused(e1000 *d);
void e1000_fc_timer(e1000 *d);
void e1000_fc_rx_filled(e1000 *d, uint32_t fifo_bytes);
void e1000_fc_rx_drained(e1000 *d, uint32_t fifo_bytes);
void e1000_fc_reset(e1000 *d);

/* rx_filter.c */
bool e1000_rx_accept(e1000 *d, const uint8_t *frame, uint32_t len);
e1000_rx_frame *e1000_rx_prepare(e1000 *d, const uint8_t *frame, uint32_t len);

#endif
