/*
 * PLACEHOLDER — delete when hosts/qemu/src/mortar_pci.c lands.
 *
 * A minimal PCI device, "mortar-pci-placeholder", that exists only so the
 * QEMU build hook (hw/misc/mortar/, see hosts/qemu/build.sh) has a source to
 * compile and so the smoke test can see a mortar device on the guest's PCI
 * bus. It has one 4 KiB memory BAR whose reads return a fixed magic value
 * and whose writes are ignored. It does no DMA and raises no interrupts.
 */
#include "qemu/osdep.h"
#include "qemu/module.h"
#include "hw/pci/pci.h"
#include "qom/object.h"

#define TYPE_MORTAR_PLACEHOLDER "mortar-pci-placeholder"
#define MORTAR_PLACEHOLDER_VENDOR_ID 0x1234 /* QEMU's unofficial test vendor */
#define MORTAR_PLACEHOLDER_DEVICE_ID 0x6d70
#define MORTAR_PLACEHOLDER_MAGIC 0x6d6f7274u /* "mort" */

OBJECT_DECLARE_SIMPLE_TYPE(MortarPlaceholderState, MORTAR_PLACEHOLDER)

struct MortarPlaceholderState {
    PCIDevice pdev;
    MemoryRegion bar0;
};

static uint64_t placeholder_read(void *opaque, hwaddr addr, unsigned size)
{
    return MORTAR_PLACEHOLDER_MAGIC;
}

static void placeholder_write(void *opaque, hwaddr addr, uint64_t val,
                              unsigned size)
{
}

static const MemoryRegionOps placeholder_ops = {
    .read = placeholder_read,
    .write = placeholder_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 4, .max_access_size = 4 },
};

static void placeholder_realize(PCIDevice *pdev, Error **errp)
{
    MortarPlaceholderState *s = MORTAR_PLACEHOLDER(pdev);

    memory_region_init_io(&s->bar0, OBJECT(s), &placeholder_ops, s,
                          "mortar-placeholder-bar0", 4096);
    pci_register_bar(pdev, 0, PCI_BASE_ADDRESS_SPACE_MEMORY, &s->bar0);
}

static void placeholder_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = placeholder_realize;
    k->vendor_id = MORTAR_PLACEHOLDER_VENDOR_ID;
    k->device_id = MORTAR_PLACEHOLDER_DEVICE_ID;
    k->class_id = PCI_CLASS_OTHERS;
    dc->desc = "mortar placeholder PCI device (to be replaced by mortar-pci)";
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo placeholder_info = {
    .name = TYPE_MORTAR_PLACEHOLDER,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(MortarPlaceholderState),
    .class_init = placeholder_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void placeholder_register_types(void)
{
    type_register_static(&placeholder_info);
}

type_init(placeholder_register_types)
