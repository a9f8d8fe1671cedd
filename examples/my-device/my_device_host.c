/*
 * my_device_host.c - the host side for my-device without QEMU: a component
 * (kind "my-device-host", a plugin like the device) that is the PCIe host
 * with its own memory and runs the driver's sequence as a state machine,
 * then checks the device's answer against a checksum it computes itself.
 *
 * Per request: fill a buffer in host memory with pseudo-random bytes
 * (xorshift64 from `seed`), write SRC_ADDR, LEN, DST_ADDR and
 * CTRL = START | IRQ_EN (posted), wait for MSI vector 0, read STATUS and
 * RESULT (each read stalls until its completion, as a CPU's would), and
 * compare RESULT and the result the device wrote into host memory with
 * adler32 of the buffer. Then the next request; after the last,
 * mortar_stop(). The device's DMA is served from host memory at
 * `mem_base`; an access outside it is refused (status 1) and counted.
 *
 * Parameters: bytes (per request, default 4096, 1 to MY_DEVICE_MAX_LEN),
 * requests (default 1, at most 1000), seed (default 1),
 * mem_base (default 0x10000000).
 * Stats: requests_checked, mismatches, last_latency_ps (START written to
 * the interrupt), total_latency_ps, dma_reads, dma_writes, dma_errors,
 * bad_messages. A run is right when mismatches is 0 and requests_checked
 * is `requests`.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "adler32.h"
#include "mortar/error.h"
#include "mortar/pcie.h"
#include "mortar/plugin.h"
#include "my_device_regs.h"

typedef enum {
    WAIT_ID,     /* the probe: read ID */
    WAIT_IRQ,    /* a request is running */
    WAIT_STATUS, /* read STATUS after the interrupt */
    WAIT_RESULT, /* read RESULT */
    FINISHED,
} host_state;

typedef struct host {
    mortar_component *self;
    uint64_t bytes, requests, rng, mem_base;
    uint8_t *mem; /* [0, bytes): the buffer; [result_off, +4): the result */
    uint64_t mem_size, result_off;
    host_state state;
    uint64_t read_req_id, next_req_id;
    uint32_t expected, status;
    uint64_t submitted_ps;
    /* counters */
    uint64_t checked, mismatches, last_latency_ps, total_latency_ps;
    uint64_t dma_reads, dma_writes, dma_errors, bad_messages;
} host;

/* ---- the driver's accesses ---------------------------------------------- */

static void mmio_write(host *h, uint64_t offset, uint32_t size, uint64_t value)
{
    mortar_pcie_mmio wr = {
        .req_id = ++h->next_req_id, .offset = offset, .size = size, .posted = 1};
    uint8_t msg[sizeof wr + 8];
    memcpy(msg, &wr, sizeof wr);
    for (uint32_t i = 0; i < size && i < 8; i++)
        msg[sizeof wr + i] = (uint8_t)(value >> (8 * i));
    mortar_send(h->self, 0, MORTAR_PCIE_MMIO_WRITE, msg, (uint32_t)sizeof wr + size, 0,
                NULL);
}

static void mmio_read(host *h, uint64_t offset, host_state next)
{
    mortar_pcie_mmio rd = {.req_id = ++h->next_req_id, .offset = offset, .size = 4};
    h->read_req_id = rd.req_id;
    h->state = next;
    mortar_send(h->self, 0, MORTAR_PCIE_MMIO_READ, &rd, sizeof rd, 0, NULL);
}

static uint8_t next_byte(host *h)
{
    h->rng ^= h->rng << 13;
    h->rng ^= h->rng >> 7;
    h->rng ^= h->rng << 17;
    return (uint8_t)(h->rng >> 24);
}

static void submit(host *h)
{
    for (uint64_t i = 0; i < h->bytes; i++)
        h->mem[i] = next_byte(h);
    memset(h->mem + h->result_off, 0, 4);
    h->expected = adler32_update(ADLER32_START, h->mem, h->bytes);
    mmio_write(h, MY_DEVICE_REG_SRC_ADDR, 8, h->mem_base);
    mmio_write(h, MY_DEVICE_REG_LEN, 4, h->bytes);
    mmio_write(h, MY_DEVICE_REG_DST_ADDR, 8, h->mem_base + h->result_off);
    mmio_write(h, MY_DEVICE_REG_CTRL, 4, MY_DEVICE_CTRL_START | MY_DEVICE_CTRL_IRQ_EN);
    h->submitted_ps = mortar_now(h->self);
    h->state = WAIT_IRQ;
}

static void check(host *h, uint32_t result)
{
    const uint8_t *m = h->mem + h->result_off;
    uint32_t in_memory = m[0] | m[1] << 8 | m[2] << 16 | (uint32_t)m[3] << 24;
    bool ok = h->status == MY_DEVICE_STATUS_DONE && result == h->expected &&
              in_memory == h->expected;
    h->checked++;
    h->mismatches += !ok;
    mortar_logf(h->self, ok ? MORTAR_LOG_INFO : MORTAR_LOG_ERROR,
                "request %" PRIu64 ": %" PRIu64 " bytes, adler32 0x%08x, device 0x%08x "
                "(in memory 0x%08x, status 0x%x) after %" PRIu64 " ps: %s",
                h->checked, h->bytes, h->expected, result, in_memory, h->status,
                h->last_latency_ps, ok ? "right" : "WRONG");
    if (h->checked < h->requests) {
        submit(h);
        return;
    }
    h->state = FINISHED;
    mortar_stop(h->self);
}

static void on_read_done(host *h, const mortar_pcie_mmio_done *r, uint32_t msg_size)
{
    if (r->req_id != h->read_req_id || r->size != 4 || msg_size < sizeof *r + 4) {
        h->bad_messages++;
        return;
    }
    uint32_t v =
        r->data[0] | r->data[1] << 8 | r->data[2] << 16 | (uint32_t)r->data[3] << 24;
    h->read_req_id = 0;
    if (h->state == WAIT_ID && v == MY_DEVICE_ID_VALUE) {
        submit(h);
    } else if (h->state == WAIT_ID) {
        mortar_logf(h->self, MORTAR_LOG_ERROR, "no my-device: ID reads 0x%08x", v);
        h->mismatches++;
        h->state = FINISHED;
        mortar_stop(h->self);
    } else if (h->state == WAIT_STATUS) {
        h->status = v;
        mmio_read(h, MY_DEVICE_REG_RESULT, WAIT_RESULT);
    } else if (h->state == WAIT_RESULT) {
        check(h, v);
    } else {
        h->bad_messages++;
    }
}

static void on_interrupt(host *h, const mortar_pcie_interrupt *irq)
{
    if (h->state != WAIT_IRQ || irq->kind != MORTAR_PCIE_INT_MSI || irq->vector != 0) {
        h->bad_messages++;
        return;
    }
    h->last_latency_ps = mortar_now(h->self) - h->submitted_ps;
    h->total_latency_ps += h->last_latency_ps;
    mmio_read(h, MY_DEVICE_REG_STATUS, WAIT_STATUS);
}

/* ---- host memory, reached by the device's DMA ---------------------------- */

static uint8_t *mem_at(host *h, uint64_t addr, uint64_t size)
{
    if (addr < h->mem_base || size > h->mem_size ||
        addr - h->mem_base > h->mem_size - size)
        return NULL;
    return h->mem + (addr - h->mem_base);
}

static void serve_dma_read(host *h, const mortar_pcie_dma *d)
{
    uint32_t max =
        mortar_port_max_payload(h->self, 0) - (uint32_t)sizeof(mortar_pcie_dma_done);
    const uint8_t *src = d->size <= max ? mem_at(h, d->addr, d->size) : NULL;
    uint32_t size = src ? d->size : 0;
    mortar_pcie_dma_done *done = calloc(1, sizeof *done + size);
    if (!done)
        return;
    *done =
        (mortar_pcie_dma_done){.req_id = d->req_id, .size = size, .status = src ? 0 : 1,
                              .addr_low = (uint16_t)d->addr};
    if (src)
        memcpy(done->data, src, size);
    else
        h->dma_errors++;
    h->dma_reads++;
    mortar_send(h->self, 0, MORTAR_PCIE_DMA_READ_DONE, done,
                (uint32_t)sizeof *done + size, 0, NULL);
    free(done);
}

static void serve_dma_write(host *h, const mortar_pcie_dma *d, uint32_t msg_size)
{
    uint8_t *dst =
        msg_size >= sizeof *d + (uint64_t)d->size ? mem_at(h, d->addr, d->size) : NULL;
    mortar_pcie_dma_done done = {.req_id = d->req_id, .status = dst ? 0 : 1};
    if (dst)
        memcpy(dst, d->data, d->size);
    else
        h->dma_errors++;
    h->dma_writes++;
    mortar_send(h->self, 0, MORTAR_PCIE_DMA_WRITE_DONE, &done, sizeof done, 0, NULL);
}

/* ---- the component ------------------------------------------------------- */

static void host_message(void *state, unsigned port, const mortar_msg *msg)
{
    host *h = state;
    if ((msg->type == MORTAR_PCIE_DMA_READ || msg->type == MORTAR_PCIE_DMA_WRITE) &&
        msg->size >= sizeof(mortar_pcie_dma)) {
        if (msg->type == MORTAR_PCIE_DMA_READ)
            serve_dma_read(h, msg->payload);
        else
            serve_dma_write(h, msg->payload, msg->size);
    } else if (msg->type == MORTAR_PCIE_MMIO_READ_DONE &&
               msg->size >= sizeof(mortar_pcie_mmio_done)) {
        on_read_done(h, msg->payload, msg->size);
    } else if (msg->type == MORTAR_PCIE_INTERRUPT &&
               msg->size >= sizeof(mortar_pcie_interrupt)) {
        on_interrupt(h, msg->payload);
    } else {
        h->bad_messages++;
    }
}

static void host_start(void *state)
{
    host *h = state;
    mortar_pcie_devctrl ctrl = {.flags = MORTAR_PCIE_CTRL_MSI_ENABLE |
                                         MORTAR_PCIE_CTRL_BUS_MASTER};
    mortar_send(h->self, 0, MORTAR_PCIE_DEVCTRL, &ctrl, sizeof ctrl, 0, NULL);
    mmio_read(h, MY_DEVICE_REG_ID, WAIT_ID);
}

static int host_create(mortar_component *self, const mortar_params *p, void **state)
{
    static const char *const known[] = {"bytes", "requests", "seed", "mem_base", NULL};
    uint64_t bytes = 0, requests = 0, seed = 0, mem_base = 0;
    int rc = mortar_params_check_known(p, known);
    if (!rc)
        rc = mortar_params_u64(p, "bytes", 4096, &bytes);
    if (!rc && (bytes == 0 || bytes > MY_DEVICE_MAX_LEN))
        rc = mortar_params_error(p, "bytes", "must be 1 to %u", MY_DEVICE_MAX_LEN);
    if (!rc)
        rc = mortar_params_u64(p, "requests", 1, &requests);
    if (!rc && (requests == 0 || requests > 1000))
        rc = mortar_params_error(p, "requests", "must be 1 to 1000");
    if (!rc)
        rc = mortar_params_u64(p, "seed", 1, &seed);
    if (!rc)
        rc = mortar_params_u64(p, "mem_base", 0x10000000, &mem_base);
    if (!rc && mem_base > UINT64_MAX - 2 * (uint64_t)MY_DEVICE_MAX_LEN)
        rc = mortar_params_error(p, "mem_base", "leaves no room for the buffer");
    if (rc)
        return rc;
    host *h = calloc(1, sizeof *h);
    uint64_t result_off = (bytes + 63) & ~63ull;
    if (h)
        h->mem = calloc(1, result_off + 64);
    if (!h || !h->mem) {
        free(h);
        return MORTAR_ENOMEM;
    }
    h->self = self;
    h->bytes = bytes;
    h->requests = requests;
    h->rng = seed ? seed : 1; /* xorshift needs a nonzero state */
    h->mem_base = mem_base;
    h->result_off = result_off;
    h->mem_size = result_off + 64;
    mortar_port_declare(self, 0, MORTAR_PROTO_PCIE, NULL, 0);
    *state = h;
    return 0;
}

static void host_stats(void *state, mortar_stats *s)
{
    host *h = state;
    mortar_stats_u64(s, "requests_checked", h->checked);
    mortar_stats_u64(s, "mismatches", h->mismatches);
    mortar_stats_time(s, "last_latency_ps", h->last_latency_ps);
    mortar_stats_time(s, "total_latency_ps", h->total_latency_ps);
    mortar_stats_u64(s, "dma_reads", h->dma_reads);
    mortar_stats_u64(s, "dma_writes", h->dma_writes);
    mortar_stats_u64(s, "dma_errors", h->dma_errors);
    mortar_stats_u64(s, "bad_messages", h->bad_messages);
}

static void host_destroy(void *state)
{
    host *h = state;
    free(h->mem);
    free(h);
}

static const mortar_component_ops host_ops = {
    .kind = "my-device-host",
    .summary = "the host side of my-device: drives requests and checks the checksums",
    .create = host_create,
    .start = host_start,
    .message = host_message,
    .stats = host_stats,
    .destroy = host_destroy,
};

MORTAR_PLUGIN(host_ops)
