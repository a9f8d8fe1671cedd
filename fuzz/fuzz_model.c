/*
 * fuzz_model.c - a libFuzzer target that feeds a component model arbitrary
 * messages on its ports.
 *
 * Built once per model (FUZZ_KIND, FUZZ_PARAMS), see fuzz/CMakeLists.txt; a
 * study's model is linked in and named by its table (FUZZ_OPS).
 * The input is read as a sequence of records:
 *   u8 port, u8 type, u16 size, u16 delay_ns, then `size` payload bytes
 * Each record becomes one message from a "fuzzer" peer component on that
 * port, at the previous one's time plus the delay. Whatever the model sends
 * back is dropped, except that DMA reads get answered with fuzz bytes so the
 * model gets past its fetches. The model must never crash, hang or trip a
 * sanitizer; the run is bounded in simulated time.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/pcie.h"
#include "mortar/runtime.h"
#include "sims/registry.h"

#ifndef FUZZ_KIND
#error "define FUZZ_KIND"
#endif
#ifndef FUZZ_PARAMS
#define FUZZ_PARAMS "{}"
#endif
#ifdef FUZZ_OPS
extern const mortar_component_ops FUZZ_OPS;
#define FUZZ_MODEL (&FUZZ_OPS)
#else
#define FUZZ_MODEL mortar_registry_find(FUZZ_KIND)
#endif

#define SIM_LIMIT_PS MORTAR_MS(5)

typedef struct fuzz_peer {
    mortar_component *self;
    const uint8_t *data;
    size_t size, pos;
    unsigned ports;
} fuzz_peer;

static fuzz_peer *the_peer;

static int peer_create(mortar_component *self, const mortar_params *p, void **state)
{
    (void)p;
    fuzz_peer *f = the_peer;
    f->self = self;
    *state = f;
    return 0;
}

/* Schedules the next record, if any. */
static void next_record(fuzz_peer *f)
{
    if (f->pos + 6 > f->size)
        return;
    uint16_t delay;
    memcpy(&delay, f->data + f->pos + 4, 2);
    mortar_timer_set(f->self, mortar_now(f->self) + MORTAR_NS(delay % 2000), 0);
}

static void peer_start(void *state)
{
    next_record(state);
}

static void peer_timer(void *state, uint64_t cookie)
{
    (void)cookie;
    fuzz_peer *f = state;
    const uint8_t *r = f->data + f->pos;
    uint16_t size;
    memcpy(&size, r + 2, 2);
    size_t avail = f->size - f->pos - 6;
    if (size > avail)
        size = (uint16_t)avail;
    unsigned port = r[0] % f->ports;
    uint8_t type = (uint8_t)(0x10 + (r[1] % 0x70));
    mortar_send(f->self, port, type, r + 6, size, 0, NULL);
    f->pos += 6u + size;
    next_record(f);
}

/* Answers DMA reads with zeros so fetches complete. */
static void peer_message(void *state, unsigned port, const mortar_msg *msg)
{
    fuzz_peer *f = state;
    if (msg->type != MORTAR_PCIE_DMA_READ || msg->size < sizeof(mortar_pcie_dma))
        return;
    const mortar_pcie_dma *d = msg->payload;
    uint32_t size = d->size <= 4096 ? d->size : 0;
    uint8_t buf[sizeof(mortar_pcie_dma_done) + 4096];
    memset(buf, 0, sizeof buf);
    mortar_pcie_dma_done *done = (mortar_pcie_dma_done *)buf;
    done->req_id = d->req_id;
    done->addr_low = (uint16_t)d->addr;
    done->size = size;
    done->status = size ? 0 : 1;
    mortar_send(f->self, port, MORTAR_PCIE_DMA_READ_DONE, buf,
                (uint32_t)(sizeof *done + size), 0, NULL);
}

static const mortar_component_ops peer_ops = {
    .kind = "fuzzer", .create = peer_create, .start = peer_start,
    .message = peer_message, .timer = peer_timer};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mortar_loop *loop;
    if (mortar_loop_create(&loop) != 0)
        return 0;
    mortar_params *params = mortar_params_parse(FUZZ_PARAMS, "fuzz", NULL, 0);
    mortar_component *model;
    if (mortar_loop_add(loop, FUZZ_MODEL, "model", params, &model) != 0)
        abort(); /* the fixed parameters must be valid */
    mortar_params_free(params);
    fuzz_peer peer = {.data = data, .size = size};
    the_peer = &peer;
    unsigned nports = mortar_component_port_count(model);
    peer.ports = nports;
    mortar_component *pc;
    mortar_loop_add(loop, &peer_ops, "fuzzer", NULL, &pc);
    for (unsigned p = 0; p < nports; p++) {
        mortar_port_declare(pc, p, mortar_component_port_protocol(model, p), NULL, 0);
        mortar_link_params lp;
        mortar_link_params_init(&lp);
        lp.latency_ps = MORTAR_NS(100);
        lp.slot_size = 9216;
        mortar_loop_connect(loop, model, p, pc, p, &lp);
    }
    mortar_loop_run(loop, SIM_LIMIT_PS);
    mortar_loop_destroy(loop);
    return 0;
}
