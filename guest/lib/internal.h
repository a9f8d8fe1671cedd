/*
 * internal.h - what the files of the guest library share: the device
 * handle's layout and small sysfs and error helpers. Not installed; guest
 * programs include mortar_guest.h only.
 */
#ifndef MORTAR_GUEST_INTERNAL_H
#define MORTAR_GUEST_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mortar_guest.h"

/* PCI config space (facts from the PCI specification). */
#define PCI_CMD_OFF          0x04
#define PCI_CMD_MEMORY       0x0002
#define PCI_CMD_MASTER       0x0004
#define PCI_CMD_INTX_DISABLE 0x0400
#define PCI_STATUS_OFF       0x06
#define PCI_STATUS_CAP_LIST  0x0010
#define PCI_CAP_PTR_OFF      0x34
#define PCI_IRQ_PIN_OFF      0x3d
#define PCI_CAP_ID_MSI       0x05
#define PCI_CAP_ID_MSIX      0x11

struct mortar_guest_dev {
    mortar_guest_pci_info info;
    int config_fd;
    bool enabled_by_us; /* wrote 1 to sysfs `enable`; write 0 at close */
    bool master_by_us;  /* turned Bus Master on; off at close */
    mortar_guest_bar bars[MORTAR_GUEST_BARS]; /* base NULL: not mapped */
    size_t bar_map_size[MORTAR_GUEST_BARS];

    /* interrupts (irq.c) */
    mortar_guest_irq_mode irq_mode;
    unsigned irq_vectors;
    int uio_fd;                /* INTx: /dev/uioN, else -1 */
    int cap_msi, cap_msix;     /* config offsets, 0 if absent (found at open) */
    mortar_guest_dma *mailbox; /* MSI/MSI-X: one 32-bit word per vector */
    uint32_t msi_data_base;    /* MSI: data register value (vector in low bits) */

    char err[320];
};

/* Format an error into dev->err; returns `code`. */
int guest_fail(mortar_guest_dev *dev, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Format into a caller's buffer (may be NULL); returns `code`. */
int guest_fail_buf(char *err, size_t err_size, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Read a small sysfs/proc file into buf (NUL-terminated, trailing newline
 * removed). Returns the length or -errno. */
int sysfs_read(const char *path, char *buf, size_t size);
/* Read a file holding one number (decimal or 0x hex). Returns 0 or -errno
 * (-EINVAL if it holds no number). */
int sysfs_read_u64(const char *path, uint64_t *value);
/* Write `text` to a sysfs/proc file in one write(). Returns 0 or -errno. */
int sysfs_write(const char *path, const char *text);

/* Bind the device to uio_pci_generic (loading it if needed). */
int guest_bind_uio(mortar_guest_dev *dev);

#endif
