/*
 * mortar/pcie_dispatch.h - the device side of a PCIe link: each message a
 * device model receives from its host, checked for size once and handed to
 * the model's handler for its kind.
 *
 * A model fills a mortar_pcie_device_ops with its handlers and calls
 * mortar_pcie_dispatch() from its component's message callback:
 *
 *   static const mortar_pcie_device_ops ops = {.mmio_read = ..., .mmio_write = ...,
 *                                              .devctrl = ..., .dma_done = ...};
 *   if (!mortar_pcie_dispatch(&ops, dev, msg))
 *       dev->bad_messages++;
 *
 * Handlers see only well-formed messages: an MMIO read carries its header,
 * an MMIO write also the `size` data bytes it announces, a DMA completion
 * at least its header (a read completion's data length is the model's to
 * check against its own request).
 */
#ifndef MORTAR_PCIE_DISPATCH_H
#define MORTAR_PCIE_DISPATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "mortar/component.h"
#include "mortar/pcie.h"

typedef struct mortar_pcie_device_ops {
    void (*mmio_read)(void *dev, const mortar_pcie_mmio *rd);
    void (*mmio_write)(void *dev, const mortar_pcie_mmio *wr);
    void (*devctrl)(void *dev, uint32_t flags); /* MORTAR_PCIE_CTRL_* */
    /* msg->type is MORTAR_PCIE_DMA_READ_DONE or MORTAR_PCIE_DMA_WRITE_DONE */
    void (*dma_done)(void *dev, const mortar_msg *msg);
} mortar_pcie_device_ops;

/* Hands `msg` to the handler of its kind. False, and no handler called,
 * when the message is too short for what it announces or of a kind a
 * device does not receive: the caller counts it. */
bool mortar_pcie_dispatch(const mortar_pcie_device_ops *ops, void *dev,
                          const mortar_msg *msg);

#endif
