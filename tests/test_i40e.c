/*
 * test_i40e.c - the i40e (XL710) model driven the way the Linux i40e driver
 * drives it: NVM reads through GLNVM_SRCTL, admin commands on the ATQ, queue
 * contexts in HMC backing pages in host memory, descriptor rings, MSI-X.
 *
 * The host is the PCIe host stub; the far end of the Ethernet port is a
 * small peer component defined here that sends given frames at given times
 * and records what it receives (with the time each arrived). For the flow
 * control tests it can also send a burst the way a port that honours PAUSE
 * does: in order, at most at the link's rate, holding while paused.
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
#include "sims/eth/pause.h"
#include "mortar/hoststub.h"
#include "sims/i40e/i40e.h"
#include "sims/i40e/i40e_regs.h"

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
    /* a burst honouring PAUSE: tx[burst_next..ntx) */
    bool burst;
    uint32_t burst_next;
    uint64_t burst_gen, bps, wire_free_ps, paused_until_ps;
} peer;

#define PEER_BURST_TIMER (1ull << 40)

/* Sends the burst's frames whose time has come; sets a timer for the next. */
static void peer_burst_step(peer *e)
{
    uint64_t now = mortar_now(e->self);
    while (e->burst_next < e->ntx) {
        peer_frame *f = &e->tx[e->burst_next];
        uint64_t at = f->at_ps;
        if (at < e->wire_free_ps)
            at = e->wire_free_ps;
        if (at < e->paused_until_ps)
            at = e->paused_until_ps;
        if (at > now) {
            mortar_timer_set(e->self, at, PEER_BURST_TIMER | ++e->burst_gen);
            return;
        }
        mortar_send(e->self, 0, MORTAR_ETH_FRAME, f->data, f->len,
                    f->len + MORTAR_ETH_OVERHEAD, NULL);
        e->wire_free_ps =
            now + (f->len + MORTAR_ETH_OVERHEAD) * 8000000000000ull / e->bps;
        e->burst_next++;
    }
}

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
    uint16_t quanta;
    if (e->burst && eth_pause_parse(f->data, f->len, &quanta)) {
        e->paused_until_ps = f->at_ps + eth_pause_duration_ps(quanta, e->bps);
        e->burst_gen++; /* the timer set before is stale */
        peer_burst_step(e);
    }
}

static void peer_timer(void *state, uint64_t cookie)
{
    peer *e = state;
    if (cookie & PEER_BURST_TIMER) {
        if ((cookie & ~PEER_BURST_TIMER) == e->burst_gen)
            peer_burst_step(e);
        return;
    }
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

/* Queues `n` copies of `frame` as a burst starting at `at_ps`, sent at the
 * link's rate `bps` and held while the NIC's PAUSE says so. */
static void peer_burst(peer *e, uint64_t at_ps, uint64_t bps, const void *frame,
                       uint32_t len, uint32_t n)
{
    assert_true(e->ntx + n <= PEER_MAX);
    e->burst = true;
    e->bps = bps;
    e->burst_next = e->ntx;
    for (uint32_t i = 0; i < n; i++) {
        peer_frame *f = &e->tx[e->ntx++];
        f->data = malloc(len);
        memcpy(f->data, frame, len);
        f->len = len;
        f->at_ps = at_ps;
    }
    mortar_timer_set(e->self, at_ps, PEER_BURST_TIMER | ++e->burst_gen);
}

/* ---- the bench ---------------------------------------------------------------- */

#define MEM_BASE 0x10000000ull
#define ATQ_RING (MEM_BASE + 0x1000)
#define ARQ_RING (MEM_BASE + 0x2000)
#define AQ_BUF   (MEM_BASE + 0x4000)
#define ARQ_BUFS (MEM_BASE + 0x8000)
#define HMC_PAGE (MEM_BASE + 0x200000) /* a direct 2 MiB backing segment */
#define TX_RING  (MEM_BASE + 0x10000)
#define TX_HEAD  (MEM_BASE + 0x11000)
#define RX_RING  (MEM_BASE + 0x12000)
#define TX_BUF   (MEM_BASE + 0x100000)
#define RX_BUF   (MEM_BASE + 0x1000000)
#define OUTSIDE  0x1000ull /* below host memory: the stub refuses it */
#define AQ_LEN   16
#define RING_LEN 64
#define RX_DBUFF 2048
#define TIMEOUT  MORTAR_MS(5)

static const uint8_t NIC_MAC[6] = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
static const uint8_t PEER_MAC[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x99};

typedef struct bench {
    mortar_loop *loop;
    mortar_component *nic;
    mortar_hoststub *h;
    peer *peer;
    uint32_t atq_next;
    uint32_t tx_tail, rx_tail;
} bench;

static bench *bench_open(const char *nic_params, uint64_t eth_bps)
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
    assert_int_equal(mortar_loop_add(b->loop, &mortar_i40e_ops, "nic", np, &b->nic), 0);
    assert_int_equal(mortar_loop_add(b->loop, &peer_ops, "peer", NULL, &pc), 0);
    mortar_params_free(np);
    mortar_link_params lp;
    mortar_link_params_init(&lp);
    lp.protocol = MORTAR_PROTO_PCIE;
    lp.slot_size = MORTAR_PCIE_SLOT_SIZE;
    lp.latency_ps = MORTAR_NS(500);
    assert_int_equal(mortar_loop_connect(b->loop, host, 0, b->nic, I40E_PORT_PCIE, &lp),
                     0);
    lp.protocol = MORTAR_PROTO_ETH;
    lp.slot_size = MORTAR_ETH_SLOT_SIZE;
    lp.latency_ps = MORTAR_US(1);
    lp.bandwidth_bps = eth_bps;
    assert_int_equal(mortar_loop_connect(b->loop, b->nic, I40E_PORT_ETH, pc, 0, &lp), 0);
    b->h = mortar_hoststub_get(host, b->loop);
    b->peer = mortar_component_state(pc);
    return b;
}

static void bench_close(bench *b)
{
    assert_false(mortar_hoststub_failed(b->h));
    mortar_loop_destroy(b->loop);
    free(b);
}

static i40e_counters counters(bench *b)
{
    i40e_counters c;
    i40e_get_counters(b->nic, &c);
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

/* A read that follows posted writes on the link: they have landed. */
static void flush(bench *b)
{
    (void)rd(b, I40E_PFGEN_CTRL);
}

static uint8_t *mem(bench *b, uint64_t addr, uint64_t size)
{
    uint8_t *p = mortar_hoststub_mem(b->h, addr, size);
    assert_non_null(p);
    return p;
}

/* Sets `width` bits at `lsb` of a little-endian bit string. */
static void put_bits(uint8_t *p, uint32_t lsb, uint32_t width, uint64_t v)
{
    for (uint32_t i = 0; i < width; i++) {
        uint32_t bit = lsb + i;
        if (v >> i & 1)
            p[bit / 8] |= (uint8_t)(1u << (bit % 8));
        else
            p[bit / 8] &= (uint8_t) ~(1u << (bit % 8));
    }
}

static void drain_interrupts(bench *b)
{
    while (mortar_hoststub_wait_interrupt(b->h, 0, NULL, NULL))
        ;
}

/* ---- NVM, as i40e_read_nvm_word_srctl reads it ----------------------------------- */

static uint16_t nvm_read(bench *b, uint32_t word)
{
    assert_true(rd(b, I40E_GLNVM_SRCTL) & I40E_GLNVM_SRCTL_DONE);
    wr(b, I40E_GLNVM_SRCTL, word << I40E_GLNVM_SRCTL_ADDR_SHIFT | I40E_GLNVM_SRCTL_START);
    assert_true(rd(b, I40E_GLNVM_SRCTL) & I40E_GLNVM_SRCTL_DONE);
    return (uint16_t)(rd(b, I40E_GLNVM_SRDATA) >> I40E_GLNVM_SRDATA_SHIFT);
}

static void test_nvm_checksum_adds_up_and_holds_the_mac(void **state)
{
    (void)state;
    bench *b = bench_open("{\"mac\": \"52:54:00:12:34:56\"}", 40000000000ull);
    uint32_t gens = rd(b, I40E_GLNVM_GENS);
    uint32_t words = (1u << (gens >> I40E_GLNVM_GENS_SR_SIZE_SHIFT & 7)) * 512;
    assert_true(rd(b, I40E_GLNVM_FLA) & I40E_GLNVM_FLA_LOCKED);
    assert_int_equal(nvm_read(b, 0) & 0xC0, 0x40); /* a valid image */
    /* the driver's sum: every word but the VPD and PCIe alternate modules */
    uint16_t vpd = nvm_read(b, 0x2F), alt = nvm_read(b, 0x3E);
    uint16_t sum = 0;
    for (uint32_t i = 0; i < words; i++) {
        if ((i >= vpd && i < vpd + 512u) || (i >= alt && i < alt + 512u))
            continue;
        sum = (uint16_t)(sum + nvm_read(b, i));
    }
    assert_int_equal(sum, 0xBABA);
    assert_int_equal(nvm_read(b, 0x2D), 0x1583); /* EETRACK low word */
    bench_close(b);
}

/* ---- the admin queue ------------------------------------------------------------------
 */

static void aq_setup(bench *b)
{
    wr(b, I40E_PF_ATQH, 0);
    wr(b, I40E_PF_ATQT, 0);
    wr(b, I40E_PF_ATQBAL, (uint32_t)ATQ_RING);
    wr(b, I40E_PF_ATQBAH, (uint32_t)(ATQ_RING >> 32));
    wr(b, I40E_PF_ATQLEN, AQ_LEN | I40E_AQLEN_ENABLE);
    for (uint32_t i = 0; i < AQ_LEN; i++) {
        uint8_t *d = mem(b, ARQ_RING + 32 * i, 32);
        memset(d, 0, 32);
        le16_put(d, I40E_AQ_FLAG_BUF);
        le16_put(d + 4, 4096);
        le32_put(d + 24, (uint32_t)((ARQ_BUFS + 4096 * i) >> 32));
        le32_put(d + 28, (uint32_t)(ARQ_BUFS + 4096 * i));
    }
    wr(b, I40E_PF_ARQH, 0);
    wr(b, I40E_PF_ARQT, 0);
    wr(b, I40E_PF_ARQBAL, (uint32_t)ARQ_RING);
    wr(b, I40E_PF_ARQBAH, (uint32_t)(ARQ_RING >> 32));
    wr(b, I40E_PF_ARQLEN, AQ_LEN | I40E_AQLEN_ENABLE);
    wr(b, I40E_PF_ARQT, AQ_LEN - 1);
    b->atq_next = 0;
}

/* Sends one command (with a buffer of `buf_len` bytes at AQ_BUF when
 * non-zero, `rd` when it carries data for the firmware); waits for ATQH to
 * move past it, as i40e_asq_send_command does; returns the descriptor. */
static uint8_t *aq_send(bench *b, uint16_t opcode, const uint8_t params[16],
                        uint16_t buf_len, bool rd_buf)
{
    uint8_t *d = mem(b, ATQ_RING + 32 * b->atq_next, 32);
    memset(d, 0, 32);
    uint16_t flags = I40E_AQ_FLAG_SI;
    if (buf_len)
        flags |= I40E_AQ_FLAG_BUF | (rd_buf ? I40E_AQ_FLAG_RD : 0);
    le16_put(d, flags);
    le16_put(d + 2, opcode);
    le16_put(d + 4, buf_len);
    if (params)
        memcpy(d + 16, params, 16);
    if (buf_len) {
        le32_put(d + 24, (uint32_t)(AQ_BUF >> 32));
        le32_put(d + 28, (uint32_t)AQ_BUF);
    }
    b->atq_next = (b->atq_next + 1) % AQ_LEN;
    wr(b, I40E_PF_ATQT, b->atq_next);
    uint64_t end = mortar_hoststub_now(b->h) + TIMEOUT;
    while (rd(b, I40E_PF_ATQH) != b->atq_next)
        assert_true(mortar_hoststub_now(b->h) < end);
    assert_true(le16_get(d) & I40E_AQ_FLAG_DD);
    return d;
}

static void test_admin_queue_reports_versions_and_mac(void **state)
{
    (void)state;
    bench *b = bench_open("{\"mac\": \"52:54:00:12:34:56\"}", 40000000000ull);
    aq_setup(b);
    uint8_t *d = aq_send(b, 0x0001, NULL, 0, false);
    assert_int_equal(le16_get(d + 6), 0);
    assert_int_equal(le16_get(d + 16 + 12), 1); /* API major */
    assert_true(le16_get(d + 16 + 14) >= 4);    /* API minor: no "old NVM" warning */
    d = aq_send(b, 0x0107, NULL, 24, false);    /* MAC address read */
    assert_int_equal(le16_get(d + 6), 0);
    assert_true(le16_get(d + 16) & 0x10); /* LAN address valid */
    assert_memory_equal(mem(b, AQ_BUF, 6), NIC_MAC, 6);
    bench_close(b);
}

static void test_admin_queue_answers_unknown_opcode_with_enosys(void **state)
{
    (void)state;
    bench *b = bench_open(NULL, 40000000000ull);
    aq_setup(b);
    uint8_t *d = aq_send(b, 0x0F0F, NULL, 0, false);
    assert_true(le16_get(d) & I40E_AQ_FLAG_ERR);
    assert_int_equal(le16_get(d + 6), I40E_AQ_RC_ENOSYS);
    assert_int_equal(counters(b).aq_unsupported, 1);
    /* the queue goes on: the next command is answered */
    d = aq_send(b, 0x0001, NULL, 0, false);
    assert_int_equal(le16_get(d + 6), 0);
    bench_close(b);
}

static void test_port_ets_takes_only_traffic_class_0_alone(void **state)
{
    (void)state;
    bench *b = bench_open(NULL, 40000000000ull);
    aq_setup(b);
    uint8_t *ets = mem(b, AQ_BUF, 0x80);
    memset(ets, 0, 0x80);
    ets[4] = 0x01;  /* TC 0 valid */
    ets[24] = 100;  /* with the whole share */
    uint8_t *d = aq_send(b, 0x0413, NULL, 0x80, true); /* enable port ETS */
    assert_int_equal(le16_get(d + 6), 0);
    ets = mem(b, AQ_BUF, 0x80);
    ets[4] = 0x03; /* TC 0 and 1 */
    ets[24] = 50, ets[25] = 50;
    d = aq_send(b, 0x0414, NULL, 0x80, true); /* modify port ETS */
    assert_int_equal(le16_get(d + 6), I40E_AQ_RC_EINVAL);
    assert_int_equal(counters(b).aq_unsupported, 0);
    bench_close(b);
}

static void test_capabilities_too_large_for_the_buffer_ask_for_more(void **state)
{
    (void)state;
    bench *b = bench_open(NULL, 40000000000ull);
    aq_setup(b);
    uint8_t *d = aq_send(b, 0x000A, NULL, 32, false);
    assert_int_equal(le16_get(d + 6), I40E_AQ_RC_ENOMEM);
    uint16_t need = le16_get(d + 4);
    assert_true(need > 32);
    d = aq_send(b, 0x000A, NULL, need, false);
    assert_int_equal(le16_get(d + 6), 0);
    assert_true(le32_get(d + 16 + 4) * 32u <= need); /* count fits */
    bench_close(b);
}

static void test_link_comes_up_with_an_event_on_the_arq(void **state)
{
    (void)state;
    bench *b = bench_open(NULL, 40000000000ull);
    mortar_hoststub_devctrl(b->h,
                            MORTAR_PCIE_CTRL_MSIX_ENABLE | MORTAR_PCIE_CTRL_BUS_MASTER);
    aq_setup(b);
    wr(b, I40E_PFINT_ICR0_ENA, I40E_ICR0_ADMINQ);
    wr(b, I40E_PFINT_DYN_CTL0, I40E_DYN_INTENA | I40E_DYN_CLEARPBA | 3u << 3);
    uint8_t p[16] = {0};
    le16_put(p, 0x3); /* enable link status events */
    aq_send(b, 0x0607, p, 0, false);
    uint16_t vec = 0xFFFF;
    assert_true(mortar_hoststub_wait_interrupt(b->h, MORTAR_MS(1), &vec, NULL));
    assert_int_equal(vec, 0);
    assert_true(rd(b, I40E_PFINT_ICR0) & I40E_ICR0_ADMINQ);
    assert_int_equal(rd(b, I40E_PF_ARQH), 1);
    uint8_t *e = mem(b, ARQ_RING, 32);
    assert_int_equal(le16_get(e + 2), 0x0607);
    assert_true(e[16 + 4] & 0x01); /* link up */
    bench_close(b);
}

/* ---- HMC and queues, as i40e_configure_lan_hmc and i40e_configure_*_ring ---- */

#define HMC_RX_BASE_UNITS 16 /* LANRXBASE x 512 = after 64 TX contexts of 128 bytes */

static void hmc_setup(bench *b)
{
    wr(b, I40E_GLHMC_LANTXBASE(0), 0);
    wr(b, I40E_GLHMC_LANTXCNT(0), 64);
    wr(b, I40E_GLHMC_LANRXBASE(0), HMC_RX_BASE_UNITS);
    wr(b, I40E_GLHMC_LANRXCNT(0), 64);
    wr(b, I40E_PFHMC_SDDATAHIGH, (uint32_t)(HMC_PAGE >> 32));
    wr(b, I40E_PFHMC_SDDATALOW,
       (uint32_t)HMC_PAGE | 512u << 2 | I40E_SD_DIRECT | I40E_SD_VALID);
    wr(b, I40E_PFHMC_SDCMD, I40E_PFHMC_SDCMD_WR | 0);
}

static uint8_t *tx_ctx(bench *b, uint32_t q)
{
    return mem(b, HMC_PAGE + 128ull * q, 128);
}

static uint8_t *rx_ctx(bench *b, uint32_t q)
{
    return mem(b, HMC_PAGE + HMC_RX_BASE_UNITS * 512ull + 32ull * q, 32);
}

static void wait_reg(bench *b, uint32_t off, uint32_t mask, uint32_t value)
{
    uint64_t end = mortar_hoststub_now(b->h) + TIMEOUT;
    while ((rd(b, off) & mask) != value)
        assert_true(mortar_hoststub_now(b->h) < end);
}

/* The queue pair 0 with head write-back and MSI-X vector 1 for both. */
static void queues_setup(bench *b, uint64_t tx_ring, uint32_t len)
{
    mortar_hoststub_devctrl(b->h,
                            MORTAR_PCIE_CTRL_MSIX_ENABLE | MORTAR_PCIE_CTRL_BUS_MASTER);
    aq_setup(b);
    hmc_setup(b);
    uint8_t *c = tx_ctx(b, 0);
    memset(c, 0, 128);
    put_bits(c, 32, 57, tx_ring / 128);
    put_bits(c, 160, 1, 1); /* head write-back */
    put_bits(c, 161, 13, len);
    put_bits(c, 192, 64, TX_HEAD);
    c = rx_ctx(b, 0);
    memset(c, 0, 32);
    put_bits(c, 32, 57, RX_RING / 128);
    put_bits(c, 89, 13, RING_LEN);
    put_bits(c, 102, 7, RX_DBUFF / 128);
    put_bits(c, 116, 1, 1); /* 32-byte descriptors */
    put_bits(c, 117, 1, 1); /* strip the CRC */
    put_bits(c, 174, 14, 9728);
    wr(b, I40E_QINT_RQCTL(0), 1 | I40E_QINT_CAUSE_ENA);
    wr(b, I40E_QINT_TQCTL(0), 1 | I40E_QINT_CAUSE_ENA);
    wr(b, I40E_PFINT_DYN_CTLN(0), I40E_DYN_INTENA | 3u << I40E_DYN_ITR_INDX_SHIFT);
    for (uint32_t i = 0; i < RING_LEN - 1; i++) {
        uint8_t *d = mem(b, RX_RING + 32ull * i, 32);
        memset(d, 0, 32);
        le64_put(d, RX_BUF + (uint64_t)RX_DBUFF * i);
    }
    wr(b, I40E_QRX_TAIL(0), RING_LEN - 1);
    b->rx_tail = RING_LEN - 1;
    wr(b, I40E_QRX_ENA(0), I40E_QENA_REQ);
    wait_reg(b, I40E_QRX_ENA(0), I40E_QENA_STAT, I40E_QENA_STAT);
    wr(b, I40E_QTX_TAIL(0), 0);
    wr(b, I40E_QTX_ENA(0), I40E_QENA_REQ);
    wait_reg(b, I40E_QTX_ENA(0), I40E_QENA_STAT, I40E_QENA_STAT);
    b->tx_tail = 0;
}

static void link_up(bench *b)
{
    uint8_t p[16] = {0};
    le16_put(p, 0x3);
    aq_send(b, 0x0607, p, 0, false); /* link status, events on */
    mortar_hoststub_delay(b->h, MORTAR_US(200));
}

/* A frame from `src` to `dst` with an experimental ethertype (no L3). */
static uint32_t make_frame_to(uint8_t *f, uint32_t len, uint8_t fill, const uint8_t *dst,
                              const uint8_t *src)
{
    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    f[12] = 0x88; /* a local experimental ethertype: no L3 parsing */
    f[13] = 0xB5;
    for (uint32_t i = 14; i < len; i++)
        f[i] = (uint8_t)(fill + i);
    return len;
}

/* A frame the NIC sends to the peer. */
static uint32_t make_frame(uint8_t *f, uint32_t len, uint8_t fill)
{
    return make_frame_to(f, len, fill, PEER_MAC, NIC_MAC);
}

/* A frame the peer sends to the NIC. */
static uint32_t make_rx_frame(uint8_t *f, uint32_t len, uint8_t fill)
{
    return make_frame_to(f, len, fill, NIC_MAC, PEER_MAC);
}

/* One data descriptor (EOP|RS) for `len` bytes at `buf`. */
static void tx_post(bench *b, uint64_t ring, uint32_t len_ring, uint64_t buf,
                    uint32_t len, uint64_t extra_cmd)
{
    uint8_t *d = mem(b, ring + 16ull * b->tx_tail, 16);
    le64_put(d, buf);
    le64_put(d + 8, (uint64_t)(I40E_TXD_CMD_EOP | I40E_TXD_CMD_RS | extra_cmd) << 4 |
                        (uint64_t)len << I40E_TXD_BUF_SZ_SHIFT);
    b->tx_tail = (b->tx_tail + 1) % len_ring;
}

static void test_queue_context_is_read_from_host_memory(void **state)
{
    (void)state;
    bench *b = bench_open(NULL, 40000000000ull);
    queues_setup(b, TX_RING, RING_LEN);
    /* a context the HMC does not map: the queue never reports enabled */
    wr(b, I40E_GLHMC_LANTXCNT(0), 1);
    wr(b, I40E_QTX_ENA(1), I40E_QENA_REQ);
    mortar_hoststub_delay(b->h, MORTAR_US(50));
    assert_int_equal(rd(b, I40E_QTX_ENA(1)) & I40E_QENA_STAT, 0);
    assert_true(counters(b).ring_errors >= 1);
    /* queue 0's context (ring base, length, head write-back) works: a frame
     * goes out and the head is written back */
    link_up(b);
    uint8_t f[100];
    memcpy(mem(b, TX_BUF, 100), f, make_frame(f, 100, 1));
    tx_post(b, TX_RING, RING_LEN, TX_BUF, 100, 0);
    wr(b, I40E_QTX_TAIL(0), b->tx_tail);
    assert_true(mortar_hoststub_wait_mem32(b->h, TX_HEAD, 0xFFFFFFFF, 1, TIMEOUT));
    mortar_hoststub_delay(b->h, MORTAR_US(5));
    assert_int_equal(b->peer->nrx, 1);
    bench_close(b);
}

static void test_tx_frames_leave_at_line_rate(void **state)
{
    (void)state;
    bench *b = bench_open("{\"speed\": \"10Gbps\"}", 100000000000ull);
    queues_setup(b, TX_RING, RING_LEN);
    link_up(b);
    const uint32_t n = 8, len = 1514;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t f[1514];
        make_frame(f, len, (uint8_t)i);
        memcpy(mem(b, TX_BUF + 0x1000ull * i, len), f, len);
        tx_post(b, TX_RING, RING_LEN, TX_BUF + 0x1000ull * i, len, 0);
    }
    wr(b, I40E_QTX_TAIL(0), b->tx_tail);
    assert_true(mortar_hoststub_wait_mem32(b->h, TX_HEAD, 0xFFFFFFFF, n, TIMEOUT));
    mortar_hoststub_delay(b->h, MORTAR_US(20));
    assert_int_equal(b->peer->nrx, n);
    /* 10 Gbit/s: 800 ps a byte, each frame plus 24 bytes of overhead */
    uint64_t gap = (uint64_t)(len + 24) * 800;
    for (uint32_t i = 1; i < n; i++)
        assert_true(b->peer->rx[i].at_ps - b->peer->rx[i - 1].at_ps >= gap);
    uint64_t span = b->peer->rx[n - 1].at_ps - b->peer->rx[0].at_ps;
    assert_true(span <= (n - 1) * gap + MORTAR_NS(10)); /* and no slower once started */
    assert_int_equal(counters(b).tx_frames, n);
    bench_close(b);
}

/* Ones' complement sum of big-endian 16-bit words. */
static uint32_t sum16(const uint8_t *p, uint32_t len, uint32_t sum)
{
    for (uint32_t i = 0; i + 1 < len; i += 2)
        sum += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (len & 1)
        sum += (uint32_t)p[len - 1] << 8;
    return sum;
}

static uint16_t fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    return (uint16_t)sum;
}

static void test_tso_cuts_tcp_into_mss_segments_with_checksums(void **state)
{
    (void)state;
    bench *b = bench_open(NULL, 100000000000ull);
    queues_setup(b, TX_RING, RING_LEN);
    link_up(b);
    const uint32_t hdr = 14 + 20 + 20, pay = 2500, mss = 1000;
    uint8_t *p = mem(b, TX_BUF, hdr + pay);
    memset(p, 0, hdr);
    memcpy(p, PEER_MAC, 6);
    memcpy(p + 6, NIC_MAC, 6);
    p[12] = 0x08; /* IPv4, as the driver leaves it for TSO: length and checksum 0 */
    p[14] = 0x45;
    p[18] = 0x12, p[19] = 0x34; /* id */
    p[22] = 64, p[23] = 6;      /* ttl, TCP */
    uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 2};
    memcpy(p + 26, src, 4);
    memcpy(p + 30, dst, 4);
    uint8_t *t = p + 34;
    t[4] = 0, t[5] = 0, t[6] = 0x10, t[7] = 0; /* seq 0x1000 */
    t[12] = 5 << 4;
    t[13] = 0x18; /* ACK, PSH */
    /* the pseudo-header sum without the length, as i40e_tso leaves it */
    uint16_t ph = fold(sum16(src, 4, sum16(dst, 4, 6)));
    t[16] = (uint8_t)(ph >> 8), t[17] = (uint8_t)ph;
    for (uint32_t i = 0; i < pay; i++)
        p[hdr + i] = (uint8_t)(i * 7);
    /* context descriptor: TSO, payload length, MSS */
    uint8_t *d = mem(b, TX_RING, 16);
    le64_put(d, 0);
    le64_put(d + 8, I40E_TXD_DTYPE_CONTEXT | (uint64_t)I40E_TXD_CTX_CMD_TSO << 4 |
                        (uint64_t)pay << I40E_TXD_CTX_TSO_LEN_SHIFT |
                        (uint64_t)mss << I40E_TXD_CTX_MSS_SHIFT);
    b->tx_tail = 1;
    /* data: IPv4 with checksum, TCP, MACLEN 14/2, IPLEN 20/4, L4LEN 20/4 */
    uint64_t offsets = 7 | 5 << 7 | 5 << 14;
    tx_post(b, TX_RING, RING_LEN, TX_BUF, hdr + pay,
            (uint64_t)(I40E_TXD_CMD_IIPT_IPV4_CSUM | I40E_TXD_CMD_L4T_TCP) |
                offsets << (I40E_TXD_OFFSET_SHIFT - 4));
    wr(b, I40E_QTX_TAIL(0), b->tx_tail);
    assert_true(mortar_hoststub_wait_mem32(b->h, TX_HEAD, 0xFFFFFFFF, 2, TIMEOUT));
    mortar_hoststub_delay(b->h, MORTAR_US(10));
    assert_int_equal(b->peer->nrx, 3);
    for (uint32_t k = 0; k < 3; k++) {
        const uint8_t *f = b->peer->rx[k].data;
        uint32_t n = k < 2 ? mss : pay - 2 * mss;
        assert_int_equal(b->peer->rx[k].len, hdr + n);
        assert_int_equal(f[16] << 8 | f[17], 20 + 20 + n);    /* IPv4 total length */
        assert_int_equal(f[18] << 8 | f[19], 0x1234 + k);     /* id */
        assert_int_equal(fold(sum16(f + 14, 20, 0)), 0xFFFF); /* IP checksum */
        const uint8_t *tt = f + 34;
        uint32_t seq = (uint32_t)tt[4] << 24 | tt[5] << 16 | tt[6] << 8 | tt[7];
        assert_int_equal(seq, 0x1000 + k * mss);
        assert_int_equal(tt[13] & 0x08, k == 2 ? 0x08 : 0); /* PSH only on the last */
        uint32_t s = sum16(src, 4, sum16(dst, 4, 6 + 20 + n));
        assert_int_equal(fold(sum16(tt, 20 + n, s)), 0xFFFF); /* TCP checksum */
        assert_memory_equal(f + hdr, p + hdr + k * mss, n);
    }
    assert_int_equal(counters(b).tso_segments, 3);
    bench_close(b);
}

/* A UDP/IPv4 frame to the peer whose checksums the NIC is to insert: the
 * UDP field holds the pseudo-header sum, as the stack leaves it. */
static uint32_t make_udp_frame(uint8_t *p, uint32_t pay)
{
    memset(p, 0, 42);
    memcpy(p, PEER_MAC, 6);
    memcpy(p + 6, NIC_MAC, 6);
    p[12] = 0x08;
    p[14] = 0x45;
    p[16] = (uint8_t)((28 + pay) >> 8), p[17] = (uint8_t)(28 + pay);
    p[22] = 64, p[23] = 17;
    uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 2};
    memcpy(p + 26, src, 4);
    memcpy(p + 30, dst, 4);
    p[34] = 0x30, p[35] = 0x39, p[36] = 0x00, p[37] = 0x09;
    p[38] = (uint8_t)((8 + pay) >> 8), p[39] = (uint8_t)(8 + pay);
    uint16_t ph = fold(sum16(src, 4, sum16(dst, 4, 17 + 8 + pay)));
    p[40] = (uint8_t)(ph >> 8), p[41] = (uint8_t)ph;
    for (uint32_t i = 0; i < pay; i++)
        p[42 + i] = (uint8_t)(i + 1);
    return 42 + pay;
}

static bool udp_frame_sums_ok(const uint8_t *f, uint32_t len)
{
    uint8_t src[4], dst[4];
    memcpy(src, f + 26, 4);
    memcpy(dst, f + 30, 4);
    uint32_t s = sum16(src, 4, sum16(dst, 4, 17 + (len - 34)));
    return fold(sum16(f + 14, 20, 0)) == 0xFFFF &&
           fold(sum16(f + 34, len - 34, s)) == 0xFFFF;
}

static void test_tx_queue_restart_starts_at_the_context_head(void **state)
{
    (void)state;
    bench *b = bench_open(NULL, 40000000000ull);
    queues_setup(b, TX_RING, RING_LEN);
    link_up(b);
    uint32_t len = make_udp_frame(mem(b, TX_BUF, 142), 100);
    const uint64_t csum = (uint64_t)(I40E_TXD_CMD_IIPT_IPV4_CSUM | I40E_TXD_CMD_L4T_UDP) |
                          (uint64_t)(7 | 5 << 7 | 2 << 14) << (I40E_TXD_OFFSET_SHIFT - 4);
    for (uint32_t i = 0; i < 5; i++)
        tx_post(b, TX_RING, RING_LEN, TX_BUF, len, csum);
    wr(b, I40E_QTX_TAIL(0), b->tx_tail);
    assert_true(mortar_hoststub_wait_mem32(b->h, TX_HEAD, 0xFFFFFFFF, 5, TIMEOUT));
    /* the driver stops the queue, clears its ring, starts it again at 0
     * (as a change of MTU does) and posts one packet: it goes out as
     * posted, with its offloads */
    wr(b, I40E_QTX_ENA(0), 0);
    wait_reg(b, I40E_QTX_ENA(0), I40E_QENA_STAT, 0);
    memset(mem(b, TX_RING, 16 * RING_LEN), 0, 16 * RING_LEN);
    le32_put(mem(b, TX_HEAD, 4), 0);
    wr(b, I40E_QTX_ENA(0), I40E_QENA_REQ);
    wait_reg(b, I40E_QTX_ENA(0), I40E_QENA_STAT, I40E_QENA_STAT);
    mortar_hoststub_delay(b->h, MORTAR_US(20));
    b->tx_tail = 0;
    len = make_udp_frame(mem(b, TX_BUF, 142), 100);
    tx_post(b, TX_RING, RING_LEN, TX_BUF, len, csum);
    wr(b, I40E_QTX_TAIL(0), b->tx_tail);
    assert_true(mortar_hoststub_wait_mem32(b->h, TX_HEAD, 0xFFFFFFFF, 1, TIMEOUT));
    mortar_hoststub_delay(b->h, MORTAR_US(5));
    assert_int_equal(b->peer->nrx, 6);
    for (uint32_t i = 0; i < 6; i++)
        assert_true(udp_frame_sums_ok(b->peer->rx[i].data, b->peer->rx[i].len));
    bench_close(b);
}

static void test_rx_frame_lands_in_buffer_with_writeback(void **state)
{
    (void)state;
    bench *b = bench_open(NULL, 40000000000ull);
    queues_setup(b, TX_RING, RING_LEN);
    link_up(b);
    uint8_t f[3000];
    uint32_t len = make_rx_frame(f, 3000, 7); /* spans two 2 KiB buffers */
    peer_send_at(b->peer, mortar_hoststub_now(b->h) + MORTAR_US(1), f, len);
    uint16_t vec = 0;
    assert_true(mortar_hoststub_wait_interrupt(b->h, TIMEOUT, &vec, NULL));
    assert_int_equal(vec, 1);
    uint8_t *d0 = mem(b, RX_RING, 32), *d1 = mem(b, RX_RING + 32, 32);
    uint64_t q0 = le64_get(d0 + 8), q1 = le64_get(d1 + 8);
    assert_true(q0 & I40E_RXD_STATUS_DD);
    assert_false(q0 & I40E_RXD_STATUS_EOP);
    assert_int_equal(q0 >> I40E_RXD_LEN_PBUF_SHIFT & 0x3FFF, RX_DBUFF);
    assert_true(q1 & I40E_RXD_STATUS_DD);
    assert_true(q1 & I40E_RXD_STATUS_EOP);
    assert_int_equal(q1 >> I40E_RXD_LEN_PBUF_SHIFT & 0x3FFF, len - RX_DBUFF);
    assert_int_equal(q1 >> I40E_RXD_PTYPE_SHIFT & 0xFF, I40E_PTYPE_L2_PAY2);
    assert_memory_equal(mem(b, RX_BUF, RX_DBUFF), f, RX_DBUFF);
    assert_memory_equal(mem(b, RX_BUF + RX_DBUFF, len - RX_DBUFF), f + RX_DBUFF,
                        len - RX_DBUFF);
    assert_int_equal(counters(b).rx_frames, 1);
    /* the GLPRT statistics count it (48-bit counter, read as one 8-byte access) */
    assert_int_equal(mortar_hoststub_mmio_read(b->h, 0, I40E_GLPRT_UPRCL, 8), 1);
    bench_close(b);
}

static void test_rx_frames_wait_for_descriptors_in_the_buffer(void **state)
{
    (void)state;
    bench *b = bench_open(NULL, 40000000000ull);
    queues_setup(b, TX_RING, RING_LEN);
    link_up(b);
    /* give back no descriptors: the ring holds 63; send 80 frames */
    uint8_t f[200];
    uint32_t len = make_rx_frame(f, 200, 3);
    for (uint32_t i = 0; i < 80; i++)
        peer_send_at(b->peer,
                     mortar_hoststub_now(b->h) + MORTAR_US(1) + MORTAR_NS(100) * i, f,
                     len);
    mortar_hoststub_delay(b->h, MORTAR_US(100));
    assert_int_equal(counters(b).rx_frames, RING_LEN - 1);
    assert_int_equal(counters(b).rx_missed, 0);
    /* the driver gives 32 descriptors back: the waiting frames land */
    for (uint32_t i = 0; i < 32; i++) {
        uint8_t *d = mem(b, RX_RING + 32ull * ((b->rx_tail + i) % RING_LEN), 32);
        memset(d, 0, 32);
        le64_put(d, RX_BUF + (uint64_t)RX_DBUFF * ((b->rx_tail + i) % RING_LEN));
    }
    wr(b, I40E_QRX_TAIL(0), (b->rx_tail + 32) % RING_LEN);
    mortar_hoststub_delay(b->h, MORTAR_US(100));
    assert_int_equal(counters(b).rx_frames, 80);
    assert_int_equal(counters(b).rx_missed, 0);
    bench_close(b);
}

static void test_rx_descriptors_are_fetched_before_frames_need_them(void **state)
{
    (void)state;
    bench *b = bench_open(NULL, 40000000000ull);
    queues_setup(b, TX_RING, RING_LEN);
    link_up(b);
    /* more frames than one descriptor fetch brings (32), far enough apart
     * that none waits for another: each lands the same time after it left
     * the peer, none held in the packet buffer for a fetch (a PCIe round
     * trip, 1 us here) that the driver's tail write could have started */
    uint8_t f[200];
    uint32_t len = make_rx_frame(f, 200, 5);
    const uint32_t n = 40;
    const uint64_t t0 = mortar_hoststub_now(b->h) + MORTAR_US(1), gap = MORTAR_US(3);
    for (uint32_t i = 0; i < n; i++)
        peer_send_at(b->peer, t0 + gap * i, f, len);
    uint64_t lat_min = UINT64_MAX, lat_max = 0;
    for (uint32_t i = 0; i < n; i++) {
        assert_true(mortar_hoststub_wait_mem32(b->h, RX_RING + 32ull * i + 8,
                                               I40E_RXD_STATUS_DD, I40E_RXD_STATUS_DD,
                                               TIMEOUT));
        uint64_t lat = mortar_hoststub_now(b->h) - (t0 + gap * i);
        lat_min = lat < lat_min ? lat : lat_min;
        lat_max = lat > lat_max ? lat : lat_max;
    }
    assert_true(lat_max - lat_min < MORTAR_NS(100));
    assert_int_equal(counters(b).rx_frames, n);
    bench_close(b);
}

/* The interrupt tests: the receive cause of queue 0 alone on vector 1, on
 * ITR index `idx`, and the vector enabled (no interval change). */
static void rx_cause_alone(bench *b, uint32_t idx)
{
    wr(b, I40E_QINT_RQCTL(0), 1 | idx << I40E_QINT_ITR_INDX_SHIFT | I40E_QINT_CAUSE_ENA);
    wr(b, I40E_QINT_TQCTL(0), 0);
    drain_interrupts(b);
    wr(b, I40E_PFINT_DYN_CTLN(0), I40E_DYN_INTENA | 3u << I40E_DYN_ITR_INDX_SHIFT);
}

/* Waits for the next interrupt and returns when it came. */
static uint64_t next_interrupt(bench *b)
{
    assert_true(mortar_hoststub_wait_interrupt(b->h, TIMEOUT, NULL, NULL));
    return mortar_hoststub_now(b->h);
}

/* A bench with queue pair 0 and the link up, PFINT_ITRN index 0 and 1 at
 * `itr`, the receive cause alone on vector 1 on ITR index `idx`; the peer
 * sends a 100-byte frame (made into `f`, its length in `len`) 2 us later.
 * Returns when that frame's interrupt came. */
static uint64_t first_rx_interrupt(bench **out, const uint32_t itr[2], uint32_t idx,
                                   uint8_t f[100], uint32_t *len)
{
    bench *b = *out = bench_open(NULL, 40000000000ull);
    *len = make_rx_frame(f, 100, 1);
    queues_setup(b, TX_RING, RING_LEN);
    link_up(b);
    wr(b, I40E_PFINT_ITRN(0, 0), itr[0]);
    wr(b, I40E_PFINT_ITRN(1, 0), itr[1]);
    rx_cause_alone(b, idx);
    peer_send_at(b->peer, mortar_hoststub_now(b->h) + MORTAR_US(2), f, *len);
    return next_interrupt(b);
}

static void test_itr_spaces_interrupts_of_a_vector(void **state)
{
    (void)state;
    bench *b = bench_open(NULL, 40000000000ull);
    queues_setup(b, TX_RING, RING_LEN);
    link_up(b);
    /* RX cause with ITR index 0, interval 25 x 2 us = 50 us */
    wr(b, I40E_PFINT_ITRN(0, 0), 25);
    rx_cause_alone(b, 0);
    uint8_t f[100];
    uint32_t len = make_rx_frame(f, 100, 1);
    uint64_t t0 = mortar_hoststub_now(b->h);
    peer_send_at(b->peer, t0 + MORTAR_US(2), f, len);
    peer_send_at(b->peer, t0 + MORTAR_US(7), f, len);
    uint64_t first = next_interrupt(b);
    /* the handler re-enables at once; the second frame's interrupt waits
     * for the interval */
    wr(b, I40E_PFINT_DYN_CTLN(0), I40E_DYN_INTENA | 3u << I40E_DYN_ITR_INDX_SHIFT);
    uint64_t second = next_interrupt(b);
    assert_true(second - first >=
                MORTAR_US(50) - MORTAR_US(2)); /* less the link latency */
    assert_true(second - first <= MORTAR_US(50) + MORTAR_US(2));
    /* masked (no INTENA): a cause waits, no interrupt */
    peer_send_at(b->peer, mortar_hoststub_now(b->h) + MORTAR_US(1), f, len);
    assert_false(mortar_hoststub_wait_interrupt(b->h, MORTAR_US(200), NULL, NULL));
    assert_int_equal(counters(b).rx_frames, 3);
    bench_close(b);
}

static void test_itr_shorter_cause_cuts_a_pending_wait(void **state)
{
    (void)state;
    /* ITR index 0: 2 x 2 us; index 1: 50 x 2 us (the driver's RX latency
     * and TX bulk settings); the RX cause starts on index 1 */
    static const uint32_t itr[2] = {2, 50};
    uint8_t f[100];
    uint32_t len;
    bench *b;
    uint64_t first = first_rx_interrupt(&b, itr, 1, f, &len);
    wr(b, I40E_PFINT_DYN_CTLN(0), I40E_DYN_INTENA | 3u << I40E_DYN_ITR_INDX_SHIFT);
    /* a cause on index 1 waits for its 100 us ... */
    peer_send_at(b->peer, first + MORTAR_US(5), f, len);
    mortar_hoststub_delay(b->h, MORTAR_US(10));
    /* ... until a cause on index 0, whose 4 us have long passed, arrives */
    wr(b, I40E_QINT_RQCTL(0), 1 | 0u << I40E_QINT_ITR_INDX_SHIFT | I40E_QINT_CAUSE_ENA);
    peer_send_at(b->peer, mortar_hoststub_now(b->h) + MORTAR_US(5), f, len);
    uint64_t second = next_interrupt(b);
    assert_true(second - first < MORTAR_US(30));
    assert_int_equal(counters(b).rx_frames, 3);
    bench_close(b);
}

static void test_itr_rewritten_interval_lets_the_next_cause_fire_at_once(void **state)
{
    (void)state;
    /* RX cause with ITR index 0, interval 25 x 2 us = 50 us */
    static const uint32_t itr[2] = {25, 0};
    uint8_t f[100];
    uint32_t len;
    bench *b;
    uint64_t first = first_rx_interrupt(&b, itr, 0, f, &len);
    /* the handler re-enables and writes index 0's interval again, as the
     * driver's adaptive moderation does: the next cause does not wait */
    wr(b, I40E_PFINT_DYN_CTLN(0),
       I40E_DYN_INTENA | 0u << I40E_DYN_ITR_INDX_SHIFT | 25u << I40E_DYN_INTERVAL_SHIFT);
    peer_send_at(b->peer, first + MORTAR_US(5), f, len);
    uint64_t second = next_interrupt(b);
    assert_true(second - first < MORTAR_US(10));
    assert_int_equal(rd(b, I40E_PFINT_ITRN(0, 0)), 25);
    /* re-enabled without a new interval: the next one waits the 50 us
     * again, from that firing */
    wr(b, I40E_PFINT_DYN_CTLN(0), I40E_DYN_INTENA | 3u << I40E_DYN_ITR_INDX_SHIFT);
    peer_send_at(b->peer, second + MORTAR_US(5), f, len);
    uint64_t third = next_interrupt(b);
    assert_true(third - second >= MORTAR_US(50) - MORTAR_US(2));
    assert_true(third - second <= MORTAR_US(50) + MORTAR_US(2));
    assert_int_equal(counters(b).rx_frames, 3);
    bench_close(b);
}

static void test_malformed_descriptor_is_counted_and_skipped(void **state)
{
    (void)state;
    bench *b = bench_open(NULL, 40000000000ull);
    queues_setup(b, TX_RING, RING_LEN);
    link_up(b);
    /* a descriptor of a reserved type, then a TSO context with MSS 0 before
     * a packet: both are refused, the ring moves on */
    uint8_t *d = mem(b, TX_RING, 16);
    le64_put(d, 0);
    le64_put(d + 8, 0x5);
    b->tx_tail = 1;
    d = mem(b, TX_RING + 16, 16);
    le64_put(d, 0);
    le64_put(d + 8, I40E_TXD_DTYPE_CONTEXT | (uint64_t)I40E_TXD_CTX_CMD_TSO << 4 |
                        (uint64_t)1000 << I40E_TXD_CTX_TSO_LEN_SHIFT);
    b->tx_tail = 2;
    uint8_t f[100];
    memcpy(mem(b, TX_BUF, 100), f, make_frame(f, 100, 1));
    tx_post(b, TX_RING, RING_LEN, TX_BUF, 100, 0);
    /* and a good packet after them */
    tx_post(b, TX_RING, RING_LEN, TX_BUF, 100, 0);
    wr(b, I40E_QTX_TAIL(0), b->tx_tail);
    assert_true(mortar_hoststub_wait_mem32(b->h, TX_HEAD, 0xFFFFFFFF, 4, TIMEOUT));
    mortar_hoststub_delay(b->h, MORTAR_US(5));
    i40e_counters c = counters(b);
    assert_true(c.bad_descriptors >= 2);
    assert_int_equal(c.tx_dropped, 1);
    assert_int_equal(b->peer->nrx, 1);
    /* a tail beyond the ring is refused */
    wr(b, I40E_QTX_TAIL(0), RING_LEN + 5);
    flush(b);
    assert_int_equal(counters(b).bad_tail_writes, 1);
    bench_close(b);
}

static void test_dma_error_drops_the_packet_and_is_counted(void **state)
{
    (void)state;
    bench *b = bench_open(NULL, 40000000000ull);
    queues_setup(b, TX_RING, RING_LEN);
    link_up(b);
    tx_post(b, TX_RING, RING_LEN, OUTSIDE, 100, 0); /* the host refuses the read */
    uint8_t f[100];
    memcpy(mem(b, TX_BUF, 100), f, make_frame(f, 100, 1));
    tx_post(b, TX_RING, RING_LEN, TX_BUF, 100, 0);
    wr(b, I40E_QTX_TAIL(0), b->tx_tail);
    assert_true(mortar_hoststub_wait_mem32(b->h, TX_HEAD, 0xFFFFFFFF, 2, TIMEOUT));
    mortar_hoststub_delay(b->h, MORTAR_US(5));
    i40e_counters c = counters(b);
    assert_int_equal(c.dma_errors, 1);
    assert_int_equal(c.tx_dropped, 1);
    assert_int_equal(b->peer->nrx, 1);
    /* an admin command whose buffer is outside host memory: answered, no crash */
    uint8_t *d = mem(b, ATQ_RING + 32 * b->atq_next, 32);
    memset(d, 0, 32);
    le16_put(d, I40E_AQ_FLAG_BUF | I40E_AQ_FLAG_RD);
    le16_put(d + 2, 0x0250);
    le16_put(d + 4, 64);
    le32_put(d + 28, (uint32_t)OUTSIDE);
    b->atq_next = (b->atq_next + 1) % AQ_LEN;
    wr(b, I40E_PF_ATQT, b->atq_next);
    wait_reg(b, I40E_PF_ATQH, 0xFFFF, b->atq_next);
    bench_close(b);
}

static void test_unknown_registers_read_zero_and_are_counted(void **state)
{
    (void)state;
    bench *b = bench_open(NULL, 40000000000ull);
    assert_int_equal(rd(b, 0x3F0000), 0);
    wr(b, 0x3F0004 - 0x80000, 5);
    flush(b);
    assert_int_equal(counters(b).unknown_reg_reads, 1);
    assert_int_equal(counters(b).unknown_reg_writes, 1);
    /* PF reset clears the queues and reads back done at once */
    wr(b, I40E_PFGEN_CTRL, I40E_PFGEN_CTRL_PFSWR);
    assert_int_equal(rd(b, I40E_PFGEN_CTRL) & I40E_PFGEN_CTRL_PFSWR, 0);
    bench_close(b);
}

/* ---- flow control ------------------------------------------------------------ */

#define OPC_GET_PHY_ABILITIES 0x0600
#define OPC_SET_PHY_CONFIG    0x0601
#define OPC_GET_LINK_STATUS   0x0607
#define AN_PAUSE_TX           0x20
#define AN_PAUSE_RX           0x40

static void send_pause_at(bench *b, uint64_t at_ps, uint16_t quanta)
{
    uint8_t f[ETH_PAUSE_FRAME_BYTES];
    peer_send_at(b->peer, at_ps, f, eth_pause_build(f, PEER_MAC, quanta));
}

/* Posts `n` frames of `len` bytes on queue 0 and writes the tail. */
static void post_frames(bench *b, uint32_t n, uint32_t len)
{
    uint8_t f[1514];
    for (uint32_t i = 0; i < n; i++) {
        make_frame(f, len, (uint8_t)i);
        memcpy(mem(b, TX_BUF + 0x1000ull * i, len), f, len);
        tx_post(b, TX_RING, RING_LEN, TX_BUF + 0x1000ull * i, len, 0);
    }
    wr(b, I40E_QTX_TAIL(0), b->tx_tail);
}

static uint8_t phy_pause_abilities(bench *b)
{
    uint8_t *d = aq_send(b, OPC_GET_PHY_ABILITIES, NULL, 32, false);
    assert_int_equal(le16_get(d + 6), 0);
    return mem(b, AQ_BUF, 32)[5] & 0x03;
}

static uint8_t link_an_info(bench *b)
{
    uint8_t *d = aq_send(b, OPC_GET_LINK_STATUS, NULL, 0, false);
    return d[16 + 5];
}

/* The driver's i40e_set_fc: the current abilities with new PAUSE bits and
 * an atomic link restart; then the link comes back. */
static void set_pause(bench *b, uint8_t pause)
{
    uint8_t p[16] = {0};
    p[5] = (uint8_t)(pause | 0x08 | 0x10 | 0x20); /* link, AN, atomic restart */
    uint8_t *d = aq_send(b, OPC_SET_PHY_CONFIG, p, 0, false);
    assert_int_equal(le16_get(d + 6), 0);
    mortar_hoststub_delay(b->h, MORTAR_US(200));
}

static void test_phy_and_link_report_pause_as_the_parameter_allows(void **state)
{
    (void)state;
    bench *b = bench_open(NULL, 40000000000ull);
    queues_setup(b, TX_RING, RING_LEN);
    link_up(b);
    assert_int_equal(phy_pause_abilities(b), 0x03);
    assert_int_equal(link_an_info(b) & (AN_PAUSE_TX | AN_PAUSE_RX),
                     AN_PAUSE_TX | AN_PAUSE_RX);
    set_pause(b, 0x02); /* ethtool -A rx on tx off */
    assert_int_equal(phy_pause_abilities(b), 0x02);
    assert_int_equal(link_an_info(b) & (AN_PAUSE_TX | AN_PAUSE_RX), AN_PAUSE_RX);
    bench_close(b);

    b = bench_open("{\"flow_control\": false}", 40000000000ull);
    queues_setup(b, TX_RING, RING_LEN);
    link_up(b);
    assert_int_equal(phy_pause_abilities(b), 0);
    set_pause(b, 0x03);
    assert_int_equal(phy_pause_abilities(b), 0);
    assert_int_equal(link_an_info(b) & (AN_PAUSE_TX | AN_PAUSE_RX), 0);
    bench_close(b);
}

static void test_received_pause_holds_transmit_for_its_quanta(void **state)
{
    (void)state;
    bench *b = bench_open("{\"speed\": \"10Gbps\"}", 10000000000ull);
    queues_setup(b, TX_RING, RING_LEN);
    link_up(b);
    uint64_t t0 = mortar_hoststub_now(b->h);
    send_pause_at(b, t0 + MORTAR_US(1), 1000); /* 1000 x 512 bits at 10 Gbit/s */
    mortar_hoststub_delay(b->h, MORTAR_US(5));
    post_frames(b, 4, 1514);
    mortar_hoststub_delay(b->h, MORTAR_US(100));
    assert_int_equal(b->peer->nrx, 4);
    uint64_t hold = 1000ull * 512 * 100; /* 100 ps a bit */
    /* sent at t0 + 1 us, 1 us on the link each way */
    uint64_t earliest = t0 + MORTAR_US(3) + hold;
    assert_true(b->peer->rx[0].at_ps >= earliest);
    /* and it goes once the time is over: the PAUSE's own 84 bytes on the
     * link and the frame's at most later */
    assert_true(b->peer->rx[0].at_ps <= earliest + (84 + 1538) * 800ull + MORTAR_NS(10));
    /* consumed by the MAC: counted, never in a queue */
    i40e_counters c = counters(b);
    assert_int_equal(c.pause_rx, 1);
    assert_int_equal(c.rx_frames, 0);
    assert_false(le64_get(mem(b, RX_RING, 32) + 8) & I40E_RXD_STATUS_DD);
    assert_int_equal(rd(b, I40E_GLPRT_LXOFFRXC), 1);
    assert_int_equal(rd(b, I40E_GLPRT_LXONRXC), 0);
    bench_close(b);
}

static void test_pause_of_zero_quanta_releases_transmit(void **state)
{
    (void)state;
    bench *b = bench_open("{\"speed\": \"10Gbps\"}", 10000000000ull);
    queues_setup(b, TX_RING, RING_LEN);
    link_up(b);
    uint64_t t0 = mortar_hoststub_now(b->h);
    send_pause_at(b, t0 + MORTAR_US(1), 0xFFFF); /* 3.4 ms */
    send_pause_at(b, t0 + MORTAR_US(40), 0);
    mortar_hoststub_delay(b->h, MORTAR_US(5));
    post_frames(b, 2, 1514);
    mortar_hoststub_delay(b->h, MORTAR_US(30));
    assert_int_equal(b->peer->nrx, 0); /* held */
    mortar_hoststub_delay(b->h, MORTAR_US(20));
    assert_int_equal(b->peer->nrx, 2);
    uint64_t xon_in = t0 + MORTAR_US(41); /* sent + the link's 1 us */
    assert_true(b->peer->rx[0].at_ps >= xon_in + MORTAR_US(1));
    assert_true(b->peer->rx[0].at_ps <=
                xon_in + MORTAR_US(1) + (84 + 1538) * 800ull + MORTAR_NS(10));
    assert_int_equal(rd(b, I40E_GLPRT_LXOFFRXC), 1);
    assert_int_equal(rd(b, I40E_GLPRT_LXONRXC), 1);
    assert_int_equal(counters(b).rx_frames, 0);
    bench_close(b);
}

static void test_pause_is_not_honoured_when_receive_pause_is_off(void **state)
{
    (void)state;
    bench *b = bench_open("{\"speed\": \"10Gbps\"}", 10000000000ull);
    queues_setup(b, TX_RING, RING_LEN);
    link_up(b);
    set_pause(b, 0x01); /* ethtool -A rx off tx on */
    uint64_t t0 = mortar_hoststub_now(b->h);
    send_pause_at(b, t0 + MORTAR_US(1), 1000);
    mortar_hoststub_delay(b->h, MORTAR_US(5));
    post_frames(b, 2, 1514);
    mortar_hoststub_delay(b->h, MORTAR_US(20));
    assert_int_equal(b->peer->nrx, 2);
    assert_true(b->peer->rx[0].at_ps < t0 + MORTAR_US(25)); /* not 51 us */
    i40e_counters c = counters(b);
    assert_int_equal(c.pause_rx, 1); /* still consumed and counted */
    assert_int_equal(c.rx_frames, 0);
    bench_close(b);
}

/* The driver's clean loop: each written-back descriptor is taken and a new
 * buffer goes to the ring at the tail. */
static void rx_clean(bench *b, uint32_t *next_to_clean)
{
    uint32_t n = 0;
    for (;;) {
        uint8_t *d = mem(b, RX_RING + 32ull * *next_to_clean, 32);
        if (!(le64_get(d + 8) & I40E_RXD_STATUS_DD))
            break;
        memset(d, 0, 32);
        *next_to_clean = (*next_to_clean + 1) % RING_LEN;
        uint8_t *t = mem(b, RX_RING + 32ull * b->rx_tail, 32);
        memset(t, 0, 32);
        le64_put(t, RX_BUF + (uint64_t)RX_DBUFF * b->rx_tail);
        b->rx_tail = (b->rx_tail + 1) % RING_LEN;
        n++;
    }
    if (n)
        wr(b, I40E_QRX_TAIL(0), b->rx_tail);
}

#define BURST_FRAMES 250
#define BURST_LEN    9000

/* The peer sends 250 jumbo frames (2.25 MB, more than the 968 KB receive
 * buffer) at 40 Gbit/s, honouring PAUSE; the host takes frames at about
 * 9 Gbit/s (its ring of 63 buffers every 100 us). */
static bench *overload(const char *nic_params)
{
    bench *b = bench_open(nic_params, 40000000000ull);
    queues_setup(b, TX_RING, RING_LEN);
    link_up(b);
    static uint8_t f[BURST_LEN];
    uint32_t len = make_rx_frame(f, BURST_LEN, 9);
    peer_burst(b->peer, mortar_hoststub_now(b->h) + MORTAR_US(1), 40000000000ull, f, len,
               BURST_FRAMES);
    uint32_t next_to_clean = 0;
    uint64_t end = mortar_hoststub_now(b->h) + MORTAR_MS(10);
    while (mortar_hoststub_now(b->h) < end) {
        mortar_hoststub_delay(b->h, MORTAR_US(100));
        rx_clean(b, &next_to_clean);
        i40e_counters c = counters(b);
        if (c.rx_frames + c.rx_missed == BURST_FRAMES &&
            b->peer->burst_next == b->peer->ntx)
            break;
    }
    mortar_hoststub_delay(b->h, MORTAR_US(20));
    return b;
}

static void
test_filling_receive_buffer_sends_xoff_then_xon_and_misses_nothing(void **state)
{
    (void)state;
    bench *b = overload(NULL);
    i40e_counters c = counters(b);
    assert_int_equal(c.rx_frames, BURST_FRAMES);
    assert_int_equal(c.rx_missed, 0);
    assert_true(c.xoff_tx >= 1);
    assert_true(c.xon_tx >= 1);
    /* what the peer got: PAUSE frames from the port, XOFF first, XON last */
    uint32_t xoff = 0, xon = 0;
    uint16_t first = 0, last = 0;
    for (uint32_t i = 0; i < b->peer->nrx; i++) {
        const peer_frame *f = &b->peer->rx[i];
        uint16_t q;
        assert_true(eth_pause_parse(f->data, f->len, &q));
        assert_memory_equal(f->data, eth_pause_group_address, 6);
        assert_memory_equal(f->data + 6, NIC_MAC, 6);
        if (i == 0)
            first = q;
        last = q;
        if (q)
            xoff++;
        else
            xon++;
    }
    assert_int_equal(first, 0xFFFF);
    assert_int_equal(last, 0);
    assert_int_equal(xoff, c.xoff_tx);
    assert_int_equal(xon, c.xon_tx);
    assert_int_equal(rd(b, I40E_GLPRT_LXOFFTXC), c.xoff_tx);
    assert_int_equal(rd(b, I40E_GLPRT_LXONTXC), c.xon_tx);
    bench_close(b);
}

static void test_without_flow_control_the_same_burst_overflows(void **state)
{
    (void)state;
    bench *b = overload("{\"flow_control\": false}");
    i40e_counters c = counters(b);
    assert_true(c.rx_missed > 0);
    assert_int_equal(c.rx_frames + c.rx_missed, BURST_FRAMES);
    assert_int_equal(c.xoff_tx, 0);
    assert_int_equal(b->peer->nrx, 0);
    assert_int_equal(rd(b, I40E_GLPRT_RDPC), c.rx_missed);
    bench_close(b);
}

static void test_bad_parameters_are_refused(void **state)
{
    (void)state;
    const char *bad[] = {"{\"speed\": \"0bps\"}", "{\"dma_outstanding\": 0}",
                         "{\"mac\": \"01:00:00:00:00:01\"}", "{\"colour\": 1}",
                         "{\"flow_control\": 3}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[256];
        mortar_loop *loop;
        mortar_component *c;
        mortar_params *p = mortar_params_parse(bad[i], "nic", err, sizeof err);
        assert_non_null(p);
        assert_int_equal(mortar_loop_create(&loop), 0);
        assert_int_not_equal(mortar_loop_add(loop, &mortar_i40e_ops, "nic", p, &c), 0);
        mortar_params_free(p);
        mortar_loop_destroy(loop);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvm_checksum_adds_up_and_holds_the_mac),
        cmocka_unit_test(test_admin_queue_reports_versions_and_mac),
        cmocka_unit_test(test_admin_queue_answers_unknown_opcode_with_enosys),
        cmocka_unit_test(test_port_ets_takes_only_traffic_class_0_alone),
        cmocka_unit_test(test_capabilities_too_large_for_the_buffer_ask_for_more),
        cmocka_unit_test(test_link_comes_up_with_an_event_on_the_arq),
        cmocka_unit_test(test_queue_context_is_read_from_host_memory),
        cmocka_unit_test(test_tx_queue_restart_starts_at_the_context_head),
        cmocka_unit_test(test_tx_frames_leave_at_line_rate),
        cmocka_unit_test(test_tso_cuts_tcp_into_mss_segments_with_checksums),
        cmocka_unit_test(test_rx_frame_lands_in_buffer_with_writeback),
        cmocka_unit_test(test_rx_frames_wait_for_descriptors_in_the_buffer),
        cmocka_unit_test(test_rx_descriptors_are_fetched_before_frames_need_them),
        cmocka_unit_test(test_itr_spaces_interrupts_of_a_vector),
        cmocka_unit_test(test_itr_shorter_cause_cuts_a_pending_wait),
        cmocka_unit_test(test_itr_rewritten_interval_lets_the_next_cause_fire_at_once),
        cmocka_unit_test(test_malformed_descriptor_is_counted_and_skipped),
        cmocka_unit_test(test_dma_error_drops_the_packet_and_is_counted),
        cmocka_unit_test(test_unknown_registers_read_zero_and_are_counted),
        cmocka_unit_test(test_bad_parameters_are_refused),
        cmocka_unit_test(test_phy_and_link_report_pause_as_the_parameter_allows),
        cmocka_unit_test(test_received_pause_holds_transmit_for_its_quanta),
        cmocka_unit_test(test_pause_of_zero_quanta_releases_transmit),
        cmocka_unit_test(test_pause_is_not_honoured_when_receive_pause_is_off),
        cmocka_unit_test(
            test_filling_receive_buffer_sends_xoff_then_xon_and_misses_nothing),
        cmocka_unit_test(test_without_flow_control_the_same_burst_overflows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
