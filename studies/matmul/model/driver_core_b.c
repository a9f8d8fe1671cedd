/*
 * driver_core_b.c - design B's driver sequence (driver_core.h): one
 * descriptor per request in a ring in host memory. Opening programs and
 * enables the ring; a request clears its completion record, writes the
 * descriptor at TAIL and writes RING_TAIL once (posted): that is all the
 * link sees from the CPU. Waiting is the adapter's (host memory or MSI-X);
 * the record then says how the request went.
 */
#include <string.h>

#include "mortar/error.h"
#include "model/driver_core_internal.h"

#define RING_ERRORS (MATMUL_B_ST_ERR_RING | MATMUL_B_ST_ERR_DMA | MATMUL_B_ST_ERR_DESC)

void matmul_core_b_ring_program(matmul_core *c, uint64_t ring_addr, uint32_t entries,
                                matmul_core_irq irq)
{
    c->ring_addr = ring_addr;
    c->ring_entries = entries;
    c->irq_ctrl = irq == MATMUL_CORE_IRQ_ON ? MATMUL_B_CTRL_IRQ : 0;
    if (irq == MATMUL_CORE_IRQ_KEEP)
        c->irq_ctrl = c->ops->read32(c->ctx, MATMUL_B_CONTROL) & MATMUL_B_CTRL_IRQ;
    /* A previous driver may have left the ring enabled: RING_BASE and
     * RING_SIZE are writable only while it is off. */
    c->ops->write32(c->ctx, MATMUL_B_CONTROL, 0);
    c->ops->write32(c->ctx, MATMUL_B_STATUS, RING_ERRORS);
    c->ops->write64(c->ctx, MATMUL_B_RING_BASE, ring_addr);
    c->ops->write32(c->ctx, MATMUL_B_RING_SIZE, entries);
}

int matmul_core_b_ring_enable(matmul_core *c)
{
    c->ops->write32(c->ctx, MATMUL_B_CONTROL, MATMUL_B_CTRL_ENABLE | c->irq_ctrl);
    uint32_t st = c->ops->read32(c->ctx, MATMUL_B_STATUS);
    int rc = matmul_core_io_ok(c, "setting up the ring");
    if (!rc && (st & MATMUL_B_ST_ERR_RING))
        rc = matmul_core_fail(c, MORTAR_EPROTO,
                              "the device refused the ring (STATUS 0x%x)", st);
    return rc;
}

void matmul_core_b_ring_disable(matmul_core *c)
{
    c->ops->write32(c->ctx, MATMUL_B_CONTROL, 0);
}

matmul_desc matmul_core_b_desc(const matmul_core *c, uint64_t req_id, uint64_t a_addr,
                               uint64_t b_addr, uint64_t c_addr, uint64_t record_addr,
                               uint32_t n)
{
    return (matmul_desc){
        .req_id = req_id,
        .a_addr = a_addr,
        .b_addr = b_addr,
        .c_addr = c_addr,
        .completion_addr = record_addr,
        .n = n,
        .flags = c->o.result == MATMUL_RESULT_I32 ? MATMUL_DESC_RESULT_I32 : 0};
}

int matmul_core_b_queue(matmul_core *c, uint32_t *tail, const matmul_desc *desc,
                        uint64_t record_addr)
{
    static const matmul_completion cleared;
    uint32_t at = *tail;
    c->ops->mem_write(c->ctx, record_addr, &cleared, sizeof cleared);
    c->ops->mem_write(c->ctx, c->ring_addr + (uint64_t)at * sizeof *desc, desc,
                      sizeof *desc);
    if (c->ops->mem_barrier)
        c->ops->mem_barrier(c->ctx); /* record and descriptor before the doorbell */
    *tail = (at + 1) % c->ring_entries;
    c->ops->write32(c->ctx, MATMUL_B_RING_TAIL, *tail);
    return matmul_core_io_ok(c, "writing TAIL");
}

bool matmul_core_b_record_done(matmul_core *c, uint64_t record_addr)
{
    uint32_t status;
    c->ops->mem_read(c->ctx, matmul_core_b_done_word(record_addr), &status,
                     sizeof status);
    return status & MATMUL_CPL_DONE;
}

int matmul_core_b_finish(matmul_core *c, uint64_t record_addr, uint64_t req_id,
                         matmul_core_timing *t)
{
    matmul_completion cpl;
    c->ops->mem_read(c->ctx, record_addr, &cpl, sizeof cpl);
    *t = (matmul_core_timing){.accept_ps = cpl.t_accept_ps,
                              .start_ps = cpl.t_start_ps,
                              .end_ps = cpl.t_end_ps,
                              .compute_ps = cpl.compute_ps,
                              .done_ps = cpl.t_done_ps,
                              .steps = cpl.steps,
                              .error = cpl.error};
    if (cpl.req_id != req_id)
        return matmul_core_fail(
            c, MORTAR_EPROTO, "the record of request %llu names request %llu",
            (unsigned long long)req_id, (unsigned long long)cpl.req_id);
    if (cpl.status & MATMUL_CPL_ERROR)
        return matmul_core_fail(c, MORTAR_EPROTO,
                                "request %llu: the device reported error %u",
                                (unsigned long long)req_id, cpl.error);
    return MORTAR_OK;
}
