/*
 * irq.c - interrupt causes, moderation and signalling of the e1000 model.
 *
 * Causes collect in ICR; IMS masks them. The interrupt is asserted while
 * (ICR & IMS) != 0: INTx as a level (MORTAR_PCIE_INT_LEGACY_HIGH, then _LOW
 * when ICR is read or the causes are masked), or, when the host enabled MSI,
 * one MSI message (vector 0) per rising edge. Reading ICR clears it.
 *
 * Moderation, as on the 82540:
 *  - receive: RXT0 is raised RDTR x 1.024 us after the last frame (each frame
 *    restarts the timer), or RADV x 1.024 us after the first one, whichever is
 *    first; RDTR = 0 raises it at once.
 *  - transmit: a written-back descriptor with IDE raises TXDW after TIDV (each
 *    restarts it) or TADV (absolute); without IDE or with TIDV = 0 at once.
 *  - ITR: two assertions are at least ITR x 256 ns apart; an assertion due
 *    earlier waits for the interval to end. ITR = 0 disables throttling.
 */
#include "e1000_internal.h"

static void cancel(e1000 *d, uint64_t *timer)
{
    if (*timer)
        mortar_timer_cancel(d->self, *timer);
    *timer = 0;
}

static void arm(e1000 *d, uint64_t *timer, uint64_t delay_ps, uint64_t cookie)
{
    cancel(d, timer);
    *timer = mortar_timer_set(d->self, mortar_now(d->self) + delay_ps, cookie);
}

static void signal_line(e1000 *d, uint8_t kind)
{
    mortar_pcie_interrupt in = {.vector = 0, .kind = kind};
    e1000_send_pcie(d, MORTAR_PCIE_INTERRUPT, &in, sizeof in);
}

static void deassert(e1000 *d)
{
    d->irq.asserted = false;
    if (d->irq.intx_line) {
        d->irq.intx_line = false;
        signal_line(d, MORTAR_PCIE_INT_LEGACY_LOW);
    }
}

static void assert_now(e1000 *d, uint32_t pending)
{
    e1000_irq *q = &d->irq;
    q->asserted = true;
    q->ever_asserted = true;
    q->last_assert_ps = mortar_now(d->self);
    d->c.interrupts++;
    mortar_trace(d->self, d->tk_irq, d->c.interrupts, pending, q->msi_enabled);
    if (q->msi_enabled) {
        signal_line(d, MORTAR_PCIE_INT_MSI);
    } else if (q->intx_enabled) {
        q->intx_line = true;
        signal_line(d, MORTAR_PCIE_INT_LEGACY_HIGH);
    }
}

static uint64_t itr_interval(const e1000 *d)
{
    return (uint64_t)(e1000_reg(d, E1000_ITR) & 0xFFFF) * E1000_ITR_UNIT_PS;
}

void e1000_irq_update(e1000 *d)
{
    e1000_irq *q = &d->irq;
    uint32_t pending = e1000_reg(d, E1000_ICR) & e1000_reg(d, E1000_IMS);
    if (!pending) {
        if (q->asserted)
            deassert(d);
        return;
    }
    if (q->asserted || q->itr_timer)
        return;
    uint64_t now = mortar_now(d->self);
    uint64_t earliest = q->ever_asserted ? q->last_assert_ps + itr_interval(d) : now;
    if (earliest <= now)
        assert_now(d, pending);
    else
        arm(d, &q->itr_timer, earliest - now, E1000_TIMER_ITR);
}

void e1000_irq_cause(e1000 *d, uint32_t causes)
{
    e1000_reg_set(d, E1000_ICR, e1000_reg(d, E1000_ICR) | (causes & E1000_ICR_VALID));
    e1000_irq_update(d);
}

uint32_t e1000_irq_read_icr(e1000 *d)
{
    uint32_t v = e1000_reg(d, E1000_ICR);
    e1000_reg_set(d, E1000_ICR, 0);
    e1000_irq_update(d);
    return v;
}

void e1000_irq_rx_event(e1000 *d)
{
    e1000_irq *q = &d->irq;
    uint64_t rdtr = e1000_reg(d, E1000_RDTR) & 0xFFFF;
    uint64_t radv = e1000_reg(d, E1000_RADV) & 0xFFFF;
    if (rdtr == 0) {
        cancel(d, &q->rx_pkt_timer);
        cancel(d, &q->rx_abs_timer);
        e1000_irq_cause(d, E1000_ICR_RXT0);
        return;
    }
    arm(d, &q->rx_pkt_timer, rdtr * E1000_DELAY_UNIT_PS, E1000_TIMER_RX_PKT);
    if (radv && !q->rx_abs_timer)
        arm(d, &q->rx_abs_timer, radv * E1000_DELAY_UNIT_PS, E1000_TIMER_RX_ABS);
}

void e1000_irq_tx_event(e1000 *d, bool delayed)
{
    e1000_irq *q = &d->irq;
    uint64_t tidv = e1000_reg(d, E1000_TIDV) & 0xFFFF;
    uint64_t tadv = e1000_reg(d, E1000_TADV) & 0xFFFF;
    if (!delayed || tidv == 0) {
        cancel(d, &q->tx_pkt_timer);
        cancel(d, &q->tx_abs_timer);
        e1000_irq_cause(d, E1000_ICR_TXDW);
        return;
    }
    arm(d, &q->tx_pkt_timer, tidv * E1000_DELAY_UNIT_PS, E1000_TIMER_TX_PKT);
    if (tadv && !q->tx_abs_timer)
        arm(d, &q->tx_abs_timer, tadv * E1000_DELAY_UNIT_PS, E1000_TIMER_TX_ABS);
}

void e1000_irq_timer(e1000 *d, uint64_t cookie)
{
    e1000_irq *q = &d->irq;
    switch (cookie) {
    case E1000_TIMER_ITR:
        q->itr_timer = 0;
        e1000_irq_update(d);
        break;
    case E1000_TIMER_RX_PKT:
    case E1000_TIMER_RX_ABS:
        /* the timer that fired is gone; the other one is no longer needed */
        *(cookie == E1000_TIMER_RX_PKT ? &q->rx_pkt_timer : &q->rx_abs_timer) = 0;
        cancel(d, &q->rx_pkt_timer);
        cancel(d, &q->rx_abs_timer);
        e1000_irq_cause(d, E1000_ICR_RXT0);
        break;
    case E1000_TIMER_TX_PKT:
    case E1000_TIMER_TX_ABS:
        *(cookie == E1000_TIMER_TX_PKT ? &q->tx_pkt_timer : &q->tx_abs_timer) = 0;
        cancel(d, &q->tx_pkt_timer);
        cancel(d, &q->tx_abs_timer);
        e1000_irq_cause(d, E1000_ICR_TXDW);
        break;
    }
}

void e1000_irq_devctrl(e1000 *d, uint32_t flags)
{
    e1000_irq *q = &d->irq;
    bool msi = flags & MORTAR_PCIE_CTRL_MSI_ENABLE;
    bool intx = flags & MORTAR_PCIE_CTRL_INTX_ENABLE;
    if (msi == q->msi_enabled && intx == q->intx_enabled)
        return;
    deassert(d); /* re-signal the pending causes in the new mode */
    q->msi_enabled = msi;
    q->intx_enabled = intx;
    e1000_irq_update(d);
}

void e1000_irq_reset(e1000 *d)
{
    e1000_irq *q = &d->irq;
    cancel(d, &q->itr_timer);
    cancel(d, &q->rx_pkt_timer);
    cancel(d, &q->rx_abs_timer);
    cancel(d, &q->tx_pkt_timer);
    cancel(d, &q->tx_abs_timer);
    q->ever_asserted = false;
    if (q->asserted || q->intx_line)
        deassert(d);
}
