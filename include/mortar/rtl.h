/*
 * mortar/rtl.h - the `rtl` component: an RTL design (mortar/rtl_model.h)
 * on the device side of a PCIe link, clocked on the simulated clock. It is
 * built into mortar-sim; a study's own programs (an alone bench driving a
 * design in RTL through mortar/hoststub.h) link it from the library
 * mortar_rtl (docs/sdk.md).
 *
 * Parameters: design (the name of a design, required: built in, or the
 * plugin mortar-rtl-<design>.so on the plugin path, mortar/rtl_model.h),
 * clock_mhz (1..10000, default 400): one rising edge every
 * round(10^6 / clock_mhz) ps, edge k at k * period from the start of the
 * run. The first 4 edges hold rst_n low. While the design says it is idle
 * and nothing waits to be presented to it, no edge is evaluated and no
 * timer is pending; the next input resumes the clock on the edge grid
 * (docs/models/rtl-adapter.md).
 *
 * Tests read the counters directly:
 *   mortar_rtl_counters c; mortar_rtl_get_counters(component, &c);
 */
#ifndef MORTAR_RTL_H
#define MORTAR_RTL_H

#include <stdint.h>

#include "mortar/component.h"

extern const mortar_component_ops mortar_rtl_ops;

/* The clock period for `clock_mhz`, rounded to the nearest picosecond. */
uint64_t mortar_rtl_period_ps(uint64_t clock_mhz);

typedef struct mortar_rtl_counters {
    uint64_t edges;         /* edges evaluated (reset included) */
    uint64_t edges_skipped; /* grid edges not evaluated because the design was idle */
    uint64_t mmio_reads, mmio_writes;
    uint64_t mmio_refused; /* outside the BARs or of a size the contract has not */
    uint64_t mmio_dropped; /* the request queue was full */
    uint64_t dma_reads, dma_writes, dma_read_bytes, dma_write_bytes;
    uint64_t dma_errors;   /* completions with a nonzero status */
    uint64_t irqs;         /* interrupts sent */
    uint64_t irqs_dropped; /* no MSI-X or MSI enabled, or a vector out of range */
    uint64_t traces;
    uint64_t bad_messages;  /* from the link: malformed, unknown kind or id */
    uint64_t design_errors; /* the design broke the contract (docs/rtl-ports.md) */
    uint64_t send_errors;   /* mortar_send failed (message too big for the link) */
} mortar_rtl_counters;

/* The counters of `rtl` component `c` (its state must be an rtl adapter). */
void mortar_rtl_get_counters(mortar_component *c, mortar_rtl_counters *out);

#endif
