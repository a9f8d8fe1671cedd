/*
 * i40e.h - a behavioural model of the Intel Ethernet Controller XL710
 * (40 GbE, physical function 0), kind "i40e", driven by the unmodified Linux
 * i40e driver.
 *
 * Ports: 0 is PCIe (device side; 8086:1583, BAR0 4 MiB of registers, BAR3
 * the MSI-X table and PBA, 65 MSI-X vectors), 1 is Ethernet.
 * Parameters: mac ("52:54:00:12:34:56"), speed (line rate, "40Gbps"),
 * dma_outstanding (DMA requests in flight, 64, 1-256), flow_control (the
 * PHY offers 802.3x PAUSE, true).
 * See docs/models/i40e.md for the modelled subset and its timing.
 */
#ifndef MORTAR_SIMS_I40E_H
#define MORTAR_SIMS_I40E_H

#include <stdint.h>

#include "mortar/component.h"

extern const mortar_component_ops mortar_i40e_ops;

#define I40E_PORT_PCIE 0
#define I40E_PORT_ETH  1

/* The model's counters (the same values its stats report). */
typedef struct i40e_counters {
    uint64_t tx_frames, tx_bytes, tx_dropped, tso_segments, csum_offloads;
    uint64_t rx_frames, rx_bytes, rx_missed, rx_filtered;
    uint64_t pause_rx, xoff_tx, xon_tx; /* 802.3x PAUSE frames */
    uint64_t interrupts, aq_commands, aq_unsupported, aq_events;
    uint64_t unknown_reg_reads, unknown_reg_writes, bad_mmio, bad_messages;
    uint64_t bad_completions, dma_errors, bad_tail_writes, ring_errors, bad_descriptors;
} i40e_counters;

/* Copies the counters of the i40e model behind component `c` (a test
 * bench's view; `c` must be an i40e component). */
void i40e_get_counters(mortar_component *c, i40e_counters *out);

#endif
