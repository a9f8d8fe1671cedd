/*
 * sims/eth/pause.c - IEEE 802.3x PAUSE frames: build, parse, duration (see
 * pause.h for the format and the rules a model follows).
 */
#include "sims/eth/pause.h"

#include <string.h>

#include "mortar/time.h"

#define ETH_HEADER_BYTES 14

const uint8_t eth_pause_group_address[6] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};

uint32_t eth_pause_build(uint8_t out[ETH_PAUSE_FRAME_BYTES], const uint8_t src_mac[6],
                         uint16_t quanta)
{
    memset(out, 0, ETH_PAUSE_FRAME_BYTES);
    memcpy(out, eth_pause_group_address, 6);
    memcpy(out + 6, src_mac, 6);
    out[12] = ETH_MAC_CONTROL_ETHERTYPE >> 8;
    out[13] = ETH_MAC_CONTROL_ETHERTYPE & 0xFF;
    out[14] = ETH_PAUSE_OPCODE >> 8;
    out[15] = ETH_PAUSE_OPCODE & 0xFF;
    out[16] = (uint8_t)(quanta >> 8);
    out[17] = (uint8_t)quanta;
    return ETH_PAUSE_FRAME_BYTES;
}

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

bool eth_mac_control(const uint8_t *frame, uint32_t len)
{
    return len >= ETH_HEADER_BYTES && be16(frame + 12) == ETH_MAC_CONTROL_ETHERTYPE;
}

bool eth_pause_parse(const uint8_t *frame, uint32_t len, uint16_t *quanta)
{
    if (!eth_mac_control(frame, len) || len < ETH_HEADER_BYTES + 4 ||
        be16(frame + ETH_HEADER_BYTES) != ETH_PAUSE_OPCODE)
        return false;
    *quanta = be16(frame + ETH_HEADER_BYTES + 2);
    return true;
}

uint64_t eth_pause_duration_ps(uint16_t quanta, uint64_t rate_bps)
{
    return mortar_serialization_ps((uint64_t)quanta * (ETH_PAUSE_QUANTUM_BITS / 8),
                                   rate_bps);
}
