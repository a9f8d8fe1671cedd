/*
 * matmul_regcopy.c - the register-copy driver: design A's unit behind plain
 * register windows (studies/matmul/docs/matmul.md, "Register copy"). The sequence
 * is the driver core's (studies/matmul/model/driver_core_regcopy.c, which
 * `mortar alone` runs over the host stub); this file maps BAR2 and checks
 * that the windows fit in it.
 *
 * The CPU writes both operands row-major into the BAR2 windows with MMIO
 * writes of copy_bytes each (8 by default: the widest single access an
 * x86 store makes and mortar-pci accepts; posted, so they cost the CPU
 * little), writes START, polls STATUS with MMIO reads, and reads C back
 * with MMIO reads of copy_bytes each, every one a round trip over the link:
 * n*n bytes for an int8 product, 4*n*n for int32 (CONTROL.RESULT_I32, set
 * once at open). No DMA.
 */
#include "matmul_internal.h"

static int regcopy_open(matmul_guest *d)
{
    int rc = mortar_guest_bar_map(d->pci, MATMUL_BAR_WINDOW, &d->win);
    if (rc) {
        return matmul_fail(d, rc, "%s", mortar_guest_errmsg(d->pci));
    }
    rc = matmul_core_regcopy_open(&d->core);
    if (rc) {
        return matmul_core_failed(d, rc);
    }
    const matmul_core *c = &d->core;
    uint64_t nn = (uint64_t)c->dev_n * c->dev_n;
    if (d->win->size < c->win_c + 4 * nn || d->win->size < c->win_a + nn ||
        d->win->size < c->win_b + nn) {
        return matmul_fail(d, MORTAR_EPROTO, "BAR2 (%llu bytes) is too small for n = %u",
                           (unsigned long long)d->win->size, c->dev_n);
    }
    d->o.max_n = c->dev_n;
    return 0;
}

static int regcopy_submit(matmul_guest *d, matmul_slot *s, const int8_t *a,
                          const int8_t *b)
{
    if (s->n != d->core.dev_n) {
        return matmul_fail(d, MORTAR_EINVAL, "register copy runs n = %u only, not %u",
                           d->core.dev_n, s->n);
    }
    s->t.submit_ns = mortar_guest_now_ns();
    int rc = matmul_core_regcopy_run(&d->core, s->req_id, a, b, s->c, NULL);
    if (rc) {
        return matmul_core_failed(d, rc);
    }
    s->t.done_ns = mortar_guest_now_ns();
    s->done = true;
    return 0;
}

const matmul_ops matmul_ops_regcopy = {
    .open = regcopy_open,
    .submit = regcopy_submit,
    .device_timing = matmul_device_timing,
};
