/*
 * flow_ctrl.c - 802.3x flow control in the e1000 model, as the driver sets
 * it up (e1000_setup_link, e1000_force_mac_fc): CTRL.RFCE honours PAUSE
 * frames received, CTRL.TFCE sends them from the receive FIFO's marks.
 *
 * Receive (RFCE): a MAC control frame (EtherType FCT) to the flow control
 * address (FCAL/FCAH) with the PAUSE opcode holds the transmitter: no packet
 * starts for pause time x 512 bit times at the 1 Gb/s line rate, or until a
 * PAUSE with time 0 arrives (XOFFRXC / XONRXC). Other MAC control frames
 * count FCRUC. All of them are consumed: software never sees them. With
 * RFCE clear a MAC control frame goes through the normal filters.
 *
 * Transmit (TFCE, FCRTH not 0): a frame accepted into the receive FIFO while
 * the FIFO holds more than FCRTH bytes sends a PAUSE of FCTTV quanta (XOFF):
 * a frame that still arrives above the mark means the link partner is
 * sending, so it is told again. When the FIFO has drained to FCRTL after an
 * XOFF, a PAUSE of 0 (XON) follows if FCRTL.XONE is set. XOFFTXC / XONTXC.
 * PAUSE frames go out on the link at once, ahead of packets not yet sent.
 */
#include "e1000_internal.h"

#include <string.h>

#include "mortar/eth.h"
#include "sims/eth/pause.h"

#define LINE_RATE_BPS (MORTAR_S(8) / E1000_PS_PER_BYTE)

/* The flow control address FCAL/FCAH holds (the driver writes
 * 01:80:C2:00:00:01). */
static void fc_address(const e1000 *d, uint8_t mac[6])
{
    uint32_t lo = e1000_reg(d, E1000_FCAL), hi = e1000_reg(d, E1000_FCAH);
    for (int i = 0; i < 4; i++)
        mac[i] = (uint8_t)(lo >> (8 * i));
    mac[4] = (uint8_t)hi;
    mac[5] = (uint8_t)(hi >> 8);
}

static void pause_transmit(e1000 *d, uint16_t quanta)
{
    e1000_fc *fc = &d->fc;
    if (fc->resume_timer)
        mortar_timer_cancel(d->self, fc->resume_timer);
    fc->resume_timer = 0;
    fc->tx_paused_until_ps =
        mortar_now(d->self) + eth_pause_duration_ps(quanta, LINE_RATE_BPS);
    if (quanta == 0)
        e1000_tx_kick(d); /* XON: a packet held back may go */
}

bool e1000_fc_frame_in(e1000 *d, const uint8_t *frame, uint32_t len)
{
    if (!(e1000_reg(d, E1000_CTRL) & E1000_CTRL_RFCE) || !eth_mac_control(frame, len))
        return false;
    uint8_t addr[6];
    uint16_t quanta;
    fc_address(d, addr);
    if (memcmp(frame, addr, 6) == 0 && eth_pause_parse(frame, len, &quanta)) {
        e1000_stat_add(d, quanta ? E1000_XOFFRXC : E1000_XONRXC, 1);
        d->c.pause_rx++;
        pause_transmit(d, quanta);
    } else {
        e1000_stat_add(d, E1000_FCRUC, 1);
        d->c.rx_filtered++;
    }
    return true;
}

bool e1000_fc_tx_paused(e1000 *d)
{
    e1000_fc *fc = &d->fc;
    if (mortar_now(d->self) >= fc->tx_paused_until_ps)
        return false;
    if (!fc->resume_timer)
        fc->resume_timer =
            mortar_timer_set(d->self, fc->tx_paused_until_ps, E1000_TIMER_TX_PAUSE);
    return true;
}

void e1000_fc_timer(e1000 *d)
{
    d->fc.resume_timer = 0;
    e1000_tx_kick(d);
}

static void send_pause(e1000 *d, uint16_t quanta)
{
    uint8_t frame[ETH_PAUSE_FRAME_BYTES], mac[6];
    uint32_t ral = e1000_reg(d, E1000_RA), rah = e1000_reg(d, E1000_RA + 4);
    for (int i = 0; i < 4; i++)
        mac[i] = (uint8_t)(ral >> (8 * i));
    mac[4] = (uint8_t)rah;
    mac[5] = (uint8_t)(rah >> 8);
    uint32_t size = eth_pause_build(frame, mac, quanta);
    if (mortar_send(d->self, E1000_PORT_ETH, MORTAR_ETH_FRAME, frame, size,
                    size + MORTAR_ETH_OVERHEAD, NULL) != 0) {
        d->c.bad_messages++;
        return;
    }
    e1000_stat_add(d, quanta ? E1000_XOFFTXC : E1000_XONTXC, 1);
    if (quanta) {
        d->c.xoff_tx++;
        d->fc.xoff_sent = true;
    } else {
        d->c.xon_tx++;
        d->fc.xoff_sent = false;
    }
}

void e1000_fc_rx_filled(e1000 *d, uint32_t fifo_bytes)
{
    uint32_t high = e1000_reg(d, E1000_FCRTH) & E1000_FCRT_MASK;
    if ((e1000_reg(d, E1000_CTRL) & E1000_CTRL_TFCE) && high && fifo_bytes > high)
        send_pause(d, (uint16_t)e1000_reg(d, E1000_FCTTV));
}

void e1000_fc_rx_drained(e1000 *d, uint32_t fifo_bytes)
{
    uint32_t fcrtl = e1000_reg(d, E1000_FCRTL);
    if (d->fc.xoff_sent && fifo_bytes <= (fcrtl & E1000_FCRT_MASK)) {
        d->fc.xoff_sent = false;
        if ((fcrtl & E1000_FCRTL_XONE) && (e1000_reg(d, E1000_CTRL) & E1000_CTRL_TFCE))
            send_pause(d, 0);
    }
}

void e1000_fc_reset(e1000 *d)
{
    if (d->fc.resume_timer)
        mortar_timer_cancel(d->self, d->fc.resume_timer);
    memset(&d->fc, 0, sizeof d->fc);
}
