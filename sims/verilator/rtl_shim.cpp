/*
 * rtl_shim.cpp - the one piece of C++ between a Verilated top module and
 * rtl_model.h: copies mortar_rtl_ports into the model's ports, clocks one
 * edge, copies the outputs back.
 *
 * Generic: mortar_add_rtl_design() (cmake/rtl_design.cmake) compiles this
 * file once per design with
 *   MORTAR_RTL_CLASS   the Verilated class (V<top>),
 *   MORTAR_RTL_HEADER  its header ("V<top>.h"),
 *   MORTAR_RTL_NAME    the design's name,
 * and it exports `const mortar_rtl_model_ops mortar_rtl_model_<name>`. No
 * exception leaves it: a failed allocation is a NULL model.
 */
#include <cstdint>
#include <new>
#include <type_traits>

#include "verilated.h"
#include MORTAR_RTL_HEADER

#include "mortar/rtl_model.h"

namespace
{

using Top = MORTAR_RTL_CLASS;

/* One model: the C view first (rtl_model.h's rule; all members plain
 * pointers, so the struct is standard-layout and the cast to its first
 * member is exact), then its own context, so that models in one process
 * never share time or state. */
struct Model {
    mortar_rtl_model base;
    VerilatedContext *context;
    Top *top;
};

static_assert(std::is_standard_layout<Model>::value, "the cast to mortar_rtl_model");

void copy_in(Top &t, const mortar_rtl_ports &p)
{
    t.rst_n = p.rst_n & 1u;
    t.now_ps = p.now_ps;
    t.mmio_req_valid = p.mmio_req_valid & 1u;
    t.mmio_req_write = p.mmio_req_write & 1u;
    t.mmio_req_bar = p.mmio_req_bar & 7u;
    t.mmio_req_size = p.mmio_req_size & 15u;
    t.mmio_req_addr = p.mmio_req_addr;
    t.mmio_req_wdata = p.mmio_req_wdata;
    t.dma_req_ready = p.dma_req_ready & 1u;
    t.dma_wdata_ready = p.dma_wdata_ready & 1u;
    t.dma_rdata_valid = p.dma_rdata_valid & 1u;
    t.dma_rdata_tag = p.dma_rdata_tag;
    t.dma_rdata_last = p.dma_rdata_last & 1u;
    t.dma_rdata_err = p.dma_rdata_err & 1u;
    for (int i = 0; i < MORTAR_RTL_BEAT_WORDS; i++)
        t.dma_rdata[i] = p.dma_rdata[i];
    t.dma_wresp_valid = p.dma_wresp_valid & 1u;
    t.dma_wresp_tag = p.dma_wresp_tag;
    t.dma_wresp_err = p.dma_wresp_err & 1u;
}

void copy_out(const Top &t, mortar_rtl_ports &p)
{
    p.idle = t.idle;
    p.mmio_req_ready = t.mmio_req_ready;
    p.mmio_rsp_valid = t.mmio_rsp_valid;
    p.mmio_rsp_rdata = t.mmio_rsp_rdata;
    p.dma_req_valid = t.dma_req_valid;
    p.dma_req_write = t.dma_req_write;
    p.dma_req_tag = t.dma_req_tag;
    p.dma_req_len = t.dma_req_len;
    p.dma_req_addr = t.dma_req_addr;
    p.dma_wdata_valid = t.dma_wdata_valid;
    p.dma_wdata_last = t.dma_wdata_last;
    for (int i = 0; i < MORTAR_RTL_BEAT_WORDS; i++)
        p.dma_wdata[i] = t.dma_wdata[i];
    p.dma_rdata_ready = t.dma_rdata_ready;
    p.irq_valid = t.irq_valid;
    p.irq_vector = t.irq_vector;
    p.trace_valid = t.trace_valid;
    p.trace_kind = t.trace_kind;
    p.trace_req = t.trace_req;
    p.trace_arg = t.trace_arg;
}

mortar_rtl_model *model_create();

void model_edge(mortar_rtl_model *m, mortar_rtl_ports *ports)
{
    Top &t = *reinterpret_cast<Model *>(m)->top;
    copy_in(t, *ports);
    t.clk = 0; /* settle the new inputs: the values at the edge */
    t.eval();
    copy_out(t, *ports);
    t.clk = 1;
    t.eval();
}

void model_destroy(mortar_rtl_model *m)
{
    Model *model = reinterpret_cast<Model *>(m);
    model->top->final();
    delete model->top; /* before its context */
    delete model->context;
    delete model;
}

} // namespace

#define MORTAR_RTL_PASTE(a, b) a##b
#define MORTAR_RTL_OPS(name)   MORTAR_RTL_PASTE(mortar_rtl_model_, name)

extern "C" {
extern const mortar_rtl_model_ops MORTAR_RTL_OPS(MORTAR_RTL_NAME);
const mortar_rtl_model_ops MORTAR_RTL_OPS(MORTAR_RTL_NAME) = {model_create, model_edge,
                                                              model_destroy};
}

namespace
{

mortar_rtl_model *model_create()
{
    Model *m =
        new (std::nothrow) Model{{&MORTAR_RTL_OPS(MORTAR_RTL_NAME)}, nullptr, nullptr};
    if (!m)
        return nullptr;
    try {
        m->context = new VerilatedContext;
        m->top = new Top(m->context, "top");
    } catch (...) {
        delete m->context;
        delete m;
        return nullptr;
    }
    m->top->clk = 0;
    return &m->base;
}

} // namespace
