/*
 * mortar/pcie_wire.h - the PCIe transaction layer of a link: what each
 * message of the PCIe protocol (mortar/pcie.h) costs on the wire.
 *
 * A PCIe link with a transaction layer (`gen` not 0) turns every message
 * into the packets (TLPs) PCIe would carry for it and charges their bytes at
 * the link's rate, in the sender's direction, behind what that direction
 * already carries (mortar/link.h: busy until, then the latency):
 *
 *   memory write (MMIO write, DMA write, MSI/MSI-X)  split at the max
 *       payload size (MPS), each TLP its payload (whole doublewords) plus a
 *       3- or 4-doubleword header;
 *   memory read (MMIO read, DMA read)   split at the max read request size
 *       (MRRS), each a header-only TLP;
 *   completion with data (MMIO and DMA read done)  split at the read
 *       completion boundary (RCB) and at most MPS each, 3-doubleword header;
 *   completion without data (MMIO write done) and INTx messages  one TLP.
 *
 * Every TLP adds 8 bytes of framing, sequence number and LCRC; the rate is
 * the lanes' line rate after 8b/10b or 128b/130b coding, less the share
 * that ACK and flow-control DLLPs and SKP ordered sets take. Two messages
 * are not PCIe packets and cost no wire time: device control (the host's
 * copy of config-space bits) and DMA write done (posted writes have no
 * completion). docs/pcie.md gives every constant with its source.
 *
 * Ordering: each direction is one queue, so nothing passes anything sent
 * before it in the same direction; PCIe's rules (no completion and no
 * posted write passes a posted write) hold, and so do the stricter ones.
 *
 * A DMA read request is acted on when its first TLP arrives (the host
 * starts its completions then, while the rest of the requests follow): its
 * message is stamped at that arrival, though it keeps the wire busy for all
 * of them. Host time: an MMIO read waits `mmio_read_host_ps` and a DMA read
 * completion `dma_read_host_ps` in the host before entering the link (root
 * complex and memory; 0 by default).
 */
#ifndef MORTAR_PCIE_WIRE_H
#define MORTAR_PCIE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The PCIe parameters of one link, the same in both directions. The
 * layout is part of the link's intro (docs/protocol.md). */
typedef struct mortar_pcie_wire {
    uint8_t gen;   /* 1-5 (2.5, 5, 8, 16, 32 GT/s); 0: no transaction layer */
    uint8_t lanes; /* 1, 2, 4, 8 or 16 */
    uint16_t mps;  /* max payload size, bytes: 128-4096, a power of two */
    uint16_t mrrs; /* max read request size, bytes: 128-4096, a power of two */
    uint16_t rcb;  /* read completion boundary, bytes: 64 or 128 */
    uint64_t dma_read_host_ps;  /* host: a DMA read's arrival to its completion */
    uint64_t mmio_read_host_ps; /* host: an MMIO read's issue to the link */
} mortar_pcie_wire;

_Static_assert(sizeof(mortar_pcie_wire) == 24, "pcie wire layout");

/* Defaults: PCIe 3.0 x16, MPS 256, MRRS 512, RCB 64, no host time. */
#define MORTAR_PCIE_DEFAULT_GEN   3
#define MORTAR_PCIE_DEFAULT_LANES 16
#define MORTAR_PCIE_DEFAULT_MPS   256
#define MORTAR_PCIE_DEFAULT_MRRS  512
#define MORTAR_PCIE_DEFAULT_RCB   64

/* Fills `w` with the defaults above. */
void mortar_pcie_wire_init(mortar_pcie_wire *w);

/* Checks `w` (gen 0 is valid: no layer) and writes a message naming the bad
 * field into `err` ("lanes: 3 is not one of 1, 2, 4, 8, 16"). Returns 0 or
 * MORTAR_EINVAL. */
int mortar_pcie_wire_check(const mortar_pcie_wire *w, char *err, size_t err_size);

/* What one message costs (mortar_pcie_wire_cost). */
typedef struct mortar_pcie_cost {
    uint64_t host_ps;  /* in the host before it enters the link */
    uint64_t wire_ps;  /* all its TLPs, at the link's rate */
    uint64_t first_ps; /* its first TLP: when the receiver acts (read
                        * requests), else wire_ps */
    uint64_t bytes;    /* their bytes on the link, framing included */
    uint32_t tlps;     /* how many TLPs */
} mortar_pcie_cost;

/*
 * The cost of the PCIe message of `type` with `payload` of `size` bytes
 * (as sent on the link) on a link with parameters `w` (checked). A type
 * that is not a PCIe packet, and a payload too short for its type (the
 * receiver refuses it), cost nothing. Never fails.
 */
void mortar_pcie_wire_cost(const mortar_pcie_wire *w, uint8_t type, const void *payload,
                           uint32_t size, mortar_pcie_cost *out);

/* True for the messages that carry DMA data over the link (a DMA write, a
 * DMA read's completion): the ones whose wire time traces record
 * (docs/traces.md, pcie_wire). */
bool mortar_pcie_moves_dma_data(uint8_t type);

/* The link time of `bytes` bytes (TLPs with their framing) at the rate of
 * `w`, rounded up to the next picosecond. */
uint64_t mortar_pcie_wire_ps(const mortar_pcie_wire *w, uint64_t bytes);

/* Bytes on the link of the TLPs a memory write, a memory read request, or
 * the completions of a read carry for `len` bytes at `addr` (address size
 * from `addr` itself: below 4 GiB, 3-doubleword headers). *tlps, when not
 * NULL, gets their count. For tests, benchmarks and docs. */
uint64_t mortar_pcie_write_bytes(const mortar_pcie_wire *w, uint64_t addr, uint64_t len,
                                 uint32_t *tlps);
uint64_t mortar_pcie_read_request_bytes(const mortar_pcie_wire *w, uint64_t addr,
                                        uint64_t len, uint32_t *tlps);
uint64_t mortar_pcie_completion_bytes(const mortar_pcie_wire *w, uint64_t addr,
                                      uint64_t len, uint32_t *tlps);

#endif
