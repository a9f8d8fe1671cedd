/*
 * irq.c - the i40e model's interrupts: MSI-X vectors, their causes, auto
 * masking and ITR throttling.
 *
 * Vector 0 serves the "other" causes collected in PFINT_ICR0 (admin queue,
 * software interrupt); it is pending while ICR0 & ICR0_ENA is non-zero, and
 * reading ICR0 clears it. Vector v >= 1 serves the queues whose cause
 * control (QINT_RQCTL / QINT_TQCTL) has CAUSE_ENA and names v in MSIX_INDX.
 *
 * A vector fires (one MSI-X message) when it has a pending cause, its
 * interrupt is enabled (the driver wrote INTENA to PFINT_DYN_CTL0/DYN_CTLN)
 * and the throttling interval of a pending cause's ITR index has passed
 * since the vector last fired (PFINT_ITR0/ITRN, in 2 us units; index 3
 * means none): each index times on its own, and the first to run out with
 * a cause waiting fires the vector. Firing clears INTENA (the hardware
 * masks the vector until the driver re-enables it, as the driver's
 * interrupt handlers expect). A DYN_CTL write may also set a new interval
 * for an ITR index (ITR_INDX, INTERVAL) or trigger a software interrupt
 * (SWINT_TRIG); INTENA_MSK leaves INTENA as it was.
 *
 * Rewriting an index's interval through DYN_CTL lets that index's timer
 * run out at once: a cause on it, waiting or the next to come, fires the
 * vector without waiting for the interval (the Linux driver, i40e_txrx.c
 * above ITR_COUNTDOWN_START: "The act of updating the ITR will cause it
 * to immediately trigger", which is why its adaptive moderation changes
 * one interval at most every few interrupts). The next firing starts every
 * index's interval anew.
 */
#include "i40e_internal.h"

#include "mortar/runtime.h"

#define ITR_NONE 3

static uint32_t dyn_ctl_off(uint32_t vec)
{
    return vec == 0 ? I40E_PFINT_DYN_CTL0 : I40E_PFINT_DYN_CTLN(vec - 1);
}

static uint32_t itr_off(uint32_t vec, uint32_t idx)
{
    return vec == 0 ? I40E_PFINT_ITR0(idx) : I40E_PFINT_ITRN(idx, vec - 1);
}

static uint64_t itr_interval_ps(const i40e *d, uint32_t vec, uint32_t idx)
{
    if (idx >= ITR_NONE)
        return 0;
    return (uint64_t)(i40e_reg(d, itr_off(vec, idx)) & 0xFFF) * I40E_ITR_UNIT_PS;
}

static bool enabled(const i40e *d, uint32_t vec)
{
    return i40e_reg(d, dyn_ctl_off(vec)) & I40E_DYN_INTENA;
}

static void fire(i40e *d, uint32_t vec)
{
    i40e_vector *v = &d->vec[vec];
    v->causes = 0;
    v->expired = 0;
    v->ever_fired = true;
    v->last_fire_ps = mortar_now(d->self);
    i40e_reg_set(d, dyn_ctl_off(vec), i40e_reg(d, dyn_ctl_off(vec)) & ~I40E_DYN_INTENA);
    d->c.interrupts++;
    mortar_trace(d->self, d->tk_irq, d->c.interrupts, vec, 0);
    mortar_pcie_interrupt in = {.vector = (uint16_t)vec, .kind = MORTAR_PCIE_INT_MSIX};
    i40e_send_pcie(d, MORTAR_PCIE_INTERRUPT, &in, sizeof in);
}

/* When the vector may fire for its pending causes: the earliest time one
 * of their ITR indexes runs out. */
static uint64_t due_ps(const i40e *d, uint32_t vec)
{
    const i40e_vector *v = &d->vec[vec];
    uint64_t now = mortar_now(d->self), due = UINT64_MAX;
    for (uint32_t idx = 0; idx <= ITR_NONE; idx++) {
        if (!(v->causes & 1u << idx))
            continue;
        uint64_t t = now;
        if (v->ever_fired && !(v->expired & 1u << idx))
            t = v->last_fire_ps + itr_interval_ps(d, vec, idx);
        due = t < due ? t : due;
    }
    return due > now ? due : now;
}

/* Drops the vector's planned firing. */
static void forget_timer(i40e *d, uint32_t vec)
{
    if (d->vec[vec].timer) {
        mortar_timer_cancel(d->self, d->vec[vec].timer);
        d->vec[vec].timer = 0;
    }
}

/* Fires the vector now or plans its firing, as its causes, its enable and
 * its ITR timers say (called after any of them changes). */
static void update(i40e *d, uint32_t vec)
{
    i40e_vector *v = &d->vec[vec];
    if (!v->causes || !enabled(d, vec) || !d->msix_enabled)
        return; /* a planned firing finds nothing to do and plans nothing */
    uint64_t due = due_ps(d, vec);
    if (due <= mortar_now(d->self)) {
        forget_timer(d, vec);
        fire(d, vec);
    } else if (!v->timer || v->timer_ps != due) {
        forget_timer(d, vec);
        v->timer_ps = due;
        v->timer = mortar_timer_set(d->self, due, I40E_TIMER(I40E_TIMER_ITR, vec));
    }
}

static void raise(i40e *d, uint32_t vec, uint32_t itr_idx)
{
    d->vec[vec].causes |= (uint8_t)(1u << itr_idx);
    update(d, vec);
}

void i40e_irq_timer(i40e *d, uint32_t vec)
{
    if (vec >= I40E_NVEC)
        return;
    d->vec[vec].timer = 0;
    update(d, vec);
}

void i40e_irq_queue_cause(i40e *d, bool rx, uint32_t q)
{
    uint32_t ctl = i40e_reg(d, rx ? I40E_QINT_RQCTL(q) : I40E_QINT_TQCTL(q));
    if (!(ctl & I40E_QINT_CAUSE_ENA))
        return;
    uint32_t vec = ctl & I40E_QINT_MSIX_INDX_MASK;
    uint32_t itr = ctl >> I40E_QINT_ITR_INDX_SHIFT & 3;
    if (vec >= I40E_NVEC) {
        d->c.ring_errors++;
        return;
    }
    if (vec == 0) {
        i40e_irq_icr0_cause(d, I40E_ICR0_INTEVENT);
        return;
    }
    raise(d, vec, itr);
}

void i40e_irq_icr0_cause(i40e *d, uint32_t cause)
{
    uint32_t icr = i40e_reg(d, I40E_PFINT_ICR0) | cause;
    uint32_t ena = i40e_reg(d, I40E_PFINT_ICR0_ENA);
    if (icr & ena & ~I40E_ICR0_INTEVENT)
        icr |= I40E_ICR0_INTEVENT;
    i40e_reg_set(d, I40E_PFINT_ICR0, icr);
    if (icr & I40E_ICR0_INTEVENT)
        raise(d, 0, (i40e_reg(d, I40E_PFINT_STAT_CTL0) >> 2) & 3);
}

uint32_t i40e_irq_read_icr0(i40e *d)
{
    uint32_t v = i40e_reg(d, I40E_PFINT_ICR0);
    i40e_reg_set(d, I40E_PFINT_ICR0, 0);
    d->vec[0].causes = 0;
    return v;
}

void i40e_irq_dyn_ctl_write(i40e *d, uint32_t vec, uint32_t v)
{
    if (vec >= I40E_NVEC)
        return;
    uint32_t off = dyn_ctl_off(vec);
    uint32_t old = i40e_reg(d, off);
    uint32_t idx = v >> I40E_DYN_ITR_INDX_SHIFT & 3;
    if (idx != ITR_NONE) {
        /* the new interval, and its timer runs out at once (see the top) */
        i40e_reg_set(d, itr_off(vec, idx),
                     v >> I40E_DYN_INTERVAL_SHIFT & I40E_DYN_INTERVAL_MASK);
        d->vec[vec].expired |= (uint8_t)(1u << idx);
    }
    uint32_t keep = v & ~(I40E_DYN_CLEARPBA | I40E_DYN_SWINT_TRIG | I40E_DYN_INTENA_MSK);
    if (v & I40E_DYN_INTENA_MSK)
        keep = (keep & ~I40E_DYN_INTENA) | (old & I40E_DYN_INTENA);
    i40e_reg_set(d, off, keep);
    if (v & I40E_DYN_SWINT_TRIG) {
        if (vec == 0)
            i40e_irq_icr0_cause(d, I40E_ICR0_SWINT | I40E_ICR0_INTEVENT);
        else
            raise(d, vec, ITR_NONE);
    }
    update(d, vec);
}

void i40e_irq_devctrl(i40e *d, uint32_t flags)
{
    bool msix = flags & MORTAR_PCIE_CTRL_MSIX_ENABLE;
    if (msix == d->msix_enabled)
        return;
    d->msix_enabled = msix;
    for (uint32_t v = 0; v < I40E_NVEC; v++)
        update(d, v);
}

void i40e_irq_reset(i40e *d)
{
    for (uint32_t v = 0; v < I40E_NVEC; v++) {
        if (d->vec[v].timer)
            mortar_timer_cancel(d->self, d->vec[v].timer);
        d->vec[v] = (i40e_vector){0};
    }
}
