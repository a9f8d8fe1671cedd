/*
 * rtl_model.h - the C side of an RTL design: its ports as plain C integers,
 * its descriptor, and the three calls that drive a Verilated model.
 *
 * docs/rtl-ports.md is the contract these mirror, port for port. A design
 * is Verilated into C++ by the CMake function mortar_add_rtl_design()
 * (cmake/rtl_design.cmake), which also compiles one generic shim
 * (sims/verilator/rtl_shim.cpp) against the design's top module. The shim exports a
 * mortar_rtl_model_ops table named mortar_rtl_model_<design>; the design's
 * C descriptor points at it. No C++ type crosses this header.
 *
 * Driving a model (what the rtl component, mortar/rtl.h, does every edge):
 *
 *   mortar_rtl_model *m = mortar_rtl_model_create(mortar_rtl_design_find("testdev"));
 *   if (!m) ... out of memory
 *   mortar_rtl_ports p = {0};
 *   p.now_ps = t; p.rst_n = 1; p.mmio_req_valid = 1; ...   (inputs)
 *   mortar_rtl_model_edge(m, &p);                           (one rising edge)
 *   if (p.mmio_req_ready) ...                               (outputs at the edge)
 *   mortar_rtl_model_destroy(m);
 *
 * Output values are those the design drives AT the edge: the inputs in `p`
 * are applied, combinational logic settles, the outputs are copied into
 * `p`, then the clock rises. So a handshake transferred at this edge exactly
 * when valid and ready are both high in `p` after the call, and a one-edge
 * pulse (mmio_rsp_valid, irq_valid, ...) is seen in exactly one call.
 */
#ifndef MORTAR_RTL_MODEL_H
#define MORTAR_RTL_MODEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 512-bit DMA beats: 16 words, word 0 = bits 31:0 (bytes 0..3, byte 0 in
 * bits 7:0). */
#define MORTAR_RTL_BEAT_WORDS 16
#define MORTAR_RTL_BEAT_BYTES 64

/* Every port of docs/rtl-ports.md except clk (the shim drives it). Narrow
 * ports use the smallest C integer that holds them; only the low bits of
 * the port's width are meaningful (the shim masks inputs to their width). */
typedef struct mortar_rtl_ports {
    /* ---- inputs: set before mortar_rtl_model_edge() ---- */
    uint8_t rst_n;   /* 1: out of reset */
    uint64_t now_ps; /* the time of this edge */

    uint8_t mmio_req_valid;
    uint8_t mmio_req_write;
    uint8_t mmio_req_bar;  /* 3 bits */
    uint8_t mmio_req_size; /* 4 bits: 1, 2, 4 or 8 */
    uint32_t mmio_req_addr;
    uint64_t mmio_req_wdata;

    uint8_t dma_req_ready;
    uint8_t dma_wdata_ready;

    uint8_t dma_rdata_valid;
    uint8_t dma_rdata_tag;
    uint8_t dma_rdata_last;
    uint8_t dma_rdata_err;
    uint32_t dma_rdata[MORTAR_RTL_BEAT_WORDS];

    uint8_t dma_wresp_valid;
    uint8_t dma_wresp_tag;
    uint8_t dma_wresp_err;

    /* ---- outputs: the values at the edge, filled by the call ---- */
    uint8_t idle;

    uint8_t mmio_req_ready;
    uint8_t mmio_rsp_valid;
    uint64_t mmio_rsp_rdata;

    uint8_t dma_req_valid;
    uint8_t dma_req_write;
    uint8_t dma_req_tag;
    uint16_t dma_req_len; /* 13 bits: 1..4096 */
    uint64_t dma_req_addr;

    uint8_t dma_wdata_valid;
    uint8_t dma_wdata_last;
    uint32_t dma_wdata[MORTAR_RTL_BEAT_WORDS];

    uint8_t dma_rdata_ready;

    uint8_t irq_valid;
    uint8_t irq_vector; /* 5 bits */

    uint8_t trace_valid;
    uint8_t trace_kind;
    uint64_t trace_req;
    uint64_t trace_arg;
} mortar_rtl_ports;

/* One Verilated model instance. The shim's state begins with this struct
 * (the rest, C++, is the shim's own); the calls below go through `ops`. */
typedef struct mortar_rtl_model_ops mortar_rtl_model_ops;
typedef struct mortar_rtl_model {
    const mortar_rtl_model_ops *ops;
} mortar_rtl_model;

/* What the shim exports for one top module. */
struct mortar_rtl_model_ops {
    /* A new model with all state at its initial value (zeros), clock low.
     * NULL when out of memory. */
    mortar_rtl_model *(*create)(void);
    /* One rising edge: inputs from `ports` applied, outputs at the edge
     * copied into `ports`, then the clock rises. */
    void (*edge)(mortar_rtl_model *m, mortar_rtl_ports *ports);
    /* Frees the model (never NULL here: mortar_rtl_model_destroy checks). */
    void (*destroy)(mortar_rtl_model *m);
};

/* The name of the ops table the shim exports for design `name` (the first
 * argument of mortar_add_rtl_design()). */
#define MORTAR_RTL_MODEL(name) mortar_rtl_model_##name
#define MORTAR_RTL_DECLARE_MODEL(name)                                                   \
    extern const mortar_rtl_model_ops MORTAR_RTL_MODEL(name)

/* The rest is C only: the shim (C++) needs just the ports and the ops, and
 * mortar/pcie.h is C11 (flexible array members, _Static_assert). */
#ifndef __cplusplus

#include <stddef.h>

#include "mortar/pcie.h"

/* A design's descriptor, written in C next to its RTL (rtl/<name>/<name>.c)
 * and named mortar_rtl_design_<name>; the adapter finds it by `name`. */
typedef struct mortar_rtl_design {
    const char *name;    /* the adapter's `design` parameter */
    const char *summary; /* one line: what the block does */
    /* What the link sends the host: identity, BARs, interrupt vectors. The
     * adapter accepts MMIO only inside the BARs declared here. */
    mortar_pcie_dev_intro intro;
    /* trace_names[k] names trace code k (trace_kind == k); trace_count
     * entries. A code without a name is recorded as "unknown". */
    const char *const *trace_names;
    unsigned trace_count;
    const mortar_rtl_model_ops *model; /* &MORTAR_RTL_MODEL(name) */
} mortar_rtl_design;

#define MORTAR_RTL_DESIGN(name) mortar_rtl_design_##name

/* ---- driving a model (the hot path: inline) ------------------------------- */

/* A new model of `design`, or NULL when out of memory. */
static inline mortar_rtl_model *mortar_rtl_model_create(const mortar_rtl_design *design)
{
    return design->model->create();
}

/* One rising edge of `m` (see the top of this file). */
static inline void mortar_rtl_model_edge(mortar_rtl_model *m, mortar_rtl_ports *ports)
{
    m->ops->edge(m, ports);
}

/* Frees `m`; NULL is a no-op. */
static inline void mortar_rtl_model_destroy(mortar_rtl_model *m)
{
    if (m)
        m->ops->destroy(m);
}

/* ---- designs as plugins ---------------------------------------------------- */

/* A design built as a plugin, mortar-rtl-<name>.so (mortar_add_rtl_design
 * with PLUGIN, cmake/rtl_design.cmake), exports this entry point; the
 * returned description is static. `abi` comes first in every version. */
#define MORTAR_RTL_PLUGIN_ENTRY "mortar_plugin_rtl_design"

typedef struct mortar_rtl_plugin_info {
    uint32_t abi;            /* MORTAR_PLUGIN_ABI the plugin was built for */
    uint32_t reserved;       /* 0 */
    const char *sdk_version; /* MORTAR_VERSION_STRING of its build */
    const mortar_rtl_design *design;
} mortar_rtl_plugin_info;

/* ---- finding a design (in the library mortar_rtl, mortar/rtl.h) ------------- */

/* The design built into this mortar called `name`, or NULL. */
const mortar_rtl_design *mortar_rtl_design_find(const char *name);

/* The design called `name`: built in, else the plugin mortar-rtl-<name>.so
 * in MORTAR_PLUGIN_PATH or the installed plugin directory (the same search
 * as a model's, mortar/plugin.h). NULL with the reason in `err` when there
 * is none or the plugin is refused. A plugin stays loaded. */
const mortar_rtl_design *mortar_rtl_design_lookup(const char *name, char *err, size_t size);

/* The NULL-terminated list of the designs built in (generated by CMake from
 * every mortar_add_rtl_design() call). */
const mortar_rtl_design *const *mortar_rtl_designs(void);

#endif /* !__cplusplus */

#ifdef __cplusplus
}
#endif

#endif
