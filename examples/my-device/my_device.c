/*
 * my_device.c - my-device, a checksum accelerator on PCIe, built outside
 * mortar's tree as a plugin (mortar/plugin.h): the kind "my-device" in
 * mortar-model-my-device.so.
 *
 * The driver writes a buffer's address and length and a result address
 * into BAR 0 and starts the device (my_device_regs.h). The device reads the
 * buffer by DMA, one chunk at a time (the next read goes out when the
 * previous one's data is in), computes its Adler-32 checksum at
 * `time_per_byte` per byte (overlapping the next chunk's DMA), writes the
 * 4-byte result to host memory by DMA, sets STATUS.DONE and raises MSI
 * vector 0 when the driver asked for it and enabled MSI. The shape is that
 * of QEMU's hw/misc/edu.c: state, register handlers, DMA and interrupt
 * helpers.
 *
 * Parameters: chunk_bytes (DMA read size, default 4096, at most what a PCIe
 * slot carries), time_per_byte (default "250ps", i.e. 4 GB/s). Both are
 * illustrative: my-device is an example, not a product.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "adler32.h"
#include "mortar/error.h"
#include "mortar/pcie.h"
#include "mortar/plugin.h"
#include "my_device_regs.h"

enum { TIMER_COMPUTE_DONE = 1 };

typedef struct my_device {
    mortar_component *self;
    /* registers */
    uint64_t src_addr, dst_addr;
    uint32_t len, status, result;
    bool irq_enabled, msi_enabled;
    /* parameters */
    uint32_t chunk_bytes;
    uint64_t ps_per_byte;
    /* the running job, latched at start */
    uint64_t job_src, job_dst;
    uint32_t job_len, requested, received, adler;
    uint64_t compute_done_ps, dma_req_id, next_req_id;
    bool job_failed;
    /* counters */
    uint64_t jobs, bytes, busy_starts, bad_accesses, dma_errors, bad_messages;
    uint16_t trace_start, trace_done;
} my_device;

/* ---- DMA and interrupts -------------------------------------------------- */

static void read_next_chunk(my_device *d)
{
    uint32_t n = d->job_len - d->requested;
    if (n > d->chunk_bytes)
        n = d->chunk_bytes;
    mortar_pcie_dma rd = {
        .req_id = ++d->next_req_id, .addr = d->job_src + d->requested, .size = n};
    d->dma_req_id = rd.req_id;
    d->requested += n;
    mortar_send(d->self, 0, MORTAR_PCIE_DMA_READ, &rd, sizeof rd, 0, NULL);
}

static void write_result(my_device *d)
{
    mortar_pcie_dma wr = {.req_id = ++d->next_req_id, .addr = d->job_dst, .size = 4};
    uint8_t msg[sizeof wr + 4];
    memcpy(msg, &wr, sizeof wr);
    for (int i = 0; i < 4; i++)
        msg[sizeof wr + i] = (uint8_t)(d->result >> (8 * i));
    d->dma_req_id = wr.req_id;
    mortar_send(d->self, 0, MORTAR_PCIE_DMA_WRITE, msg, sizeof msg, 0, NULL);
}

static void finish(my_device *d)
{
    d->status = MY_DEVICE_STATUS_DONE | (d->job_failed ? MY_DEVICE_STATUS_ERROR : 0);
    if (d->job_failed)
        d->result = 0;
    d->jobs++;
    mortar_trace(d->self, d->trace_done, d->jobs, d->result, d->job_failed);
    if (d->irq_enabled && d->msi_enabled) {
        mortar_pcie_interrupt irq = {.vector = 0, .kind = MORTAR_PCIE_INT_MSI};
        mortar_send(d->self, 0, MORTAR_PCIE_INTERRUPT, &irq, sizeof irq, 0, NULL);
    }
}

static void fail_job(my_device *d)
{
    d->job_failed = true;
    finish(d);
}

static void start_job(my_device *d)
{
    if (d->status & MY_DEVICE_STATUS_BUSY) {
        d->busy_starts++;
        return;
    }
    d->job_src = d->src_addr;
    d->job_dst = d->dst_addr;
    d->job_len = d->len;
    d->requested = d->received = 0;
    d->adler = ADLER32_START;
    d->compute_done_ps = mortar_now(d->self);
    d->job_failed = false;
    d->status = MY_DEVICE_STATUS_BUSY;
    mortar_trace(d->self, d->trace_start, d->jobs + 1, d->job_src, d->job_len);
    if (d->job_len == 0 || d->job_len > MY_DEVICE_MAX_LEN)
        fail_job(d);
    else
        read_next_chunk(d);
}

/* ---- registers ----------------------------------------------------------- */

/* Writes `size` bytes of `value` at `offset` of a 64-bit register. */
static void write_u64_reg(uint64_t *reg, uint64_t offset, uint32_t size, uint64_t value)
{
    if (size == 8 && offset == 0)
        *reg = value;
    else if (size == 4 && offset == 0)
        *reg = (*reg & ~0xffffffffull) | (uint32_t)value;
    else if (size == 4 && offset == 4)
        *reg = (*reg & 0xffffffffull) | (value << 32);
}

static void reg_write(my_device *d, uint64_t offset, uint32_t size, uint64_t value)
{
    if (offset >= MY_DEVICE_REG_SRC_ADDR && offset < MY_DEVICE_REG_SRC_ADDR + 8)
        write_u64_reg(&d->src_addr, offset - MY_DEVICE_REG_SRC_ADDR, size, value);
    else if (offset >= MY_DEVICE_REG_DST_ADDR && offset < MY_DEVICE_REG_DST_ADDR + 8)
        write_u64_reg(&d->dst_addr, offset - MY_DEVICE_REG_DST_ADDR, size, value);
    else if (offset == MY_DEVICE_REG_LEN && size == 4)
        d->len = (uint32_t)value;
    else if (offset == MY_DEVICE_REG_CTRL && size == 4) {
        d->irq_enabled = value & MY_DEVICE_CTRL_IRQ_EN;
        if (value & MY_DEVICE_CTRL_START)
            start_job(d);
    } else
        d->bad_accesses++;
}

static uint64_t reg_read(my_device *d, uint64_t offset, uint32_t size)
{
    switch (offset) {
    case MY_DEVICE_REG_ID:
        return MY_DEVICE_ID_VALUE;
    case MY_DEVICE_REG_SRC_ADDR:
        return size == 8 ? d->src_addr : (uint32_t)d->src_addr;
    case MY_DEVICE_REG_SRC_ADDR + 4:
        return d->src_addr >> 32;
    case MY_DEVICE_REG_LEN:
        return d->len;
    case MY_DEVICE_REG_DST_ADDR:
        return size == 8 ? d->dst_addr : (uint32_t)d->dst_addr;
    case MY_DEVICE_REG_DST_ADDR + 4:
        return d->dst_addr >> 32;
    case MY_DEVICE_REG_STATUS:
        return d->status;
    case MY_DEVICE_REG_RESULT:
        return d->result;
    default:
        d->bad_accesses++;
        return 0;
    }
}

/* ---- messages ------------------------------------------------------------ */

static void on_mmio(my_device *d, uint8_t type, const mortar_pcie_mmio *m,
                    uint32_t msg_size)
{
    bool reg_size = m->size == 4 || m->size == 8;
    bool write = type == MORTAR_PCIE_MMIO_WRITE;
    if (write && (!reg_size || msg_size < sizeof *m + m->size || m->bar != 0)) {
        d->bad_accesses++;
        return;
    }
    if (write) {
        uint64_t value = 0;
        for (uint32_t i = 0; i < m->size; i++)
            value |= (uint64_t)m->data[i] << (8 * i);
        reg_write(d, m->offset, m->size, value);
        if (!m->posted) {
            mortar_pcie_mmio_done done = {.req_id = m->req_id};
            mortar_send(d->self, 0, MORTAR_PCIE_MMIO_WRITE_DONE, &done, sizeof done, 0,
                        NULL);
        }
        return;
    }
    /* A read is always answered with the size asked for (the host's CPU
     * waits for it), with zeros when it is not a register access. */
    uint32_t max =
        mortar_port_max_payload(d->self, 0) - (uint32_t)sizeof(mortar_pcie_mmio_done);
    uint32_t size = m->size <= max ? m->size : max;
    uint64_t value = 0;
    if (reg_size && m->bar == 0)
        value = reg_read(d, m->offset, size);
    else
        d->bad_accesses++;
    mortar_pcie_mmio_done *done = calloc(1, sizeof *done + size);
    if (!done)
        return;
    *done = (mortar_pcie_mmio_done){.req_id = m->req_id, .size = size};
    for (uint32_t i = 0; i < size && i < 8; i++)
        done->data[i] = (uint8_t)(value >> (8 * i));
    mortar_send(d->self, 0, MORTAR_PCIE_MMIO_READ_DONE, done,
                (uint32_t)sizeof *done + size, 0, NULL);
    free(done);
}

static void on_dma_read_done(my_device *d, const mortar_pcie_dma_done *r,
                             uint32_t msg_size)
{
    uint32_t expected = d->requested - d->received;
    if (!(d->status & MY_DEVICE_STATUS_BUSY) || r->req_id != d->dma_req_id ||
        d->requested == d->received) {
        d->bad_messages++;
        return;
    }
    if (r->status != 0 || r->size != expected || msg_size < sizeof *r + r->size) {
        d->dma_errors++;
        fail_job(d);
        return;
    }
    d->adler = adler32_update(d->adler, r->data, r->size);
    d->received += r->size;
    d->bytes += r->size;
    uint64_t start = d->compute_done_ps > mortar_now(d->self) ? d->compute_done_ps
                                                              : mortar_now(d->self);
    d->compute_done_ps = start + (uint64_t)r->size * d->ps_per_byte;
    if (d->requested < d->job_len)
        read_next_chunk(d);
    else
        mortar_timer_set(d->self, d->compute_done_ps, TIMER_COMPUTE_DONE);
}

static void on_dma_write_done(my_device *d, const mortar_pcie_dma_done *w)
{
    if (!(d->status & MY_DEVICE_STATUS_BUSY) || w->req_id != d->dma_req_id ||
        d->requested != d->job_len || d->received != d->job_len) {
        d->bad_messages++;
        return;
    }
    if (w->status != 0) {
        d->dma_errors++;
        d->job_failed = true;
    }
    finish(d);
}

static void my_device_message(void *state, unsigned port, const mortar_msg *msg)
{
    my_device *d = state;
    switch (msg->type) {
    case MORTAR_PCIE_MMIO_READ:
    case MORTAR_PCIE_MMIO_WRITE:
        if (msg->size >= sizeof(mortar_pcie_mmio)) {
            on_mmio(d, msg->type, msg->payload, msg->size);
            return;
        }
        break;
    case MORTAR_PCIE_DEVCTRL:
        if (msg->size >= sizeof(mortar_pcie_devctrl)) {
            const mortar_pcie_devctrl *c = msg->payload;
            d->msi_enabled = c->flags & MORTAR_PCIE_CTRL_MSI_ENABLE;
            return;
        }
        break;
    case MORTAR_PCIE_DMA_READ_DONE:
    case MORTAR_PCIE_DMA_WRITE_DONE:
        if (msg->size >= sizeof(mortar_pcie_dma_done)) {
            if (msg->type == MORTAR_PCIE_DMA_READ_DONE)
                on_dma_read_done(d, msg->payload, msg->size);
            else
                on_dma_write_done(d, msg->payload);
            return;
        }
        break;
    }
    d->bad_messages++; /* never trust the wire */
}

static void my_device_timer(void *state, uint64_t cookie)
{
    my_device *d = state;
    if (cookie != TIMER_COMPUTE_DONE || !(d->status & MY_DEVICE_STATUS_BUSY))
        return;
    d->result = d->adler;
    if (d->job_dst)
        write_result(d);
    else
        finish(d);
}

/* ---- life ---------------------------------------------------------------- */

static int my_device_create(mortar_component *self, const mortar_params *p, void **state)
{
    static const char *const known[] = {"chunk_bytes", "time_per_byte", NULL};
    uint64_t chunk = 0, ps_per_byte = 0;
    int rc = mortar_params_check_known(p, known);
    if (!rc)
        rc = mortar_params_u64(p, "chunk_bytes", 4096, &chunk);
    if (!rc && (chunk == 0 || chunk > MORTAR_PCIE_MAX_DMA))
        rc = mortar_params_error(p, "chunk_bytes", "must be 1 to %u bytes",
                                 (unsigned)MORTAR_PCIE_MAX_DMA);
    if (!rc)
        rc = mortar_params_time(p, "time_per_byte", 250, &ps_per_byte);
    if (!rc && ps_per_byte > MORTAR_NS(1000))
        rc = mortar_params_error(p, "time_per_byte", "must be at most 1us");
    my_device *d = rc ? NULL : calloc(1, sizeof *d);
    if (!d)
        return rc ? rc : MORTAR_ENOMEM;
    d->self = self;
    d->chunk_bytes = (uint32_t)chunk;
    d->ps_per_byte = ps_per_byte;
    d->trace_start = mortar_trace_kind(self, "start");
    d->trace_done = mortar_trace_kind(self, "done");
    mortar_pcie_dev_intro intro = {
        .vendor_id = MY_DEVICE_VENDOR_ID,
        .device_id = MY_DEVICE_DEVICE_ID,
        .class_code = 0x12, /* processing accelerator */
        .msi_vectors = 1,
        .bars[0] = {.size = MY_DEVICE_BAR_SIZE},
    };
    mortar_port_declare(self, 0, MORTAR_PROTO_PCIE, &intro, sizeof intro);
    *state = d;
    return 0;
}

static void my_device_stats(void *state, mortar_stats *s)
{
    my_device *d = state;
    mortar_stats_u64(s, "jobs", d->jobs);
    mortar_stats_u64(s, "bytes", d->bytes);
    mortar_stats_u64(s, "busy_starts", d->busy_starts);
    mortar_stats_u64(s, "bad_accesses", d->bad_accesses);
    mortar_stats_u64(s, "dma_errors", d->dma_errors);
    mortar_stats_u64(s, "bad_messages", d->bad_messages);
}

static const mortar_component_ops my_device_ops = {
    .kind = "my-device",
    .summary = "checksum accelerator (Adler-32 over DMA), an out-of-tree example",
    .create = my_device_create,
    .message = my_device_message,
    .timer = my_device_timer,
    .stats = my_device_stats,
    .destroy = free,
};

MORTAR_PLUGIN(my_device_ops)
