/*
 * hoststub.c - a test host for PCIe devices: host memory served to DMA,
 * interrupts recorded, and blocking MMIO calls that step the event loop.
 */
#include "mortar/hoststub.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"

#define INT_QUEUE  256
#define HOST_PORT  0
#define TIMER_WAKE 1

typedef struct pending_int {
    uint16_t vector;
    uint8_t kind;
} pending_int;

struct mortar_hoststub {
    mortar_component *self;
    mortar_loop *loop;
    uint8_t *mem;
    uint64_t mem_base, mem_size;
    uint64_t next_req;
    /* the one outstanding MMIO read */
    uint64_t read_req;
    bool read_done;
    uint8_t read_data[MORTAR_PCIE_MAX_DMA];
    uint32_t read_size;
    bool woke; /* the delay timer fired */
    pending_int ints[INT_QUEUE];
    uint32_t int_head, int_count;
    mortar_hoststub_counters c;
    bool failed;
    char err[256];
};

static void set_failed(mortar_hoststub *h, const char *fmt, ...)
{
    if (h->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->err, sizeof h->err, fmt, ap);
    va_end(ap);
    h->failed = true;
}

static int mortar_hoststub_create(mortar_component *self, const mortar_params *p,
                                  void **state)
{
    static const char *const known[] = {"mem_size", "mem_base", NULL};
    mortar_hoststub *h = calloc(1, sizeof *h);
    if (!h)
        return MORTAR_ENOMEM;
    int rc = mortar_params_check_known(p, known);
    if (!rc)
        rc = mortar_params_u64(p, "mem_size", 64ull << 20, &h->mem_size);
    if (!rc)
        rc = mortar_params_u64(p, "mem_base", 0x10000000ull, &h->mem_base);
    if (!rc && !(h->mem = calloc(1, h->mem_size)))
        rc = MORTAR_ENOMEM;
    if (rc) {
        free(h);
        return rc;
    }
    h->self = self;
    h->next_req = 1;
    mortar_port_declare(self, HOST_PORT, MORTAR_PROTO_PCIE, NULL, 0);
    *state = h;
    return MORTAR_OK;
}

void *mortar_hoststub_mem(mortar_hoststub *h, uint64_t addr, uint64_t size)
{
    if (addr < h->mem_base || size > h->mem_size ||
        addr - h->mem_base > h->mem_size - size)
        return NULL;
    return h->mem + (addr - h->mem_base);
}

static void send_msg(mortar_hoststub *h, uint8_t type, const void *msg, uint32_t size)
{
    if (mortar_send(h->self, HOST_PORT, type, msg, size, 0, NULL) != 0)
        set_failed(h, "sending a message of type 0x%x failed", type);
}

static void serve_dma_read(mortar_hoststub *h, const mortar_pcie_dma *d)
{
    uint32_t size = d->size <= MORTAR_PCIE_MAX_DMA ? d->size : 0;
    mortar_pcie_dma_done *done = calloc(1, sizeof *done + size);
    if (!done)
        return;
    done->req_id = d->req_id;
    done->addr_low = (uint16_t)d->addr;
    void *src = mortar_hoststub_mem(h, d->addr, d->size);
    if (!src || size != d->size) {
        done->status = 1;
        h->c.dma_errors++;
        size = 0;
    } else {
        memcpy(done->data, src, size);
        h->c.dma_read_bytes += size;
    }
    done->size = size;
    h->c.dma_reads++;
    send_msg(h, MORTAR_PCIE_DMA_READ_DONE, done, (uint32_t)sizeof *done + size);
    free(done);
}

static void serve_dma_write(mortar_hoststub *h, const mortar_pcie_dma *d,
                            uint32_t msg_size)
{
    mortar_pcie_dma_done done = {.req_id = d->req_id};
    void *dst = mortar_hoststub_mem(h, d->addr, d->size);
    if (!dst || msg_size < sizeof *d + (uint64_t)d->size) {
        done.status = 1;
        h->c.dma_errors++;
    } else {
        memcpy(dst, d->data, d->size);
        h->c.dma_write_bytes += d->size;
    }
    h->c.dma_writes++;
    send_msg(h, MORTAR_PCIE_DMA_WRITE_DONE, &done, sizeof done);
}

static void take_interrupt(mortar_hoststub *h, const mortar_pcie_interrupt *in)
{
    h->c.interrupts++;
    if (in->kind == MORTAR_PCIE_INT_LEGACY_LOW)
        return; /* deassert: nothing to deliver */
    if (h->int_count == INT_QUEUE)
        return;
    uint32_t tail = (h->int_head + h->int_count++) % INT_QUEUE;
    h->ints[tail] = (pending_int){.vector = in->vector, .kind = in->kind};
}

static void take_read_done(mortar_hoststub *h, const mortar_pcie_mmio_done *d,
                           uint32_t msg_size)
{
    if (d->req_id != h->read_req || msg_size < sizeof *d + (uint64_t)d->size ||
        d->size > sizeof h->read_data) {
        h->c.bad_messages++;
        return;
    }
    memcpy(h->read_data, d->data, d->size);
    h->read_size = d->size;
    h->read_done = true;
}

static void mortar_hoststub_message(void *state, unsigned port, const mortar_msg *msg)
{
    mortar_hoststub *h = state;
    switch (msg->type) {
    case MORTAR_PCIE_DMA_READ:
    case MORTAR_PCIE_DMA_WRITE:
        if (msg->size < sizeof(mortar_pcie_dma))
            break;
        if (msg->type == MORTAR_PCIE_DMA_READ)
            serve_dma_read(h, msg->payload);
        else
            serve_dma_write(h, msg->payload, msg->size);
        return;
    case MORTAR_PCIE_MMIO_READ_DONE:
        if (msg->size >= sizeof(mortar_pcie_mmio_done)) {
            take_read_done(h, msg->payload, msg->size);
            return;
        }
        break;
    case MORTAR_PCIE_MMIO_WRITE_DONE:
        return;
    case MORTAR_PCIE_INTERRUPT:
        if (msg->size >= sizeof(mortar_pcie_interrupt)) {
            take_interrupt(h, msg->payload);
            return;
        }
        break;
    }
    h->c.bad_messages++;
}

static void mortar_hoststub_timer(void *state, uint64_t cookie)
{
    mortar_hoststub *h = state;
    if (cookie == TIMER_WAKE)
        h->woke = true;
}

static void mortar_hoststub_stats(void *state, mortar_stats *s)
{
    mortar_hoststub *h = state;
    mortar_stats_u64(s, "mmio_reads", h->c.mmio_reads);
    mortar_stats_u64(s, "mmio_writes", h->c.mmio_writes);
    mortar_stats_time(s, "mmio_read_stall_ps", h->c.mmio_read_stall_ps);
    mortar_stats_u64(s, "dma_reads", h->c.dma_reads);
    mortar_stats_u64(s, "dma_writes", h->c.dma_writes);
    mortar_stats_u64(s, "dma_errors", h->c.dma_errors);
    mortar_stats_u64(s, "interrupts", h->c.interrupts);
}

static void mortar_hoststub_destroy(void *state)
{
    mortar_hoststub *h = state;
    free(h->mem);
    free(h);
}

const mortar_component_ops mortar_hoststub_ops = {
    .kind = "hoststub",
    .summary = "host side of PCIe for device tests: memory, DMA, interrupts",
    .create = mortar_hoststub_create,
    .message = mortar_hoststub_message,
    .timer = mortar_hoststub_timer,
    .stats = mortar_hoststub_stats,
    .destroy = mortar_hoststub_destroy,
};

/* ---- the blocking driver API ------------------------------------------------ */

mortar_hoststub *mortar_hoststub_get(mortar_component *c, mortar_loop *loop)
{
    mortar_hoststub *h = mortar_component_state(c);
    h->loop = loop;
    mortar_loop_start(loop);
    return h;
}

const mortar_pcie_dev_intro *mortar_hoststub_dev_intro(mortar_hoststub *h)
{
    uint32_t size;
    const void *in = mortar_port_peer_intro(h->self, HOST_PORT, &size);
    return size >= sizeof(mortar_pcie_dev_intro) ? in : NULL;
}

uint64_t mortar_hoststub_now(mortar_hoststub *h)
{
    return mortar_now(h->self);
}

/* Steps the loop until *flag is set; false if the loop ran dry first. */
static bool step_until(mortar_hoststub *h, const bool *flag, const char *what)
{
    while (!*flag) {
        int rc = mortar_loop_step(h->loop, MORTAR_TIME_MAX);
        if (rc < 0) {
            set_failed(h, "%s: the loop failed: %s", what, mortar_loop_errmsg(h->loop));
            return false;
        }
        if (rc == 0) {
            set_failed(h, "%s: the device never answered", what);
            return false;
        }
    }
    return true;
}

uint64_t mortar_hoststub_mmio_read(mortar_hoststub *h, uint8_t bar, uint64_t offset,
                                   uint32_t size)
{
    uint64_t value = ~0ull;
    mortar_hoststub_mmio_read_block(h, bar, offset, &value, size <= 8 ? size : 8);
    if (size < 8 && !h->failed)
        value &= (1ull << (8 * size)) - 1;
    return value;
}

void mortar_hoststub_mmio_read_block(mortar_hoststub *h, uint8_t bar, uint64_t offset,
                                     void *data, uint32_t size)
{
    mortar_pcie_mmio rd = {
        .req_id = h->next_req++, .offset = offset, .size = size, .bar = bar};
    uint64_t start = mortar_hoststub_now(h);
    h->read_req = rd.req_id;
    h->read_done = false;
    h->c.mmio_reads++;
    send_msg(h, MORTAR_PCIE_MMIO_READ, &rd, sizeof rd);
    if (!step_until(h, &h->read_done, "MMIO read"))
        return;
    h->c.mmio_read_stall_ps += mortar_hoststub_now(h) - start;
    memcpy(data, h->read_data, h->read_size < size ? h->read_size : size);
}

void mortar_hoststub_mmio_write_block(mortar_hoststub *h, uint8_t bar, uint64_t offset,
                                      const void *data, uint32_t size)
{
    mortar_pcie_mmio *wr = calloc(1, sizeof *wr + size);
    if (!wr)
        return;
    *wr = (mortar_pcie_mmio){
        .req_id = h->next_req++, .offset = offset, .size = size, .bar = bar, .posted = 1};
    memcpy(wr->data, data, size);
    h->c.mmio_writes++;
    send_msg(h, MORTAR_PCIE_MMIO_WRITE, wr, (uint32_t)sizeof *wr + size);
    free(wr);
}

void mortar_hoststub_mmio_write(mortar_hoststub *h, uint8_t bar, uint64_t offset,
                                uint32_t size, uint64_t value)
{
    mortar_hoststub_mmio_write_block(h, bar, offset, &value, size <= 8 ? size : 8);
}

void mortar_hoststub_devctrl(mortar_hoststub *h, uint32_t flags)
{
    mortar_pcie_devctrl dc = {.flags = flags};
    send_msg(h, MORTAR_PCIE_DEVCTRL, &dc, sizeof dc);
}

void mortar_hoststub_delay(mortar_hoststub *h, uint64_t ps)
{
    h->woke = false;
    mortar_timer_set(h->self, mortar_hoststub_now(h) + ps, TIMER_WAKE);
    step_until(h, &h->woke, "delay");
}

uint64_t mortar_hoststub_interrupts(mortar_hoststub *h)
{
    return h->c.interrupts;
}

/* Steps until `done(h, arg)` or the deadline; a timer guarantees the loop
 * does not run dry before the deadline. */
static bool wait_for(mortar_hoststub *h, uint64_t timeout_ps,
                     bool (*done)(mortar_hoststub *, const void *), const void *arg)
{
    uint64_t deadline = mortar_hoststub_now(h) + timeout_ps;
    uint64_t timer = mortar_timer_set(h->self, deadline, 0);
    while (!done(h, arg)) {
        if (mortar_hoststub_now(h) >= deadline)
            return false;
        int rc = mortar_loop_step(h->loop, MORTAR_TIME_MAX);
        if (rc <= 0) {
            if (rc < 0)
                set_failed(h, "wait: the loop failed: %s", mortar_loop_errmsg(h->loop));
            return false;
        }
    }
    mortar_timer_cancel(h->self, timer);
    return true;
}

static bool have_interrupt(mortar_hoststub *h, const void *arg)
{
    (void)arg;
    return h->int_count > 0;
}

bool mortar_hoststub_wait_interrupt(mortar_hoststub *h, uint64_t timeout_ps,
                                    uint16_t *vector, uint8_t *kind)
{
    if (!wait_for(h, timeout_ps, have_interrupt, NULL))
        return false;
    pending_int in = h->ints[h->int_head];
    h->int_head = (h->int_head + 1) % INT_QUEUE;
    h->int_count--;
    if (vector)
        *vector = in.vector;
    if (kind)
        *kind = in.kind;
    return true;
}

typedef struct mem_cond {
    uint64_t addr;
    uint32_t mask, value;
} mem_cond;

static bool mem_matches(mortar_hoststub *h, const void *arg)
{
    const mem_cond *c = arg;
    uint32_t word;
    const void *p = mortar_hoststub_mem(h, c->addr, 4);
    if (!p)
        return false;
    memcpy(&word, p, 4);
    return (word & c->mask) == c->value;
}

bool mortar_hoststub_wait_mem32(mortar_hoststub *h, uint64_t addr, uint32_t mask,
                                uint32_t value, uint64_t timeout_ps)
{
    mem_cond c = {.addr = addr, .mask = mask, .value = value};
    return wait_for(h, timeout_ps, mem_matches, &c);
}

uint64_t mortar_hoststub_mem_base(mortar_hoststub *h)
{
    return h->mem_base;
}

uint64_t mortar_hoststub_mem_size(mortar_hoststub *h)
{
    return h->mem_size;
}

bool mortar_hoststub_failed(mortar_hoststub *h)
{
    return h->failed;
}

const char *mortar_hoststub_errmsg(mortar_hoststub *h)
{
    return h->failed ? h->err : "no error";
}

void mortar_hoststub_get_counters(mortar_hoststub *h, mortar_hoststub_counters *out)
{
    *out = h->c;
}
