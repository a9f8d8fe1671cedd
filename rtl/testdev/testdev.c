/*
 * testdev.c - the descriptor of the adapter's test design (testdev.sv): its
 * PCI identity and BAR for the link's intro, and its trace codes' names.
 */
#include "mortar/rtl_model.h"

MORTAR_RTL_DECLARE_MODEL(testdev);

static const char *const testdev_traces[] = {"doorbell", "copy_done", "timer_done"};

const mortar_rtl_design MORTAR_RTL_DESIGN(testdev) = {
    .name = "testdev",
    .summary = "RTL test design: a DMA copy engine with a timer",
    .intro =
        {
            .vendor_id = 0x1de5,
            .device_id = 0x7e58,
            .subsystem_vendor_id = 0x1de5,
            .subsystem_id = 0x0001,
            .class_code = 0xff,
            .revision = 1,
            .msi_vectors = 1,
            .msix_vectors = 4,
            .msix_table_bar = 0,
            .msix_pba_bar = 0,
            .msix_table_offset = 0x800,
            .msix_pba_offset = 0xc00,
            .bars = {{.size = 4096}},
        },
    .trace_names = testdev_traces,
    .trace_count = sizeof testdev_traces / sizeof testdev_traces[0],
    .model = &MORTAR_RTL_MODEL(testdev),
};
