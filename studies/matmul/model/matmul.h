/*
 * matmul.h - the matmul accelerator model (kind "matmul"): a libmortar PCIe
 * device with one int8 compute unit behind one of three host interfaces
 * (design A, design B, register copy; see studies/matmul/docs/matmul.md and
 * matmul_regs.h for the programming model).
 *
 * This header is what runners, benches and tests see: the ops table and the
 * device's counters. The device's inner parts share matmul_internal.h.
 */
#ifndef MORTAR_MATMUL_H
#define MORTAR_MATMUL_H

#include <stdint.h>

#include "mortar/component.h"

extern const mortar_component_ops mortar_matmul_ops;

/* The counters the model reports as stats (same names). */
typedef struct matmul_counters {
    uint64_t requests, steps;
    uint64_t busy_ps, compute_ps;
    uint64_t dma_reads, dma_writes, dma_bytes; /* DMA messages and their payload */
    uint64_t dma_errors;                       /* completions with an error status */
    uint64_t mmio_reads, mmio_writes;
    uint64_t unknown_reg_accesses; /* bad offset, size or BAR; reads return 0 */
    uint64_t bad_completions;      /* unknown request id or wrong size */
    uint64_t doorbells_ignored;    /* doorbell/start while busy */
    uint64_t bad_descriptors;      /* design B: rejected descriptors */
    uint64_t ring_errors;          /* design B: bad TAIL or ring setting */
    uint64_t queued_on_finish;     /* design B: next descriptor already queued */
    uint64_t interrupts;
    uint64_t bad_messages; /* truncated or unknown PCIe messages */
    uint64_t errors;       /* every error above that hit a request or the device */
} matmul_counters;

/* The counters of the matmul component `c` (which must be of this kind). */
void matmul_get_counters(mortar_component *c, matmul_counters *out);

/* Compute time of one tile step in ps: cycles / (clock * speed), to the
 * nearest ps, where speed = speed_ppm / 1e6. 0 when it does not fit. */
uint64_t matmul_step_ps(uint64_t cycles, uint64_t clock_mhz, uint64_t speed_ppm);

#endif
