/*
 * mortar_hub_hold.h - MMIO reads the host answers itself, from the bytes a
 * device's read completion held for it (mortar/pcie.h,
 * MORTAR_PCIE_DONE_HOLD; docs/hosts.md, "Held reads").
 *
 * A driver that polls a status register, or reads a result back word by
 * word, stalls the vCPU for a round trip over the link at every read, and
 * each costs two process wake-ups of wall time. A device that knows it will
 * neither send nor change before its next event says so in a completion,
 * with the bytes that follow the read. Until then, and as long as the host
 * sends it nothing, the host answers a read inside those bytes at the stamp
 * the device's completion would have had: the read request charged to the
 * host's side of the link as if sent, the completion to the device's side
 * as the device would have sent it on the request's arrival. What the guest
 * sees is what the round trip gives, value and time. A read that would
 * arrive at or after the device's next event, or whose completion would
 * still be on the wire then, goes to the device.
 */
#ifndef MORTAR_HUB_HOLD_H
#define MORTAR_HUB_HOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "mortar/link.h"
#include "mortar/pcie.h"

#define MORTAR_HOLD_MAX 4096 /* held bytes a host keeps; a larger hold is not taken */

typedef struct mortar_hold {
    bool valid;
    uint8_t bar;
    uint32_t len;
    uint64_t offset;
    uint64_t until_ps;      /* the device's next event (its time) */
    mortar_link_timing d2h; /* the device's sends, as its last completion left them */
    uint8_t data[MORTAR_HOLD_MAX];
} mortar_hold;

/*
 * `m` is the completion of the read the vCPU waits for on `link`; the host
 * had sent `sent_at_read` data messages on it when it sent that read. Takes
 * the completion's hold when it has a well-formed one and the host has sent
 * nothing since (else the device answered without knowing it), and tells
 * the link the device's promise. With `use` false only forgets the old one.
 */
void mortar_hold_take(mortar_hold *h, mortar_link *link, const mortar_msg *m,
                      uint64_t sent_at_read, bool use);

/* The host sent the device something, or the device sent the host something
 * other than the awaited completion: what it held may be gone. */
static inline void mortar_hold_drop(mortar_hold *h)
{
    h->valid = false;
}

/*
 * The vCPU reads `rd` at `now_ps`. When the hold answers it, copies its
 * rd->size bytes into `out`, charges the read to `link` as if sent, stores
 * the completion's stamp in *stamp and returns true; else changes nothing
 * and returns false.
 */
bool mortar_hold_answer(mortar_hold *h, mortar_link *link, const mortar_pcie_mmio *rd,
                        uint64_t now_ps, void *out, uint64_t *stamp);

#endif
