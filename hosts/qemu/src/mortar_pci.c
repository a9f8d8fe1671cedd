/*
 * mortar_pci.c - the mortar-pci device: a PCI device in QEMU whose behaviour
 * lives in a mortar device model at the other end of a PCIe link.
 *
 *   -device mortar-pci,socket=/run/x/dev.sock,name=dev[,rendezvous=DIR,hosts=N,host=NAME]
 *
 * Synchronization starts when every host of the run has booted: the guest
 * writes 1 to config byte 0xff, and the hosts meet in the rendezvous
 * directory (mortar_hub.c). `start-ns` fixes the start instead; `sync=off`
 * makes a functional run that never synchronizes.
 * At realize it connects to the model's socket and builds config space from
 * the model's intro: IDs, class, BARs, MSI, MSI-X (the table is kept here,
 * the model only names vectors), the INTx pin. Guest MMIO reads stall the
 * vCPU until the model answers (mortar_hub.c moves the virtual clock), MMIO
 * writes are posted, the model's DMA is served from guest memory at the
 * message's stamp, and its interrupts are raised here.
 *
 * Config offset 0xfc holds 'M' 'R' 'T' and the hub's state (0 booting,
 * 1 synchronized), so the guest can wait for the common start; writing 1
 * to byte 0xff reports that the guest is ready, writing 2 that it reached
 * the snapshot point (`snapshot=FILE`: the machine is saved there, see
 * docs/snapshots.md), writing 3 that its run is over (the host ends the
 * machine). The device migrates (config space, MSI-X, its request
 * counter and the model's identity); a restored device tells its fresh
 * model the control flags the guest had set.
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "qemu/module.h"
#include "hw/pci/pci.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "qom/object.h"
#include "sysemu/cpu-timers.h"

#include "mortar_hub.h"
#include "mortar_hub_spin.h"
#include "mortar_hub_trace.h"
#include "mortar_pci.h"
#include "mortar/error.h"
#include "mortar/pcie.h"

#define TYPE_MORTAR_PCI "mortar-pci"
OBJECT_DECLARE_SIMPLE_TYPE(MortarPCIState, MORTAR_PCI)

#define MARKER_OFFSET 0xfc

typedef struct MortarBar {
    MortarPCIState *s;
    uint8_t index;
    MemoryRegion container; /* holds the proxy and, if any, the MSI-X table */
    MemoryRegion proxy;
} MortarBar;

struct MortarPCIState {
    PCIDevice pdev;
    /* properties */
    char *socket;
    char *devname;
    char *rendezvous;
    char *host;
    char *snapshot;
    uint32_t hosts;
    uint64_t start_ns;
    uint32_t timeout_s;
    bool sync;
    /* state */
    mortar_link *link;
    mortar_endpoint ep;
    mortar_pcie_dev_intro intro;
    MortarBar bars[MORTAR_PCIE_BARS];
    uint64_t next_req;
    uint32_t ctrl_flags;
    uint64_t unknown_msgs;
    uint8_t saved_intro[sizeof(mortar_pcie_dev_intro)]; /* the model's, in a snapshot */
};

/* ---- guest accesses ------------------------------------------------------------- */

static uint64_t mortar_bar_read(void *opaque, hwaddr addr, unsigned size)
{
    MortarBar *b = opaque;
    MortarPCIState *s = b->s;
    mortar_pcie_mmio req = {.req_id = ++s->next_req, .offset = addr, .size = size,
                            .bar = b->index};
    uint64_t where = (uint64_t)b->index << 32 | addr;
    if (mortar_trace_on()) {
        mortar_trace_device(s->devname, MORTAR_EV_MMIO_READ, mortar_hub_now_ps(), req.req_id,
                            where, size);
    }
    uint32_t got = mortar_hub_mmio_read(&s->ep, &req, sizeof req, req.req_id);
    uint64_t value = 0;
    memcpy(&value, s->ep.wait_data, MIN(got, size));
    value = le64_to_cpu(value);
    if (mortar_trace_on()) {
        mortar_trace_device(s->devname, MORTAR_EV_MMIO_READ_DONE, s->ep.wait_stamp_ps,
                            req.req_id, where, value);
    }
    return value;
}

static void mortar_bar_write(void *opaque, hwaddr addr, uint64_t value, unsigned size)
{
    MortarBar *b = opaque;
    MortarPCIState *s = b->s;
    struct {
        mortar_pcie_mmio h;
        uint64_t data;
    } QEMU_PACKED wr = {
        .h = {.req_id = ++s->next_req, .offset = addr, .size = size, .bar = b->index,
              .posted = 1},
        .data = cpu_to_le64(value),
    };
    if (mortar_trace_on()) {
        mortar_trace_device(s->devname, MORTAR_EV_MMIO_WRITE, mortar_hub_now_ps(), wr.h.req_id,
                            (uint64_t)b->index << 32 | addr, value);
    }
    mortar_hub_send(&s->ep, MORTAR_PCIE_MMIO_WRITE, &wr, sizeof wr.h + size);
}

static const MemoryRegionOps mortar_bar_ops = {
    .read = mortar_bar_read,
    .write = mortar_bar_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {.min_access_size = 1, .max_access_size = 8},
    .impl = {.min_access_size = 1, .max_access_size = 8},
};

/* ---- what the model sends ---------------------------------------------------------- */

static void trace_message(MortarPCIState *s, mortar_host_event ev, uint64_t req_id,
                          uint64_t arg0, uint64_t arg1)
{
    if (mortar_trace_on()) {
        mortar_trace_device(s->devname, ev, mortar_hub_now_ps(), req_id, arg0, arg1);
    }
}

static void serve_dma_read(MortarPCIState *s, const mortar_pcie_dma *d)
{
    trace_message(s, MORTAR_EV_DMA_READ, d->req_id, d->addr, d->size);
    uint32_t max = mortar_link_max_payload(s->link) - sizeof(mortar_pcie_dma_done);
    uint32_t size = d->size <= max ? d->size : 0;
    g_autofree uint8_t *buf = g_malloc0(sizeof(mortar_pcie_dma_done) + size);
    mortar_pcie_dma_done *done = (mortar_pcie_dma_done *)buf;
    done->req_id = d->req_id;
    done->addr_low = (uint16_t)d->addr; /* the link cuts the completions by it */
    done->size = size;
    if (mortar_spin_waiting() && !mortar_spin_ram_only(pci_get_address_space(&s->pdev), d->addr,
                                                        size, MEMTXATTRS_UNSPECIFIED)) {
        mortar_spin_forget(); /* a read of a device's registers may end the wait */
    }
    if (size != d->size || pci_dma_read(&s->pdev, d->addr, done->data, size) != MEMTX_OK) {
        done->status = 1;
    }
    mortar_hub_send(&s->ep, MORTAR_PCIE_DMA_READ_DONE, buf, sizeof *done + size);
}

static void serve_dma_write(MortarPCIState *s, const mortar_pcie_dma *d, uint32_t msg_size)
{
    mortar_pcie_dma_done done = {.req_id = d->req_id, .size = d->size};
    trace_message(s, MORTAR_EV_DMA_WRITE, d->req_id, d->addr, d->size);
    if (msg_size < sizeof *d + (uint64_t)d->size ||
        pci_dma_write(&s->pdev, d->addr, d->data, d->size) != MEMTX_OK) {
        done.status = 1;
    }
    mortar_hub_send(&s->ep, MORTAR_PCIE_DMA_WRITE_DONE, &done, sizeof done);
}

static void raise_interrupt(MortarPCIState *s, const mortar_pcie_interrupt *in)
{
    PCIDevice *pdev = &s->pdev;
    trace_message(s, MORTAR_EV_INTERRUPT, 0, in->kind, in->vector);
    switch (in->kind) {
    case MORTAR_PCIE_INT_LEGACY_HIGH:
    case MORTAR_PCIE_INT_LEGACY_LOW:
        pci_set_irq(pdev, in->kind == MORTAR_PCIE_INT_LEGACY_HIGH);
        break;
    case MORTAR_PCIE_INT_MSI:
        /* QEMU asserts the vector is one the guest enabled */
        if (msi_enabled(pdev) && in->vector < msi_nr_vectors_allocated(pdev)) {
            msi_notify(pdev, in->vector);
        }
        break;
    case MORTAR_PCIE_INT_MSIX:
        if (msix_enabled(pdev) && in->vector < s->intro.msix_vectors) {
            msix_notify(pdev, in->vector);
        }
        break;
    default:
        s->unknown_msgs++;
    }
}

static void mortar_handle(void *opaque, const mortar_msg *m)
{
    MortarPCIState *s = opaque;
    switch (m->type) {
    case MORTAR_PCIE_DMA_READ:
        if (m->size >= sizeof(mortar_pcie_dma)) {
            serve_dma_read(s, m->payload);
            return;
        }
        break;
    case MORTAR_PCIE_DMA_WRITE:
        if (m->size >= sizeof(mortar_pcie_dma)) {
            serve_dma_write(s, m->payload, m->size);
            return;
        }
        break;
    case MORTAR_PCIE_INTERRUPT:
        if (m->size >= sizeof(mortar_pcie_interrupt)) {
            raise_interrupt(s, m->payload);
            return;
        }
        break;
    case MORTAR_PCIE_MMIO_WRITE_DONE:
    case MORTAR_PCIE_MMIO_READ_DONE: /* a late or unknown completion */
        return;
    }
    if (s->unknown_msgs++ == 0) {
        warn_report("mortar-pci '%s': ignoring message type 0x%x (%u bytes)",
                    s->devname, m->type, m->size);
    }
}

static void mortar_sync_started(void *opaque)
{
    MortarPCIState *s = opaque;
    s->pdev.config[MARKER_OFFSET + 3] = 1;
}

/* ---- config space --------------------------------------------------------------- */

static void send_devctrl(MortarPCIState *s)
{
    PCIDevice *pdev = &s->pdev;
    uint16_t cmd = pci_get_word(pdev->config + PCI_COMMAND);
    uint32_t flags = 0;
    if (!(cmd & PCI_COMMAND_INTX_DISABLE) && s->intro.intx_pin) {
        flags |= MORTAR_PCIE_CTRL_INTX_ENABLE;
    }
    if (msi_enabled(pdev)) {
        flags |= MORTAR_PCIE_CTRL_MSI_ENABLE;
    }
    if (msix_enabled(pdev)) {
        flags |= MORTAR_PCIE_CTRL_MSIX_ENABLE;
    }
    if (cmd & PCI_COMMAND_MASTER) {
        flags |= MORTAR_PCIE_CTRL_BUS_MASTER;
    }
    if (flags == s->ctrl_flags) {
        return;
    }
    s->ctrl_flags = flags;
    mortar_pcie_devctrl dc = {.flags = flags};
    mortar_hub_send(&s->ep, MORTAR_PCIE_DEVCTRL, &dc, sizeof dc);
}

static void mortar_write_config(PCIDevice *pdev, uint32_t addr, uint32_t val, int len)
{
    /* The guest writes 1 into the marker's state byte when it has booted,
     * 2 when it reached the snapshot point, 3 when its run is over. */
    uint32_t state = MARKER_OFFSET + 3;
    if (addr <= state && state < addr + (uint32_t)len) {
        uint32_t byte = (val >> (8 * (state - addr))) & 0xff;
        if (byte == 1) {
            mortar_hub_guest_ready();
            return;
        }
        if (byte == 2) {
            mortar_hub_snapshot_point();
            return;
        }
        if (byte == 3) {
            mortar_hub_guest_done();
            return;
        }
    }
    /* A guest program's mark (a request started, ...): for the trace only. */
    if (addr == MORTAR_MARK_OFFSET && len == 4) {
        if (mortar_trace_on()) {
            mortar_trace_mark(val, mortar_hub_now_ps());
        }
        return;
    }
    pci_default_write_config(pdev, addr, val, len);
    send_devctrl(MORTAR_PCI(pdev));
}

static void set_identity(MortarPCIState *s)
{
    uint8_t *c = s->pdev.config;
    const mortar_pcie_dev_intro *in = &s->intro;
    pci_set_word(c + PCI_VENDOR_ID, in->vendor_id);
    pci_set_word(c + PCI_DEVICE_ID, in->device_id);
    pci_set_word(c + PCI_SUBSYSTEM_VENDOR_ID, in->subsystem_vendor_id);
    pci_set_word(c + PCI_SUBSYSTEM_ID, in->subsystem_id);
    pci_set_byte(c + PCI_REVISION_ID, in->revision);
    pci_set_byte(c + PCI_CLASS_PROG, in->prog_if);
    pci_set_word(c + PCI_CLASS_DEVICE, (uint16_t)(in->class_code << 8 | in->subclass));
    pci_set_byte(c + PCI_INTERRUPT_PIN, in->intx_pin <= 4 ? in->intx_pin : 0);
    memcpy(c + MARKER_OFFSET, "MRT", 3);
    c[MARKER_OFFSET + 3] = mortar_hub_synchronized() || !s->sync; /* functional runs: go */
}

static bool setup_bars(MortarPCIState *s, Error **errp)
{
    for (int i = 0; i < MORTAR_PCIE_BARS; i++) {
        const mortar_pcie_bar *bar = &s->intro.bars[i];
        MortarBar *b = &s->bars[i];
        b->s = s;
        b->index = (uint8_t)i;
        if (!bar->size) {
            continue;
        }
        if (bar->size & (bar->size - 1)) {
            error_setg(errp, "mortar-pci '%s': BAR %d size %" PRIu64 " is not a power of two",
                       s->devname, i, bar->size);
            return false;
        }
        g_autofree char *name = g_strdup_printf("mortar-%s-bar%d", s->devname, i);
        memory_region_init(&b->container, OBJECT(s), name, bar->size);
        memory_region_init_io(&b->proxy, OBJECT(s), &mortar_bar_ops, b, name, bar->size);
        memory_region_add_subregion_overlap(&b->container, 0, &b->proxy, -1);
        uint8_t type = PCI_BASE_ADDRESS_SPACE_MEMORY;
        if (bar->flags & MORTAR_PCIE_BAR_IO) {
            type = PCI_BASE_ADDRESS_SPACE_IO;
        } else {
            if (bar->flags & MORTAR_PCIE_BAR_64) {
                type |= PCI_BASE_ADDRESS_MEM_TYPE_64;
            }
            if (bar->flags & MORTAR_PCIE_BAR_PREFETCH) {
                type |= PCI_BASE_ADDRESS_MEM_PREFETCH;
            }
        }
        pci_register_bar(&s->pdev, i, type, &b->container);
        if (type & PCI_BASE_ADDRESS_MEM_TYPE_64) {
            i++; /* a 64-bit BAR takes the next slot */
        }
    }
    return true;
}

static bool setup_interrupts(MortarPCIState *s, Error **errp)
{
    const mortar_pcie_dev_intro *in = &s->intro;
    if (in->msi_vectors && msi_init(&s->pdev, 0, in->msi_vectors, true, false, errp) < 0) {
        return false;
    }
    if (!in->msix_vectors) {
        return true;
    }
    if (in->msix_table_bar >= MORTAR_PCIE_BARS || in->msix_pba_bar >= MORTAR_PCIE_BARS ||
        !in->bars[in->msix_table_bar].size || !in->bars[in->msix_pba_bar].size) {
        error_setg(errp, "mortar-pci '%s': MSI-X table or PBA in a BAR that does not exist",
                   s->devname);
        return false;
    }
    if (msix_init(&s->pdev, in->msix_vectors, &s->bars[in->msix_table_bar].container,
                  in->msix_table_bar, in->msix_table_offset,
                  &s->bars[in->msix_pba_bar].container, in->msix_pba_bar,
                  in->msix_pba_offset, 0, errp) < 0) {
        return false;
    }
    for (unsigned v = 0; v < in->msix_vectors; v++) {
        msix_vector_use(&s->pdev, v);
    }
    return true;
}

/* ---- realize / exit ------------------------------------------------------------- */

static mortar_link *connect_link(MortarPCIState *s, const char *socket, Error **errp)
{
    mortar_link_params p;
    mortar_link_params_init(&p);
    p.name = s->devname;
    p.protocol = MORTAR_PROTO_PCIE;
    p.slot_size = MORTAR_PCIE_SLOT_SIZE;
    p.latency_ps = 0; /* the device's listener decides */
    p.sync_mode = s->sync ? MORTAR_SYNC_ON : MORTAR_SYNC_OFF;
    p.handshake_timeout_ms = s->timeout_s * 1000;
    char err[512];
    mortar_link *link;
    if (mortar_link_connect(&link, socket, &p, err, sizeof err) != 0) {
        error_setg(errp, "mortar-pci: %s", err);
        return NULL;
    }
    uint32_t size;
    mortar_link_peer_intro(link, &size);
    if (size < sizeof s->intro) {
        error_setg(errp, "mortar-pci '%s': the device sent a %u-byte intro, expected %zu",
                   s->devname, size, sizeof s->intro);
        mortar_link_close(link);
        return NULL;
    }
    return link;
}

/* The devices of this QEMU, in the order they were realized. */
static GPtrArray *devices;

unsigned mortar_pci_count(void)
{
    return devices ? devices->len : 0;
}

bool mortar_pci_relink(const char *name, const char *socket, Error **errp)
{
    for (guint i = 0; name && socket && i < mortar_pci_count(); i++) {
        MortarPCIState *s = g_ptr_array_index(devices, i);
        if (strcmp(s->devname, name)) {
            continue;
        }
        mortar_link *link = connect_link(s, socket, errp);
        if (!link) {
            return false;
        }
        if (memcmp(mortar_link_peer_intro(link, &(uint32_t){0}), &s->intro, sizeof s->intro)) {
            error_setg(errp, "mortar-pci '%s': the new run's model has another identity", name);
            mortar_link_close(link);
            return false;
        }
        mortar_link_close(s->link);
        s->link = link;
        mortar_endpoint ep = {.link = link, .name = s->devname, .handle = s->ep.handle,
                              .on_sync_start = s->ep.on_sync_start, .opaque = s,
                              .hub_index = s->ep.hub_index};
        s->ep = ep;
        s->ctrl_flags = 0;
        return true;
    }
    error_setg(errp, "this QEMU has no mortar device '%s'", name ? name : "(unnamed)");
    return false;
}

static void mortar_pci_realize(PCIDevice *pdev, Error **errp)
{
    MortarPCIState *s = MORTAR_PCI(pdev);
    if (!s->socket) {
        error_setg(errp, "mortar-pci: the 'socket' property is required");
        return;
    }
    if (!icount_enabled()) {
        /* the hub runs where the vCPU loop handles icount deadlines */
        error_setg(errp, "mortar-pci: needs -icount (for example -icount shift=0,sleep=off): "
                         "the hub paces the guest by its instruction count");
        return;
    }
    if (!s->devname) {
        s->devname = g_strdup(s->socket);
    }
    s->link = connect_link(s, s->socket, errp);
    if (!s->link) {
        return;
    }
    memcpy(&s->intro, mortar_link_peer_intro(s->link, &(uint32_t){0}), sizeof s->intro);
    set_identity(s);
    if (!setup_bars(s, errp) || !setup_interrupts(s, errp)) {
        return;
    }
    s->ep = (mortar_endpoint){.link = s->link, .name = s->devname, .handle = mortar_handle,
                              .on_sync_start = mortar_sync_started, .opaque = s};
    if (s->snapshot) {
        if (strchr(s->snapshot, '\'')) {
            error_setg(errp, "mortar-pci: the snapshot path must not hold a quote");
            return;
        }
        mortar_hub_set_snapshot(s->snapshot);
    }
    if (s->rendezvous) {
        mortar_hub_set_rendezvous(s->rendezvous, s->hosts ? s->hosts : 1,
                                  s->host ? s->host : "host");
    }
    uint64_t start = !s->sync ? UINT64_MAX
                     : s->start_ns ? s->start_ns * 1000 : MORTAR_START_AT_READY;
    mortar_hub_add(&s->ep, start);
    if (!devices) {
        devices = g_ptr_array_new();
    }
    g_ptr_array_add(devices, s);
}

static void mortar_pci_exit(PCIDevice *pdev)
{
    MortarPCIState *s = MORTAR_PCI(pdev);
    if (devices) {
        g_ptr_array_remove(devices, s);
    }
    if (s->intro.msix_vectors) {
        msix_uninit(pdev, &s->bars[s->intro.msix_table_bar].container,
                    &s->bars[s->intro.msix_pba_bar].container);
    }
    msi_uninit(pdev);
}

/* ---- snapshots ------------------------------------------------------------------ */

static int mortar_pci_pre_save(void *opaque)
{
    MortarPCIState *s = opaque;
    memcpy(s->saved_intro, &s->intro, sizeof s->saved_intro);
    return 0;
}

/* The model behind the restoring link must be the one the snapshot saw;
 * it has seen nothing of the guest, so it learns the guest's settings. */
static int mortar_pci_post_load(void *opaque, int version_id)
{
    MortarPCIState *s = opaque;
    if (memcmp(s->saved_intro, &s->intro, sizeof s->saved_intro)) {
        error_report("mortar-pci '%s': the snapshot was taken with another device model"
                     " (its identity differs)", s->devname);
        return -EINVAL;
    }
    s->ctrl_flags = 0;
    send_devctrl(s);
    return 0;
}

static const VMStateDescription vmstate_mortar_pci = {
    .name = "mortar-pci",
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_save = mortar_pci_pre_save,
    .post_load = mortar_pci_post_load,
    .fields = (VMStateField[]){
        VMSTATE_PCI_DEVICE(pdev, MortarPCIState),
        VMSTATE_MSIX(pdev, MortarPCIState),
        VMSTATE_UINT64(next_req, MortarPCIState),
        VMSTATE_UINT64(unknown_msgs, MortarPCIState),
        VMSTATE_UINT8_ARRAY(saved_intro, MortarPCIState, sizeof(mortar_pcie_dev_intro)),
        VMSTATE_END_OF_LIST(),
    },
};

static Property mortar_pci_properties[] = {
    DEFINE_PROP_STRING("socket", MortarPCIState, socket),
    DEFINE_PROP_STRING("name", MortarPCIState, devname),
    DEFINE_PROP_UINT64("start-ns", MortarPCIState, start_ns, 0), /* 0: when ready */
    DEFINE_PROP_STRING("rendezvous", MortarPCIState, rendezvous),
    DEFINE_PROP_STRING("host", MortarPCIState, host),
    DEFINE_PROP_STRING("snapshot", MortarPCIState, snapshot),
    DEFINE_PROP_UINT32("hosts", MortarPCIState, hosts, 1),
    DEFINE_PROP_UINT32("timeout", MortarPCIState, timeout_s, 60),
    DEFINE_PROP_BOOL("sync", MortarPCIState, sync, true),
    DEFINE_PROP_END_OF_LIST(),
};

static void mortar_pci_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);
    k->realize = mortar_pci_realize;
    k->exit = mortar_pci_exit;
    k->config_write = mortar_write_config;
    k->vendor_id = 0x1de5; /* replaced by the model's intro at realize */
    k->device_id = 0xffff;
    k->class_id = PCI_CLASS_OTHERS;
    dc->desc = "mortar device model behind a PCIe link";
    dc->vmsd = &vmstate_mortar_pci;
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
    device_class_set_props(dc, mortar_pci_properties);
}

static const TypeInfo mortar_pci_info = {
    .name = TYPE_MORTAR_PCI,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(MortarPCIState),
    .class_init = mortar_pci_class_init,
    .interfaces = (InterfaceInfo[]){
        {INTERFACE_CONVENTIONAL_PCI_DEVICE},
        {},
    },
};

static void mortar_pci_register_types(void)
{
    type_register_static(&mortar_pci_info);
}

type_init(mortar_pci_register_types)
