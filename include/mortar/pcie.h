/*
 * mortar/pcie.h - the PCIe protocol over a mortar link.
 *
 * One side is the host (a QEMU adapter, or the test host stub), the other
 * the device (a model such as e1000 or pcitest). The device sends its intro
 * (identity, BARs, interrupt vectors) during the link handshake; the host
 * sends an empty intro. Then:
 *
 *   host -> device: MMIO read, MMIO write (posted or not), device control
 *                   (interrupt enables), DMA read completion (with data),
 *                   DMA write completion.
 *   device -> host: DMA read, DMA write (with data), MMIO read completion
 *                   (with data), MMIO write completion (non-posted writes
 *                   only), interrupt.
 *
 * Request ids are opaque to the receiver and echoed in the completion;
 * completions may come back in any order. All structs are little-endian
 * and packed as written (no implicit padding); data follows the fixed part.
 */
#ifndef MORTAR_PCIE_H
#define MORTAR_PCIE_H

#include <stdint.h>

#include "mortar/link.h"
#include "mortar/pcie_wire.h"

/* Host -> device. */
#define MORTAR_PCIE_MMIO_READ      0x10
#define MORTAR_PCIE_MMIO_WRITE     0x11
#define MORTAR_PCIE_DEVCTRL        0x12
#define MORTAR_PCIE_DMA_READ_DONE  0x13
#define MORTAR_PCIE_DMA_WRITE_DONE 0x14
/* Device -> host. */
#define MORTAR_PCIE_DMA_READ       0x20
#define MORTAR_PCIE_DMA_WRITE      0x21
#define MORTAR_PCIE_MMIO_READ_DONE 0x22
#define MORTAR_PCIE_MMIO_WRITE_DONE 0x23
#define MORTAR_PCIE_INTERRUPT      0x24

#define MORTAR_PCIE_BARS 6

/* BAR flags. A BAR with size 0 is not present. */
#define MORTAR_PCIE_BAR_IO       0x1 /* I/O space instead of memory */
#define MORTAR_PCIE_BAR_64       0x2 /* 64-bit memory BAR (takes the next slot) */
#define MORTAR_PCIE_BAR_PREFETCH 0x4

typedef struct mortar_pcie_bar {
    uint64_t size; /* bytes, a power of two, 0 if absent */
    uint32_t flags;
    uint32_t reserved;
} mortar_pcie_bar;

/* The device's intro: what the host needs to build config space. */
typedef struct mortar_pcie_dev_intro {
    uint16_t vendor_id, device_id;
    uint16_t subsystem_vendor_id, subsystem_id;
    uint8_t class_code, subclass, prog_if, revision;
    uint16_t msi_vectors;  /* 0: no MSI capability */
    uint16_t msix_vectors; /* 0: no MSI-X capability */
    uint8_t msix_table_bar, msix_pba_bar;
    uint8_t intx_pin; /* 0: no INTx, 1-4: INTA-INTD */
    /* Link capabilities, as the PCIe capability's register says them: the
     * fastest generation (1-5) and the widest link (1-16 lanes) the device
     * supports; 0: not stated. A link to the device runs at the lower of
     * these and its slot's (mortar_pcie_wire_train). */
    uint8_t link_gen;
    uint32_t msix_table_offset, msix_pba_offset;
    uint8_t link_lanes;
    uint8_t reserved1[3];
    mortar_pcie_bar bars[MORTAR_PCIE_BARS];
} mortar_pcie_dev_intro;

/* MMIO read and write (host -> device). Writes carry `size` bytes of data;
 * reads ask for `size` bytes (1, 2, 4 or 8 for register accesses; larger
 * for block accesses up to the slot's payload). */
typedef struct mortar_pcie_mmio {
    uint64_t req_id;
    uint64_t offset; /* within the BAR */
    uint32_t size;
    uint8_t bar;
    uint8_t posted; /* writes: 1 when no completion is expected */
    uint16_t reserved;
    uint8_t data[];
} mortar_pcie_mmio;

/* MMIO read completion (device -> host): `size` bytes of data. Also the
 * MMIO write completion (no data, flags 0). */
typedef struct mortar_pcie_mmio_done {
    uint64_t req_id;
    uint32_t size;
    uint32_t flags; /* MORTAR_PCIE_DONE_*; 0 before mortar 2.1 */
    uint8_t data[];
} mortar_pcie_mmio_done;

/*
 * A read completion may hold more than its read: with
 * MORTAR_PCIE_DONE_HOLD in `flags`, a mortar_pcie_read_hold and its `len`
 * bytes follow the `size` data bytes. The device says: "until `until_ps`
 * (my time), unless you send me a data message after this read, I send you
 * nothing, and a read of `bar` inside [offset, offset + len) that reaches me
 * earlier gets, on its arrival, the bytes below at its place". It holds only
 * for reads without side effects, from state that nothing but the device's
 * own next event or a message from the host changes
 * (mortar_port_quiet_until gives that event's time). The host may then
 * answer such reads itself, at the stamp the device's completion would have
 * had (docs/protocol.md §5, "Held reads"). The held bytes cost no wire time:
 * the completion's cost is that of its `size` bytes. A host that does not
 * know the flag reads the completion as before.
 */
#define MORTAR_PCIE_DONE_HOLD 0x1

typedef struct mortar_pcie_read_hold {
    uint64_t until_ps;
    uint64_t offset; /* within the BAR */
    uint32_t len;
    uint8_t bar;
    uint8_t reserved[3];
    uint8_t data[];
} mortar_pcie_read_hold;

#define MORTAR_PCIE_CTRL_INTX_ENABLE 0x1
#define MORTAR_PCIE_CTRL_MSI_ENABLE  0x2
#define MORTAR_PCIE_CTRL_MSIX_ENABLE 0x4
#define MORTAR_PCIE_CTRL_BUS_MASTER  0x8

/* Device control (host -> device): the current interrupt enables. */
typedef struct mortar_pcie_devctrl {
    uint32_t flags;
    uint32_t reserved;
} mortar_pcie_devctrl;

/* DMA request (device -> host): read `size` bytes at `addr`, or write
 * `size` bytes of data to `addr` (host physical addresses). */
typedef struct mortar_pcie_dma {
    uint64_t req_id;
    uint64_t addr;
    uint32_t size;
    uint32_t reserved;
    uint8_t data[];
} mortar_pcie_dma;

/* DMA completion (host -> device): reads carry `size` bytes of data; writes
 * carry none. `status` is 0 on success, nonzero when the host refused the
 * address (the device should treat it as a master abort). A read's
 * completion carries the low 16 bits of the address it read, as PCIe's
 * completions carry their lower address: the link cuts it into the
 * completion TLPs PCIe would send for that address (mortar/pcie_wire.h). */
typedef struct mortar_pcie_dma_done {
    uint64_t req_id;
    uint32_t size;
    uint16_t status;
    uint16_t addr_low;
    uint8_t data[];
} mortar_pcie_dma_done;

#define MORTAR_PCIE_INT_LEGACY_HIGH 0 /* assert INTx */
#define MORTAR_PCIE_INT_LEGACY_LOW  1 /* deassert INTx */
#define MORTAR_PCIE_INT_MSI         2
#define MORTAR_PCIE_INT_MSIX        3

/* Interrupt (device -> host). For MSI/MSI-X, `vector` names the vector;
 * the host owns the address/data tables. */
typedef struct mortar_pcie_interrupt {
    uint16_t vector;
    uint8_t kind; /* MORTAR_PCIE_INT_* */
    uint8_t reserved[5];
} mortar_pcie_interrupt;

_Static_assert(sizeof(mortar_pcie_dev_intro) == 128, "dev intro layout");
_Static_assert(sizeof(mortar_pcie_mmio) == 24, "mmio layout");
_Static_assert(sizeof(mortar_pcie_mmio_done) == 16, "mmio done layout");
_Static_assert(sizeof(mortar_pcie_read_hold) == 24, "read hold layout");
_Static_assert(sizeof(mortar_pcie_dma) == 24, "dma layout");
_Static_assert(sizeof(mortar_pcie_dma_done) == 16, "dma done layout");
_Static_assert(sizeof(mortar_pcie_interrupt) == 8, "interrupt layout");

/*
 * The link a device trains to in a slot of parameters `slot`: the lower of
 * the slot's and the device's (intro) generation and width; the slot's
 * other parameters. A slot without a transaction layer (gen 0) stays so.
 */
void mortar_pcie_wire_train(mortar_pcie_wire *slot, const mortar_pcie_dev_intro *dev);

/* Default slot size for PCIe links: room for an 8 KiB DMA plus headers. */
#define MORTAR_PCIE_SLOT_SIZE 9216
/* Largest DMA payload that fits a default PCIe slot. */
#define MORTAR_PCIE_MAX_DMA (MORTAR_PCIE_SLOT_SIZE - MORTAR_SLOT_HEADER_SIZE - 24)

#endif
