/*
 * eeprom_phy.c - the configuration EEPROM and the PHY of the e1000 model.
 *
 * EEPROM: 64 words. The Linux driver reads the 82540's EEPROM by bit-banging
 * the microwire interface in EECD (chip select, clock, data in/out): a start
 * bit and read opcode (3 bits, 110b), a 6-bit word address, then 16 data bits
 * that the EEPROM shifts out on DO, most significant first, one per rising
 * clock edge. Dropping chip select ends the command. The EERD register
 * (start, address, done, data) reads the same words without bit-banging.
 * Writes to the EEPROM are not modelled (the model acknowledges them as
 * complete and keeps its contents).
 *
 * PHY: an M88E1011 at MDIO address 1 behind MDIC. The link partner is
 * always there: the link is up at 1000 Mb/s full duplex and auto-negotiation
 * is complete, unless software powers the PHY down (PHY_CTRL.PD), which
 * takes the link down and raises a link status change.
 */
#include "e1000_internal.h"

#include <string.h>

/* EEPROM word offsets the driver reads (8254x manual, section 5). */
enum {
    EE_INIT_CONTROL1 = 0x0A,
    EE_SUBSYS_ID = 0x0B,
    EE_SUBSYS_VENDOR = 0x0C,
    EE_DEVICE_ID = 0x0D,
    EE_VENDOR_ID = 0x0E,
    EE_INIT_CONTROL2 = 0x0F,
    EE_ID_LED = 0x04,
};

void e1000_eeprom_init(e1000 *d)
{
    uint16_t *w = d->ee.words;
    memset(w, 0, sizeof d->ee.words);
    for (int i = 0; i < 3; i++)
        w[i] = (uint16_t)(d->mac[2 * i] | d->mac[2 * i + 1] << 8);
    w[EE_ID_LED] = 0xFFFF;        /* "use the default LED setup" */
    w[EE_INIT_CONTROL1] = 0x4400; /* valid signature (01b), full duplex */
    w[EE_SUBSYS_ID] = E1000_SUBSYS_ID;
    w[EE_SUBSYS_VENDOR] = E1000_SUBSYS_VENDOR;
    w[EE_DEVICE_ID] = E1000_DEV_82540EM;
    w[EE_VENDOR_ID] = E1000_VENDOR_INTEL;
    if (d->flow_control)
        w[EE_INIT_CONTROL2] = EE_PAUSE | EE_ASM_DIR; /* the driver picks full flow control */
    uint16_t sum = 0;
    for (int i = 0; i < EEPROM_CHECKSUM_WORD; i++)
        sum = (uint16_t)(sum + w[i]);
    w[EEPROM_CHECKSUM_WORD] = (uint16_t)(EEPROM_SUM - sum);
}

static void eeprom_standby(e1000_eeprom *ee)
{
    ee->bits_in = 0;
    ee->shift = 0;
    ee->reading = false;
    ee->data_pos = 0;
}

/* The level of DO: the current data bit while reading, else 1 ("ready"). */
static uint32_t eeprom_do(const e1000_eeprom *ee)
{
    if (!ee->reading)
        return E1000_EECD_DO;
    if (ee->data_pos == 0)
        return 0; /* the dummy zero after the address */
    uint32_t bit = (ee->data_pos - 1) % 16;
    uint32_t word = (ee->addr + (ee->data_pos - 1) / 16) % EEPROM_WORDS;
    return (ee->words[word] >> (15 - bit)) & 1 ? E1000_EECD_DO : 0;
}

uint32_t e1000_eecd_read(e1000 *d)
{
    uint32_t v = d->ee.eecd & ~(E1000_EECD_DO | E1000_EECD_GNT);
    v |= E1000_EECD_PRES | eeprom_do(&d->ee);
    if (v & E1000_EECD_REQ)
        v |= E1000_EECD_GNT;
    return v;
}

static void eeprom_clock_in(e1000_eeprom *ee, bool di)
{
    if (ee->reading) {
        ee->data_pos++;
        return;
    }
    ee->shift = ee->shift << 1 | (di ? 1u : 0u);
    if (++ee->bits_in < EEPROM_OPCODE_BITS + EEPROM_ADDR_BITS)
        return;
    uint32_t opcode = (ee->shift >> EEPROM_ADDR_BITS) & 0x7;
    if (opcode == EEPROM_READ_OPCODE_MW) {
        ee->addr = (uint16_t)(ee->shift & (EEPROM_WORDS - 1));
        ee->reading = true;
        ee->data_pos = 0;
    } else if (ee->bits_in > 32) {
        ee->bits_in = 0; /* unsupported command: ignore the rest */
    }
}

void e1000_eecd_write(e1000 *d, uint32_t v)
{
    e1000_eeprom *ee = &d->ee;
    uint32_t old = ee->eecd;
    ee->eecd = v & (E1000_EECD_SK | E1000_EECD_CS | E1000_EECD_DI | E1000_EECD_FWE |
                    E1000_EECD_REQ);
    if (!(v & E1000_EECD_CS)) {
        eeprom_standby(ee);
        return;
    }
    bool rising = (v & E1000_EECD_SK) && !(old & E1000_EECD_SK);
    if (rising && (old & E1000_EECD_CS))
        eeprom_clock_in(ee, v & E1000_EECD_DI);
}

void e1000_eerd_write(e1000 *d, uint32_t v)
{
    if (!(v & E1000_EERD_START)) {
        e1000_reg_set(d, E1000_EERD, v);
        return;
    }
    uint32_t addr = (v >> E1000_EERD_ADDR_SHIFT) & 0xFF;
    uint32_t data = addr < EEPROM_WORDS ? d->ee.words[addr] : 0;
    e1000_reg_set(d, E1000_EERD,
                  data << E1000_EERD_DATA_SHIFT | addr << E1000_EERD_ADDR_SHIFT |
                      E1000_EERD_DONE);
}

/* ---- PHY ------------------------------------------------------------------ */

void e1000_phy_reset(e1000 *d)
{
    uint16_t *r = d->phy.regs;
    memset(d->phy.regs, 0, sizeof d->phy.regs);
    r[PHY_CTRL] = 0x1140; /* auto-negotiation on, full duplex, 1000 Mb/s */
    r[PHY_ID1] = M88E1011_ID1;
    r[PHY_ID2] = M88E1011_ID2;
    r[PHY_AUTONEG_ADV] = 0x01E1;
    r[PHY_1000T_CTRL] = 0x0300;
    r[PHY_EXT_STATUS] = 0x3000;
    r[M88_PHY_SPEC_CTRL] = 0x0068;
    r[M88_EXT_PHY_SPEC_CTRL] = 0x0C60;
}

bool e1000_link_up(const e1000 *d)
{
    return !(d->phy.regs[PHY_CTRL] & MII_CR_POWER_DOWN);
}

uint32_t e1000_status(const e1000 *d)
{
    uint32_t v = E1000_STATUS_FD;
    if (e1000_link_up(d))
        v |= E1000_STATUS_LU | E1000_STATUS_SPEED_1000;
    return v;
}

static uint16_t phy_read(const e1000 *d, uint32_t reg)
{
    bool up = e1000_link_up(d);
    switch (reg) {
    case PHY_STATUS:
        return (uint16_t)(0x7949 |
                          (up ? MII_SR_LINK_STATUS | MII_SR_AUTONEG_COMPLETE : 0));
    case PHY_LP_ABILITY: /* acknowledge, 10/100 half and full, [pause, asymmetric] */
        return up ? 0x41E1 | (d->flow_control ? NWAY_LPAR_PAUSE | NWAY_LPAR_ASM_DIR : 0) : 0;
    case PHY_AUTONEG_EXP:
        return up ? 0x0001 : 0; /* partner can auto-negotiate */
    case PHY_1000T_STATUS:
        return up ? 0x3C00 : 0; /* receivers OK, partner 1000 half/full */
    case M88_PHY_SPEC_STATUS:
        return up ? 0xAC00 : 0; /* 1000 Mb/s, full duplex, resolved, link */
    case M88_INT_STATUS:
    case M88_RX_ERR_CNTR:
        return 0;
    default:
        return d->phy.regs[reg];
    }
}

static void phy_write(e1000 *d, uint32_t reg, uint16_t v)
{
    switch (reg) {
    case PHY_STATUS:
    case PHY_ID1:
    case PHY_ID2:
    case PHY_LP_ABILITY:
    case PHY_AUTONEG_EXP:
    case PHY_1000T_STATUS:
    case PHY_EXT_STATUS:
    case M88_PHY_SPEC_STATUS:
    case M88_INT_STATUS:
    case M88_RX_ERR_CNTR:
        return; /* read-only */
    case PHY_CTRL: {
        bool was_up = e1000_link_up(d);
        /* reset and restart complete at once (auto-negotiation is instant) */
        d->phy.regs[PHY_CTRL] = v & (uint16_t) ~(MII_CR_RESET | MII_CR_RESTART_AUTO_NEG);
        if (was_up != e1000_link_up(d))
            e1000_irq_cause(d, E1000_ICR_LSC);
        return;
    }
    default:
        d->phy.regs[reg] = v;
    }
}

void e1000_mdic_write(e1000 *d, uint32_t v)
{
    uint32_t phy = (v >> E1000_MDIC_PHY_SHIFT) & 0x1F;
    uint32_t reg = (v >> E1000_MDIC_REG_SHIFT) & 0x1F;
    uint32_t result = v & ~(E1000_MDIC_READY | E1000_MDIC_ERROR);
    if (v & (E1000_MDIC_OP_READ | E1000_MDIC_OP_WRITE)) {
        result |= E1000_MDIC_READY;
        if (phy != E1000_PHY_ADDR) {
            result |= E1000_MDIC_ERROR;
        } else if (v & E1000_MDIC_OP_READ) {
            result = (result & ~E1000_MDIC_DATA_MASK) | phy_read(d, reg);
        } else {
            phy_write(d, reg, (uint16_t)(v & E1000_MDIC_DATA_MASK));
        }
    }
    e1000_reg_set(d, E1000_MDIC, result);
    if ((v & E1000_MDIC_INT_EN) && (result & E1000_MDIC_READY))
        e1000_irq_cause(d, E1000_ICR_MDAC);
}
