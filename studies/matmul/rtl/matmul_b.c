/*
 * matmul_b.c - the descriptor of design B of the matmul block in RTL
 * (matmul_b.sv): the PCI identity and BAR of the behavioural design B
 * (studies/matmul/model/matmul_regs.h, studies/matmul/docs/matmul.md), so the guest driver
 * (studies/matmul/guest/matmul_b.c, which opens vendor 0x1de5 device 0x0a0b and checks
 * the ID register) drives the RTL exactly as it drives the model; and the
 * names of its trace codes (studies/matmul/rtl/mm_pkg.sv, studies/matmul/docs/rtl-matmul.md).
 */
#include "model/matmul_regs.h"
#include "mortar/rtl_model.h"

MORTAR_RTL_DECLARE_MODEL(matmul_b);

/* Index = trace code; code 0 is never emitted. The names are those of the
 * behavioural model's events, so traces of both read alike. */
static const char *const matmul_b_traces[] = {
    NULL,        "doorbell",       "desc_fetch",    "dma_read",    "dma_read_done",
    "dma_write", "dma_write_done", "compute_start", "compute_end", "completion",
    "interrupt", "error",
};

const mortar_rtl_design MORTAR_RTL_DESIGN(matmul_b) = {
    .name = "matmul_b",
    .summary = "matmul design B (descriptor ring, 128-lane int8 MAC array) in RTL",
    .intro =
        {
            .vendor_id = MATMUL_VENDOR_ID,
            .device_id = MATMUL_DEVICE_B,
            .subsystem_vendor_id = MATMUL_VENDOR_ID,
            .subsystem_id = MATMUL_CODE_B,
            .class_code = MATMUL_CLASS,
            .revision = MATMUL_REVISION,
            .intx_pin = 1,
            .msix_vectors = 1,
            .msix_table_bar = MATMUL_BAR_REGS,
            .msix_pba_bar = MATMUL_BAR_REGS,
            .msix_table_offset = MATMUL_MSIX_TABLE,
            .msix_pba_offset = MATMUL_MSIX_PBA,
            .bars = {{.size = MATMUL_REGS_SIZE}},
        },
    .trace_names = matmul_b_traces,
    .trace_count = sizeof matmul_b_traces / sizeof matmul_b_traces[0],
    .model = &MORTAR_RTL_MODEL(matmul_b),
};
