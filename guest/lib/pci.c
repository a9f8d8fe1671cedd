/*
 * pci.c - finding and opening a PCI device from user space: identity from
 * sysfs, config space through the sysfs `config` file, BARs mapped from
 * the sysfs `resource<N>` files, bus mastering, and binding to
 * uio_pci_generic for INTx. Interrupts are in irq.c, DMA memory in dma.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

#define PCI_DEVICES "/sys/bus/pci/devices"

/* ---- identity ---------------------------------------------------------------- */

/* Parse `resource`: one "0xSTART 0xEND 0xFLAGS" line per BAR (then the ROM
 * and bridge windows, ignored). An absent BAR reads as zeros. */
static int read_resources(const char *dir, mortar_guest_pci_info *info)
{
    char path[128];
    snprintf(path, sizeof path, "%s/resource", dir);
    FILE *f = fopen(path, "re");
    if (!f) {
        return -errno;
    }
    for (int i = 0; i < MORTAR_GUEST_BARS; i++) {
        unsigned long long start, end, flags;
        if (fscanf(f, "%llx %llx %llx", &start, &end, &flags) != 3) {
            fclose(f);
            return -EINVAL;
        }
        info->bar_phys[i] = start;
        info->bar_size[i] = end > start ? end - start + 1 : 0;
        info->bar_flags[i] = info->bar_size[i] ? flags : 0;
    }
    fclose(f);
    return 0;
}

static void read_driver(const char *dir, char *out, size_t size)
{
    char path[128], target[256];
    snprintf(path, sizeof path, "%s/driver", dir);
    ssize_t n = readlink(path, target, sizeof target - 1);
    out[0] = '\0';
    if (n > 0) {
        target[n] = '\0';
        const char *slash = strrchr(target, '/');
        snprintf(out, size, "%s", slash ? slash + 1 : target);
    }
}

int mortar_guest_pci_info_read(const char *bdf, mortar_guest_pci_info *info, char *err,
                               size_t err_size)
{
    memset(info, 0, sizeof *info);
    if (strlen(bdf) >= sizeof info->bdf) {
        return guest_fail_buf(err, err_size, MORTAR_EINVAL, "bad PCI address '%s'", bdf);
    }
    snprintf(info->bdf, sizeof info->bdf, "%s", bdf);
    snprintf(info->path, sizeof info->path, PCI_DEVICES "/%s", bdf);

    static const char *const files[] = {"vendor", "device", "class"};
    uint64_t v[3];
    char path[128];
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", info->path, files[i]);
        int rc = sysfs_read_u64(path, &v[i]);
        if (rc < 0) {
            return guest_fail_buf(err, err_size,
                                  rc == -ENOENT ? MORTAR_ENOENT : MORTAR_EIO,
                                  "reading %s: %s", path, strerror(-rc));
        }
    }
    info->vendor_id = (uint16_t)v[0];
    info->device_id = (uint16_t)v[1];
    info->class_code = (uint32_t)v[2];

    uint64_t irq = 0;
    snprintf(path, sizeof path, "%s/irq", info->path);
    if (sysfs_read_u64(path, &irq) == 0) {
        info->irq_line = (unsigned)irq;
    }
    /* The pin is at config 0x3d, inside the first 64 bytes anyone may read. */
    snprintf(path, sizeof path, "%s/config", info->path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        uint8_t pin = 0;
        if (pread(fd, &pin, 1, PCI_IRQ_PIN_OFF) == 1) {
            info->irq_pin = pin;
        }
        close(fd);
    }
    int rc = read_resources(info->path, info);
    if (rc < 0) {
        return guest_fail_buf(err, err_size, MORTAR_EIO, "reading %s/resource: %s",
                              info->path, strerror(-rc));
    }
    read_driver(info->path, info->driver, sizeof info->driver);
    return 0;
}

static int skip_dots(const struct dirent *d)
{
    return d->d_name[0] != '.';
}

int mortar_guest_pci_find(uint16_t vendor_id, uint16_t device_id, unsigned nth,
                          mortar_guest_pci_info *info, char *err, size_t err_size)
{
    struct dirent **list;
    int n = scandir(PCI_DEVICES, &list, skip_dots, alphasort);
    if (n < 0) {
        return guest_fail_buf(err, err_size, MORTAR_EIO, "listing " PCI_DEVICES ": %s",
                              strerror(errno));
    }
    int rc = MORTAR_ENOENT;
    unsigned seen = 0;
    for (int i = 0; i < n; i++) {
        char path[128];
        uint64_t vendor, device;
        snprintf(path, sizeof path, PCI_DEVICES "/%s/vendor", list[i]->d_name);
        if (rc != MORTAR_ENOENT || sysfs_read_u64(path, &vendor) != 0 ||
            vendor != vendor_id) {
            continue;
        }
        snprintf(path, sizeof path, PCI_DEVICES "/%s/device", list[i]->d_name);
        if (sysfs_read_u64(path, &device) != 0 || device != device_id || seen++ != nth) {
            continue;
        }
        rc = mortar_guest_pci_info_read(list[i]->d_name, info, err, err_size);
    }
    for (int i = 0; i < n; i++) {
        free(list[i]);
    }
    free(list);
    if (rc == MORTAR_ENOENT && seen <= nth) {
        if (nth == 0) {
            return guest_fail_buf(err, err_size, rc, "no device %04x:%04x", vendor_id,
                                  device_id);
        }
        return guest_fail_buf(err, err_size, rc,
                              "no device %04x:%04x number %u (%u found)", vendor_id,
                              device_id, nth, seen);
    }
    return rc;
}

/* ---- open / close ------------------------------------------------------------- */

int mortar_guest_open(mortar_guest_dev **devp, uint16_t vendor_id, uint16_t device_id,
                      unsigned flags, char *err, size_t err_size)
{
    mortar_guest_pci_info info;
    int rc = mortar_guest_pci_find(vendor_id, device_id, 0, &info, err, err_size);
    if (rc != 0) {
        return rc;
    }
    return mortar_guest_open_bdf(devp, info.bdf, flags, err, err_size);
}

int mortar_guest_open_bdf(mortar_guest_dev **devp, const char *bdf, unsigned flags,
                          char *err, size_t err_size)
{
    *devp = NULL;
    mortar_guest_dev *dev = calloc(1, sizeof *dev);
    if (!dev) {
        return guest_fail_buf(err, err_size, MORTAR_ENOMEM, "out of memory");
    }
    dev->config_fd = -1;
    dev->uio_fd = -1;
    int rc = mortar_guest_pci_info_read(bdf, &dev->info, err, err_size);
    if (rc != 0) {
        free(dev);
        return rc;
    }
    const mortar_guest_pci_info *in = &dev->info;
    if (in->driver[0] && strcmp(in->driver, "uio_pci_generic") != 0) {
        free(dev);
        return guest_fail_buf(err, err_size, MORTAR_ESTATE,
                              "%s is bound to kernel driver %s; unbind it first", bdf,
                              in->driver);
    }
    char path[128];
    snprintf(path, sizeof path, "%s/config", in->path);
    dev->config_fd = open(path, O_RDWR | O_CLOEXEC);
    if (dev->config_fd < 0) {
        rc = guest_fail_buf(err, err_size, MORTAR_EIO, "opening %s: %s (needs root)",
                            path, strerror(errno));
        free(dev);
        return rc;
    }
    if (!in->driver[0]) {
        /* `enable` shows the enable count; writing 1 enables memory decoding. */
        uint64_t count = 0;
        snprintf(path, sizeof path, "%s/enable", in->path);
        if (sysfs_read_u64(path, &count) == 0 && count == 0) {
            int wr = sysfs_write(path, "1");
            if (wr < 0) {
                rc = guest_fail_buf(err, err_size, MORTAR_EIO, "writing 1 to %s: %s",
                                    path, strerror(-wr));
                mortar_guest_close(dev);
                return rc;
            }
            dev->enabled_by_us = true;
        }
    }
    rc = mortar_guest_find_capability(dev, PCI_CAP_ID_MSI);
    dev->cap_msi = rc > 0 ? rc : 0;
    rc = mortar_guest_find_capability(dev, PCI_CAP_ID_MSIX);
    dev->cap_msix = rc > 0 ? rc : 0;
    if (flags & MORTAR_GUEST_OPEN_INTX) {
        rc = guest_bind_uio(dev);
        if (rc != 0) {
            guest_fail_buf(err, err_size, rc, "%s", dev->err);
            mortar_guest_close(dev);
            return rc;
        }
    }
    dev->err[0] = '\0';
    *devp = dev;
    return 0;
}

void mortar_guest_close(mortar_guest_dev *dev)
{
    if (!dev) {
        return;
    }
    mortar_guest_irq_teardown(dev);
    for (int i = 0; i < MORTAR_GUEST_BARS; i++) {
        if (dev->bars[i].base) {
            munmap((void *)dev->bars[i].base, dev->bar_map_size[i]);
        }
    }
    if (dev->master_by_us) {
        mortar_guest_bus_master(dev, false);
    }
    if (dev->enabled_by_us) {
        char path[128];
        snprintf(path, sizeof path, "%s/enable", dev->info.path);
        sysfs_write(path, "0");
    }
    if (dev->config_fd >= 0) {
        close(dev->config_fd);
    }
    free(dev);
}

const mortar_guest_pci_info *mortar_guest_info(const mortar_guest_dev *dev)
{
    return &dev->info;
}

const char *mortar_guest_errmsg(const mortar_guest_dev *dev)
{
    return dev->err;
}

/* ---- config space ------------------------------------------------------------ */

static int check_config_access(mortar_guest_dev *dev, unsigned offset, unsigned size)
{
    if ((size != 1 && size != 2 && size != 4) || offset % size || offset + size > 4096) {
        return guest_fail(dev, MORTAR_EINVAL, "%s: bad config access (%u bytes at 0x%x)",
                          dev->info.bdf, size, offset);
    }
    return 0;
}

int mortar_guest_config_read(mortar_guest_dev *dev, unsigned offset, unsigned size,
                             uint32_t *value)
{
    int rc = check_config_access(dev, offset, size);
    if (rc != 0) {
        return rc;
    }
    uint8_t b[4] = {0};
    ssize_t n = pread(dev->config_fd, b, size, offset);
    if (n != (ssize_t)size) {
        return guest_fail(dev, MORTAR_EIO, "%s: reading config 0x%x: %s", dev->info.bdf,
                          offset, n < 0 ? strerror(errno) : "short read");
    }
    *value = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
             (uint32_t)b[3] << 24;
    return 0;
}

int mortar_guest_config_write(mortar_guest_dev *dev, unsigned offset, unsigned size,
                              uint32_t value)
{
    int rc = check_config_access(dev, offset, size);
    if (rc != 0) {
        return rc;
    }
    uint8_t b[4] = {(uint8_t)value, (uint8_t)(value >> 8), (uint8_t)(value >> 16),
                    (uint8_t)(value >> 24)};
    ssize_t n = pwrite(dev->config_fd, b, size, offset);
    if (n != (ssize_t)size) {
        return guest_fail(dev, MORTAR_EIO, "%s: writing config 0x%x: %s", dev->info.bdf,
                          offset, n < 0 ? strerror(errno) : "short write");
    }
    return 0;
}

int mortar_guest_find_capability(mortar_guest_dev *dev, uint8_t cap_id)
{
    uint32_t status, ptr, hdr;
    int rc = mortar_guest_config_read(dev, PCI_STATUS_OFF, 2, &status);
    if (rc != 0) {
        return rc;
    }
    if (!(status & PCI_STATUS_CAP_LIST)) {
        return MORTAR_ENOENT;
    }
    rc = mortar_guest_config_read(dev, PCI_CAP_PTR_OFF, 1, &ptr);
    /* At most 48 capabilities fit in 192 bytes; more means a loop. */
    for (int i = 0; rc == 0 && i < 48; i++) {
        ptr &= 0xfc;
        if (ptr < 0x40) {
            return MORTAR_ENOENT;
        }
        rc = mortar_guest_config_read(dev, ptr, 2, &hdr);
        if (rc == 0 && (hdr & 0xff) == cap_id) {
            return (int)ptr;
        }
        ptr = hdr >> 8;
    }
    return rc != 0 ? rc : MORTAR_ENOENT;
}

int mortar_guest_bus_master(mortar_guest_dev *dev, bool on)
{
    uint32_t cmd;
    int rc = mortar_guest_config_read(dev, PCI_CMD_OFF, 2, &cmd);
    if (rc != 0) {
        return rc;
    }
    uint32_t want = on ? cmd | PCI_CMD_MASTER : cmd & ~(uint32_t)PCI_CMD_MASTER;
    if (want != cmd) {
        rc = mortar_guest_config_write(dev, PCI_CMD_OFF, 2, want);
        if (rc != 0) {
            return rc;
        }
        dev->master_by_us = on;
    }
    return 0;
}

/* ---- BARs --------------------------------------------------------------------- */

int mortar_guest_bar_map(mortar_guest_dev *dev, unsigned index,
                         const mortar_guest_bar **bar)
{
    if (index >= MORTAR_GUEST_BARS) {
        return guest_fail(dev, MORTAR_EINVAL, "%s: no BAR %u", dev->info.bdf, index);
    }
    mortar_guest_bar *b = &dev->bars[index];
    if (!b->base) {
        uint64_t size = dev->info.bar_size[index];
        if (!size || !(dev->info.bar_flags[index] & MORTAR_GUEST_BAR_MEM)) {
            return guest_fail(dev, MORTAR_EINVAL, "%s: BAR %u is %s", dev->info.bdf,
                              index, size ? "an I/O BAR (cannot be mapped)" : "absent");
        }
        char path[128];
        snprintf(path, sizeof path, "%s/resource%u", dev->info.path, index);
        int fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
        if (fd < 0) {
            return guest_fail(dev, MORTAR_EIO, "opening %s: %s", path, strerror(errno));
        }
        long page = sysconf(_SC_PAGESIZE);
        size_t map_size = (size + (uint64_t)page - 1) & ~((uint64_t)page - 1);
        void *p = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        int e = errno;
        close(fd);
        if (p == MAP_FAILED) {
            return guest_fail(dev, MORTAR_EIO, "mmap %s (%zu bytes): %s", path, map_size,
                              strerror(e));
        }
        b->base = p;
        b->size = size;
        b->index = index;
        dev->bar_map_size[index] = map_size;
    }
    if (bar) {
        *bar = b;
    }
    return 0;
}

/* ---- uio_pci_generic ------------------------------------------------------------- */

int guest_bind_uio(mortar_guest_dev *dev)
{
    mortar_guest_pci_info *in = &dev->info;
    read_driver(in->path, in->driver, sizeof in->driver);
    if (strcmp(in->driver, "uio_pci_generic") == 0) {
        return 0;
    }
    if (in->driver[0]) {
        return guest_fail(dev, MORTAR_ESTATE, "%s is bound to kernel driver %s", in->bdf,
                          in->driver);
    }
    if (!in->irq_pin || !in->irq_line) {
        return guest_fail(dev, MORTAR_ENOENT, "%s has no INTx (pin %u, irq %u)", in->bdf,
                          in->irq_pin, in->irq_line);
    }
    int rc = mortar_guest_load_module("uio", NULL, dev->err, sizeof dev->err);
    if (rc == 0) {
        rc = mortar_guest_load_module("uio_pci_generic", NULL, dev->err, sizeof dev->err);
    }
    if (rc != 0) {
        return rc;
    }
    /* driver_override lets the id-less driver take exactly this device. */
    char path[128];
    snprintf(path, sizeof path, "%s/driver_override", in->path);
    int wr = sysfs_write(path, "uio_pci_generic");
    if (wr == 0) {
        wr = sysfs_write("/sys/bus/pci/drivers/uio_pci_generic/bind", in->bdf);
    }
    read_driver(in->path, in->driver, sizeof in->driver);
    if (strcmp(in->driver, "uio_pci_generic") != 0) {
        return guest_fail(dev, MORTAR_EIO,
                          "%s: binding to uio_pci_generic failed: %s (the driver refuses "
                          "devices without INTx masking; see dmesg)",
                          in->bdf, wr < 0 ? strerror(-wr) : "not bound");
    }
    return 0;
}
