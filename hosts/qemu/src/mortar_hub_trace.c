/*
 * mortar_hub_trace.c - the host's trace file (see mortar_hub_trace.h).
 */
#include "qemu/osdep.h"
#include "qemu/error-report.h"

#include "mortar_hub_trace.h"
#include "mortar/trace.h"

#define MAX_DEVICES 16

/* Mark kinds, by the number the guest writes (guest/lib/mortar_guest.h). */
static const char *const mark_names[] = {
    "mark", "request_start", "request_end", "request_received",
    "device_start", "device_done", "reply_sent",
};
#define N_MARKS (sizeof mark_names / sizeof mark_names[0])

static const char *const event_names[MORTAR_EV_COUNT] = {
    "mmio_read", "mmio_read_done", "mmio_write", "dma_read", "dma_write", "interrupt",
    "pcie_wire",
};

static struct {
    bool opened;
    mortar_trace_writer *w;
    const char *host;
    uint16_t host_id;
    uint16_t mark_kind[N_MARKS];
    uint16_t event_kind[MORTAR_EV_COUNT];
    struct {
        const char *name;
        uint16_t id;
    } devices[MAX_DEVICES];
    int ndevices;
} tr;

void mortar_trace_close(void)
{
    if (tr.w && mortar_trace_writer_close(tr.w) != 0) {
        error_report("mortar: could not write the trace file %s", getenv("MORTAR_TRACE"));
    }
    memset(&tr, 0, sizeof tr); /* the next run opens its own */
}

static void close_at_exit(void)
{
    mortar_trace_close();
}

/* Opens the file on first use; names every kind up front. */
static mortar_trace_writer *writer(void)
{
    if (tr.opened) {
        return tr.w;
    }
    tr.opened = true;
    const char *path = getenv("MORTAR_TRACE");
    if (!path || !*path) {
        return NULL;
    }
    if (mortar_trace_writer_open(&tr.w, path) != 0) {
        error_report("mortar: cannot write the trace file %s", path);
        exit(1);
    }
    tr.host = getenv("MORTAR_TRACE_HOST") ?: "host";
    tr.host_id = mortar_trace_writer_component(tr.w, tr.host);
    for (size_t i = 0; i < N_MARKS; i++) {
        tr.mark_kind[i] = mortar_trace_writer_kind(tr.w, mark_names[i]);
    }
    for (int i = 0; i < MORTAR_EV_COUNT; i++) {
        tr.event_kind[i] = mortar_trace_writer_kind(tr.w, event_names[i]);
    }
    static bool registered;
    if (!registered) {
        registered = true;
        atexit(close_at_exit);
    }
    return tr.w;
}

bool mortar_trace_on(void)
{
    return writer() != NULL;
}

static uint16_t device_id(const char *device)
{
    for (int i = 0; i < tr.ndevices; i++) {
        if (tr.devices[i].name == device || !strcmp(tr.devices[i].name, device)) {
            return tr.devices[i].id;
        }
    }
    g_autofree char *full = g_strdup_printf("%s.%s", tr.host, device);
    uint16_t id = mortar_trace_writer_component(tr.w, full);
    if (tr.ndevices < MAX_DEVICES) {
        tr.devices[tr.ndevices].name = device;
        tr.devices[tr.ndevices++].id = id;
    }
    return id;
}

static void record(uint16_t component, uint16_t kind, uint64_t time_ps, uint64_t req_id,
                   uint64_t arg0, uint64_t arg1)
{
    mortar_trace_event ev = {.time_ps = time_ps, .component = component, .kind = kind,
                             .req_id = req_id, .arg0 = arg0, .arg1 = arg1};
    mortar_trace_writer_event(tr.w, &ev);
}

void mortar_trace_device(const char *device, mortar_host_event ev, uint64_t time_ps,
                         uint64_t req_id, uint64_t arg0, uint64_t arg1)
{
    if (!writer() || ev >= MORTAR_EV_COUNT) {
        return;
    }
    record(device_id(device), tr.event_kind[ev], time_ps, req_id, arg0, arg1);
}

void mortar_trace_mark(uint32_t value, uint64_t time_ps)
{
    if (!writer()) {
        return;
    }
    uint32_t kind = value >> 24;
    record(tr.host_id, tr.mark_kind[kind < N_MARKS ? kind : 0], time_ps, value & 0xffffff,
           kind, 0);
}
