/*
 * pkt.c - checksums and field access for the NIC models' packet handling
 * (see pkt.h). Nothing here knows about registers or descriptors.
 */
#include "sims/common/pkt.h"

bool pkt_put16(uint8_t *frame, size_t len, size_t off, uint16_t v)
{
    if (off > len || len - off < 2)
        return false;
    frame[off] = (uint8_t)(v >> 8);
    frame[off + 1] = (uint8_t)v;
    return true;
}

bool pkt_put32(uint8_t *frame, size_t len, size_t off, uint32_t v)
{
    if (off > len || len - off < 4)
        return false;
    for (int i = 0; i < 4; i++)
        frame[off + (size_t)i] = (uint8_t)(v >> (24 - 8 * i));
    return true;
}

uint32_t pkt_sum(const uint8_t *p, size_t len, uint32_t sum)
{
    size_t i = 0;
    for (; i + 1 < len; i += 2) {
        sum += pkt_get16(p + i);
        if (sum & 0x80000000u)
            sum = (sum & 0xffff) + (sum >> 16);
    }
    if (i < len)
        sum += (uint32_t)p[i] << 8;
    return sum;
}

uint16_t pkt_fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)sum;
}

uint16_t pkt_add16(uint16_t a, uint16_t b)
{
    return pkt_fold((uint32_t)a + b);
}

uint32_t pkt_crc32(const uint8_t *p, size_t len)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}
