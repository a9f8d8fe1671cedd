/*
 * pkt.h - byte-level helpers for Ethernet/IP/TCP frames, shared by the NIC
 * models (e1000, i40e) for their offloads and receive checks: big-endian
 * field access with bounds checks, the Internet ones' complement sum, and
 * the Ethernet CRC-32.
 */
#ifndef MORTAR_SIMS_PKT_H
#define MORTAR_SIMS_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ETH_HLEN       14
#define ETH_VLAN_TAG   4
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86DD
#define IPPROTO_TCP_   6
#define IPPROTO_UDP_   17

static inline uint16_t pkt_get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t pkt_get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Store a big-endian field at `off` when it lies inside `len` bytes; returns
 * false (and writes nothing) otherwise. */
bool pkt_put16(uint8_t *frame, size_t len, size_t off, uint16_t v);
bool pkt_put32(uint8_t *frame, size_t len, size_t off, uint32_t v);

/* Ones' complement sum of `len` bytes as big-endian 16-bit words (a final
 * odd byte is the high half), added to `sum`; not folded. */
uint32_t pkt_sum(const uint8_t *p, size_t len, uint32_t sum);

/* Folds a sum to 16 bits (not complemented). */
uint16_t pkt_fold(uint32_t sum);

/* Ones' complement addition of two 16-bit values. */
uint16_t pkt_add16(uint16_t a, uint16_t b);

/* The Ethernet frame check sequence (CRC-32, reflected, as sent on the
 * wire least significant byte first). */
uint32_t pkt_crc32(const uint8_t *p, size_t len);

#endif
