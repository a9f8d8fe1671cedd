/*
 * i40e_internal.h - the state of the XL710 (i40e) model and the functions
 * its files share. One file per concept:
 *
 *   i40e.c        component glue: params, ports, message and timer dispatch,
 *                 PF reset, stats
 *   regs.c        MMIO on BAR0: dispatch, plain storage, statistics registers
 *   nvm.c         the NVM shadow RAM behind GLNVM_SRCTL/SRDATA
 *   adminq.c      the admin send (ATQ) and receive (ARQ) rings
 *   aq_cmds.c     the admin commands the model answers
 *   hmc.c         the host memory cache: segment descriptors, queue contexts
 *   irq.c         MSI-X vectors, cause lists, ITR throttling, PFINT_ICR0
 *   tx.c          transmit queues: descriptors, completion, line-rate departure
 *   tx_offload.c  checksum insertion and TCP segmentation
 *   rx.c          the receive packet buffer and receive queues
 *   flow_ctrl.c   802.3x PAUSE: honouring it, sending it from the buffer's marks
 *   ../common/dma_queue.c, ../common/pkt.c  DMA engine, checksum helpers
 */
#ifndef MORTAR_I40E_INTERNAL_H
#define MORTAR_I40E_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "i40e.h"
#include "i40e_regs.h"
#include "mortar/pcie.h"
#include "sims/common/desc_prefetch.h"
#include "sims/common/dma_queue.h"
#include "sims/common/le.h"

#define I40E_REG_WORDS (I40E_BAR0_SIZE / 4)
#define I40E_NQP       64 /* queue pairs of the PF */
#define I40E_NVEC      65 /* MSI-X vectors: 0 other causes, 1..64 queues */
#define I40E_HOLD_MAX  256 /* register bytes a read completion holds for the host */
/* 4 KiB shadow RAM (GLNVM_GENS.SR_SIZE 2): the smallest size the driver's
 * checksum, which reads 2048-word sectors, accepts. */
#define I40E_NVM_WORDS        2048
#define I40E_NVM_SR_SIZE_CODE 2
#define I40E_HMC_MAX_SD       16
#define I40E_MAX_UC           16 /* unicast MAC filters kept */

/* The device's receive packet buffer (the driver's I40E_DEVICE_RPB_SIZE;
 * the model has one port, which gets all of it). */
#define I40E_RX_BUFFER_BYTES 968000u
/* Flow control marks of the receive packet buffer (see docs/models/i40e.md,
 * "Flow control"). Above the high mark stays room for what still arrives
 * after an XOFF: the driver's allowance for the round trip at 40 Gbit/s
 * (I40E_PCIRTT_BYTE_LINK_SPEED_40G, 80000 bytes) plus two largest frames
 * (the one on the wire when XOFF is due, the one the partner is sending
 * when it arrives). XON when the buffer is down one more round trip. */
#define I40E_FC_RTT_BYTES 80000u
#define I40E_FC_HIGH_MARK                                                                \
    (I40E_RX_BUFFER_BYTES - I40E_FC_RTT_BYTES - 2 * I40E_MAX_FRAME_FCS)
#define I40E_FC_LOW_MARK (I40E_FC_HIGH_MARK - I40E_FC_RTT_BYTES)
/* Frames waiting for the wire once their data is on chip. */
#define I40E_TX_STAGE_BYTES (64u * 1024)
/* Largest frame the MAC takes, FCS included (the link status reports it). */
#define I40E_MAX_FRAME_FCS 9728u
#define I40E_MAX_FRAME     (I40E_MAX_FRAME_FCS - 4)
#define I40E_ETH_FCS       4
#define I40E_ETH_MIN_FRAME 60

#define TX_DESC    16
#define TX_CACHE   32
#define TX_MAX_PKT (256u * 1024)

/* Firmware and API version reported by get_version (see docs/models/i40e.md
 * for why these). */
#define I40E_FW_MAJOR  4
#define I40E_FW_MINOR  33
#define I40E_API_MAJOR 1
#define I40E_API_MINOR 4

/* Timer cookies: a kind in the high bits, an index in the low 16. */
enum {
    I40E_TIMER_ITR = 1, /* | vector */
    I40E_TIMER_TX_WIRE, /* the next staged frame's departure */
    I40E_TIMER_LINK,    /* link-up event after the driver asked */
};
#define I40E_TIMER(kind, idx) ((uint64_t)(kind) << 16 | (idx))

/* DMA owners: admin queue, HMC, TX queue q, RX queue q. */
#define OWNER_AQ    0u
#define OWNER_HMC   1u
#define OWNER_TX(q) (0x100u + (q))
#define OWNER_RX(q) (0x200u + (q))

typedef struct i40e i40e;

typedef struct i40e_aq_ring {
    bool enabled;
    uint32_t gen;
} i40e_aq_ring;

typedef struct i40e_atq {
    i40e_aq_ring r;
    bool busy; /* a command is being fetched or answered */
    uint32_t cur;
    uint8_t desc[I40E_AQ_DESC_SIZE];
    uint8_t *buf; /* I40E_AQ_MAX_BUF */
    uint32_t buf_len, buf_chunks;
    bool buf_failed;
} i40e_atq;

typedef struct i40e_arq_event {
    struct i40e_arq_event *next;
    uint8_t desc[I40E_AQ_DESC_SIZE];
} i40e_arq_event;

typedef struct i40e_arq {
    i40e_aq_ring r;
    bool busy;
    uint32_t cur;
    i40e_arq_event *head, *tail;
    uint32_t pending;
} i40e_arq;

typedef struct i40e_sd {
    bool valid, direct;
    uint64_t addr;
} i40e_sd;

/* A transmit descriptor as fetched. */
typedef struct i40e_txd {
    uint64_t qw0, qw1;
    uint32_t idx;
} i40e_txd;

typedef struct i40e_txq {
    uint32_t idx, gen;
    bool enabled, ctx_loading, ctx_ready, stalled;
    /* from the queue context */
    uint64_t base;
    uint32_t len;
    bool head_wb;
    uint64_t head_wb_addr;
    uint32_t head;
    /* descriptor fetch */
    bool fetching, fetch_failed;
    uint32_t fetch_next, fetch_len, fetch_chunks;
    i40e_txd cache[TX_CACHE];
    uint32_t cache_len, cache_pos;
    /* the packet being assembled */
    uint8_t *pkt;
    uint32_t pkt_len, pkt_cap, reads_pending;
    bool eop, error, rs, have_first;
    uint64_t first_qw1; /* the first data descriptor: offloads */
    bool tso;
    uint32_t mss, tso_len;
    uint32_t next_head;
} i40e_txq;

typedef struct i40e_rxq {
    uint32_t idx, gen;
    bool enabled, ctx_loading, ctx_ready;
    uint64_t base;
    uint32_t len, dbuff, rxmax;
    bool desc32, crcstrip;
    uint32_t head;
    desc_prefetch cache;
} i40e_rxq;

/* A received frame waiting in the packet buffer. */
typedef struct i40e_rx_frame {
    struct i40e_rx_frame *next;
    uint32_t len;
    uint32_t queue;
    uint64_t qw1; /* status, error and ptype bits of the write-back */
    uint8_t data[];
} i40e_rx_frame;

typedef struct i40e_rx {
    i40e_rx_frame *head, *tail;
    uint32_t bytes;
    uint64_t seq;
} i40e_rx;

/* A frame on chip waiting for the wire. */
typedef struct i40e_tx_staged {
    struct i40e_tx_staged *next;
    uint32_t len;
    uint8_t data[];
} i40e_tx_staged;

typedef struct i40e_wire {
    i40e_tx_staged *head, *tail;
    uint32_t bytes;
    uint64_t busy_until_ps; /* when the frame on the wire has left */
    uint64_t timer, timer_ps;
    uint64_t seq;
} i40e_wire;

/* 802.3x flow control (flow_ctrl.c). PAUSE bits are the PHY abilities'
 * I40E_PHY_PAUSE_TX / _RX. */
typedef struct i40e_fc {
    uint8_t phy_pause;        /* the PHY configuration (set_phy_config) */
    uint8_t link_pause;       /* in effect since the link came up */
    uint64_t paused_until_ps; /* received PAUSE holds data frames until then */
    bool xoff_sent;           /* an XOFF went out and no XON since */
    uint64_t xoff_sent_ps;
    bool ctl_pending; /* a PAUSE waits for the wire (between frames) */
    uint16_t ctl_quanta;
} i40e_fc;

#define I40E_PHY_PAUSE_TX 0x01
#define I40E_PHY_PAUSE_RX 0x02

typedef struct i40e_vector {
    uint8_t causes;  /* ITR indexes (bit 0-2, bit 3: none) of causes not yet signalled */
    uint8_t expired; /* ITR indexes whose interval was rewritten since the last firing */
    bool ever_fired;
    uint64_t last_fire_ps;
    uint64_t timer, timer_ps; /* the planned firing */
} i40e_vector;

/* Port statistics the model counts (64-bit, the driver reads 48 bits). */
typedef struct i40e_port_stats {
    uint64_t gorc, uprc, mprc, bprc, rdpc, gotc, uptc, mptc, bptc, tdold;
    uint64_t ruc, roc, crcerrs;
    uint64_t prc[7], ptc[7]; /* 64, 127, 255, 511, 1023, 1522, 9522 */
    uint64_t lxonrxc, lxoffrxc, lxontxc, lxofftxc; /* link PAUSE frames */
} i40e_port_stats;

struct i40e {
    mortar_component *self;
    uint8_t mac[6];
    uint64_t ps_per_byte;
    uint64_t speed_bps; /* the MAC's line rate (the `speed` parameter) */
    uint32_t *regs;
    uint16_t nvm[I40E_NVM_WORDS];
    dmaq dma;
    i40e_atq atq;
    i40e_arq arq;
    i40e_sd sd[I40E_HMC_MAX_SD];
    i40e_txq txq[I40E_NQP];
    i40e_rxq rxq[I40E_NQP];
    i40e_vector vec[I40E_NVEC];
    i40e_rx rx;
    i40e_wire wire;
    i40e_port_stats st;
    i40e_fc fc;
    bool flow_control; /* the `flow_control` parameter: the PHY can PAUSE */
    bool msix_enabled;
    bool link_up;     /* the port's link, up once the driver asked for it */
    bool lse_enabled; /* link status events wanted on the ARQ */
    bool nvm_locked;
    bool promisc;               /* unicast promiscuous (set_vsi_promiscuous_modes) */
    uint16_t phy_int_mask;      /* link events the driver masked */
    uint32_t max_frame;         /* set_mac_config: largest frame, FCS included */
    uint8_t uc[I40E_MAX_UC][6]; /* unicast filters (add_macvlan) */
    uint32_t nuc;
    uint64_t link_timer;
    i40e_counters c;
    uint8_t seg[I40E_MAX_FRAME];                  /* a TSO segment being built */
    uint8_t rxbuf[I40E_MAX_FRAME + I40E_ETH_FCS]; /* a frame with its FCS */
    uint16_t tk_tx, tk_rx, tk_irq;
};

static inline uint32_t i40e_reg(const i40e *d, uint32_t off)
{
    return d->regs[off >> 2];
}

static inline void i40e_reg_set(i40e *d, uint32_t off, uint32_t v)
{
    d->regs[off >> 2] = v;
}

/* Bits [lsb, lsb+width) of a little-endian bit string (width <= 64). */
uint64_t i40e_bits(const uint8_t *p, uint32_t lsb, uint32_t width);

/* i40e.c */
void i40e_pf_reset(i40e *d);
void i40e_send_pcie(i40e *d, uint8_t type, const void *msg, uint32_t size);

/* regs.c */
void i40e_mmio_read(i40e *d, const mortar_pcie_mmio *rd);
void i40e_mmio_write(i40e *d, const mortar_pcie_mmio *wr);
uint32_t i40e_reg_read(i40e *d, uint32_t off);
void i40e_reg_write(i40e *d, uint32_t off, uint32_t v);
void i40e_regs_defaults(i40e *d);
void i40e_stat_size_bin(uint64_t bins[7], uint32_t len_with_fcs);

/* nvm.c */
void i40e_nvm_init(i40e *d);
void i40e_nvm_srctl_write(i40e *d, uint32_t v);
uint16_t i40e_nvm_word(const i40e *d, uint32_t addr);

/* adminq.c */
void i40e_atq_tail_write(i40e *d);
void i40e_aq_len_write(i40e *d, bool send_queue);
void i40e_arq_tail_write(i40e *d);
void i40e_arq_post(i40e *d, uint16_t opcode, const uint8_t params[16]);
void i40e_aq_reset(i40e *d);
void i40e_aq_free(i40e *d);

/* aq_cmds.c: executes the command in d->atq.desc (its buffer in d->atq.buf,
 * d->atq.buf_len bytes); fills in the answer descriptor and buffer and
 * returns the response buffer length (0: none). */
uint32_t i40e_aq_execute(i40e *d);
void i40e_link_start(i40e *d);
void i40e_link_timer(i40e *d);
void i40e_link_status_params(const i40e *d, uint8_t params[16], bool lse);

/* hmc.c */
void i40e_hmc_sdcmd_write(i40e *d, uint32_t v);
void i40e_hmc_reset(i40e *d);
/* Reads the TX (rx=false) or RX queue context of queue q from host memory;
 * calls i40e_tx_ctx_loaded / i40e_rx_ctx_loaded with it (ctx NULL when the
 * HMC does not map it or the read failed). */
void i40e_hmc_read_ctx(i40e *d, bool rx, uint32_t q, uint32_t gen);

/* irq.c */
void i40e_irq_queue_cause(i40e *d, bool rx, uint32_t q);
void i40e_irq_icr0_cause(i40e *d, uint32_t cause);
uint32_t i40e_irq_read_icr0(i40e *d);
void i40e_irq_dyn_ctl_write(i40e *d, uint32_t vec, uint32_t v);
void i40e_irq_timer(i40e *d, uint32_t vec);
void i40e_irq_devctrl(i40e *d, uint32_t flags);
void i40e_irq_reset(i40e *d);

/* tx.c */
void i40e_tx_ena_write(i40e *d, uint32_t q, uint32_t v);
void i40e_tx_ctx_loaded(i40e *d, uint32_t q, uint32_t gen, const uint8_t *ctx);
void i40e_tx_tail_write(i40e *d, uint32_t q, uint32_t v);
void i40e_tx_kick(i40e *d, uint32_t q);
void i40e_tx_reset(i40e *d);
void i40e_tx_free(i40e *d);
void i40e_wire_timer(i40e *d);
void i40e_wire_arm(i40e *d);
bool i40e_wire_stage(i40e *d, const uint8_t *frame, uint32_t len);

/* tx_offload.c: turns an assembled packet into frames on the wire stage. */
uint64_t i40e_tx_wire_bytes(const i40e_txq *t);
void i40e_tx_emit(i40e *d, i40e_txq *t);

/* rx.c */
void i40e_rx_ena_write(i40e *d, uint32_t q, uint32_t v);
void i40e_rx_ctx_loaded(i40e *d, uint32_t q, uint32_t gen, const uint8_t *ctx);
void i40e_rx_tail_write(i40e *d, uint32_t q, uint32_t v);
void i40e_rx_frame_in(i40e *d, const uint8_t *frame, uint32_t len);
void i40e_rx_kick(i40e *d);
void i40e_rx_reset(i40e *d);
void i40e_rx_free(i40e *d);

/* flow_ctrl.c */
void i40e_fc_init(i40e *d);
bool i40e_fc_phy_config(i40e *d, uint8_t abilities);
void i40e_fc_link_up(i40e *d);
uint8_t i40e_fc_an_info(const i40e *d);
bool i40e_fc_frame_in(i40e *d, const uint8_t *frame, uint32_t len);
uint64_t i40e_fc_paused_until(const i40e *d);
void i40e_fc_rx_level(i40e *d);
/* The PAUSE frame waiting for the wire, if any: builds it into `out` and
 * returns its size (0: none), counting it as sent. */
uint32_t i40e_fc_take_ctl(i40e *d, uint8_t *out);

#endif
