/*
 * aq_cmds.c - the admin commands the i40e model's firmware answers: those
 * the Linux driver sends from probe through `ip link set up`, link changes
 * and removal. Every other opcode is answered with I40E_AQ_RC_ENOSYS and
 * counted (aq_unsupported), which the driver reports and survives.
 *
 * The model's switch is the simplest one the driver accepts: one VSI (seid
 * 512) between the MAC (seid 2) and the PF (seid 16), the PF's main VSI.
 * Receive filtering follows the unicast addresses added with add_macvlan
 * (plus the port address), broadcast, all multicast, and unicast
 * promiscuous mode.
 *
 * The link: the port's PHY comes up I40E_LINK_UP_PS after the firmware
 * starts it (the driver enabling the admin receive queue, or asking with
 * set_phy_config); set_link_restart_an, and set_phy_config changing the
 * PAUSE abilities with an atomic restart, take it down and autonegotiate
 * again (the same delay). On each change, when the driver asked for link
 * status events (get_link_status with LSE enabled) and did not mask them
 * (set_phy_int_mask), a link status event goes to the ARQ. Flow control:
 * see flow_ctrl.c.
 */
#include "i40e_internal.h"

#include <string.h>

#include "mortar/runtime.h"

#define I40E_LINK_UP_PS 100000000ull /* 100 us */

enum {
    OPC_GET_VERSION = 0x0001,
    OPC_DRIVER_VERSION = 0x0002,
    OPC_QUEUE_SHUTDOWN = 0x0003,
    OPC_SET_PF_CONTEXT = 0x0004,
    OPC_REQUEST_RESOURCE = 0x0008,
    OPC_RELEASE_RESOURCE = 0x0009,
    OPC_LIST_FUNC_CAPS = 0x000A,
    OPC_LIST_DEV_CAPS = 0x000B,
    OPC_MAC_ADDRESS_READ = 0x0107,
    OPC_CLEAR_PXE_MODE = 0x0110,
    OPC_GET_SWITCH_CONFIG = 0x0200,
    OPC_SET_SWITCH_CONFIG = 0x0205,
    OPC_RX_CTL_READ = 0x0206,
    OPC_RX_CTL_WRITE = 0x0207,
    OPC_UPDATE_VSI = 0x0211,
    OPC_GET_VSI = 0x0212,
    OPC_ADD_MACVLAN = 0x0250,
    OPC_REMOVE_MACVLAN = 0x0251,
    OPC_ADD_VLAN = 0x0252,
    OPC_REMOVE_VLAN = 0x0253,
    OPC_SET_VSI_PROMISC = 0x0254,
    OPC_ADD_CONTROL_FILTER = 0x025A,
    OPC_SET_DCB_PARAMETERS = 0x0303,
    OPC_CONFIG_VSI_BW_LIMIT = 0x0400,
    OPC_CONFIG_VSI_TC_BW = 0x0407,
    OPC_QUERY_VSI_BW = 0x0408,
    OPC_QUERY_VSI_ETS_SLA = 0x040A,
    OPC_ENABLE_PORT_ETS = 0x0413,
    OPC_MODIFY_PORT_ETS = 0x0414,
    OPC_GET_PHY_ABILITIES = 0x0600,
    OPC_SET_PHY_CONFIG = 0x0601,
    OPC_SET_MAC_CONFIG = 0x0603,
    OPC_RESTART_AN = 0x0605,
    OPC_GET_LINK_STATUS = 0x0607,
    OPC_SET_PHY_INT_MASK = 0x0613,
    OPC_LLDP_GET_MIB = 0x0A00,
    OPC_DEBUG_READ_REG = 0xFF03,
};

#define SEID_MAC                 2
#define SEID_PF                  16
#define SEID_VSI                 512
#define ELEM_VSI                 19
#define CAP_ELEM                 32
#define VSI_PROPS                128
#define PHY_40GBASE_CR4          0x18
#define AN_COMPLETED             0x01
#define AN_QUALIFIED_MODULE      0x80
#define LINK_UP                  0x01
#define LINK_MEDIA_AVAILABLE     0x40
#define CONFIG_CRC_ENA           0x04
#define LSE_ENABLE               0x3
#define LSE_DISABLE              0x2
#define LSE_IS_ENABLED           0x1
#define EVENT_LINK_UPDOWN        0x0002
#define PHY_REPORT_INITIAL       0x0002
#define PHY_ENABLE_ATOMIC_LINK   0x20
#define PHY_ABILITY_LINK_ENABLED 0x08
#define PHY_ABILITY_AN_ENABLED   0x10

/* The command being answered: its descriptor, buffer and answer. */
typedef struct aq_cmd {
    uint8_t *desc, *params, *buf;
    uint32_t buf_len; /* the driver's buffer size */
    uint32_t resp_len;
    uint16_t retval;
} aq_cmd;

static void set_datalen(aq_cmd *c, uint32_t len)
{
    le16_put(c->desc + 4, (uint16_t)len);
}

/* Answer with `len` bytes of c->buf (already filled), when they fit. */
static void respond_buf(aq_cmd *c, uint32_t len)
{
    if (len > c->buf_len) {
        set_datalen(c, len); /* the size needed */
        c->retval = I40E_AQ_RC_ENOMEM;
        return;
    }
    set_datalen(c, len);
    c->resp_len = len;
}

/* ---- link ------------------------------------------------------------------ */

static uint8_t link_speed_bits(const i40e *d)
{
    uint64_t bps = 8000000000000ull / d->ps_per_byte;
    if (bps >= 40000000000ull)
        return 0x10;
    if (bps >= 25000000000ull)
        return 0x40;
    if (bps >= 20000000000ull)
        return 0x20;
    if (bps >= 10000000000ull)
        return 0x08;
    if (bps >= 1000000000ull)
        return 0x04;
    return 0x02;
}

void i40e_link_status_params(const i40e *d, uint8_t p[16], bool lse)
{
    memset(p, 0, 16);
    le16_put(p, lse ? LSE_IS_ENABLED : 0);
    p[2] = PHY_40GBASE_CR4;
    p[3] = d->link_up ? link_speed_bits(d) : 0;
    p[4] = LINK_MEDIA_AVAILABLE | (d->link_up ? LINK_UP : 0);
    p[5] = AN_QUALIFIED_MODULE | (d->link_up ? AN_COMPLETED : 0) | i40e_fc_an_info(d);
    le16_put(p + 8, (uint16_t)(d->max_frame ? d->max_frame : I40E_MAX_FRAME_FCS));
    p[10] = CONFIG_CRC_ENA;
}

void i40e_link_start(i40e *d)
{
    if (d->link_up || d->link_timer)
        return;
    d->link_timer = mortar_timer_set(d->self, mortar_now(d->self) + I40E_LINK_UP_PS,
                                     I40E_TIMER(I40E_TIMER_LINK, 0));
}

/* A link status event, when the driver asked for them and did not mask
 * them. */
static void link_event(i40e *d)
{
    if (d->lse_enabled && !(d->phy_int_mask & EVENT_LINK_UPDOWN)) {
        uint8_t p[16];
        i40e_link_status_params(d, p, true);
        i40e_arq_post(d, OPC_GET_LINK_STATUS, p);
    }
}

void i40e_link_timer(i40e *d)
{
    d->link_timer = 0;
    if (d->link_up)
        return;
    d->link_up = true;
    i40e_fc_link_up(d);
    link_event(d);
    i40e_rx_kick(d);
}

/* set_link_restart_an: the link goes down and autonegotiates again. */
static void restart_an(i40e *d)
{
    if (d->link_up) {
        d->link_up = false;
        link_event(d);
    }
    i40e_link_start(d);
}

/* set_phy_config: the PAUSE abilities (flow_ctrl.c); a change takes
 * effect when the link next comes up, at once when the driver asks for an
 * atomic link restart. */
static void set_phy_config(i40e *d, aq_cmd *c)
{
    uint8_t abilities = c->params[5];
    if (i40e_fc_phy_config(d, abilities) && (abilities & PHY_ENABLE_ATOMIC_LINK))
        restart_an(d);
    else
        i40e_link_start(d);
}

static void get_link_status(i40e *d, aq_cmd *c)
{
    uint16_t flags = le16_get(c->params);
    if ((flags & 0x3) == LSE_ENABLE)
        d->lse_enabled = true;
    else if ((flags & 0x3) == LSE_DISABLE)
        d->lse_enabled = false;
    i40e_link_status_params(d, c->params, d->lse_enabled);
}

static void get_phy_abilities(i40e *d, aq_cmd *c)
{
    uint8_t *b = c->buf;
    le32_put(b, 1u << PHY_40GBASE_CR4);
    b[4] = link_speed_bits(d);
    uint8_t pause = d->fc.phy_pause;
    if (le16_get(c->params) & PHY_REPORT_INITIAL)
        pause = d->flow_control ? I40E_PHY_PAUSE_TX | I40E_PHY_PAUSE_RX : 0;
    b[5] = pause | PHY_ABILITY_LINK_ENABLED | PHY_ABILITY_AN_ENABLED;
    /* the rest (EEE, FEC, module identity) stays zero */
    respond_buf(c, c->buf_len < 32 ? 32 : c->buf_len);
}

/* ---- identity and capabilities ---------------------------------------------- */

static void get_version(aq_cmd *c)
{
    uint8_t *p = c->params;
    memset(p, 0, 16);
    le32_put(p + 4, 0); /* fw build */
    le16_put(p + 8, I40E_FW_MAJOR);
    le16_put(p + 10, I40E_FW_MINOR);
    le16_put(p + 12, I40E_API_MAJOR);
    le16_put(p + 14, I40E_API_MINOR);
}

static void put_cap(uint8_t *e, uint16_t id, uint32_t number, uint32_t logical,
                    uint32_t phys)
{
    memset(e, 0, CAP_ELEM);
    le16_put(e, id);
    e[2] = 1; /* major revision */
    le32_put(e + 4, number);
    le32_put(e + 8, logical);
    le32_put(e + 12, phys);
}

static void list_caps(aq_cmd *c)
{
    uint8_t caps[8 * CAP_ELEM];
    uint32_t n = 0;
    put_cap(caps + CAP_ELEM * n++, 0x0005, 0x1, 0, 0);       /* functions valid: PF 0 */
    put_cap(caps + CAP_ELEM * n++, 0x0017, 32, 0, 0);        /* VSIs */
    put_cap(caps + CAP_ELEM * n++, 0x0040, 512, 6, 0);       /* RSS table */
    put_cap(caps + CAP_ELEM * n++, 0x0041, I40E_NQP, 0, 0);  /* RX queues from 0 */
    put_cap(caps + CAP_ELEM * n++, 0x0042, I40E_NQP, 0, 0);  /* TX queues from 0 */
    put_cap(caps + CAP_ELEM * n++, 0x0043, I40E_NVEC, 0, 0); /* MSI-X vectors */
    uint32_t len = n * CAP_ELEM;
    le32_put(c->params + 4, n);
    if (len <= c->buf_len)
        memcpy(c->buf, caps, len);
    respond_buf(c, len);
}

static void mac_address_read(i40e *d, aq_cmd *c)
{
    uint8_t mac[6];
    for (uint32_t i = 0; i < 3; i++) {
        uint16_t w = i40e_nvm_word(d, 0x100 + i);
        mac[2 * i] = (uint8_t)w;
        mac[2 * i + 1] = (uint8_t)(w >> 8);
    }
    memset(c->buf, 0, 24);
    memcpy(c->buf, mac, 6);                /* PF LAN address */
    memcpy(c->buf + 12, mac, 6);           /* port address */
    le16_put(c->params, 0x10 | 0x40); /* LAN and port addresses valid */
    respond_buf(c, 24);
}

/* ---- switch and VSI ----------------------------------------------------------- */

static void get_switch_config(aq_cmd *c)
{
    uint8_t *b = c->buf;
    memset(b, 0, 32);
    le16_put(b, 1);     /* reported */
    le16_put(b + 2, 1); /* total */
    uint8_t *e = b + 16;
    e[0] = ELEM_VSI;
    e[1] = 1;
    le16_put(e + 2, SEID_VSI);
    le16_put(e + 4, SEID_MAC);
    le16_put(e + 6, SEID_PF);
    le16_put(c->params, 0); /* no more elements */
    respond_buf(c, 32);
}

static void get_vsi(aq_cmd *c)
{
    /* VSI properties: all sections zero (no VLAN handling, queue map from
     * the driver's update), statistics index 0 */
    memset(c->buf, 0, VSI_PROPS);
    le16_put(c->params, SEID_VSI);
    le16_put(c->params + 2, 0);  /* VSI number */
    le16_put(c->params + 4, 1);  /* used */
    le16_put(c->params + 6, 31); /* free */
    respond_buf(c, c->buf_len < VSI_PROPS ? VSI_PROPS : c->buf_len);
}

static int find_uc(const i40e *d, const uint8_t *mac)
{
    for (uint32_t i = 0; i < d->nuc; i++)
        if (memcmp(d->uc[i], mac, 6) == 0)
            return (int)i;
    return -1;
}

/* Elements of 16 bytes come back with the match method set to perfect
 * match (the driver pre-sets "no resource" and takes any other value as
 * success). Unicast addresses beyond I40E_MAX_UC are accepted but not kept
 * (the port address and promiscuous mode still apply). */
static void add_macvlan(i40e *d, aq_cmd *c)
{
    uint16_t n = le16_get(c->params);
    for (uint32_t i = 0; i < n && (i + 1) * 16 <= c->buf_len; i++) {
        const uint8_t *mac = c->buf + i * 16;
        if (!(mac[0] & 1) && find_uc(d, mac) < 0 && d->nuc < I40E_MAX_UC)
            memcpy(d->uc[d->nuc++], mac, 6);
        c->buf[i * 16 + 12] = 0x01; /* perfect match */
    }
    c->resp_len = c->buf_len;
}

static void remove_macvlan(i40e *d, aq_cmd *c)
{
    uint16_t n = le16_get(c->params);
    for (uint32_t i = 0; i < n && (i + 1) * 16 <= c->buf_len; i++) {
        int k = find_uc(d, c->buf + i * 16);
        if (k >= 0)
            memmove(d->uc[k], d->uc[k + 1], (d->nuc - (uint32_t)k - 1) * 6u);
        if (k >= 0)
            d->nuc--;
        c->buf[i * 16 + 12] = 0; /* error code: success */
    }
    c->resp_len = c->buf_len;
}

static void vlan_filters(aq_cmd *c)
{
    uint16_t n = le16_get(c->params);
    for (uint32_t i = 0; i < n && (i + 1) * 8 <= c->buf_len; i++)
        c->buf[i * 8 + 4] = 0; /* result: success */
    c->resp_len = c->buf_len;
}

static void set_promisc(i40e *d, aq_cmd *c)
{
    uint16_t flags = le16_get(c->params);
    uint16_t valid = le16_get(c->params + 2);
    if (valid & 0x01)
        d->promisc = flags & 0x01;
}

static void query_vsi_bw(aq_cmd *c)
{
    memset(c->buf, 0, 64);
    c->buf[0] = 1; /* TC 0 valid */
    for (uint32_t i = 0; i < 8; i++)
        le16_put(c->buf + 16 + 2 * i, i == 0 ? 0 : 0xFFFF);
    respond_buf(c, 64);
}

static void query_vsi_ets_sla(aq_cmd *c)
{
    memset(c->buf, 0, 32);
    c->buf[0] = 1;
    c->buf[4] = 100; /* TC 0 has all the share */
    respond_buf(c, 32);
}

/* enable/modify_switching_comp_ets on the port, as the driver's software
 * DCB sends at probe and on link down: the model's port has one traffic
 * class, so only TC 0 alone with the whole share is taken. The seid is not
 * checked (one port; at probe the driver sends it before it has read the
 * switch configuration, so it is 0). */
static void port_ets(aq_cmd *c)
{
    enum { ETS_DATA = 0x80, TC_VALID = 4, TC0_SHARE = 24 };
    if (c->buf_len < ETS_DATA || c->buf[TC_VALID] != 0x01 || c->buf[TC0_SHARE] != 100)
        c->retval = I40E_AQ_RC_EINVAL;
}

static void debug_read_reg(i40e *d, aq_cmd *c)
{
    uint32_t addr = le32_get(c->params + 4);
    uint32_t v = 0;
    if (addr < I40E_BAR0_SIZE && (addr & 3) == 0 && addr != I40E_PFINT_ICR0)
        v = i40e_reg_read(d, addr);
    le32_put(c->params + 8, 0);
    le32_put(c->params + 12, v);
}

/* rx_ctl_reg_read/write: the receive filter control registers only
 * (PFQF_*, GLQF_*, PRTQF_*), as the driver uses them. */
static bool rx_ctl_reg(uint32_t addr)
{
    return (addr & 3) == 0 && ((addr >= 0x001C0000 && addr < 0x001C1000) ||
                               (addr >= 0x00240000 && addr < 0x00280000));
}

static void rx_ctl(i40e *d, aq_cmd *c, bool write)
{
    uint32_t addr = le32_get(c->params + 8);
    if (!rx_ctl_reg(addr)) {
        c->retval = I40E_AQ_RC_EINVAL;
        return;
    }
    if (write)
        i40e_reg_write(d, addr, le32_get(c->params + 12));
    else
        le32_put(c->params + 12, i40e_reg_read(d, addr));
}

/* ---- dispatch ----------------------------------------------------------------- */

static bool execute(i40e *d, uint16_t opc, aq_cmd *c)
{
    switch (opc) {
    case OPC_GET_VERSION:
        get_version(c);
        return true;
    case OPC_REQUEST_RESOURCE:
        le32_put(c->params + 4, 180000); /* timeout, ms */
        d->nvm_locked = true;
        return true;
    case OPC_RELEASE_RESOURCE:
        d->nvm_locked = false;
        return true;
    case OPC_DRIVER_VERSION:
    case OPC_QUEUE_SHUTDOWN:
    case OPC_SET_PF_CONTEXT:
    case OPC_SET_SWITCH_CONFIG:
    case OPC_UPDATE_VSI:
    case OPC_ADD_CONTROL_FILTER:
    case OPC_SET_DCB_PARAMETERS:
    case OPC_CONFIG_VSI_BW_LIMIT:
    case OPC_CONFIG_VSI_TC_BW:
        return true; /* accepted; nothing the model acts on */
    case OPC_LIST_FUNC_CAPS:
    case OPC_LIST_DEV_CAPS:
        list_caps(c);
        return true;
    case OPC_MAC_ADDRESS_READ:
        mac_address_read(d, c);
        return true;
    case OPC_CLEAR_PXE_MODE:
        i40e_reg_set(d, I40E_GLLAN_RCTL_0, 0);
        return true;
    case OPC_GET_SWITCH_CONFIG:
        get_switch_config(c);
        return true;
    case OPC_RX_CTL_READ:
    case OPC_RX_CTL_WRITE:
        rx_ctl(d, c, opc == OPC_RX_CTL_WRITE);
        return true;
    case OPC_GET_VSI:
        get_vsi(c);
        return true;
    case OPC_ADD_MACVLAN:
        add_macvlan(d, c);
        return true;
    case OPC_REMOVE_MACVLAN:
        remove_macvlan(d, c);
        return true;
    case OPC_ADD_VLAN:
    case OPC_REMOVE_VLAN:
        vlan_filters(c);
        return true;
    case OPC_SET_VSI_PROMISC:
        set_promisc(d, c);
        return true;
    case OPC_QUERY_VSI_BW:
        query_vsi_bw(c);
        return true;
    case OPC_QUERY_VSI_ETS_SLA:
        query_vsi_ets_sla(c);
        return true;
    case OPC_ENABLE_PORT_ETS:
    case OPC_MODIFY_PORT_ETS:
        port_ets(c);
        return true;
    case OPC_GET_PHY_ABILITIES:
        get_phy_abilities(d, c);
        return true;
    case OPC_SET_PHY_CONFIG:
        set_phy_config(d, c);
        return true;
    case OPC_RESTART_AN:
        restart_an(d);
        return true;
    case OPC_SET_MAC_CONFIG: {
        uint16_t max = le16_get(c->params);
        d->max_frame = max >= 64 && max <= I40E_MAX_FRAME_FCS ? max : 0;
        return true;
    }
    case OPC_GET_LINK_STATUS:
        get_link_status(d, c);
        return true;
    case OPC_SET_PHY_INT_MASK:
        d->phy_int_mask = le16_get(c->params + 8);
        return true;
    case OPC_LLDP_GET_MIB:
        c->retval = I40E_AQ_RC_EPERM; /* no firmware LLDP agent */
        return true;
    case OPC_DEBUG_READ_REG:
        debug_read_reg(d, c);
        return true;
    }
    return false;
}

uint32_t i40e_aq_execute(i40e *d)
{
    aq_cmd c = {.desc = d->atq.desc,
                .params = d->atq.desc + 16,
                .buf = d->atq.buf,
                .buf_len = d->atq.buf_len};
    uint16_t opc = le16_get(c.desc + 2);
    if (!execute(d, opc, &c)) {
        d->c.aq_unsupported++;
        mortar_logf(d->self, MORTAR_LOG_DEBUG, "admin command 0x%04x not implemented",
                    opc);
        c.retval = I40E_AQ_RC_ENOSYS;
        c.resp_len = 0;
    }
    le16_put(c.desc + 6, c.retval);
    if (c.retval && c.retval != I40E_AQ_RC_ENOMEM)
        c.resp_len = 0;
    return c.resp_len;
}
