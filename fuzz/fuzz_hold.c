/*
 * fuzz_hold.c - a libFuzzer target for the QEMU host's reading of a read
 * completion's hold (hosts/qemu/src/mortar_hub_hold.c, compiled in): what a
 * device model, any device model, sends back for an MMIO read.
 *
 * The input: 8 bytes of reads to try afterwards (offset low bytes and
 * sizes), then the completion's payload as the device sends it on a real
 * PCIe link pair (PCIe 3.0 x16). The host takes the hold and answers the
 * reads it can; every answer must lie inside what the hold said, at a stamp
 * after the read, never a crash or a sanitizer report.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/pcie.h"
#include "mortar_hub_hold.h"

#define SLOT 8192u

static mortar_link *host, *dev;

static void make_links(void)
{
    mortar_link_params p;
    mortar_link_params_init(&p);
    p.name = "hold";
    p.protocol = MORTAR_PROTO_PCIE;
    p.slot_size = SLOT;
    p.slot_count = 4;
    p.latency_ps = 1000000;
    mortar_pcie_wire_init(&p.pcie);
    if (mortar_link_pair(&host, &dev, &p) != 0)
        abort();
}

static void drop_links(void)
{
    mortar_link_close(host);
    mortar_link_close(dev);
    host = dev = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8 || size - 8 > SLOT - 64)
        return 0;
    make_links();
    uint64_t now = 1000000;
    mortar_pcie_mmio rd = {.req_id = 1, .offset = 0x100, .size = 8, .bar = 2};
    mortar_msg m;
    if (mortar_link_send(host, now, MORTAR_PCIE_MMIO_READ, &rd, sizeof rd, 0, NULL) !=
            0 ||
        mortar_link_peek(dev, &m) != 1)
        abort();
    uint64_t arrival = m.timestamp_ps;
    mortar_link_pop(dev);
    if (mortar_link_send(dev, arrival, MORTAR_PCIE_MMIO_READ_DONE, data + 8,
                         (uint32_t)(size - 8), 0, NULL) != 0 ||
        mortar_link_peek(host, &m) != 1)
        abort();
    mortar_link_counters c;
    mortar_link_get_counters(host, &c);
    static mortar_hold h;
    mortar_hold_take(&h, host, &m, c.msgs_sent, true);
    uint64_t t = m.timestamp_ps;
    mortar_link_pop(host);
    for (int i = 0; i < 8 && h.valid; i++) {
        mortar_pcie_mmio r = {.req_id = 2u + (unsigned)i,
                              .offset = h.offset + data[i] * 4u,
                              .size = 1u + data[i] % 8,
                              .bar = h.bar};
        uint8_t out[8];
        uint64_t stamp;
        if (!mortar_hold_answer(&h, host, &r, t, out, &stamp))
            continue;
        if (r.offset < h.offset || r.offset - h.offset > h.len - r.size || stamp <= t)
            abort(); /* answered beyond the hold, or before it was asked */
        t = stamp;
    }
    drop_links();
    return 0;
}
