/*
 * matmul_regcopy.c - the register-copy driver: design A's unit behind plain
 * register windows (docs/models/matmul.md, "Register copy"; the sequence of
 * sims/matmul/drivers_hoststub.c).
 *
 * The CPU writes both operands row-major into the BAR2 windows with MMIO
 * writes of copy_bytes each (8 by default: the widest single access an
 * x86 store makes and mortar-pci accepts; posted, so they cost the CPU
 * little), writes START, polls STATUS with MMIO reads, and reads C back
 * with MMIO reads of copy_bytes each, every one a round trip over the link:
 * n*n bytes for an int8 product, 4*n*n for int32 (CONTROL.RESULT_I32, set
 * once at open). No DMA.
 */
#include <string.h>

#include "matmul_internal.h"

static int regcopy_open(matmul_guest *d)
{
    d->dev_n = mm_rd32(d, MATMUL_REG_N);
    d->win_a = mm_rd32(d, MATMUL_R_WIN_A);
    d->win_b = mm_rd32(d, MATMUL_R_WIN_B);
    d->win_c = mm_rd32(d, MATMUL_R_WIN_C);
    if (d->dev_n == 0 || d->dev_n % MATMUL_TILE || d->dev_n > 4096) {
        return matmul_fail(d, MORTAR_EPROTO, "the device's N register reads %u",
                           d->dev_n);
    }
    int rc = mortar_guest_bar_map(d->pci, MATMUL_BAR_WINDOW, &d->win);
    if (rc) {
        return matmul_fail(d, rc, "%s", mortar_guest_errmsg(d->pci));
    }
    uint64_t nn = (uint64_t)d->dev_n * d->dev_n;
    if (d->win->size < d->win_c + 4 * nn || d->win->size < d->win_a + nn ||
        d->win->size < d->win_b + nn) {
        return matmul_fail(d, MORTAR_EPROTO, "BAR2 (%llu bytes) is too small for n = %u",
                           (unsigned long long)d->win->size, d->dev_n);
    }
    d->o.max_n = d->dev_n;
    mm_wr32(d, MATMUL_R_STATUS, MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR);
    uint32_t ctrl = matmul_result_i32(d) ? MATMUL_R_CTRL_RESULT_I32 : 0;
    mm_wr32(d, MATMUL_R_CONTROL, ctrl);
    uint32_t back = mm_rd32(d, MATMUL_R_CONTROL);
    if (back != ctrl) {
        return matmul_fail(d, MORTAR_EPROTO, "CONTROL reads 0x%x, wrote 0x%x", back,
                           ctrl);
    }
    return 0;
}

/* `size` bytes from src into the window at `off`, copy_bytes per MMIO write. */
static void copy_in(matmul_guest *d, uint64_t off, const void *src, size_t size)
{
    volatile uint8_t *w = d->win->base + off;
    const uint8_t *p = src;
    size_t i;
    switch (d->o.copy_bytes) {
    case 8:
        for (i = 0; i < size; i += 8) {
            uint64_t v;
            memcpy(&v, p + i, 8);
            *(volatile uint64_t *)(w + i) = v;
        }
        break;
    case 4:
        for (i = 0; i < size; i += 4) {
            uint32_t v;
            memcpy(&v, p + i, 4);
            *(volatile uint32_t *)(w + i) = v;
        }
        break;
    case 2:
        for (i = 0; i < size; i += 2) {
            uint16_t v;
            memcpy(&v, p + i, 2);
            *(volatile uint16_t *)(w + i) = v;
        }
        break;
    default:
        for (i = 0; i < size; i++) {
            w[i] = p[i];
        }
    }
    d->mmio_writes += size / d->o.copy_bytes;
}

/* `size` bytes from the window at `off` into dst, copy_bytes per MMIO read. */
static void copy_out(matmul_guest *d, uint64_t off, void *dst, size_t size)
{
    const volatile uint8_t *w = d->win->base + off;
    uint8_t *p = dst;
    size_t i;
    switch (d->o.copy_bytes) {
    case 8:
        for (i = 0; i < size; i += 8) {
            uint64_t v = *(const volatile uint64_t *)(w + i);
            memcpy(p + i, &v, 8);
        }
        break;
    case 4:
        for (i = 0; i < size; i += 4) {
            uint32_t v = *(const volatile uint32_t *)(w + i);
            memcpy(p + i, &v, 4);
        }
        break;
    case 2:
        for (i = 0; i < size; i += 2) {
            uint16_t v = *(const volatile uint16_t *)(w + i);
            memcpy(p + i, &v, 2);
        }
        break;
    default:
        for (i = 0; i < size; i++) {
            p[i] = w[i];
        }
    }
    d->mmio_reads += size / d->o.copy_bytes;
}

static int regcopy_submit(matmul_guest *d, matmul_slot *s, const int8_t *a,
                          const int8_t *b)
{
    if (s->n != d->dev_n) {
        return matmul_fail(d, MORTAR_EINVAL, "register copy runs n = %u only, not %u",
                           d->dev_n, s->n);
    }
    size_t nn = (size_t)s->n * s->n;
    uint32_t st;
    s->t.submit_ns = mortar_guest_now_ns();
    mm_wr32(d, MATMUL_R_STATUS, MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR);
    mm_wr32(d, MATMUL_R_REQ_ID, (uint32_t)s->req_id);
    copy_in(d, d->win_a, a, nn);
    copy_in(d, d->win_b, b, nn);
    mm_wr32(d, MATMUL_R_START, 1);
    int rc = matmul_poll_status(d, MATMUL_R_STATUS, &st);
    if (!rc && (st & MATMUL_STATUS_ERROR)) {
        rc = matmul_device_error(d, MATMUL_R_ERR_CODE, MATMUL_R_STATUS);
    }
    if (rc) {
        return rc;
    }
    copy_out(d, d->win_c, s->c, nn * matmul_elem_bytes(d));
    s->t.done_ns = mortar_guest_now_ns();
    s->done = true;
    return 0;
}

static int regcopy_device_timing(matmul_guest *d, matmul_guest_timing *t)
{
    t->dev_compute_ps = mm_rd64(d, MATMUL_R_COMPUTE);
    t->dev_start_ps = mm_rd64(d, MATMUL_R_T_FIRST);
    t->dev_end_ps = mm_rd64(d, MATMUL_R_T_LAST);
    t->steps = MATMUL_STATUS_STEPS(mm_rd32(d, MATMUL_R_STATUS));
    t->dev_timing = true;
    return 0;
}

const matmul_ops matmul_ops_regcopy = {
    .open = regcopy_open,
    .submit = regcopy_submit,
    .device_timing = regcopy_device_timing,
};
