/*
 * tx_offload.c - what the e1000 model does to an assembled transmit packet
 * before it goes on the wire: checksum insertion, TCP segmentation (TSO),
 * VLAN tag insertion, padding, then sending and counting.
 *
 * Checksums (context descriptor fields, offsets from the frame's start):
 *  - IXSM: the IP header checksum over IPCSS..IPCSE (0 = to the end) is
 *    stored at IPCSO;
 *  - TXSM: the TCP/UDP checksum over TUCSS..TUCSE (0 = to the end) is stored
 *    at TUCSO. The field already holds the pseudo-header sum (the driver puts
 *    it there), so the hardware just sums and complements. A UDP result of 0
 *    is sent as 0xFFFF.
 *  - legacy descriptors with IC: the sum from CSS to the end, stored at CSO.
 *
 * TCP segmentation: the first HDRLEN bytes are the headers; the rest is cut
 * into MSS-byte payloads. Each segment gets a copy of the headers with, for
 * IPv4 (TUCMD.IP), the total length and an identification incremented per
 * segment, for IPv6 the payload length; for TCP the sequence number advanced
 * by the payload already sent and FIN/PSH cleared on all but the last
 * segment; for UDP the length. The driver's pseudo-header sum leaves out the
 * length, so the segment's L4 length is added before the checksum.
 */
#include "e1000_internal.h"

#include <string.h>

#include "mortar/eth.h"
#include "sims/common/pkt.h"

#define TCP_FLAG_FIN 0x01
#define TCP_FLAG_PSH 0x08

static bool vlan_insert(const e1000 *d, const e1000_tx_pkt_opts *o)
{
    return o->vle && (e1000_reg(d, E1000_CTRL) & E1000_CTRL_VME);
}

static bool tso_valid(const e1000_tx_ctx *c, uint32_t len)
{
    return c->mss > 0 && c->hdrlen > 0 && c->hdrlen < len &&
           (uint32_t)c->hdrlen + c->mss <= E1000_MAX_FRAME;
}

uint64_t e1000_tx_wire_bytes(const e1000 *d, uint32_t len, const e1000_tx_pkt_opts *o)
{
    uint32_t tag = vlan_insert(d, o) ? ETH_VLAN_TAG : 0;
    const e1000_tx_ctx *c = &d->tx.ctx_tso;
    if (o->tse && tso_valid(c, len)) {
        uint64_t pay = len - c->hdrlen;
        uint64_t segs = (pay + c->mss - 1) / c->mss;
        return pay + segs * (c->hdrlen + tag + MORTAR_ETH_OVERHEAD);
    }
    uint64_t frame = len + tag < E1000_ETH_MIN_FRAME ? E1000_ETH_MIN_FRAME : len + tag;
    return frame + MORTAR_ETH_OVERHEAD;
}

/* ---- checksums ---------------------------------------------------------- */

/* Sums [start, end] (end 0: to the frame's end) and stores the complement at
 * `at`; false when the offsets do not fit the frame. */
static bool insert_sum(uint8_t *f, uint32_t len, uint32_t start, uint32_t end_incl,
                       uint32_t at, bool udp)
{
    uint32_t end = end_incl ? end_incl + 1 : len;
    if (start >= end || end > len || at + 2 > len)
        return false;
    uint16_t sum = (uint16_t)~pkt_fold(pkt_sum(f + start, end - start, 0));
    if (udp && sum == 0)
        sum = 0xFFFF;
    return pkt_put16(f, len, at, sum);
}

static void context_sums(uint8_t *f, uint32_t len, const e1000_tx_ctx *c, uint8_t popts)
{
    if (popts & E1000_TXD_POPTS_IXSM)
        insert_sum(f, len, c->ipcss, c->ipcse, c->ipcso, false);
    if (popts & E1000_TXD_POPTS_TXSM)
        insert_sum(f, len, c->tucss, c->tucse, c->tucso, !(c->tucmd & E1000_TUCMD_TCP));
}

/* ---- sending ------------------------------------------------------------- */

static void count_sent(e1000 *d, const uint8_t *f, uint32_t len)
{
    uint32_t wire = len + E1000_ETH_FCS;
    d->c.tx_frames++;
    d->c.tx_bytes += len;
    e1000_stat_add(d, E1000_GPTC, 1);
    e1000_stat_add(d, E1000_TPT, 1);
    e1000_stat_add(d, E1000_GOTCL, wire);
    e1000_stat_add(d, E1000_TOTL, wire);
    e1000_stat_size_bin(d, E1000_PTC64, wire);
    if (f[0] & 1) {
        static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
        e1000_stat_add(d, memcmp(f, bcast, 6) == 0 ? E1000_BPTC : E1000_MPTC, 1);
    }
    mortar_trace(d->self, d->tk_tx, d->tx.seq++, len, 0);
}

/* Adds the VLAN tag and padding and sends one frame. */
static void send_frame(e1000 *d, const uint8_t *f, uint32_t len,
                       const e1000_tx_pkt_opts *o)
{
    uint8_t *out = d->tx.out;
    uint32_t n = 0;
    if (len < ETH_HLEN || len > E1000_MAX_FRAME) {
        d->c.tx_dropped++;
        return;
    }
    if (vlan_insert(d, o)) {
        memcpy(out, f, 12);
        pkt_put16(out, 16, 12, (uint16_t)e1000_reg(d, E1000_VET));
        pkt_put16(out, 16, 14, o->vlan);
        memcpy(out + 16, f + 12, len - 12);
        n = len + ETH_VLAN_TAG;
    } else {
        memcpy(out, f, len);
        n = len;
    }
    if (n < E1000_ETH_MIN_FRAME && (e1000_reg(d, E1000_TCTL) & E1000_TCTL_PSP)) {
        memset(out + n, 0, E1000_ETH_MIN_FRAME - n);
        n = E1000_ETH_MIN_FRAME;
    }
    if (n > mortar_port_max_payload(d->self, E1000_PORT_ETH) ||
        mortar_send(d->self, E1000_PORT_ETH, MORTAR_ETH_FRAME, out, n,
                    n + MORTAR_ETH_OVERHEAD, NULL) != 0) {
        d->c.tx_dropped++;
        return;
    }
    count_sent(d, out, n);
}

/* ---- segmentation ---------------------------------------------------------- */

static void fix_segment(uint8_t *s, uint32_t len, const e1000_tx_ctx *c, uint32_t k,
                        uint32_t sent, bool last, uint16_t ip_id, uint32_t seq)
{
    if (c->tucmd & E1000_TUCMD_IP) {
        pkt_put16(s, len, c->ipcss + 2u, (uint16_t)(len - c->ipcss));
        pkt_put16(s, len, c->ipcss + 4u, (uint16_t)(ip_id + k));
    } else {
        pkt_put16(s, len, c->ipcss + 4u, (uint16_t)(len - c->ipcss - 40u));
    }
    if (c->tucmd & E1000_TUCMD_TCP) {
        pkt_put32(s, len, c->tucss + 4u, seq + sent);
        if (!last && c->tucss + 13u < len)
            s[c->tucss + 13u] &= (uint8_t) ~(TCP_FLAG_FIN | TCP_FLAG_PSH);
    } else {
        pkt_put16(s, len, c->tucss + 4u, (uint16_t)(len - c->tucss));
    }
}

static void segment_sums(uint8_t *s, uint32_t len, const e1000_tx_ctx *c, uint8_t popts)
{
    if ((popts & E1000_TXD_POPTS_TXSM) && c->tucso + 2u <= len && c->tucss < len) {
        uint16_t partial = pkt_get16(s + c->tucso);
        pkt_put16(s, len, c->tucso, pkt_add16(partial, (uint16_t)(len - c->tucss)));
    }
    context_sums(s, len, c, popts);
}

static void tso_send(e1000 *d, const uint8_t *pkt, uint32_t len,
                     const e1000_tx_pkt_opts *o)
{
    const e1000_tx_ctx *c = &d->tx.ctx_tso;
    uint32_t hdr = c->hdrlen, pay = len - hdr;
    uint16_t ip_id = c->ipcss + 6u <= hdr ? pkt_get16(pkt + c->ipcss + 4) : 0;
    uint32_t seq = c->tucss + 8u <= hdr ? pkt_get32(pkt + c->tucss + 4) : 0;
    uint8_t *s = d->tx.seg;
    uint32_t k = 0;
    for (uint32_t sent = 0; sent < pay; sent += c->mss, k++) {
        uint32_t n = pay - sent < c->mss ? pay - sent : c->mss;
        memcpy(s, pkt, hdr);
        memcpy(s + hdr, pkt + hdr + sent, n);
        fix_segment(s, hdr + n, c, k, sent, sent + n == pay, ip_id, seq);
        segment_sums(s, hdr + n, c, o->popts);
        send_frame(d, s, hdr + n, o);
        d->c.tso_segments++;
    }
    e1000_stat_add(d, E1000_TSCTC, 1);
    if (o->popts & (E1000_TXD_POPTS_IXSM | E1000_TXD_POPTS_TXSM))
        d->c.csum_offloads++;
}

void e1000_tx_emit(e1000 *d, uint8_t *pkt, uint32_t len, const e1000_tx_pkt_opts *o)
{
    if (o->tse) {
        if (tso_valid(&d->tx.ctx_tso, len)) {
            tso_send(d, pkt, len, o);
        } else {
            d->c.tx_dropped++;
            d->c.ring_errors++;
            e1000_stat_add(d, E1000_TSCTFC, 1);
        }
        return;
    }
    if (o->legacy_ic) {
        if (insert_sum(pkt, len, o->css, 0, o->cso, false))
            d->c.csum_offloads++;
    } else if (o->popts & (E1000_TXD_POPTS_IXSM | E1000_TXD_POPTS_TXSM)) {
        context_sums(pkt, len, &d->tx.ctx_csum, o->popts);
        d->c.csum_offloads++;
    }
    send_frame(d, pkt, len, o);
}
