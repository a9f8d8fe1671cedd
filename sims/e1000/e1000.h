/*
 * e1000.h - a behavioural model of the Intel 82540EM gigabit Ethernet
 * controller (8254x family), kind "e1000", driven by the Linux e1000 driver.
 *
 * Ports: 0 is PCIe (device side; BAR0 128 KiB registers, BAR1 64-byte I/O
 * window with IOADDR/IODATA, INTx pin A and one MSI vector), 1 is Ethernet.
 * Parameters: mac ("52:54:00:12:34:56"), dma_outstanding (8, 1-256),
 * flow_control (true: the EEPROM and the link partner offer PAUSE).
 * See docs/models/e1000.md for the modelled subset and its timing.
 */
#ifndef MORTAR_SIMS_E1000_H
#define MORTAR_SIMS_E1000_H

#include <stdint.h>

#include "mortar/component.h"

extern const mortar_component_ops mortar_e1000_ops;

#define E1000_PORT_PCIE 0
#define E1000_PORT_ETH  1

/* The model's counters (the same values its stats report). */
typedef struct e1000_counters {
    uint64_t tx_frames, tx_bytes, tx_dropped, tso_segments, csum_offloads;
    uint64_t rx_frames, rx_bytes, rx_missed, rx_filtered;
    uint64_t pause_rx, xoff_tx, xon_tx; /* 802.3x PAUSE frames */
    uint64_t interrupts;
    uint64_t unknown_reg_reads, unknown_reg_writes, bad_mmio, bad_messages;
    uint64_t bad_completions, dma_errors, bad_tail_writes, ring_errors;
} e1000_counters;

/* Copies the counters of the e1000 model behind component `c` (a test
 * bench's view; `c` must be an e1000 component). */
void e1000_get_counters(mortar_component *c, e1000_counters *out);

#endif
