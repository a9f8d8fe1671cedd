/*
 * test_e1000.c - the e1000 model driven the way the Linux e1000 driver drives
 * an 82540EM: reset through the I/O window, bit-banged EEPROM reads, PHY
 * access through MDIC, descriptor rings in host memory, interrupts.
 *
 * The host is the PCIe host stub; the far end of the Ethernet port is a small
 * peer component defined here that sends given frames at given times and
 * records what it receives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mortar/error.h"
#include "mortar/eth.h"
#include "mortar/pcie.h"
#include "mortar/runtime.h"
#include "sims/common/le.h"
#include "sims/e1000/e1000.h"
#include "sims/e1000/e1000_regs.h"
#include "sims/eth/pause.h"
#include "mortar/hoststub.h"

/* ---- the Ethernet peer ------------------------------------------------------ */

#define PEER_MAX 256

typedef struct peer_frame {
    uint8_t *data;
    uint32_t len;
    uint64_t at_ps;
} peer_frame;

typedef struct peer {
    mortar_component *self;
    peer_frame rx[PEER_MAX], tx[PEER_MAX];
    uint32_t nrx, ntx;
} peer;

static int peer_create(mortar_component *self, const mortar_params *p, void **state)
{
    (void)p;
    peer *e = calloc(1, sizeof *e);
    if (!e)
        return MORTAR_ENOMEM;
    e->self = self;
    mortar_port_declare(self, 0, MORTAR_PROTO_ETH, NULL, 0);
    *state = e;
    return MORTAR_OK;
}

static void peer_message(void *state, unsigned port, const mortar_msg *msg)
{
    peer *e = state;
    (void)port;
    if (msg->type != MORTAR_ETH_FRAME || e->nrx == PEER_MAX)
        return;
    peer_frame *f = &e->rx[e->nrx++];
    f->data = malloc(msg->size);
    memcpy(f->data, msg->payload, msg->size);
    f->len = msg->size;
    f->at_ps = mortar_now(e->self);
}

static void peer_timer(void *state, uint64_t cookie)
{
    peer *e = state;
    peer_frame *f = &e->tx[cookie];
    mortar_send(e->self, 0, MORTAR_ETH_FRAME, f->data, f->len,
                f->len + MORTAR_ETH_OVERHEAD, NULL);
}

static void peer_destroy(void *state)
{
    peer *e = state;
    for (uint32_t i = 0; i < e->nrx; i++)
        free(e->rx[i].data);
    for (uint32_t i = 0; i < e->ntx; i++)
        free(e->tx[i].data);
    free(e);
}

static const mortar_component_ops peer_ops = {
    .kind = "ethpeer",
    .summary = "test peer: sends scheduled frames, records received ones",
    .create = peer_create,
    .message = peer_message,
    .timer = peer_timer,
    .destroy = peer_destroy,
};

static void peer_send_at(peer *e, uint64_t at_ps, const void *frame, uint32_t len)
{
    assert_true(e->ntx < PEER_MAX);
    peer_frame *f = &e->tx[e->ntx];
    f->data = malloc(len);
    memcpy(f->data, frame, len);
    f->len = len;
    f->at_ps = at_ps;
    mortar_timer_set(e->self, at_ps, e->ntx++);
}

/* ---- the bench: host stub, e1000, peer --------------------------------------- */

#define MEM_BASE   0x10000000ull
#define TX_RING    (MEM_BASE + 0x1000)
#define RX_RING    (MEM_BASE + 0x3000)
#define TX_BUF     (MEM_BASE + 0x100000)
#define RX_BUF     (MEM_BASE + 0x1000000)
#define BUF_STRIDE 0x4000
#define OUTSIDE    0x1000ull /* below host memory: the stub refuses it */
#define TIMEOUT    MORTAR_MS(5)

#define IMS_ENABLE_MASK                                                                  \
    (E1000_ICR_RXT0 | E1000_ICR_TXDW | E1000_ICR_RXDMT0 | E1000_ICR_RXSEQ | E1000_ICR_LSC)

static const uint8_t NIC_MAC[6] = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
static const uint8_t PEER_MAC[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x99};

typedef struct bench {
    mortar_loop *loop;
    mortar_component *nic;
    mortar_hoststub *h;
    peer *peer;
    uint32_t ntx, nrx, tx_next, rx_next, rx_tail;
    uint32_t rx_bufsize;
} bench;

static bench *bench_open(const char *nic_params)
{
    bench *b = calloc(1, sizeof *b);
    mortar_component *host, *pc;
    char err[256];
    mortar_params *np =
        mortar_params_parse(nic_params ? nic_params : "{}", "nic", err, sizeof err);
    assert_non_null(np);
    assert_int_equal(mortar_loop_create(&b->loop), 0);
    assert_int_equal(mortar_loop_add(b->loop, &mortar_hoststub_ops, "host", NULL, &host),
                     0);
    assert_int_equal(mortar_loop_add(b->loop, &mortar_e1000_ops, "nic", np, &b->nic), 0);
    assert_int_equal(mortar_loop_add(b->loop, &peer_ops, "peer", NULL, &pc), 0);
    mortar_params_free(np);
    mortar_link_params lp;
    mortar_link_params_init(&lp);
    lp.protocol = MORTAR_PROTO_PCIE;
    lp.slot_size = MORTAR_PCIE_SLOT_SIZE;
    lp.latency_ps = MORTAR_NS(500);
    assert_int_equal(mortar_loop_connect(b->loop, host, 0, b->nic, E1000_PORT_PCIE, &lp),
                     0);
    lp.protocol = MORTAR_PROTO_ETH;
    lp.slot_size = MORTAR_ETH_SLOT_SIZE;
    lp.latency_ps = MORTAR_US(1);
    lp.bandwidth_bps = 1000000000ull;
    assert_int_equal(mortar_loop_connect(b->loop, b->nic, E1000_PORT_ETH, pc, 0, &lp), 0);
    b->h = mortar_hoststub_get(host, b->loop);
    b->peer = mortar_component_state(pc);
    b->ntx = b->nrx = 8;
    return b;
}

static void bench_close(bench *b)
{
    assert_false(mortar_hoststub_failed(b->h));
    mortar_loop_destroy(b->loop);
    free(b);
}

static e1000_counters counters(bench *b)
{
    e1000_counters c;
    e1000_get_counters(b->nic, &c);
    return c;
}

static uint32_t rd(bench *b, uint32_t off)
{
    return (uint32_t)mortar_hoststub_mmio_read(b->h, 0, off, 4);
}

static void wr(bench *b, uint32_t off, uint32_t v)
{
    mortar_hoststub_mmio_write(b->h, 0, off, 4, v);
}

/* The 82540's reset goes through the I/O window (E1000_WRITE_REG_IO). */
static void io_wr(bench *b, uint32_t reg, uint32_t v)
{
    mortar_hoststub_mmio_write(b->h, 1, E1000_IOADDR, 4, reg);
    mortar_hoststub_mmio_write(b->h, 1, E1000_IODATA, 4, v);
}

static uint8_t *mem(bench *b, uint64_t addr, uint64_t size)
{
    uint8_t *p = mortar_hoststub_mem(b->h, addr, size);
    assert_non_null(p);
    return p;
}

static uint16_t get_be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void drain_interrupts(bench *b)
{
    while (mortar_hoststub_wait_interrupt(b->h, 0, NULL, NULL))
        ;
}

/* ---- EEPROM, as e1000_read_eeprom bit-bangs the microwire interface ---------- */

static void ee_set(bench *b, uint32_t *eecd, uint32_t v)
{
    *eecd = v;
    wr(b, E1000_EECD, v);
}

static void ee_shift_out(bench *b, uint32_t *eecd, uint16_t data, int count)
{
    uint32_t mask = 1u << (count - 1);
    *eecd &= ~E1000_EECD_DO;
    do {
        *eecd &= ~E1000_EECD_DI;
        if (data & mask)
            *eecd |= E1000_EECD_DI;
        ee_set(b, eecd, *eecd);
        ee_set(b, eecd, *eecd | E1000_EECD_SK);
        ee_set(b, eecd, *eecd & ~E1000_EECD_SK);
        mask >>= 1;
    } while (mask);
    ee_set(b, eecd, *eecd & ~E1000_EECD_DI);
}

static uint16_t ee_shift_in(bench *b, uint32_t *eecd)
{
    uint16_t data = 0;
    *eecd = rd(b, E1000_EECD) & ~(E1000_EECD_DO | E1000_EECD_DI);
    for (int i = 0; i < 16; i++) {
        data = (uint16_t)(data << 1);
        ee_set(b, eecd, *eecd | E1000_EECD_SK);
        if (rd(b, E1000_EECD) & E1000_EECD_DO)
            data |= 1;
        ee_set(b, eecd, *eecd & ~E1000_EECD_SK);
    }
    return data;
}

static uint16_t ee_read(bench *b, uint16_t word)
{
    uint32_t eecd = rd(b, E1000_EECD) | E1000_EECD_REQ;
    ee_set(b, &eecd, eecd);
    int tries = 0;
    while (!(rd(b, E1000_EECD) & E1000_EECD_GNT) && tries++ < 10)
        ;
    assert_true(rd(b, E1000_EECD) & E1000_EECD_GNT);
    ee_set(b, &eecd, eecd & ~(E1000_EECD_DI | E1000_EECD_SK));
    ee_set(b, &eecd, eecd | E1000_EECD_CS);
    ee_shift_out(b, &eecd, EEPROM_READ_OPCODE_MW, EEPROM_OPCODE_BITS);
    ee_shift_out(b, &eecd, word, EEPROM_ADDR_BITS);
    uint16_t data = ee_shift_in(b, &eecd);
    /* release: drop chip select, one more clock, drop the request */
    ee_set(b, &eecd, eecd & ~(E1000_EECD_CS | E1000_EECD_DI));
    ee_set(b, &eecd, eecd | E1000_EECD_SK);
    ee_set(b, &eecd, eecd & ~E1000_EECD_SK);
    ee_set(b, &eecd, eecd & ~E1000_EECD_REQ);
    return data;
}

/* ---- PHY through MDIC -------------------------------------------------------- */

static uint16_t phy_rd(bench *b, uint32_t reg)
{
    wr(b, E1000_MDIC,
       reg << E1000_MDIC_REG_SHIFT | E1000_PHY_ADDR << E1000_MDIC_PHY_SHIFT |
           E1000_MDIC_OP_READ);
    uint32_t v = 0;
    for (int i = 0; i < 64 && !(v & E1000_MDIC_READY); i++)
        v = rd(b, E1000_MDIC);
    assert_true(v & E1000_MDIC_READY);
    assert_false(v & E1000_MDIC_ERROR);
    return (uint16_t)v;
}

static void phy_wr(bench *b, uint32_t reg, uint16_t val)
{
    wr(b, E1000_MDIC,
       val | reg << E1000_MDIC_REG_SHIFT | E1000_PHY_ADDR << E1000_MDIC_PHY_SHIFT |
           E1000_MDIC_OP_WRITE);
    assert_true(rd(b, E1000_MDIC) & E1000_MDIC_READY);
}

/* ---- bring-up, as e1000_reset_hw / e1000_init_hw / e1000_configure do -------- */

static void drv_reset_hw(bench *b)
{
    wr(b, E1000_IMC, 0xffffffff);
    wr(b, E1000_RCTL, 0);
    wr(b, E1000_TCTL, E1000_TCTL_PSP);
    rd(b, E1000_STATUS);
    mortar_hoststub_delay(b->h, MORTAR_MS(10));
    uint32_t ctrl = rd(b, E1000_CTRL);
    io_wr(b, E1000_CTRL, ctrl | E1000_CTRL_RST);
    mortar_hoststub_delay(b->h, MORTAR_MS(5));
    wr(b, E1000_MANC, rd(b, E1000_MANC) & ~0x00002000u);
    wr(b, E1000_IMC, 0xffffffff);
    rd(b, E1000_ICR);
}

static void drv_init_hw(bench *b)
{
    wr(b, E1000_VET, 0);
    for (uint32_t i = 0; i < E1000_VFTA_WORDS; i++)
        wr(b, E1000_VFTA + 4 * i, 0);
    for (uint32_t i = 1; i < E1000_RAR_COUNT; i++) {
        wr(b, E1000_RA + 8 * i, 0);
        wr(b, E1000_RA + 8 * i + 4, 0);
    }
    for (uint32_t i = 0; i < E1000_MTA_WORDS; i++)
        wr(b, E1000_MTA + 4 * i, 0);
    wr(b, E1000_CTRL, (rd(b, E1000_CTRL) | E1000_CTRL_SLU) & ~0x1800u);
    assert_int_equal(phy_rd(b, PHY_ID1), M88E1011_ID1);
    phy_wr(b, PHY_CTRL, phy_rd(b, PHY_CTRL) | MII_CR_RESET);
    phy_wr(b, PHY_CTRL, phy_rd(b, PHY_CTRL) | 0x1000 | MII_CR_RESTART_AUTO_NEG);
    wr(b, E1000_FCT, 0x8808);
    wr(b, E1000_FCAH, 0x0100);
    wr(b, E1000_FCAL, 0x00C28001);
    wr(b, E1000_TXDCTL, (rd(b, E1000_TXDCTL) & ~0x003F0000u) | 0x01010000);
    for (uint32_t off = E1000_STATS_FIRST; off <= 0x040FC; off += 4)
        rd(b, off);
    wr(b, E1000_VET, E1000_VET_DEFAULT);
}

static void drv_configure_tx(bench *b)
{
    wr(b, E1000_TDLEN, b->ntx * 16);
    wr(b, E1000_TDBAH, (uint32_t)(TX_RING >> 32));
    wr(b, E1000_TDBAL, (uint32_t)TX_RING);
    wr(b, E1000_TDT, 0);
    wr(b, E1000_TDH, 0);
    wr(b, E1000_TIPG, 8 | 8 << 10 | 6 << 20);
    wr(b, E1000_TIDV, 8);
    wr(b, E1000_TADV, 32);
    uint32_t tctl = rd(b, E1000_TCTL) & ~0x0FF0u;
    wr(b, E1000_TCTL, tctl | E1000_TCTL_PSP | 0x01000000 | 15 << 4 | 63 << 12);
    b->tx_next = 0;
}

/* e1000_alloc_rx_buffers: fill descriptors from next_to_use, then move RDT. */
static void drv_give_rx_buffers(bench *b, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        uint32_t idx = (b->rx_tail + i) % b->nrx;
        uint8_t *d = mem(b, RX_RING + 16ull * idx, 16);
        memset(d, 0, 16);
        le64_put(d, RX_BUF + (uint64_t)idx * BUF_STRIDE);
    }
    b->rx_tail = (b->rx_tail + count) % b->nrx;
    wr(b, E1000_RDT, b->rx_tail);
}

static void drv_configure_rx(bench *b, bool jumbo, bool give_buffers)
{
    uint32_t rctl =
        E1000_RCTL_BAM | (jumbo ? E1000_RCTL_LPE | E1000_RCTL_BSEX | 0x00030000 : 0);
    b->rx_bufsize = jumbo ? 4096 : 2048;
    wr(b, E1000_RCTL, rctl);
    wr(b, E1000_RDTR, 0);
    wr(b, E1000_RADV, 8);
    wr(b, E1000_RDLEN, b->nrx * 16);
    wr(b, E1000_RDBAH, (uint32_t)(RX_RING >> 32));
    wr(b, E1000_RDBAL, (uint32_t)RX_RING);
    wr(b, E1000_RDT, 0);
    wr(b, E1000_RDH, 0);
    wr(b, E1000_RXCSUM, rd(b, E1000_RXCSUM) | E1000_RXCSUM_TUOFL);
    wr(b, E1000_RCTL, rctl | E1000_RCTL_EN);
    b->rx_next = b->rx_tail = 0;
    if (give_buffers)
        drv_give_rx_buffers(b, b->nrx - 1);
}

/* e1000_open up to the watchdog enabling transmits on link up. */
static void drv_up_with(bench *b, bool jumbo, bool give_rx_buffers)
{
    mortar_hoststub_devctrl(b->h,
                            MORTAR_PCIE_CTRL_INTX_ENABLE | MORTAR_PCIE_CTRL_BUS_MASTER);
    wr(b, E1000_PBA, jumbo ? 40 : 48); /* e1000_reset: before the MAC reset */
    drv_reset_hw(b);
    assert_int_equal(rd(b, E1000_PBA), jumbo ? 40 : 48);
    drv_init_hw(b);
    drv_configure_tx(b);
    drv_configure_rx(b, jumbo, give_rx_buffers);
    wr(b, E1000_IMS, IMS_ENABLE_MASK);
    wr(b, E1000_ICS, E1000_ICR_LSC);
    uint8_t kind = 0;
    assert_true(mortar_hoststub_wait_interrupt(b->h, TIMEOUT, NULL, &kind));
    assert_int_equal(kind, MORTAR_PCIE_INT_LEGACY_HIGH);
    assert_true(rd(b, E1000_ICR) & E1000_ICR_LSC);
    phy_rd(b, PHY_STATUS);
    assert_true(phy_rd(b, PHY_STATUS) & MII_SR_LINK_STATUS);
    wr(b, E1000_TCTL, rd(b, E1000_TCTL) | E1000_TCTL_EN);
    drain_interrupts(b);
}

static void drv_up(bench *b)
{
    drv_up_with(b, false, true);
}

/* ---- transmit and receive the driver's way ------------------------------------- */

static uint64_t tx_desc_addr(uint32_t idx)
{
    return TX_RING + 16ull * idx;
}

static void put_tx_desc(bench *b, uint32_t idx, uint64_t addr, uint32_t lower,
                        uint32_t upper)
{
    uint8_t *d = mem(b, tx_desc_addr(idx), 16);
    le64_put(d, addr);
    le32_put(d + 8, lower);
    le32_put(d + 12, upper);
}

/* Copies `len` bytes into the buffer of descriptor `idx` and returns its address. */
static uint64_t tx_buffer(bench *b, uint32_t idx, const void *data, uint32_t len)
{
    uint64_t addr = TX_BUF + (uint64_t)idx * BUF_STRIDE;
    memcpy(mem(b, addr, len), data, len);
    return addr;
}

#define TXD_CMD(c) ((uint32_t)(c) << 24)
#define TXD_LAST                                                                         \
    TXD_CMD(E1000_TXD_CMD_EOP | E1000_TXD_CMD_IFCS | E1000_TXD_CMD_RS | E1000_TXD_CMD_IDE)

/* e1000_tx_map + e1000_tx_queue for a frame without offloads: legacy
 * descriptors of at most 4096 bytes. Returns the last descriptor's index. */
static uint32_t drv_queue_frame(bench *b, const uint8_t *frame, uint32_t len)
{
    uint32_t idx = b->tx_next, last = idx;
    for (uint32_t off = 0; off < len; off += 4096) {
        uint32_t n = len - off < 4096 ? len - off : 4096;
        bool end = off + n == len;
        uint64_t a = tx_buffer(b, idx, frame + off, n);
        put_tx_desc(b, idx, a, n | (end ? TXD_LAST : TXD_CMD(E1000_TXD_CMD_IFCS)), 0);
        last = idx;
        idx = (idx + 1) % b->ntx;
    }
    b->tx_next = idx;
    return last;
}

static bool wait_tx_done(bench *b, uint32_t last)
{
    return mortar_hoststub_wait_mem32(b->h, tx_desc_addr(last) + 12, E1000_TXD_STAT_DD,
                                      E1000_TXD_STAT_DD, TIMEOUT);
}

static void drv_xmit(bench *b, const uint8_t *frame, uint32_t len)
{
    uint32_t last = drv_queue_frame(b, frame, len);
    wr(b, E1000_TDT, b->tx_next);
    assert_true(wait_tx_done(b, last));
}

typedef struct rx_desc {
    uint16_t len, csum, special;
    uint8_t status, errors;
} rx_desc;

static rx_desc rx_desc_at(bench *b, uint32_t idx)
{
    const uint8_t *d = mem(b, RX_RING + 16ull * idx, 16);
    return (rx_desc){.len = le16_get(d + 8),
                     .csum = le16_get(d + 10),
                     .status = d[12],
                     .errors = d[13],
                     .special = le16_get(d + 14)};
}

static bool wait_rx(bench *b, uint32_t idx)
{
    return mortar_hoststub_wait_mem32(b->h, RX_RING + 16ull * idx + 12, E1000_RXD_STAT_DD,
                                      E1000_RXD_STAT_DD, TIMEOUT);
}

static const uint8_t *rx_data(bench *b, uint32_t idx, uint32_t len)
{
    return mem(b, RX_BUF + (uint64_t)idx * BUF_STRIDE, len);
}

/* e1000_clean_rx_irq for one descriptor: check DD, hand the buffer back. */
static rx_desc drv_rx_take(bench *b, uint8_t *out, uint32_t *out_len)
{
    uint32_t idx = b->rx_next;
    assert_true(wait_rx(b, idx));
    rx_desc d = rx_desc_at(b, idx);
    if (out) {
        memcpy(out + *out_len, rx_data(b, idx, d.len), d.len);
        *out_len += d.len;
    }
    mem(b, RX_RING + 16ull * idx + 12, 1)[0] = 0;
    drv_give_rx_buffers(b, 1);
    b->rx_next = (idx + 1) % b->nrx;
    return d;
}

/* ---- frames ------------------------------------------------------------------------ */

static uint32_t make_frame(uint8_t *f, const uint8_t dst[6], const uint8_t src[6],
                           uint32_t len, uint8_t seed)
{
    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    f[12] = 0x88;
    f[13] = 0xB5; /* local experimental EtherType */
    for (uint32_t i = 14; i < len; i++)
        f[i] = (uint8_t)(seed + i * 7);
    return len;
}

static uint32_t crc32_ref(const uint8_t *p, uint32_t len)
{
    uint32_t crc = 0xffffffffu;
    for (uint32_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static uint16_t fold_sum(const uint8_t *p, uint32_t len, uint32_t sum)
{
    for (uint32_t i = 0; i + 1 < len; i += 2)
        sum += get_be16(p + i);
    if (len & 1)
        sum += (uint32_t)p[len - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)sum;
}

/* An Ethernet/IPv4/TCP frame with `pay` payload bytes; checksums left zero. */
static uint32_t make_tcp(uint8_t *f, uint32_t pay, uint16_t ip_id, uint32_t seq,
                         uint8_t flags)
{
    memset(f, 0, 54);
    memcpy(f, NIC_MAC, 6);
    memcpy(f + 6, PEER_MAC, 6);
    f[12] = 0x08;
    f[14] = 0x45;
    f[16] = (uint8_t)((40 + pay) >> 8);
    f[17] = (uint8_t)(40 + pay);
    f[18] = (uint8_t)(ip_id >> 8);
    f[19] = (uint8_t)ip_id;
    f[22] = 64;
    f[23] = 6;
    const uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 2};
    memcpy(f + 26, src, 4);
    memcpy(f + 30, dst, 4);
    f[34] = 0x30; /* ports 12345 -> 80 */
    f[35] = 0x39;
    f[37] = 80;
    for (int i = 0; i < 4; i++)
        f[38 + i] = (uint8_t)(seq >> (24 - 8 * i));
    f[46] = 0x50;
    f[47] = flags;
    f[48] = 0xff;
    f[49] = 0xff;
    for (uint32_t i = 0; i < pay; i++)
        f[54 + i] = (uint8_t)(i * 13 + 1);
    return 54 + pay;
}

/* The TCP pseudo-header sum over addresses and protocol plus `l4len`. */
static uint32_t pseudo_sum(const uint8_t *ip, uint32_t l4len)
{
    return fold_sum(ip + 12, 8, 0) + 6 + l4len;
}

static bool ip_sum_ok(const uint8_t *f)
{
    return fold_sum(f + 14, 20, 0) == 0xffff;
}

static bool tcp_sum_ok(const uint8_t *f, uint32_t len)
{
    uint32_t l4 = len - 34;
    return fold_sum(f + 34, l4, pseudo_sum(f + 14, l4)) == 0xffff;
}

/* ---- identity, EEPROM, PHY ----------------------------------------------------- */

static void test_intro_identifies_an_82540em(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    const mortar_pcie_dev_intro *in = mortar_hoststub_dev_intro(b->h);
    assert_non_null(in);
    assert_int_equal(in->vendor_id, 0x8086);
    assert_int_equal(in->device_id, 0x100E);
    assert_int_equal(in->subsystem_vendor_id, 0x8086);
    assert_int_equal(in->subsystem_id, 0x001E);
    assert_int_equal(in->class_code, 0x02);
    assert_int_equal(in->subclass, 0x00);
    assert_int_equal(in->revision, 0x03);
    assert_int_equal(in->bars[0].size, 128 * 1024);
    assert_int_equal(in->bars[0].flags, 0);
    assert_int_equal(in->bars[1].size, 64);
    assert_int_equal(in->bars[1].flags, MORTAR_PCIE_BAR_IO);
    assert_int_equal(in->msi_vectors, 1);
    assert_int_equal(in->intx_pin, 1);
    bench_close(b);
}

static void test_eeprom_checksum_is_valid_through_microwire(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_reset_hw(b);
    uint32_t eecd = rd(b, E1000_EECD);
    assert_true(eecd & E1000_EECD_PRES);
    assert_false(eecd & E1000_EECD_SIZE); /* 64 words, 6 address bits */
    uint16_t sum = 0;
    for (uint16_t i = 0; i <= EEPROM_CHECKSUM_WORD; i++)
        sum = (uint16_t)(sum + ee_read(b, i));
    assert_int_equal(sum, EEPROM_SUM);
    assert_int_equal(ee_read(b, 0x0D), 0x100E); /* device id word */
    bench_close(b);
}

static void test_mac_address_comes_from_eeprom_and_fills_rar0(void **state)
{
    (void)state;
    bench *b = bench_open("{\"mac\": \"02:aa:bb:cc:dd:ee\"}");
    drv_reset_hw(b);
    uint8_t mac[6];
    for (uint16_t i = 0; i < 3; i++) {
        uint16_t w = ee_read(b, i);
        mac[2 * i] = (uint8_t)w;
        mac[2 * i + 1] = (uint8_t)(w >> 8);
    }
    const uint8_t want[6] = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
    assert_memory_equal(mac, want, 6);
    assert_int_equal(rd(b, E1000_RA), 0xccbbaa02u);
    assert_int_equal(rd(b, E1000_RA + 4), 0x8000eeddu);
    /* EERD reads the same words without bit-banging */
    wr(b, E1000_EERD, 1 << E1000_EERD_ADDR_SHIFT | E1000_EERD_START);
    uint32_t eerd = rd(b, E1000_EERD);
    assert_true(eerd & E1000_EERD_DONE);
    assert_int_equal(eerd >> 16, 0xccbb);
    bench_close(b);
}

static void test_link_is_up_with_an_m88_phy(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_reset_hw(b);
    assert_int_equal(phy_rd(b, PHY_ID1), 0x0141);
    assert_int_equal(phy_rd(b, PHY_ID2) & 0xFFF0, 0x0C20);
    phy_rd(b, PHY_STATUS);
    uint16_t st = phy_rd(b, PHY_STATUS);
    assert_true(st & MII_SR_LINK_STATUS);
    assert_true(st & MII_SR_AUTONEG_COMPLETE);
    assert_int_equal(phy_rd(b, M88_PHY_SPEC_STATUS) & 0xE400,
                     0xA400); /* 1000, full, link */
    uint32_t status = rd(b, E1000_STATUS);
    assert_true(status & E1000_STATUS_LU);
    assert_true(status & E1000_STATUS_FD);
    assert_int_equal(status & 0xC0, E1000_STATUS_SPEED_1000);
    /* a PHY reset completes at once; powering down takes the link down */
    phy_wr(b, PHY_CTRL, phy_rd(b, PHY_CTRL) | MII_CR_RESET);
    assert_false(phy_rd(b, PHY_CTRL) & MII_CR_RESET);
    phy_wr(b, PHY_CTRL, phy_rd(b, PHY_CTRL) | MII_CR_POWER_DOWN);
    assert_false(rd(b, E1000_STATUS) & E1000_STATUS_LU);
    assert_false(phy_rd(b, PHY_STATUS) & MII_SR_LINK_STATUS);
    assert_true(rd(b, E1000_ICR) & E1000_ICR_LSC);
    phy_wr(b, PHY_CTRL, phy_rd(b, PHY_CTRL) & ~MII_CR_POWER_DOWN);
    assert_true(rd(b, E1000_STATUS) & E1000_STATUS_LU);
    /* a PHY at another MDIO address answers with an error */
    wr(b, E1000_MDIC,
       PHY_ID1 << E1000_MDIC_REG_SHIFT | 2 << E1000_MDIC_PHY_SHIFT | E1000_MDIC_OP_READ);
    assert_true(rd(b, E1000_MDIC) & E1000_MDIC_ERROR);
    bench_close(b);
}

/* ---- transmit --------------------------------------------------------------------- */

static void test_frame_sent_by_driver_arrives_byte_for_byte(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    uint8_t f[100];
    make_frame(f, PEER_MAC, NIC_MAC, sizeof f, 1);
    uint64_t t0 = mortar_hoststub_now(b->h);
    drv_xmit(b, f, sizeof f);
    uint8_t kind = 0;
    assert_true(mortar_hoststub_wait_interrupt(b->h, TIMEOUT, NULL, &kind));
    assert_int_equal(kind, MORTAR_PCIE_INT_LEGACY_HIGH);
    /* IDE: TXDW waits TIDV (8 x 1.024 us) after the write-back */
    assert_true(mortar_hoststub_now(b->h) - t0 >= 8 * 1024000ull);
    assert_true(rd(b, E1000_ICR) & E1000_ICR_TXDW);
    mortar_hoststub_delay(b->h, MORTAR_US(10));
    assert_int_equal(b->peer->nrx, 1);
    assert_int_equal(b->peer->rx[0].len, sizeof f);
    assert_memory_equal(b->peer->rx[0].data, f, sizeof f);
    assert_int_equal(rd(b, E1000_TDH), 1);
    assert_int_equal(rd(b, E1000_GPTC), 1);
    assert_int_equal(rd(b, E1000_GOTCL), sizeof f + 4);
    assert_int_equal(rd(b, E1000_GOTCH), 0);
    assert_int_equal(rd(b, E1000_GPTC), 0); /* read to clear */
    e1000_counters c = counters(b);
    assert_int_equal(c.tx_frames, 1);
    assert_int_equal(c.tx_bytes, sizeof f);
    bench_close(b);
}

static void test_short_frame_is_padded_to_60_bytes(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    uint8_t f[42];
    make_frame(f, PEER_MAC, NIC_MAC, sizeof f, 2);
    drv_xmit(b, f, sizeof f);
    mortar_hoststub_delay(b->h, MORTAR_US(5));
    assert_int_equal(b->peer->nrx, 1);
    assert_int_equal(b->peer->rx[0].len, 60);
    assert_memory_equal(b->peer->rx[0].data, f, sizeof f);
    bench_close(b);
}

static void test_tx_ring_wraps_around(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    for (uint8_t i = 0; i < 20; i++) {
        uint8_t f[128];
        make_frame(f, PEER_MAC, NIC_MAC, sizeof f, i);
        uint32_t idx = b->tx_next;
        mem(b, tx_desc_addr(idx) + 12, 4)[0] = 0;
        drv_xmit(b, f, sizeof f);
    }
    mortar_hoststub_delay(b->h, MORTAR_US(10));
    assert_int_equal(b->peer->nrx, 20);
    for (uint8_t i = 0; i < 20; i++) {
        uint8_t f[128];
        make_frame(f, PEER_MAC, NIC_MAC, sizeof f, i);
        assert_memory_equal(b->peer->rx[i].data, f, sizeof f);
    }
    assert_int_equal(rd(b, E1000_TDH), 20 % 8);
    bench_close(b);
}

static void test_queued_frames_are_paced_at_line_rate(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    b->ntx = 32;
    drv_up(b);
    uint8_t f[1514];
    for (uint8_t i = 0; i < 20; i++) {
        make_frame(f, PEER_MAC, NIC_MAC, sizeof f, i);
        drv_queue_frame(b, f, sizeof f);
    }
    uint64_t t0 = mortar_hoststub_now(b->h);
    wr(b, E1000_TDT, b->tx_next);
    assert_true(wait_tx_done(b, 19));
    /* 20 x 1538 wire bytes at 1 Gb/s: the 16 KiB FIFO holds 10, the rest wait */
    uint64_t took = mortar_hoststub_now(b->h) - t0;
    assert_true(took >= 9ull * 1538 * 8000);
    mortar_hoststub_delay(b->h, MORTAR_US(300));
    assert_int_equal(b->peer->nrx, 20);
    for (uint32_t i = 1; i < 20; i++)
        assert_true(b->peer->rx[i].at_ps - b->peer->rx[i - 1].at_ps >= 1538ull * 8000);
    bench_close(b);
}

/* ---- receive ---------------------------------------------------------------------- */

static void test_arriving_frame_lands_in_rx_buffer_and_raises_rxt0(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    uint8_t f[200];
    make_frame(f, NIC_MAC, PEER_MAC, sizeof f, 3);
    peer_send_at(b->peer, mortar_hoststub_now(b->h) + MORTAR_US(1), f, sizeof f);
    uint8_t kind = 0;
    uint64_t before = mortar_hoststub_interrupts(b->h);
    assert_true(mortar_hoststub_wait_interrupt(b->h, TIMEOUT, NULL, &kind));
    assert_int_equal(kind, MORTAR_PCIE_INT_LEGACY_HIGH);
    assert_true(rd(b, E1000_ICR) & E1000_ICR_RXT0);
    /* reading ICR cleared it and deasserted INTx */
    assert_int_equal(mortar_hoststub_interrupts(b->h), before + 2);
    assert_int_equal(rd(b, E1000_ICR), 0);
    rx_desc d = rx_desc_at(b, 0);
    assert_int_equal(d.status & (E1000_RXD_STAT_DD | E1000_RXD_STAT_EOP),
                     E1000_RXD_STAT_DD | E1000_RXD_STAT_EOP);
    assert_int_equal(d.errors, 0);
    assert_int_equal(d.len, sizeof f + 4); /* the FCS stays (SECRC clear) */
    const uint8_t *buf = rx_data(b, 0, d.len);
    assert_memory_equal(buf, f, sizeof f);
    assert_int_equal(le32_get(buf + sizeof f), crc32_ref(f, sizeof f));
    assert_int_equal(rd(b, E1000_RDH), 1);
    assert_int_equal(rd(b, E1000_GPRC), 1);
    assert_int_equal(rd(b, E1000_GORCL), sizeof f + 4);
    assert_int_equal(rd(b, E1000_TPR), 1);
    assert_int_equal(counters(b).rx_frames, 1);
    bench_close(b);
}

static void test_rx_ring_wraps_around(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    uint64_t t = mortar_hoststub_now(b->h);
    for (uint8_t i = 0; i < 20; i++) {
        uint8_t f[300];
        make_frame(f, NIC_MAC, PEER_MAC, sizeof f, i);
        peer_send_at(b->peer, t + MORTAR_US(10) * (i + 1u), f, sizeof f);
    }
    for (uint8_t i = 0; i < 20; i++) {
        uint8_t got[2048], f[300];
        uint32_t len = 0;
        rx_desc d = drv_rx_take(b, got, &len);
        make_frame(f, NIC_MAC, PEER_MAC, sizeof f, i);
        assert_true(d.status & E1000_RXD_STAT_EOP);
        assert_int_equal(len, sizeof f + 4);
        assert_memory_equal(got, f, sizeof f);
    }
    assert_int_equal(rd(b, E1000_RDH), 20 % 8);
    assert_int_equal(counters(b).rx_missed, 0);
    bench_close(b);
}

static void test_rx_checksum_offload_reports_status_and_errors(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    wr(b, E1000_RXCSUM, E1000_RXCSUM_IPOFL | E1000_RXCSUM_TUOFL);
    uint8_t f[600];
    uint32_t len = make_tcp(f, 300, 7, 1, 0x10);
    uint16_t ipsum = (uint16_t)~fold_sum(f + 14, 20, 0);
    f[24] = (uint8_t)(ipsum >> 8);
    f[25] = (uint8_t)ipsum;
    uint16_t tsum = (uint16_t)~fold_sum(f + 34, len - 34, pseudo_sum(f + 14, len - 34));
    f[50] = (uint8_t)(tsum >> 8);
    f[51] = (uint8_t)tsum;
    uint64_t t = mortar_hoststub_now(b->h);
    peer_send_at(b->peer, t + MORTAR_US(1), f, len);
    f[60] ^= 0xff; /* corrupt the payload */
    peer_send_at(b->peer, t + MORTAR_US(20), f, len);
    rx_desc good = drv_rx_take(b, NULL, NULL);
    rx_desc bad = drv_rx_take(b, NULL, NULL);
    assert_int_equal(good.status & (E1000_RXD_STAT_IPCS | E1000_RXD_STAT_TCPCS),
                     E1000_RXD_STAT_IPCS | E1000_RXD_STAT_TCPCS);
    assert_int_equal(good.errors, 0);
    assert_true(bad.status & E1000_RXD_STAT_TCPCS);
    assert_int_equal(bad.errors, E1000_RXD_ERR_TCPE);
    /* without checksum offload the descriptor says "ignore checksum" */
    wr(b, E1000_RXCSUM, 0);
    peer_send_at(b->peer, mortar_hoststub_now(b->h) + MORTAR_US(1), f, len);
    assert_true(drv_rx_take(b, NULL, NULL).status & E1000_RXD_STAT_IXSM);
    bench_close(b);
}

static void test_receive_filters_follow_rctl_and_tables(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    const uint8_t other[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x42};
    const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    const uint8_t mcast[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01};
    uint8_t f[64];
    uint64_t t = mortar_hoststub_now(b->h);
    peer_send_at(b->peer, t + MORTAR_US(1), f, make_frame(f, other, PEER_MAC, 64, 1));
    peer_send_at(b->peer, t + MORTAR_US(2), f, make_frame(f, mcast, PEER_MAC, 64, 2));
    peer_send_at(b->peer, t + MORTAR_US(3), f, make_frame(f, bcast, PEER_MAC, 64, 3));
    uint8_t got[2048];
    uint32_t len = 0;
    drv_rx_take(b, got, &len);
    assert_memory_equal(got, bcast, 6); /* only the broadcast passed */
    assert_int_equal(counters(b).rx_filtered, 2);
    /* the multicast table (MO = 0: bits 47:36) and unicast promiscuous */
    uint32_t hash = (mcast[4] >> 4 | (uint32_t)mcast[5] << 4) & 0xFFF;
    wr(b, E1000_MTA + 4 * (hash >> 5), 1u << (hash & 31));
    wr(b, E1000_RCTL, rd(b, E1000_RCTL) | E1000_RCTL_UPE);
    t = mortar_hoststub_now(b->h);
    peer_send_at(b->peer, t + MORTAR_US(1), f, make_frame(f, mcast, PEER_MAC, 64, 4));
    peer_send_at(b->peer, t + MORTAR_US(2), f, make_frame(f, other, PEER_MAC, 64, 5));
    len = 0;
    drv_rx_take(b, got, &len);
    drv_rx_take(b, got, &len);
    assert_memory_equal(got, mcast, 6);
    assert_memory_equal(got + 68, other, 6);
    assert_int_equal(rd(b, E1000_MPRC), 1);
    assert_int_equal(rd(b, E1000_BPRC), 1);
    bench_close(b);
}

static void test_vlan_tags_are_inserted_stripped_and_filtered(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    wr(b, E1000_CTRL, rd(b, E1000_CTRL) | E1000_CTRL_VME);
    /* transmit: VLE with the tag in the special field */
    uint8_t f[100];
    make_frame(f, PEER_MAC, NIC_MAC, sizeof f, 9);
    uint32_t idx = b->tx_next;
    put_tx_desc(b, idx, tx_buffer(b, idx, f, sizeof f),
                (uint32_t)sizeof f | TXD_LAST | TXD_CMD(E1000_TXD_CMD_VLE),
                0x0064u << 16);
    b->tx_next = (idx + 1) % b->ntx;
    wr(b, E1000_TDT, b->tx_next);
    assert_true(wait_tx_done(b, idx));
    mortar_hoststub_delay(b->h, MORTAR_US(5));
    assert_int_equal(b->peer->nrx, 1);
    const uint8_t *out = b->peer->rx[0].data;
    assert_int_equal(b->peer->rx[0].len, sizeof f + 4);
    assert_int_equal(get_be16(out + 12), 0x8100);
    assert_int_equal(get_be16(out + 14), 0x0064);
    assert_memory_equal(out + 16, f + 12, sizeof f - 12);
    /* receive: the tag is stripped into the descriptor */
    uint8_t tagged[104];
    memcpy(tagged, out, sizeof tagged);
    memcpy(tagged, NIC_MAC, 6);
    peer_send_at(b->peer, mortar_hoststub_now(b->h) + MORTAR_US(1), tagged,
                 sizeof tagged);
    uint8_t got[2048];
    uint32_t len = 0;
    rx_desc d = drv_rx_take(b, got, &len);
    assert_true(d.status & E1000_RXD_STAT_VP);
    assert_int_equal(d.special, 0x0064);
    assert_int_equal(len, sizeof f + 4);
    assert_int_equal(get_be16(got + 12), 0x88B5);
    /* with VFE, VLAN 100 must be in the filter table */
    wr(b, E1000_RCTL, rd(b, E1000_RCTL) | E1000_RCTL_VFE);
    peer_send_at(b->peer, mortar_hoststub_now(b->h) + MORTAR_US(1), tagged,
                 sizeof tagged);
    mortar_hoststub_delay(b->h, MORTAR_US(20));
    assert_int_equal(counters(b).rx_filtered, 1);
    wr(b, E1000_VFTA + 4 * (100 >> 5), 1u << (100 & 31));
    peer_send_at(b->peer, mortar_hoststub_now(b->h) + MORTAR_US(1), tagged,
                 sizeof tagged);
    assert_true(drv_rx_take(b, NULL, NULL).status & E1000_RXD_STAT_VP);
    bench_close(b);
}

/* ---- jumbo frames ------------------------------------------------------------------ */

static void test_jumbo_frame_travels_both_ways(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up_with(b, true, true);
    static uint8_t f[9014], got[16384];
    make_frame(f, NIC_MAC, PEER_MAC, sizeof f, 5);
    peer_send_at(b->peer, mortar_hoststub_now(b->h) + MORTAR_US(1), f, sizeof f);
    /* 9018 bytes with FCS in 4 KiB buffers: three descriptors, EOP on the last */
    uint32_t len = 0;
    rx_desc d0 = drv_rx_take(b, got, &len);
    rx_desc d1 = drv_rx_take(b, got, &len);
    rx_desc d2 = drv_rx_take(b, got, &len);
    assert_int_equal(d0.len, 4096);
    assert_int_equal(d1.len, 4096);
    assert_int_equal(d2.len, 9018 - 8192);
    assert_false(d0.status & E1000_RXD_STAT_EOP);
    assert_false(d1.status & E1000_RXD_STAT_EOP);
    assert_true(d2.status & E1000_RXD_STAT_EOP);
    assert_int_equal(len, sizeof f + 4);
    assert_memory_equal(got, f, sizeof f);
    /* and out again, in three 4 KiB data buffers */
    make_frame(f, PEER_MAC, NIC_MAC, sizeof f, 6);
    drv_xmit(b, f, sizeof f);
    mortar_hoststub_delay(b->h, MORTAR_US(100));
    assert_int_equal(b->peer->nrx, 1);
    assert_int_equal(b->peer->rx[0].len, sizeof f);
    assert_memory_equal(b->peer->rx[0].data, f, sizeof f);
    bench_close(b);
}

static void test_long_frame_without_lpe_is_dropped(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    static uint8_t f[2000];
    make_frame(f, NIC_MAC, PEER_MAC, sizeof f, 5);
    peer_send_at(b->peer, mortar_hoststub_now(b->h) + MORTAR_US(1), f, sizeof f);
    mortar_hoststub_delay(b->h, MORTAR_US(50));
    assert_int_equal(rd(b, E1000_ROC), 1);
    assert_int_equal(counters(b).rx_frames, 0);
    bench_close(b);
}

/* ---- offloads -----------------------------------------------------------------------
 */

#define DXT(cmd) (TXD_CMD((cmd) | E1000_TXD_CMD_DEXT))

static void put_context(bench *b, uint32_t idx, uint8_t ipcss, uint8_t ipcso,
                        uint16_t ipcse, uint8_t tucss, uint8_t tucso, uint32_t paylen,
                        uint8_t tucmd, uint8_t hdrlen, uint16_t mss)
{
    uint64_t lo = (uint64_t)ipcss | (uint64_t)ipcso << 8 | (uint64_t)ipcse << 16 |
                  (uint64_t)tucss << 32 | (uint64_t)tucso << 40;
    put_tx_desc(b, idx, lo, paylen | DXT(tucmd),
                (uint32_t)hdrlen << 8 | (uint32_t)mss << 16);
}

static void test_tso_turns_one_send_into_valid_segments(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    static uint8_t pkt[54 + 4000];
    uint32_t len = make_tcp(pkt, 4000, 0x1234, 1000, 0x19); /* ACK|PSH|FIN */
    memcpy(pkt, PEER_MAC, 6);
    memcpy(pkt + 6, NIC_MAC, 6);
    /* as e1000_tso prepares it: no IP length or checksum, pseudo sum without length */
    pkt[16] = pkt[17] = 0;
    uint16_t ph = fold_sum(pkt + 26, 8, 6);
    pkt[50] = (uint8_t)(ph >> 8);
    pkt[51] = (uint8_t)ph;
    uint32_t i0 = b->tx_next;
    put_context(b, i0, 14, 24, 33, 34, 50, 4000,
                E1000_TUCMD_TSE | E1000_TUCMD_TCP | E1000_TUCMD_IP, 54, 1448);
    uint32_t popts = (E1000_TXD_POPTS_IXSM | E1000_TXD_POPTS_TXSM) << 8;
    uint32_t dtyp = E1000_TXD_DTYP_DATA << 20;
    put_tx_desc(b, i0 + 1, tx_buffer(b, i0 + 1, pkt, 1054),
                1054 | dtyp | DXT(E1000_TXD_CMD_TSE | E1000_TXD_CMD_IFCS), popts);
    put_tx_desc(b, i0 + 2, tx_buffer(b, i0 + 2, pkt + 1054, len - 1054),
                (len - 1054) | dtyp | TXD_LAST | DXT(E1000_TXD_CMD_TSE), popts);
    b->tx_next = i0 + 3;
    wr(b, E1000_TDT, b->tx_next);
    assert_true(wait_tx_done(b, i0 + 2));
    mortar_hoststub_delay(b->h, MORTAR_US(50));
    assert_int_equal(b->peer->nrx, 3);
    uint32_t sent = 0;
    for (uint32_t k = 0; k < 3; k++) {
        const uint8_t *s = b->peer->rx[k].data;
        uint32_t slen = b->peer->rx[k].len, pay = k < 2 ? 1448 : 4000 - 2 * 1448;
        assert_int_equal(slen, 54 + pay);
        assert_int_equal(get_be16(s + 16), 40 + pay);   /* IP total length */
        assert_int_equal(get_be16(s + 18), 0x1234 + k); /* IP id */
        assert_true(ip_sum_ok(s));
        assert_int_equal(get_be32(s + 38), 1000 + sent); /* sequence number */
        assert_int_equal(s[47], k < 2 ? 0x10 : 0x19);    /* PSH/FIN only last */
        assert_true(tcp_sum_ok(s, slen));
        assert_memory_equal(s + 54, pkt + 54 + sent, pay);
        sent += pay;
    }
    e1000_counters c = counters(b);
    assert_int_equal(c.tso_segments, 3);
    assert_int_equal(c.tx_frames, 3);
    assert_int_equal(rd(b, E1000_TSCTC), 1);
    bench_close(b);
}

static void test_checksum_offload_fills_tcp_checksum(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    uint8_t pkt[54 + 500];
    uint32_t len = make_tcp(pkt, 500, 1, 77, 0x18);
    memcpy(pkt, PEER_MAC, 6);
    memcpy(pkt + 6, NIC_MAC, 6);
    uint16_t ipsum = (uint16_t)~fold_sum(pkt + 14, 20, 0);
    pkt[24] = (uint8_t)(ipsum >> 8);
    pkt[25] = (uint8_t)ipsum;
    /* CHECKSUM_PARTIAL: the stack leaves the pseudo-header sum in the field */
    uint16_t ph = fold_sum(pkt + 26, 8, 6 + (len - 34));
    pkt[50] = (uint8_t)(ph >> 8);
    pkt[51] = (uint8_t)ph;
    uint32_t i0 = b->tx_next;
    put_context(b, i0, 0, 0, 0, 34, 50, 0, E1000_TUCMD_TCP, 0, 0);
    put_tx_desc(b, i0 + 1, tx_buffer(b, i0 + 1, pkt, len),
                len | E1000_TXD_DTYP_DATA << 20 | TXD_LAST | DXT(0),
                E1000_TXD_POPTS_TXSM << 8);
    b->tx_next = i0 + 2;
    wr(b, E1000_TDT, b->tx_next);
    assert_true(wait_tx_done(b, i0 + 1));
    mortar_hoststub_delay(b->h, MORTAR_US(10));
    assert_int_equal(b->peer->nrx, 1);
    assert_true(tcp_sum_ok(b->peer->rx[0].data, len));
    assert_true(ip_sum_ok(b->peer->rx[0].data));
    assert_int_equal(counters(b).csum_offloads, 1);
    bench_close(b);
}

/* ---- interrupts -----------------------------------------------------------------------
 */

static void test_itr_keeps_interrupts_apart(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    wr(b, E1000_ITR, 1000); /* 256 us */
    uint8_t f[64];
    make_frame(f, NIC_MAC, PEER_MAC, sizeof f, 1);
    uint64_t t = mortar_hoststub_now(b->h);
    peer_send_at(b->peer, t + MORTAR_US(300), f, sizeof f);
    peer_send_at(b->peer, t + MORTAR_US(310), f, sizeof f);
    assert_true(mortar_hoststub_wait_interrupt(b->h, TIMEOUT, NULL, NULL));
    uint64_t first = mortar_hoststub_now(b->h);
    assert_true(rd(b, E1000_ICR) & E1000_ICR_RXT0);
    assert_true(mortar_hoststub_wait_interrupt(b->h, TIMEOUT, NULL, NULL));
    uint64_t second = mortar_hoststub_now(b->h);
    assert_true(rd(b, E1000_ICR) & E1000_ICR_RXT0);
    assert_true(second - first >= MORTAR_US(256) - MORTAR_US(2));
    /* masked causes do not interrupt; unmasking delivers them */
    wr(b, E1000_ITR, 0);
    wr(b, E1000_IMC, 0xffffffff);
    wr(b, E1000_ICS, E1000_ICR_RXT0);
    assert_false(mortar_hoststub_wait_interrupt(b->h, MORTAR_US(20), NULL, NULL));
    assert_int_equal(rd(b, E1000_IMS), 0);
    wr(b, E1000_IMS, E1000_ICR_RXT0);
    assert_true(mortar_hoststub_wait_interrupt(b->h, MORTAR_US(20), NULL, NULL));
    assert_true(counters(b).interrupts >= 3);
    bench_close(b);
}

static void test_msi_replaces_intx_when_enabled(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    mortar_hoststub_devctrl(b->h,
                            MORTAR_PCIE_CTRL_MSI_ENABLE | MORTAR_PCIE_CTRL_BUS_MASTER);
    wr(b, E1000_ICS, E1000_ICR_TXDW);
    uint8_t kind = 0xff;
    uint16_t vec = 0xffff;
    assert_true(mortar_hoststub_wait_interrupt(b->h, TIMEOUT, &vec, &kind));
    assert_int_equal(kind, MORTAR_PCIE_INT_MSI);
    assert_int_equal(vec, 0);
    bench_close(b);
}

static void test_reset_deasserts_interrupt_and_clears_registers(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    wr(b, E1000_ICS, E1000_ICR_TXDW);
    assert_true(mortar_hoststub_wait_interrupt(b->h, TIMEOUT, NULL, NULL));
    uint64_t n = mortar_hoststub_interrupts(b->h);
    wr(b, E1000_CTRL, rd(b, E1000_CTRL) | E1000_CTRL_RST);
    assert_int_equal(mortar_hoststub_interrupts(b->h), n); /* the write is posted */
    assert_int_equal(rd(b, E1000_IMS), 0);
    assert_int_equal(mortar_hoststub_interrupts(b->h), n + 1); /* INTx went low */
    assert_int_equal(rd(b, E1000_ICR), 0);
    assert_int_equal(rd(b, E1000_RCTL), 0);
    assert_int_equal(rd(b, E1000_TDLEN), 0);
    assert_false(rd(b, E1000_CTRL) & E1000_CTRL_RST);
    bench_close(b);
}

/* ---- the receive FIFO
 * ------------------------------------------------------------------ */

static void test_frames_wait_in_fifo_for_descriptors_and_overflow_is_missed(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    b->nrx = 64;
    drv_up_with(b, false, false); /* no buffers yet */
    static uint8_t f[1500];
    uint64_t t = mortar_hoststub_now(b->h);
    for (uint32_t i = 0; i < 40; i++)
        peer_send_at(b->peer, t + MORTAR_US(1) + MORTAR_US(13) * i, f,
                     make_frame(f, NIC_MAC, PEER_MAC, sizeof f, (uint8_t)i));
    mortar_hoststub_delay(b->h, MORTAR_US(600));
    /* the 48 KiB receive FIFO keeps 32 frames of 1504 bytes; the rest are missed */
    assert_int_equal(counters(b).rx_frames, 0);
    assert_int_equal(rd(b, E1000_RNBC), 1);
    assert_int_equal(rd(b, E1000_MPC), 40 - 48 * 1024 / 1504);
    assert_true(rd(b, E1000_ICR) & E1000_ICR_RXO);
    drv_give_rx_buffers(b, 63);
    for (uint32_t i = 0; i < 48 * 1024 / 1504; i++) {
        uint8_t got[2048], want[1500];
        uint32_t len = 0;
        drv_rx_take(b, got, &len);
        make_frame(want, NIC_MAC, PEER_MAC, sizeof want, (uint8_t)i);
        assert_int_equal(len, sizeof want + 4);
        assert_memory_equal(got, want, sizeof want);
    }
    /* with receiving disabled every frame is missed */
    wr(b, E1000_RCTL, rd(b, E1000_RCTL) & ~E1000_RCTL_EN);
    peer_send_at(b->peer, mortar_hoststub_now(b->h) + MORTAR_US(1), f, 200);
    mortar_hoststub_delay(b->h, MORTAR_US(10));
    assert_int_equal(rd(b, E1000_MPC), 1);
    assert_int_equal(counters(b).rx_missed, 40 - 48 * 1024 / 1504 + 1);
    bench_close(b);
}

/* ---- flow control (802.3x PAUSE) -------------------------------------------------- */

static void test_eeprom_and_link_partner_offer_pause_unless_turned_off(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    /* e1000_setup_link: word 0x0F PAUSE bits 11b -> full flow control;
     * e1000_config_fc_after_link_up: the partner's PAUSE bit keeps it full */
    assert_int_equal(ee_read(b, 0x0F) & 0x3000, 0x3000);
    assert_int_equal(phy_rd(b, PHY_LP_ABILITY) & 0x0C00, 0x0C00);
    bench_close(b);
    b = bench_open("{\"flow_control\": false}");
    drv_up(b);
    assert_int_equal(ee_read(b, 0x0F) & 0x3000, 0);
    assert_int_equal(phy_rd(b, PHY_LP_ABILITY) & 0x0C00, 0);
    bench_close(b);
}

/* Sends one frame through the ring and returns when the peer has it. */
static uint64_t xmit_and_wait_arrival(bench *b, uint64_t limit_ps)
{
    uint8_t f[100];
    uint32_t n = b->peer->nrx;
    drv_queue_frame(b, f, make_frame(f, PEER_MAC, NIC_MAC, sizeof f, 1));
    wr(b, E1000_TDT, b->tx_next);
    uint64_t until = mortar_hoststub_now(b->h) + limit_ps;
    while (b->peer->nrx == n && mortar_hoststub_now(b->h) < until)
        mortar_hoststub_delay(b->h, MORTAR_US(5));
    assert_true(b->peer->nrx > n);
    return b->peer->rx[n].at_ps;
}

static void peer_pause_at(bench *b, uint64_t at_ps, uint16_t quanta)
{
    uint8_t f[ETH_PAUSE_FRAME_BYTES];
    peer_send_at(b->peer, at_ps, f, eth_pause_build(f, PEER_MAC, quanta));
}

/* PAUSE of `quanta` sent by the peer at `at`: when its last bit arrives (1 us
 * link, 1 Gb/s, 60 + 24 bytes). */
static uint64_t pause_arrival(uint64_t at_ps)
{
    return at_ps + (ETH_PAUSE_FRAME_BYTES + MORTAR_ETH_OVERHEAD) * 8000ull + MORTAR_US(1);
}

static void test_received_pause_holds_transmit_when_rfce_is_set(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    wr(b, E1000_CTRL, rd(b, E1000_CTRL) | E1000_CTRL_RFCE);
    uint64_t t = mortar_hoststub_now(b->h) + MORTAR_US(1);
    peer_pause_at(b, t, 1000); /* 1000 x 512 bit times at 1 Gb/s: 512 us */
    mortar_hoststub_delay(b->h, MORTAR_US(10));
    uint64_t arrived = xmit_and_wait_arrival(b, MORTAR_MS(2));
    assert_true(arrived >= pause_arrival(t) + MORTAR_US(512));
    assert_true(arrived < pause_arrival(t) + MORTAR_US(512) + MORTAR_US(20));
    assert_int_equal(rd(b, E1000_XOFFRXC), 1);
    assert_int_equal(counters(b).pause_rx, 1);
    assert_int_equal(counters(b).rx_frames, 0); /* consumed, never handed to software */
    bench_close(b);
}

static void test_zero_quanta_pause_releases_transmit_at_once(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    wr(b, E1000_CTRL, rd(b, E1000_CTRL) | E1000_CTRL_RFCE);
    uint64_t t = mortar_hoststub_now(b->h) + MORTAR_US(1);
    peer_pause_at(b, t, 0xFFFF); /* 33.5 ms */
    peer_pause_at(b, t + MORTAR_US(100), 0);
    mortar_hoststub_delay(b->h, MORTAR_US(10));
    uint64_t arrived = xmit_and_wait_arrival(b, MORTAR_MS(2));
    assert_true(arrived >= pause_arrival(t + MORTAR_US(100)));
    assert_true(arrived < pause_arrival(t + MORTAR_US(100)) + MORTAR_US(20));
    assert_int_equal(rd(b, E1000_XOFFRXC), 1);
    assert_int_equal(rd(b, E1000_XONRXC), 1);
    bench_close(b);
}

static void test_pause_is_not_honoured_without_rfce(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    uint64_t t = mortar_hoststub_now(b->h) + MORTAR_US(1);
    peer_pause_at(b, t, 0xFFFF);
    mortar_hoststub_delay(b->h, MORTAR_US(10));
    uint64_t sent = mortar_hoststub_now(b->h);
    uint64_t arrived = xmit_and_wait_arrival(b, MORTAR_MS(2));
    assert_true(arrived < sent + MORTAR_US(20));
    assert_int_equal(rd(b, E1000_XOFFRXC), 0);
    assert_int_equal(counters(b).rx_filtered, 1); /* a multicast the filters refuse */
    bench_close(b);
}

/* The peer's received frame `i` as a PAUSE: its time, or -1. */
static int peer_pause_quanta(bench *b, uint32_t i)
{
    uint16_t q;
    return eth_pause_parse(b->peer->rx[i].data, b->peer->rx[i].len, &q) ? q : -1;
}

static void test_filling_rx_fifo_sends_xoff_then_xon_when_tfce_is_set(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    b->nrx = 64;
    drv_up_with(b, false, false); /* no buffers yet: frames stay in the FIFO */
    wr(b, E1000_CTRL, rd(b, E1000_CTRL) | E1000_CTRL_TFCE);
    wr(b, E1000_FCTTV, 0x100);
    wr(b, E1000_FCRTH, 8192);
    wr(b, E1000_FCRTL, 4096 | E1000_FCRTL_XONE);
    static uint8_t f[1500];
    uint64_t t = mortar_hoststub_now(b->h);
    for (uint32_t i = 0; i < 8; i++) /* 1504 bytes each with FCS: 6 pass 8192 */
        peer_send_at(b->peer, t + MORTAR_US(1) + MORTAR_US(13) * i, f,
                     make_frame(f, NIC_MAC, PEER_MAC, sizeof f, (uint8_t)i));
    mortar_hoststub_delay(b->h, MORTAR_US(200));
    /* frames 6, 7 and 8 arrive above the mark: each one is told to pause */
    assert_int_equal(b->peer->nrx, 3);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(b->peer->rx[i].len, ETH_PAUSE_FRAME_BYTES);
        assert_memory_equal(b->peer->rx[i].data, eth_pause_group_address, 6);
        assert_memory_equal(b->peer->rx[i].data + 6, NIC_MAC, 6);
        assert_int_equal(peer_pause_quanta(b, i), 0x100);
    }
    assert_int_equal(rd(b, E1000_XOFFTXC), 3);
    drv_give_rx_buffers(b, 63); /* the FIFO drains to the low mark: XON */
    mortar_hoststub_delay(b->h, MORTAR_US(200));
    assert_int_equal(b->peer->nrx, 4);
    assert_int_equal(peer_pause_quanta(b, 3), 0);
    assert_int_equal(rd(b, E1000_XONTXC), 1);
    assert_int_equal(counters(b).rx_missed, 0);
    assert_int_equal(counters(b).rx_frames, 8);
    bench_close(b);
}

static void test_port_rate_is_the_line_rate(void **state)
{
    (void)state;
    mortar_params *p = mortar_params_parse("{}", "nic", NULL, 0);
    assert_int_equal(mortar_e1000_ops.port_rate_bps(p, E1000_PORT_ETH), 1000000000ull);
    assert_int_equal(mortar_e1000_ops.port_rate_bps(p, E1000_PORT_PCIE), 0);
    mortar_params_free(p);
}

/* ---- malformed input ----------------------------------------------------------------
 */

static void test_malformed_mmio_is_counted_and_answered(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    assert_int_equal(mortar_hoststub_mmio_read(b->h, 0, 0x20000, 4), 0); /* past BAR0 */
    assert_int_equal(mortar_hoststub_mmio_read(b->h, 0, 0x5B00, 4),
                     0); /* not an 82540 register */
    assert_int_equal(mortar_hoststub_mmio_read(b->h, 0, E1000_STATUS, 2), 0);
    assert_int_equal(mortar_hoststub_mmio_read(b->h, 0, E1000_STATUS + 1, 4), 0);
    assert_int_equal(mortar_hoststub_mmio_read(b->h, 3, 0, 4), 0); /* no BAR 3 */
    assert_int_equal(mortar_hoststub_mmio_read(b->h, 0, E1000_CTRL, 8), 0);
    mortar_hoststub_mmio_write(b->h, 0, E1000_RCTL, 1, 0);
    mortar_hoststub_mmio_write(b->h, 0, 0x7FFFC, 4, 1);
    mortar_hoststub_mmio_write(b->h, 1, 0x20, 4, 1); /* I/O past IODATA */
    rd(b, E1000_STATUS);                      /* flush the posted writes */
    e1000_counters c = counters(b);
    assert_int_equal(c.unknown_reg_reads, 2);
    assert_int_equal(c.unknown_reg_writes, 2);
    assert_int_equal(c.bad_mmio, 5);
    assert_true(rd(b, E1000_STATUS) & E1000_STATUS_LU);
    assert_true(rd(b, E1000_RCTL) & E1000_RCTL_EN);
    bench_close(b);
}

static void test_stray_and_short_dma_completions_are_counted(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    void *nic = mortar_component_state(b->nic);
    uint8_t buf[sizeof(mortar_pcie_dma_done) + 16] = {0};
    mortar_pcie_dma_done *done = (mortar_pcie_dma_done *)buf;
    done->req_id = 0xdeadbeef;
    done->size = 16;
    mortar_msg m = {
        .type = MORTAR_PCIE_DMA_READ_DONE, .size = sizeof buf, .payload = buf};
    mortar_e1000_ops.message(nic, E1000_PORT_PCIE, &m);
    m.type = MORTAR_PCIE_DMA_WRITE_DONE;
    m.size = sizeof *done;
    done->size = 0;
    mortar_e1000_ops.message(nic, E1000_PORT_PCIE, &m);
    m.size = 4; /* shorter than a completion */
    mortar_e1000_ops.message(nic, E1000_PORT_PCIE, &m);
    m.type = 0x7f;
    mortar_e1000_ops.message(nic, E1000_PORT_PCIE, &m);
    e1000_counters c = counters(b);
    assert_int_equal(c.bad_completions, 2);
    assert_int_equal(c.bad_messages, 2);
    uint8_t f[80];
    make_frame(f, PEER_MAC, NIC_MAC, sizeof f, 1);
    drv_xmit(b, f, sizeof f);
    mortar_hoststub_delay(b->h, MORTAR_US(5));
    assert_int_equal(b->peer->nrx, 1);
    bench_close(b);
}

/* QEMU's mortar-pci echoes the written size in a write completion and sends
 * no data after it: a well-formed message, not a short one. */
static void test_write_completion_may_echo_its_size(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    void *nic = mortar_component_state(b->nic);
    mortar_pcie_dma_done done = {.req_id = 0xdeadbeef, .size = 4};
    mortar_msg m = {
        .type = MORTAR_PCIE_DMA_WRITE_DONE, .size = sizeof done, .payload = &done};
    mortar_e1000_ops.message(nic, E1000_PORT_PCIE, &m);
    e1000_counters c = counters(b);
    assert_int_equal(c.bad_messages, 0);
    assert_int_equal(c.bad_completions, 1); /* only the id is unknown */
    bench_close(b);
}

static void test_tails_beyond_the_ring_are_refused(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    uint32_t rdt = rd(b, E1000_RDT);
    wr(b, E1000_TDT, 1000);
    wr(b, E1000_RDT, 8);
    wr(b, E1000_TDH, 77);
    assert_int_equal(rd(b, E1000_TDT), 0); /* also flushes the posted writes */
    assert_int_equal(counters(b).bad_tail_writes, 3);
    assert_int_equal(rd(b, E1000_TDT), 0);
    assert_int_equal(rd(b, E1000_RDT), rdt);
    uint8_t f[80];
    make_frame(f, PEER_MAC, NIC_MAC, sizeof f, 1);
    drv_xmit(b, f, sizeof f);
    mortar_hoststub_delay(b->h, MORTAR_US(5));
    assert_int_equal(b->peer->nrx, 1);
    bench_close(b);
}

static void test_buffers_outside_host_memory_are_counted_and_rings_go_on(void **state)
{
    (void)state;
    bench *b = bench_open(NULL);
    drv_up(b);
    /* transmit: a descriptor whose buffer the host refuses */
    uint32_t idx = b->tx_next;
    put_tx_desc(b, idx, OUTSIDE, 100 | TXD_LAST, 0);
    b->tx_next = (idx + 1) % b->ntx;
    wr(b, E1000_TDT, b->tx_next);
    assert_true(wait_tx_done(b, idx)); /* still completed */
    uint8_t f[90];
    make_frame(f, PEER_MAC, NIC_MAC, sizeof f, 4);
    drv_xmit(b, f, sizeof f);
    mortar_hoststub_delay(b->h, MORTAR_US(5));
    assert_int_equal(b->peer->nrx, 1);
    assert_memory_equal(b->peer->rx[0].data, f, sizeof f);
    e1000_counters c = counters(b);
    assert_int_equal(c.tx_dropped, 1);
    assert_int_equal(c.bad_completions, 1);
    /* receive: the first buffer is outside memory, the next frame lands normally */
    le64_put(mem(b, RX_RING, 8), OUTSIDE);
    wr(b, E1000_RDH, 0);
    wr(b, E1000_RDT, 7);
    uint64_t t = mortar_hoststub_now(b->h);
    make_frame(f, NIC_MAC, PEER_MAC, sizeof f, 5);
    peer_send_at(b->peer, t + MORTAR_US(1), f, sizeof f);
    peer_send_at(b->peer, t + MORTAR_US(10), f, sizeof f);
    assert_true(wait_rx(b, 1));
    assert_true(rx_desc_at(b, 0).status & E1000_RXD_STAT_DD);
    assert_memory_equal(rx_data(b, 1, sizeof f), f, sizeof f);
    assert_int_equal(counters(b).bad_completions, 2);
    /* a ring base outside memory stops the ring until the tail is written again */
    wr(b, E1000_TDBAL, (uint32_t)OUTSIDE);
    wr(b, E1000_TDT, 1);
    mortar_hoststub_delay(b->h, MORTAR_US(5));
    assert_int_equal(counters(b).ring_errors, 1);
    assert_true(rd(b, E1000_STATUS) & E1000_STATUS_LU);
    bench_close(b);
}

/* ---- parameters ----------------------------------------------------------------------
 */

static void test_bad_parameters_are_rejected(void **state)
{
    (void)state;
    static const char *const bad[] = {"{\"bogus\": 1}", "{\"mac\": \"xx\"}",
                                      "{\"dma_outstanding\": 0}",
                                      "{\"dma_outstanding\": 1000}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mortar_loop *loop;
        char err[128];
        mortar_params *p = mortar_params_parse(bad[i], "nic", err, sizeof err);
        assert_non_null(p);
        assert_int_equal(mortar_loop_create(&loop), 0);
        assert_int_not_equal(mortar_loop_add(loop, &mortar_e1000_ops, "nic", p, NULL), 0);
        mortar_params_free(p);
        mortar_loop_destroy(loop);
    }
}

static void test_one_outstanding_dma_still_moves_a_jumbo_frame(void **state)
{
    (void)state;
    bench *b = bench_open("{\"dma_outstanding\": 1}");
    drv_up_with(b, true, true);
    static uint8_t f[9014];
    make_frame(f, PEER_MAC, NIC_MAC, sizeof f, 8);
    drv_xmit(b, f, sizeof f);
    mortar_hoststub_delay(b->h, MORTAR_US(100));
    assert_int_equal(b->peer->nrx, 1);
    assert_memory_equal(b->peer->rx[0].data, f, sizeof f);
    bench_close(b);
}

static void test_interrupt_follows_the_descriptor_write_back(void **state)
{
    (void)state;
    bench *b = bench_open("{\"dma_outstanding\": 1}");
    drv_up_with(b, true, true);
    wr(b, E1000_TIDV, 0); /* TXDW at once */
    static uint8_t f[9014];
    make_frame(f, NIC_MAC, PEER_MAC, sizeof f, 2);
    peer_send_at(b->peer, mortar_hoststub_now(b->h) + MORTAR_US(1), f, sizeof f);
    assert_true(mortar_hoststub_wait_interrupt(b->h, TIMEOUT, NULL, NULL));
    /* when the interrupt arrives the last descriptor is already written */
    assert_true(rx_desc_at(b, 2).status & E1000_RXD_STAT_EOP);
    assert_true(rd(b, E1000_ICR) & E1000_ICR_RXT0);
    make_frame(f, PEER_MAC, NIC_MAC, sizeof f, 3);
    uint32_t last = drv_queue_frame(b, f, sizeof f);
    wr(b, E1000_TDT, b->tx_next);
    assert_true(mortar_hoststub_wait_interrupt(b->h, TIMEOUT, NULL, NULL));
    assert_true(mem(b, tx_desc_addr(last) + 12, 4)[0] & E1000_TXD_STAT_DD);
    assert_true(rd(b, E1000_ICR) & E1000_ICR_TXDW);
    bench_close(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intro_identifies_an_82540em),
        cmocka_unit_test(test_eeprom_checksum_is_valid_through_microwire),
        cmocka_unit_test(test_mac_address_comes_from_eeprom_and_fills_rar0),
        cmocka_unit_test(test_link_is_up_with_an_m88_phy),
        cmocka_unit_test(test_frame_sent_by_driver_arrives_byte_for_byte),
        cmocka_unit_test(test_short_frame_is_padded_to_60_bytes),
        cmocka_unit_test(test_tx_ring_wraps_around),
        cmocka_unit_test(test_queued_frames_are_paced_at_line_rate),
        cmocka_unit_test(test_arriving_frame_lands_in_rx_buffer_and_raises_rxt0),
        cmocka_unit_test(test_rx_ring_wraps_around),
        cmocka_unit_test(test_rx_checksum_offload_reports_status_and_errors),
        cmocka_unit_test(test_receive_filters_follow_rctl_and_tables),
        cmocka_unit_test(test_vlan_tags_are_inserted_stripped_and_filtered),
        cmocka_unit_test(test_jumbo_frame_travels_both_ways),
        cmocka_unit_test(test_long_frame_without_lpe_is_dropped),
        cmocka_unit_test(test_tso_turns_one_send_into_valid_segments),
        cmocka_unit_test(test_checksum_offload_fills_tcp_checksum),
        cmocka_unit_test(test_itr_keeps_interrupts_apart),
        cmocka_unit_test(test_msi_replaces_intx_when_enabled),
        cmocka_unit_test(test_reset_deasserts_interrupt_and_clears_registers),
        cmocka_unit_test(test_frames_wait_in_fifo_for_descriptors_and_overflow_is_missed),
        cmocka_unit_test(test_eeprom_and_link_partner_offer_pause_unless_turned_off),
        cmocka_unit_test(test_received_pause_holds_transmit_when_rfce_is_set),
        cmocka_unit_test(test_zero_quanta_pause_releases_transmit_at_once),
        cmocka_unit_test(test_pause_is_not_honoured_without_rfce),
        cmocka_unit_test(test_filling_rx_fifo_sends_xoff_then_xon_when_tfce_is_set),
        cmocka_unit_test(test_port_rate_is_the_line_rate),
        cmocka_unit_test(test_malformed_mmio_is_counted_and_answered),
        cmocka_unit_test(test_stray_and_short_dma_completions_are_counted),
        cmocka_unit_test(test_write_completion_may_echo_its_size),
        cmocka_unit_test(test_tails_beyond_the_ring_are_refused),
        cmocka_unit_test(test_buffers_outside_host_memory_are_counted_and_rings_go_on),
        cmocka_unit_test(test_bad_parameters_are_rejected),
        cmocka_unit_test(test_one_outstanding_dma_still_moves_a_jumbo_frame),
        cmocka_unit_test(test_interrupt_follows_the_descriptor_write_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
