/*
 * rtl_adapter_internal.h - the state of the `rtl` component, shared by its
 * clock (rtl_adapter.c) and its bridge between ports and link
 * (rtl_bridge.c).
 *
 * Every queue is bounded and allocated at create(): a host or a design
 * that floods the adapter gets refused or counted, never more memory.
 */
#ifndef MORTAR_SIMS_RTL_ADAPTER_INTERNAL_H
#define MORTAR_SIMS_RTL_ADAPTER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "mortar/component.h"
#include "mortar/rtl.h"
#include "mortar/rtl_model.h"

#define RTL_PORT        0
#define RTL_RESET_EDGES 4
#define RTL_MMIO_QUEUE  256  /* host requests waiting for the design */
#define RTL_DMA_SLOTS   32   /* DMA requests in flight (reads and writes) */
#define RTL_DMA_MAX     4096 /* dma_req_len's range, docs/rtl-ports.md */
#define RTL_DMA_BEATS   (RTL_DMA_MAX / MORTAR_RTL_BEAT_BYTES)
#define RTL_OUT_QUEUE   (2 * RTL_DMA_SLOTS) /* DMA requests and interrupts, in order */

typedef struct rtl_mmio_req {
    uint64_t req_id;
    uint64_t wdata;
    uint32_t addr;
    uint8_t bar, size, write, posted;
} rtl_mmio_req;

/* One DMA request of the design, from its dma_req transfer until the
 * design has its data (reads) or its response (writes). */
typedef struct rtl_dma_slot {
    bool used, write;
    bool refused; /* not sent: the design asked for a length out of range */
    bool sent;    /* the message is on the link */
    uint8_t tag;
    uint8_t err;    /* the host refused it */
    uint32_t len;   /* bytes */
    uint32_t beats; /* write beats gathered so far */
    uint64_t addr;
    uint64_t req_id; /* the link's id: (sequence << 8) | slot index */
    uint8_t data[RTL_DMA_MAX];
} rtl_dma_slot;

/* What goes to the host, in the order the design produced it (the link is
 * in order: a write and everything after it arrive in that order). */
typedef struct rtl_out_item {
    uint8_t what;   /* a DMA request or an interrupt */
    uint8_t kind;   /* interrupts: MORTAR_PCIE_INT_MSIX or _MSI */
    uint16_t value; /* a slot index, or an interrupt vector */
} rtl_out_item;

typedef struct rtl_wresp {
    uint8_t tag, err;
} rtl_wresp;

typedef struct rtl_adapter {
    mortar_component *self;
    const mortar_rtl_design *design;
    mortar_rtl_model *model;
    mortar_rtl_ports ports;

    /* the clock: edge k at t0 + k * period_ps */
    uint64_t period_ps, t0;
    uint64_t next_edge; /* index of the next edge to evaluate */
    bool running;       /* a timer for edge next_edge is pending */
    uint64_t skipped;   /* edges skipped before the last resume */

    uint32_t devctrl; /* MORTAR_PCIE_CTRL_* from the host */
    uint16_t trace_kind[256], trace_unknown;

    /* MMIO: requests in arrival order, then reads waiting for mmio_rsp */
    rtl_mmio_req mmio[RTL_MMIO_QUEUE];
    uint32_t mmio_head, mmio_count;
    rtl_mmio_req reads[RTL_MMIO_QUEUE];
    uint32_t reads_head, reads_count;

    /* DMA */
    rtl_dma_slot *slots; /* RTL_DMA_SLOTS */
    uint32_t slots_used;
    uint64_t dma_seq;
    rtl_out_item out[RTL_OUT_QUEUE];
    uint32_t out_head, out_count;
    uint16_t gather[RTL_DMA_SLOTS]; /* writes waiting for beats, in order */
    uint32_t gather_head, gather_count;
    uint16_t rdata[RTL_DMA_SLOTS]; /* reads whose beats wait for the design */
    uint32_t rdata_head, rdata_count, rdata_beat;
    rtl_wresp wresp[RTL_DMA_SLOTS];
    uint32_t wresp_head, wresp_count;

    bool woke; /* set by a message that gave the design something new */
    mortar_rtl_counters c;
} rtl_adapter;

/* ---- rtl_bridge.c ---- */

/* A message from the host. Returns true when it gave the design something
 * to take (the clock must run). */
bool rtl_bridge_message(rtl_adapter *a, const mortar_msg *msg);

/* Sets the ports' inputs for the next edge from what waits. */
void rtl_bridge_present(rtl_adapter *a);

/* Acts on the outputs of the edge just evaluated: transfers, pulses.
 * Returns true when an input transfer happened at it. */
bool rtl_bridge_collect(rtl_adapter *a);

/* True when something waits to be presented to the design. */
bool rtl_bridge_pending(const rtl_adapter *a);

#endif
