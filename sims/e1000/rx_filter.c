/*
 * rx_filter.c - which arriving frames the e1000 model accepts, and what the
 * receive descriptor reports about them.
 *
 * Acceptance (RCTL and the filter tables):
 *  - broadcast: when BAM (or MPE) is set;
 *  - multicast: when MPE is set, an enabled receive address (RAL/RAH with AV)
 *    matches, or the multicast table bit selected by RCTL.MO is set;
 *  - unicast: when UPE is set or an enabled receive address matches;
 *  - a frame tagged with VET's EtherType is dropped when VFE is set and its
 *    VLAN id's bit in VFTA is clear.
 * Accepted frames are stored with the tag stripped when CTRL.VME is set (the
 * tag goes to the descriptor's special field, status VP), the FCS appended
 * unless RCTL.SECRC, and the checksum status computed when RXCSUM asks for it
 * (IPv4 header, TCP/UDP over IPv4; otherwise the descriptor reports IXSM,
 * "ignore checksum").
 */
#include "e1000_internal.h"

#include <stdlib.h>
#include <string.h>

#include "sims/common/pkt.h"

static bool rar_match(const e1000 *d, const uint8_t *a)
{
    uint32_t lo = (uint32_t)a[0] | a[1] << 8 | a[2] << 16 | (uint32_t)a[3] << 24;
    uint32_t hi = (uint32_t)a[4] | a[5] << 8;
    for (uint32_t i = 0; i < E1000_RAR_COUNT; i++) {
        uint32_t rah = e1000_reg(d, E1000_RA + 8 * i + 4);
        if ((rah & E1000_RAH_AV) && (rah & 0xFFFF) == hi &&
            e1000_reg(d, E1000_RA + 8 * i) == lo)
            return true;
    }
    return false;
}

static bool mta_match(const e1000 *d, const uint8_t *a)
{
    uint32_t mo = (e1000_reg(d, E1000_RCTL) >> E1000_RCTL_MO_SHIFT) & 3;
    static const unsigned shift[4] = {4, 3, 2, 0};
    uint32_t hash =
        ((uint32_t)a[4] >> shift[mo] | (uint32_t)a[5] << (8 - shift[mo])) & 0xFFF;
    return (e1000_reg(d, E1000_MTA + 4 * (hash >> 5)) >> (hash & 31)) & 1;
}

static bool is_tagged(const e1000 *d, const uint8_t *f, uint32_t len)
{
    return len >= ETH_HLEN + ETH_VLAN_TAG &&
           pkt_get16(f + 12) == (e1000_reg(d, E1000_VET) & 0xFFFF);
}

bool e1000_rx_accept(e1000 *d, const uint8_t *f, uint32_t len)
{
    static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    uint32_t rctl = e1000_reg(d, E1000_RCTL);
    bool ok;
    if (memcmp(f, bcast, 6) == 0)
        ok = rctl & (E1000_RCTL_BAM | E1000_RCTL_MPE);
    else if (f[0] & 1)
        ok = (rctl & E1000_RCTL_MPE) || rar_match(d, f) || mta_match(d, f);
    else
        ok = (rctl & E1000_RCTL_UPE) || rar_match(d, f);
    if (ok && (rctl & E1000_RCTL_VFE) && is_tagged(d, f, len)) {
        uint32_t vid = pkt_get16(f + 14) & 0xFFF;
        ok = (e1000_reg(d, E1000_VFTA + 4 * (vid >> 5)) >> (vid & 31)) & 1;
    }
    return ok;
}

/* ---- receive checksums -------------------------------------------------------- */

static void l4_check(const uint8_t *ip, uint32_t ihl, uint32_t total, uint8_t *status,
                     uint8_t *errors)
{
    uint8_t proto = ip[9];
    const uint8_t *l4 = ip + ihl;
    uint32_t l4len = total - ihl;
    if (!((proto == IPPROTO_TCP_ && l4len >= 20) ||
          (proto == IPPROTO_UDP_ && l4len >= 8)))
        return;
    if (proto == IPPROTO_UDP_ && pkt_get16(l4 + 6) == 0)
        return; /* UDP without a checksum */
    uint32_t sum = pkt_sum(ip + 12, 8, 0) + proto + l4len;
    *status |= E1000_RXD_STAT_TCPCS;
    if (pkt_fold(pkt_sum(l4, l4len, sum)) != 0xFFFF)
        *errors |= E1000_RXD_ERR_TCPE;
}

static void rx_checksum(const e1000 *d, const uint8_t *f, uint32_t len, uint32_t l3,
                        uint8_t *status, uint8_t *errors)
{
    uint32_t rxcsum = e1000_reg(d, E1000_RXCSUM);
    if (!(rxcsum & (E1000_RXCSUM_IPOFL | E1000_RXCSUM_TUOFL))) {
        *status |= E1000_RXD_STAT_IXSM;
        return;
    }
    if (len < l3 + 20 || pkt_get16(f + l3 - 2) != ETHERTYPE_IPV4 || (f[l3] >> 4) != 4)
        return;
    const uint8_t *ip = f + l3;
    uint32_t ihl = (ip[0] & 0xFu) * 4;
    uint32_t total = pkt_get16(ip + 2);
    if (ihl < 20 || l3 + ihl > len)
        return;
    if (rxcsum & E1000_RXCSUM_IPOFL) {
        *status |= E1000_RXD_STAT_IPCS;
        if (pkt_fold(pkt_sum(ip, ihl, 0)) != 0xFFFF)
            *errors |= E1000_RXD_ERR_IPE;
    }
    bool fragment = pkt_get16(ip + 6) & 0x3FFF;
    if ((rxcsum & E1000_RXCSUM_TUOFL) && !fragment && total >= ihl && l3 + total <= len)
        l4_check(ip, ihl, total, status, errors);
}

/* ---- storing an accepted frame ------------------------------------------------- */

e1000_rx_frame *e1000_rx_prepare(e1000 *d, const uint8_t *f, uint32_t len)
{
    bool tagged = is_tagged(d, f, len);
    bool strip = tagged && (e1000_reg(d, E1000_CTRL) & E1000_CTRL_VME);
    uint32_t fcs = (e1000_reg(d, E1000_RCTL) & E1000_RCTL_SECRC) ? 0 : E1000_ETH_FCS;
    uint32_t out = strip ? len - ETH_VLAN_TAG : len;
    e1000_rx_frame *r = calloc(1, sizeof *r + out + fcs);
    if (!r)
        return NULL;
    if (strip) {
        memcpy(r->data, f, 12);
        memcpy(r->data + 12, f + 16, len - 16);
        r->special = pkt_get16(f + 14);
        r->status |= E1000_RXD_STAT_VP;
    } else {
        memcpy(r->data, f, len);
    }
    r->frame_len = out;
    r->len = out + fcs;
    rx_checksum(d, r->data, out, tagged && !strip ? ETH_HLEN + ETH_VLAN_TAG : ETH_HLEN,
                &r->status, &r->errors);
    uint32_t pcss = e1000_reg(d, E1000_RXCSUM) & E1000_RXCSUM_PCSS_MASK;
    r->csum = pcss < out ? pkt_fold(pkt_sum(r->data + pcss, out - pcss, 0)) : 0;
    if (fcs) {
        uint32_t crc = pkt_crc32(r->data, out);
        le32_put(r->data + out, crc);
    }
    return r;
}
