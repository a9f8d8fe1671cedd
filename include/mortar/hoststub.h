/*
 * mortar/hoststub.h - the host side of the PCIe protocol, for testing devices
 * without QEMU.
 *
 * The host stub is a component (kind "hoststub", one PCIe port, the host
 * side) with host memory that devices reach by DMA, and a blocking driver
 * API: each call sends its request and steps the event loop until the answer
 * is there, so a test can be written as the straight-line code a driver
 * would run. Simulated time advances only inside these calls.
 *
 * Parameters: mem_size (bytes of host memory, default 64 MiB) at physical
 * address mem_base (default 0x10000000). DMA outside that window is refused
 * (status 1 in the completion) and counted.
 *
 * Use:
 *   mortar_component *c; mortar_loop_add(loop, &mortar_hoststub_ops, "host", NULL, &c);
 *   ... add the device, mortar_loop_connect(loop, c, 0, dev, 0, &link_params);
 *   mortar_hoststub *h = mortar_hoststub_get(c, loop);
 *   uint32_t v = (uint32_t)mortar_hoststub_mmio_read(h, 0, 0x8, 4);
 */
#ifndef MORTAR_HOSTSTUB_H
#define MORTAR_HOSTSTUB_H

#include <stdbool.h>
#include <stdint.h>

#include "mortar/pcie.h"
#include "mortar/runtime.h"

typedef struct mortar_hoststub mortar_hoststub;

extern const mortar_component_ops mortar_hoststub_ops;

/* The stub behind component `c`, attached to `loop` (which it will step). */
mortar_hoststub *mortar_hoststub_get(mortar_component *c, mortar_loop *loop);

/* The device's intro as received on the link; NULL when it sent none. */
const mortar_pcie_dev_intro *mortar_hoststub_dev_intro(mortar_hoststub *h);

/* Current simulated time (ps). */
uint64_t mortar_hoststub_now(mortar_hoststub *h);

/* Register access. A read waits for the completion (the CPU stalls), a write
 * is posted. Values are little-endian, size 1, 2, 4 or 8. A read that never
 * completes returns all ones and sets the error flag. */
uint64_t mortar_hoststub_mmio_read(mortar_hoststub *h, uint8_t bar, uint64_t offset,
                                   uint32_t size);
void mortar_hoststub_mmio_write(mortar_hoststub *h, uint8_t bar, uint64_t offset,
                                uint32_t size, uint64_t value);
/* Block access of any size that fits a message (register-copy windows). */
void mortar_hoststub_mmio_write_block(mortar_hoststub *h, uint8_t bar, uint64_t offset,
                                      const void *data, uint32_t size);
void mortar_hoststub_mmio_read_block(mortar_hoststub *h, uint8_t bar, uint64_t offset,
                                     void *data, uint32_t size);

/* Sends device control (MORTAR_PCIE_CTRL_* flags). */
void mortar_hoststub_devctrl(mortar_hoststub *h, uint32_t flags);

/* Lets `ps` of simulated time pass (the CPU doing something else). */
void mortar_hoststub_delay(mortar_hoststub *h, uint64_t ps);

/* Waits until an interrupt arrives or `timeout_ps` passes. Returns true and
 * the vector (and kind) of the oldest unconsumed interrupt, consuming it. */
bool mortar_hoststub_wait_interrupt(mortar_hoststub *h, uint64_t timeout_ps,
                                    uint16_t *vector, uint8_t *kind);

/* Number of interrupts received so far. */
uint64_t mortar_hoststub_interrupts(mortar_hoststub *h);

/* Steps the loop until the 32-bit word at host address `addr` satisfies
 * (word & mask) == value, or `timeout_ps` passes (false then). Polling host
 * memory costs no link traffic. */
bool mortar_hoststub_wait_mem32(mortar_hoststub *h, uint64_t addr, uint32_t mask,
                                uint32_t value, uint64_t timeout_ps);

/* A pointer to host memory at physical `addr` for `size` bytes, or NULL
 * when outside the window. */
void *mortar_hoststub_mem(mortar_hoststub *h, uint64_t addr, uint64_t size);

/* The first physical address of host memory and its size. */
uint64_t mortar_hoststub_mem_base(mortar_hoststub *h);
uint64_t mortar_hoststub_mem_size(mortar_hoststub *h);

/* True once something went wrong (a read never completed, the loop failed);
 * the text says what. */
bool mortar_hoststub_failed(mortar_hoststub *h);
const char *mortar_hoststub_errmsg(mortar_hoststub *h);

/* Counters. */
typedef struct mortar_hoststub_counters {
    uint64_t mmio_reads, mmio_writes, mmio_read_stall_ps;
    uint64_t dma_reads, dma_writes, dma_read_bytes, dma_write_bytes, dma_errors;
    uint64_t interrupts, bad_messages;
} mortar_hoststub_counters;

void mortar_hoststub_get_counters(mortar_hoststub *h, mortar_hoststub_counters *out);

#endif
