/*
 * mortar_hub_hold.c - reads answered from a device's hold (see
 * mortar_hub_hold.h). Plain C over libmortar: tests/test_hub_hold.c
 * compiles it in.
 */
#include <string.h>

#include "mortar_hub_hold.h"

/* The widest read a hold answers: a CPU's (QEMU's MMIO accesses are at
 * most 8 bytes). */
#define HELD_READ_MAX 8

void mortar_hold_take(mortar_hold *h, mortar_link *link, const mortar_msg *m,
                      uint64_t sent_at_read, bool use)
{
    h->valid = false;
    mortar_pcie_mmio_done d;
    mortar_pcie_read_hold rh;
    if (!use || m->size < sizeof d) {
        return;
    }
    memcpy(&d, m->payload, sizeof d);
    uint64_t rest = m->size - sizeof d;
    if (!(d.flags & MORTAR_PCIE_DONE_HOLD) || d.size > rest ||
        rest - d.size < sizeof rh) {
        return;
    }
    const uint8_t *p = (const uint8_t *)m->payload + sizeof d + d.size;
    memcpy(&rh, p, sizeof rh);
    rest -= d.size + sizeof rh;
    mortar_link_counters c;
    mortar_link_get_counters(link, &c);
    uint64_t latency = mortar_link_latency(link);
    if (rh.len == 0 || rh.len > MORTAR_HOLD_MAX || rh.len > rest ||
        rh.offset > UINT64_MAX - rh.len || c.msgs_sent != sent_at_read ||
        m->timestamp_ps < latency ||
        mortar_link_take_promise(link, rh.until_ps, c.msgs_sent) != MORTAR_OK) {
        return;
    }
    /* A completion is stamped when its last byte has left, plus the
     * latency (mortar/link.h): the device's wire is free from then on. */
    mortar_link_tx_timing(link, &h->d2h);
    h->d2h.busy_until_ps = m->timestamp_ps - latency;
    h->d2h.last_send_ps = 0;
    h->d2h.last_stamp_ps = m->timestamp_ps;
    h->bar = rh.bar;
    h->offset = rh.offset;
    h->len = rh.len;
    h->until_ps = rh.until_ps;
    memcpy(h->data, p + sizeof rh, rh.len);
    h->valid = true;
}

static bool inside(const mortar_hold *h, const mortar_pcie_mmio *rd)
{
    return rd->bar == h->bar && rd->size > 0 && rd->size <= HELD_READ_MAX &&
           rd->offset >= h->offset && rd->size <= h->len &&
           rd->offset - h->offset <= h->len - rd->size;
}

bool mortar_hold_answer(mortar_hold *h, mortar_link *link, const mortar_pcie_mmio *rd,
                        uint64_t now_ps, void *out, uint64_t *stamp)
{
    if (!h->valid || !inside(h, rd)) {
        return false;
    }
    /* The request's arrival: the host's side of the link, as a send. */
    mortar_link_timing h2d;
    mortar_link_tx_timing(link, &h2d);
    uint64_t arrival, done_stamp;
    if (mortar_link__timing_stamp_message(&h2d, now_ps, MORTAR_PCIE_MMIO_READ, rd,
                                          sizeof *rd, 0, &arrival) != MORTAR_OK ||
        arrival >= h->until_ps) {
        return false;
    }
    /* The completion the device sends on that arrival, behind its own. */
    mortar_link_timing d2h = h->d2h;
    mortar_pcie_mmio_done d = {.req_id = rd->req_id, .size = rd->size};
    uint8_t done[sizeof d + HELD_READ_MAX] = {0};
    memcpy(done, &d, sizeof d);
    if (mortar_link__timing_stamp_message(&d2h, arrival, MORTAR_PCIE_MMIO_READ_DONE, done,
                                          (uint32_t)sizeof d + rd->size, 0,
                                          &done_stamp) != MORTAR_OK ||
        d2h.busy_until_ps > h->until_ps) {
        return false; /* still on the wire at the device's next event */
    }
    uint64_t charged;
    if (mortar_link_charge(link, now_ps, MORTAR_PCIE_MMIO_READ, rd, sizeof *rd,
                           &charged) != MORTAR_OK) {
        return false;
    }
    h->d2h = d2h;
    memcpy(out, h->data + (rd->offset - h->offset), rd->size);
    *stamp = done_stamp;
    return true;
}
