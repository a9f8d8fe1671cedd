/*
 * pcie_dispatch.c - host-to-device PCIe messages to a model's handlers
 * (mortar/pcie_dispatch.h).
 */
#include "mortar/pcie_dispatch.h"

static bool mmio_fits(const mortar_msg *msg, bool write)
{
    if (msg->size < sizeof(mortar_pcie_mmio))
        return false;
    const mortar_pcie_mmio *mm = msg->payload;
    return !write || msg->size - sizeof *mm >= mm->size;
}

bool mortar_pcie_dispatch(const mortar_pcie_device_ops *ops, void *dev,
                          const mortar_msg *msg)
{
    switch (msg->type) {
    case MORTAR_PCIE_MMIO_READ:
        if (!mmio_fits(msg, false))
            return false;
        ops->mmio_read(dev, msg->payload);
        return true;
    case MORTAR_PCIE_MMIO_WRITE:
        if (!mmio_fits(msg, true))
            return false;
        ops->mmio_write(dev, msg->payload);
        return true;
    case MORTAR_PCIE_DEVCTRL:
        if (msg->size < sizeof(mortar_pcie_devctrl))
            return false;
        ops->devctrl(dev, ((const mortar_pcie_devctrl *)msg->payload)->flags);
        return true;
    case MORTAR_PCIE_DMA_READ_DONE:
    case MORTAR_PCIE_DMA_WRITE_DONE:
        if (msg->size < sizeof(mortar_pcie_dma_done))
            return false;
        ops->dma_done(dev, msg);
        return true;
    }
    return false;
}
