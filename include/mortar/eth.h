/*
 * mortar/eth.h - the Ethernet protocol over a mortar link.
 *
 * One message carries one Ethernet frame: destination MAC, source MAC,
 * EtherType/length, payload; no preamble and no FCS. The link's bandwidth,
 * when set, serializes each frame as frame bytes plus MORTAR_ETH_OVERHEAD
 * (preamble, start delimiter, FCS and inter-frame gap). Both sides send an
 * empty upper intro.
 */
#ifndef MORTAR_ETH_H
#define MORTAR_ETH_H

#include <stdint.h>

#include "mortar/link.h"

#define MORTAR_ETH_FRAME 0x10

/* Preamble 7 + SFD 1 + FCS 4 + inter-frame gap 12 bytes. */
#define MORTAR_ETH_OVERHEAD 24

/* Largest frame carried: a 9000-byte MTU plus the 14-byte header and a VLAN
 * tag. The default Ethernet slot size holds it. */
#define MORTAR_ETH_MAX_FRAME 9018
#define MORTAR_ETH_SLOT_SIZE 9088

/* Sends one frame at `now_ps`, serialized with the Ethernet overhead. */
static inline int mortar_eth_send(mortar_link *link, uint64_t now_ps, const void *frame,
                                  uint32_t size, uint64_t *stamp)
{
    return mortar_link_send(link, now_ps, MORTAR_ETH_FRAME, frame, size,
                            size + MORTAR_ETH_OVERHEAD, stamp);
}

#endif
