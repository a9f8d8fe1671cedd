/*
 * flow_ctrl.c - 802.3x flow control in the i40e model, as the driver and
 * the firmware set it up.
 *
 * The setting: the PHY's abilities carry two PAUSE bits (transmit 0x01,
 * receive 0x02). With the `flow_control` parameter true the firmware's
 * initial PHY configuration has both, get_phy_abilities reports the current
 * ones, and set_phy_config (the driver's i40e_set_fc, for ethtool -A)
 * replaces them; with it false the PHY has no PAUSE ability and the bits
 * stay clear. The pause in effect is settled when the link comes up
 * (autonegotiation; the link partner is taken to offer symmetric PAUSE)
 * and reported in the link status's an_info (PAUSE_TX 0x20, PAUSE_RX
 * 0x40), from which the driver derives hw->fc.current_mode.
 *
 * Receive pause: a MAC control frame (EtherType 0x8808) is consumed by the
 * MAC and never reaches a queue. A PAUSE frame counts GLPRT_LXOFFRXC (time
 * not 0) or GLPRT_LXONRXC (time 0) and `pause_rx`; with receive pause in
 * effect it holds the transmit wire: no data frame starts before pause time
 * x 512 bit times at the line rate (`speed`) from its arrival; time 0
 * releases the wire at once.
 *
 * Transmit pause: when the receive packet buffer holds more than
 * I40E_FC_HIGH_MARK bytes an XOFF (pause time 0xFFFF) goes out, and again
 * while it stays above once half that time has passed (a refresh); once it
 * has drained to I40E_FC_LOW_MARK an XON (time 0) follows. A PAUSE goes out
 * at the next frame boundary on the wire, ahead of data frames waiting
 * there, and whether or not the wire is paused (GLPRT_LXOFFTXC /
 * GLPRT_LXONTXC, `xoff_tx` / `xon_tx`).
 */
#include "i40e_internal.h"

#include <string.h>

#include "mortar/runtime.h"
#include "sims/eth/pause.h"

#define AN_PAUSE_TX 0x20
#define AN_PAUSE_RX 0x40
#define XOFF_QUANTA 0xFFFFu

void i40e_fc_init(i40e *d)
{
    memset(&d->fc, 0, sizeof d->fc);
    if (d->flow_control)
        d->fc.phy_pause = I40E_PHY_PAUSE_TX | I40E_PHY_PAUSE_RX;
}

bool i40e_fc_phy_config(i40e *d, uint8_t abilities)
{
    uint8_t pause =
        d->flow_control ? abilities & (I40E_PHY_PAUSE_TX | I40E_PHY_PAUSE_RX) : 0;
    bool changed = pause != d->fc.phy_pause;
    d->fc.phy_pause = pause;
    return changed;
}

void i40e_fc_link_up(i40e *d)
{
    d->fc.link_pause = d->fc.phy_pause;
    if (!(d->fc.link_pause & I40E_PHY_PAUSE_RX))
        d->fc.paused_until_ps = 0;
}

uint8_t i40e_fc_an_info(const i40e *d)
{
    if (!d->link_up)
        return 0;
    return (uint8_t)((d->fc.link_pause & I40E_PHY_PAUSE_TX ? AN_PAUSE_TX : 0) |
                     (d->fc.link_pause & I40E_PHY_PAUSE_RX ? AN_PAUSE_RX : 0));
}

bool i40e_fc_frame_in(i40e *d, const uint8_t *frame, uint32_t len)
{
    uint16_t quanta;
    if (!eth_mac_control(frame, len))
        return false;
    if (!eth_pause_parse(frame, len, &quanta)) {
        d->c.rx_filtered++; /* another MAC control opcode: consumed */
        return true;
    }
    d->c.pause_rx++;
    if (quanta)
        d->st.lxoffrxc++;
    else
        d->st.lxonrxc++;
    if (d->fc.link_pause & I40E_PHY_PAUSE_RX) {
        d->fc.paused_until_ps =
            mortar_now(d->self) + eth_pause_duration_ps(quanta, d->speed_bps);
        i40e_wire_arm(d); /* XON may let a held frame go now */
    }
    return true;
}

uint64_t i40e_fc_paused_until(const i40e *d)
{
    return d->fc.paused_until_ps;
}

static void queue_pause(i40e *d, uint16_t quanta)
{
    d->fc.ctl_pending = true;
    d->fc.ctl_quanta = quanta;
    d->fc.xoff_sent = quanta != 0;
    if (quanta)
        d->fc.xoff_sent_ps = mortar_now(d->self);
    i40e_wire_arm(d);
}

void i40e_fc_rx_level(i40e *d)
{
    i40e_fc *fc = &d->fc;
    uint32_t bytes = d->rx.bytes;
    if (!(fc->link_pause & I40E_PHY_PAUSE_TX) || !d->link_up) {
        fc->xoff_sent = false;
        return;
    }
    uint64_t refresh = eth_pause_duration_ps(XOFF_QUANTA, d->speed_bps) / 2;
    if (bytes > I40E_FC_HIGH_MARK &&
        (!fc->xoff_sent || mortar_now(d->self) >= fc->xoff_sent_ps + refresh))
        queue_pause(d, XOFF_QUANTA);
    else if (fc->xoff_sent && bytes <= I40E_FC_LOW_MARK)
        queue_pause(d, 0);
}

uint32_t i40e_fc_take_ctl(i40e *d, uint8_t *out)
{
    if (!d->fc.ctl_pending)
        return 0;
    d->fc.ctl_pending = false;
    if (d->fc.ctl_quanta) {
        d->c.xoff_tx++;
        d->st.lxofftxc++;
    } else {
        d->c.xon_tx++;
        d->st.lxontxc++;
    }
    return eth_pause_build(out, d->mac, d->fc.ctl_quanta);
}
