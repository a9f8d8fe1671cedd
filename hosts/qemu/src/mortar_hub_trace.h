/*
 * mortar_hub_trace.h - the host's trace: the PCIe events its mortar devices
 * see and the marks its guest programs write, in mortar's binary trace
 * format (include/mortar/trace.h) on the one virtual clock.
 *
 * Enabled by the environment: MORTAR_TRACE=<file> and MORTAR_TRACE_HOST=
 * <host name>. A device's events are recorded under the component
 * "<host>.<device name>", the guest's marks under "<host>". Recording never
 * changes what the guest or the devices see. Conventions: docs/traces.md.
 */
#ifndef MORTAR_HUB_TRACE_H
#define MORTAR_HUB_TRACE_H

#include <stdbool.h>
#include <stdint.h>

typedef enum mortar_host_event {
    MORTAR_EV_MMIO_READ,
    MORTAR_EV_MMIO_READ_DONE,
    MORTAR_EV_MMIO_WRITE,
    MORTAR_EV_DMA_READ,
    MORTAR_EV_DMA_WRITE,
    MORTAR_EV_INTERRUPT,
    MORTAR_EV_PCIE_WIRE, /* a message's bytes arriving: arg0 their wire time, arg1 its type */
    MORTAR_EV_COUNT
} mortar_host_event;

/* True when the host records a trace. */
bool mortar_trace_on(void);

/* Closes the trace file (at exit, or at the end of a kept QEMU's run); the
 * next use reads MORTAR_TRACE again. */
void mortar_trace_close(void);

/* Records a device event at `time_ps`; `device` is the device's name. */
void mortar_trace_device(const char *device, mortar_host_event ev, uint64_t time_ps,
                         uint64_t req_id, uint64_t arg0, uint64_t arg1);

/*
 * A guest mark: the guest writes (kind << 24 | request index) as 4 bytes at
 * config offset MORTAR_MARK_OFFSET of any mortar device. Kinds are listed in
 * mortar_hub_trace.c; an unknown kind is recorded as "mark".
 */
#define MORTAR_MARK_OFFSET 0xf8
void mortar_trace_mark(uint32_t value, uint64_t time_ps);

#endif
