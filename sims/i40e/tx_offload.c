/*
 * tx_offload.c - what the i40e model does to an assembled transmit packet:
 * checksum insertion and TCP segmentation, as the first data descriptor and
 * the context descriptor ask; the frames go to the wire stage (tx.c).
 *
 * Header lengths come from the first data descriptor's offset field: MACLEN
 * in 2-byte units, IPLEN and L4LEN in 4-byte units. Checksums:
 *  - IIPT = IPv4 with checksum: the IPv4 header checksum is computed;
 *  - L4T = TCP or UDP: the L4 checksum over the L4 header and payload. The
 *    field already holds the pseudo-header sum (the driver puts it there),
 *    so the hardware sums and complements. A UDP result of 0 is sent as
 *    0xFFFF. SCTP (CRC32c) is not computed (counted in bad_descriptors).
 * TCP segmentation (context descriptor with TSO): the headers (MACLEN +
 * IPLEN + L4LEN bytes) are repeated before each MSS-byte piece of the
 * payload; per segment the IPv4 total length and an incremented
 * identification (or the IPv6 payload length), the TCP sequence number, and
 * FIN/PSH only on the last segment. The driver's pseudo-header sum leaves the
 * length out (and zeroes the IPv4 length and checksum), so the segment's L4
 * length is added before the checksum.
 */
#include "i40e_internal.h"

#include <string.h>

#include "sims/common/pkt.h"

#define TCP_FLAG_FIN 0x01
#define TCP_FLAG_PSH 0x08

typedef struct hdrs {
    uint32_t l3, l4, hdr; /* offsets of the IP and L4 headers, header length */
    uint32_t cmd;
} hdrs;

static hdrs parse_offsets(const i40e_txq *t)
{
    uint32_t off = (uint32_t)(t->first_qw1 >> I40E_TXD_OFFSET_SHIFT) & 0x3FFFF;
    hdrs h;
    h.cmd = (uint32_t)(t->first_qw1 >> I40E_TXD_CMD_SHIFT) & 0x3FF;
    h.l3 = (off & 0x7F) * 2;
    h.l4 = h.l3 + ((off >> 7) & 0x7F) * 4;
    h.hdr = h.l4 + ((off >> 14) & 0xF) * 4;
    return h;
}

static bool tso_valid(const i40e_txq *t, const hdrs *h)
{
    return t->tso && t->mss > 0 && h->hdr > h->l4 && h->hdr < t->pkt_len &&
           h->hdr + t->mss <= I40E_MAX_FRAME &&
           (h->cmd & I40E_TXD_CMD_L4T_MASK) == I40E_TXD_CMD_L4T_TCP;
}

uint64_t i40e_tx_wire_bytes(const i40e_txq *t)
{
    hdrs h = parse_offsets(t);
    if (tso_valid(t, &h)) {
        uint64_t pay = t->pkt_len - h.hdr;
        uint64_t segs = (pay + t->mss - 1) / t->mss;
        return pay + segs * h.hdr;
    }
    return t->pkt_len;
}

/* ---- checksums ------------------------------------------------------------- */

static void ipv4_sum(uint8_t *f, uint32_t len, const hdrs *h)
{
    if (h->l4 <= h->l3 || h->l4 > len)
        return;
    pkt_put16(f, len, h->l3 + 10u, 0);
    pkt_put16(f, len, h->l3 + 10u,
              (uint16_t)~pkt_fold(pkt_sum(f + h->l3, h->l4 - h->l3, 0)));
}

static bool l4_sum(i40e *d, uint8_t *f, uint32_t len, const hdrs *h)
{
    uint32_t l4t = h->cmd & I40E_TXD_CMD_L4T_MASK;
    uint32_t at;
    if (l4t == I40E_TXD_CMD_L4T_TCP)
        at = h->l4 + 16;
    else if (l4t == I40E_TXD_CMD_L4T_UDP)
        at = h->l4 + 6;
    else {
        if (l4t == I40E_TXD_CMD_L4T_SCTP)
            d->c.bad_descriptors++;
        return false;
    }
    if (h->l4 >= len || at + 2 > len)
        return false;
    uint16_t sum = (uint16_t)~pkt_fold(pkt_sum(f + h->l4, len - h->l4, 0));
    if (l4t == I40E_TXD_CMD_L4T_UDP && sum == 0)
        sum = 0xFFFF;
    return pkt_put16(f, len, at, sum);
}

static void insert_sums(i40e *d, uint8_t *f, uint32_t len, const hdrs *h)
{
    bool done = false;
    if ((h->cmd & I40E_TXD_CMD_IIPT_MASK) == I40E_TXD_CMD_IIPT_IPV4_CSUM) {
        ipv4_sum(f, len, h);
        done = true;
    }
    if (l4_sum(d, f, len, h))
        done = true;
    if (done)
        d->c.csum_offloads++;
}

/* ---- segmentation ---------------------------------------------------------- */

static void fix_segment(uint8_t *s, uint32_t len, const hdrs *h, uint32_t k,
                        uint32_t sent, bool last, uint16_t ip_id, uint32_t seq)
{
    uint32_t iipt = h->cmd & I40E_TXD_CMD_IIPT_MASK;
    if (iipt == I40E_TXD_CMD_IIPT_IPV4 || iipt == I40E_TXD_CMD_IIPT_IPV4_CSUM) {
        pkt_put16(s, len, h->l3 + 2u, (uint16_t)(len - h->l3));
        pkt_put16(s, len, h->l3 + 4u, (uint16_t)(ip_id + k));
    } else if (iipt == I40E_TXD_CMD_IIPT_IPV6) {
        pkt_put16(s, len, h->l3 + 4u, (uint16_t)(len - h->l3 - 40u));
    }
    pkt_put32(s, len, h->l4 + 4u, seq + sent);
    if (!last && h->l4 + 13u < len)
        s[h->l4 + 13u] &= (uint8_t) ~(TCP_FLAG_FIN | TCP_FLAG_PSH);
    /* the pseudo-header sum without the length: add this segment's */
    uint16_t partial = pkt_get16(s + h->l4 + 16);
    pkt_put16(s, len, h->l4 + 16u, pkt_add16(partial, (uint16_t)(len - h->l4)));
}

static void tso_send(i40e *d, i40e_txq *t, const hdrs *h)
{
    uint8_t *seg = d->seg;
    const uint8_t *pkt = t->pkt;
    uint32_t pay = t->pkt_len - h->hdr;
    uint16_t ip_id = pkt_get16(pkt + h->l3 + 4);
    uint32_t seq = pkt_get32(pkt + h->l4 + 4);
    uint32_t k = 0;
    for (uint32_t sent = 0; sent < pay; sent += t->mss, k++) {
        uint32_t n = pay - sent < t->mss ? pay - sent : t->mss;
        memcpy(seg, pkt, h->hdr);
        memcpy(seg + h->hdr, pkt + h->hdr + sent, n);
        fix_segment(seg, h->hdr + n, h, k, sent, sent + n == pay, ip_id, seq);
        if ((h->cmd & I40E_TXD_CMD_IIPT_MASK) == I40E_TXD_CMD_IIPT_IPV4_CSUM)
            ipv4_sum(seg, h->hdr + n, h);
        l4_sum(d, seg, h->hdr + n, h);
        if (!i40e_wire_stage(d, seg, h->hdr + n))
            d->c.tx_dropped++;
        d->c.tso_segments++;
    }
    d->c.csum_offloads++;
}

void i40e_tx_emit(i40e *d, i40e_txq *t)
{
    hdrs h = parse_offsets(t);
    if (t->tso) {
        if (tso_valid(t, &h) && h.l4 + 20 <= h.hdr) {
            tso_send(d, t, &h);
        } else {
            d->c.tx_dropped++;
            d->c.bad_descriptors++;
        }
        return;
    }
    if (t->pkt_len < 14 || t->pkt_len > I40E_MAX_FRAME) {
        d->c.tx_dropped++;
        d->c.bad_descriptors++;
        return;
    }
    if (h.cmd & (I40E_TXD_CMD_IIPT_MASK | I40E_TXD_CMD_L4T_MASK))
        insert_sums(d, t->pkt, t->pkt_len, &h);
    if (!i40e_wire_stage(d, t->pkt, t->pkt_len))
        d->c.tx_dropped++;
}
