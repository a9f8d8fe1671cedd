/*
 * sims/eth/pause.h - IEEE 802.3x flow control: building and reading PAUSE
 * frames, and how long one holds a transmitter. Shared by every model that
 * sends or honours PAUSE (the switch, the NICs).
 *
 * A PAUSE frame is a MAC control frame (802.3 annex 31B): destination the
 * reserved group address 01-80-C2-00-00-01, EtherType 0x8808, opcode 0x0001,
 * a 16-bit pause time in quanta of 512 bit times at the receiving port's
 * rate, then zeros up to the 60-byte minimum frame (without FCS, as frames
 * travel on a mortar link). Quanta 0 ("XON") lets the transmitter go at
 * once. A receiver that honours PAUSE finishes the frame it is sending,
 * then sends nothing but MAC control frames until the time has passed or a
 * new PAUSE says otherwise; MAC control frames are consumed by the MAC and
 * never forwarded or handed to software.
 *
 * Usage, in a model's message handler:
 *
 *     uint16_t quanta;
 *     if (eth_mac_control(frame, len)) {
 *         if (eth_pause_parse(frame, len, &quanta) && honour_pause)
 *             paused_until = now + eth_pause_duration_ps(quanta, port_rate_bps);
 *         return;                                       // never forwarded
 *     }
 * and to send one:
 *     uint8_t f[ETH_PAUSE_FRAME_BYTES];
 *     mortar_send(self, port, MORTAR_ETH_FRAME, f, eth_pause_build(f, my_mac, 0xFFFF),
 *                 0, NULL);
 */
#ifndef MORTAR_SIMS_ETH_PAUSE_H
#define MORTAR_SIMS_ETH_PAUSE_H

#include <stdbool.h>
#include <stdint.h>

#define ETH_MAC_CONTROL_ETHERTYPE 0x8808
#define ETH_PAUSE_OPCODE          0x0001
#define ETH_PAUSE_FRAME_BYTES     60  /* the minimum frame, FCS not included */
#define ETH_PAUSE_QUANTUM_BITS    512 /* one pause quantum in bit times */

/* 01-80-C2-00-00-01, the destination of PAUSE frames. */
extern const uint8_t eth_pause_group_address[6];

/* Writes a PAUSE frame from `src_mac` asking for `quanta` (0: XON) into
 * `out`; returns its size, ETH_PAUSE_FRAME_BYTES. */
uint32_t eth_pause_build(uint8_t out[ETH_PAUSE_FRAME_BYTES], const uint8_t src_mac[6],
                         uint16_t quanta);

/* True when the `len`-byte frame is a MAC control frame (EtherType 0x8808,
 * untagged): the MAC consumes it, whatever its opcode. */
bool eth_mac_control(const uint8_t *frame, uint32_t len);

/* True when the frame is a PAUSE frame (MAC control, opcode 0x0001, long
 * enough to hold the pause time); stores the pause time in *quanta. The
 * destination address is not checked: 802.3 lets a MAC accept PAUSE at the
 * group address or its own, and a port of a switch has no address of its
 * own to compare with. */
bool eth_pause_parse(const uint8_t *frame, uint32_t len, uint16_t *quanta);

/* How long `quanta` hold a transmitter sending at `rate_bps`: quanta x 512
 * bit times, in picoseconds rounded up; 0 when `rate_bps` is 0. */
uint64_t eth_pause_duration_ps(uint16_t quanta, uint64_t rate_bps);

#endif
