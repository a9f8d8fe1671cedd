/*
 * irq.c - a device's interrupts, seen from user space.
 *
 * INTx goes through uio_pci_generic: the kernel takes the interrupt, masks
 * INTx with the Command register's InterruptDisable bit and wakes whoever
 * polls /dev/uioN; the program clears the device's condition and clears the
 * bit again (mortar_guest_irq_unmask).
 *
 * MSI and MSI-X messages are posted memory writes of a data word to an
 * address. Without a kernel driver (and without VFIO, see mortar_guest.h)
 * they cannot become interrupts of this process, so this file points them at
 * a "mailbox": a locked page of RAM, one 32-bit word per vector (MSI: one
 * word for all). The device's message lands there like any DMA write, and
 * mortar_guest_irq_wait polls the word. The library writes the MSI
 * capability (config space) or the MSI-X table (in a BAR) itself; the kernel
 * never enabled them for this device, so nothing else touches them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* MSI capability (offsets from the capability). */
#define MSI_CTRL         2
#define MSI_CTRL_ENABLE  0x0001
#define MSI_CTRL_MMC     0x000e /* log2 of vectors the device can use, bits 1-3 */
#define MSI_CTRL_MME     0x0070 /* log2 of vectors enabled, bits 4-6 */
#define MSI_CTRL_64BIT   0x0080
#define MSI_CTRL_MASKBIT 0x0100
#define MSI_ADDR_LO      4

/* MSI-X capability and table. */
#define MSIX_CTRL         2
#define MSIX_CTRL_SIZE    0x07ff /* table size - 1 */
#define MSIX_CTRL_MASK    0x4000 /* function mask */
#define MSIX_CTRL_ENABLE  0x8000
#define MSIX_TABLE        4 /* BIR in bits 0-2, offset above */
#define MSIX_ENTRY_SIZE   16
#define MSIX_ENTRY_CTRL   12
#define MSIX_ENTRY_MASKED 1

/* Mailbox words: nonzero and recognizable ("MX" / "M"). */
#define MSIX_DATA(v)  (0x4d580000u | (v))
#define MSI_DATA_BASE 0x4d00u /* 16 bits; low 5 bits carry the vector */

const char *mortar_guest_irq_mode_name(mortar_guest_irq_mode mode)
{
    switch (mode) {
    case MORTAR_GUEST_IRQ_NONE:
        return "none";
    case MORTAR_GUEST_IRQ_INTX:
        return "intx";
    case MORTAR_GUEST_IRQ_MSI:
        return "msi";
    case MORTAR_GUEST_IRQ_MSIX:
        return "msix";
    }
    return "?";
}

mortar_guest_irq_mode mortar_guest_irq_get_mode(const mortar_guest_dev *dev)
{
    return dev->irq_mode;
}

unsigned mortar_guest_irq_vectors(const mortar_guest_dev *dev)
{
    return dev->irq_vectors;
}

int mortar_guest_irq_fd(const mortar_guest_dev *dev)
{
    return dev->irq_mode == MORTAR_GUEST_IRQ_INTX ? dev->uio_fd : -1;
}

/* Set or clear Command.InterruptDisable. */
static int set_intx_disabled(mortar_guest_dev *dev, bool disabled)
{
    uint32_t cmd;
    int rc = mortar_guest_config_read(dev, PCI_CMD_OFF, 2, &cmd);
    if (rc != 0) {
        return rc;
    }
    uint32_t want =
        disabled ? cmd | PCI_CMD_INTX_DISABLE : cmd & ~(uint32_t)PCI_CMD_INTX_DISABLE;
    return want == cmd ? 0 : mortar_guest_config_write(dev, PCI_CMD_OFF, 2, want);
}

/* Clear a config-space control word's enable bit(s). */
static void config_clear_bits(mortar_guest_dev *dev, unsigned offset, uint32_t bits)
{
    uint32_t ctrl;
    if (mortar_guest_config_read(dev, offset, 2, &ctrl) == 0 && (ctrl & bits)) {
        mortar_guest_config_write(dev, offset, 2, ctrl & ~bits);
    }
}

/* MSI-X table entry `v` (the table's BAR is mapped). */
static uint64_t msix_entry(mortar_guest_dev *dev, const mortar_guest_bar **bar,
                           unsigned v)
{
    uint32_t table = 0;
    mortar_guest_config_read(dev, (unsigned)dev->cap_msix + MSIX_TABLE, 4, &table);
    *bar = &dev->bars[table & 7];
    return (table & ~7u) + (uint64_t)v * MSIX_ENTRY_SIZE;
}

void mortar_guest_irq_teardown(mortar_guest_dev *dev)
{
    switch (dev->irq_mode) {
    case MORTAR_GUEST_IRQ_MSIX: {
        const mortar_guest_bar *bar;
        uint32_t ctrl = 0;
        mortar_guest_config_read(dev, (unsigned)dev->cap_msix + MSIX_CTRL, 2, &ctrl);
        for (unsigned v = 0; v <= (ctrl & MSIX_CTRL_SIZE); v++) {
            uint64_t e = msix_entry(dev, &bar, v);
            if (bar->base) {
                mortar_guest_write32(bar, e + MSIX_ENTRY_CTRL, MSIX_ENTRY_MASKED);
            }
        }
        config_clear_bits(dev, (unsigned)dev->cap_msix + MSIX_CTRL, MSIX_CTRL_ENABLE);
        break;
    }
    case MORTAR_GUEST_IRQ_MSI:
        config_clear_bits(dev, (unsigned)dev->cap_msi + MSI_CTRL, MSI_CTRL_ENABLE);
        break;
    case MORTAR_GUEST_IRQ_INTX:
    case MORTAR_GUEST_IRQ_NONE:
        break;
    }
    if (dev->uio_fd >= 0) {
        close(dev->uio_fd);
        dev->uio_fd = -1;
    }
    mortar_guest_dma_free(dev->mailbox);
    dev->mailbox = NULL;
    dev->irq_mode = MORTAR_GUEST_IRQ_NONE;
    dev->irq_vectors = 0;
}

static int alloc_mailbox(mortar_guest_dev *dev, unsigned words)
{
    return mortar_guest_dma_alloc(&dev->mailbox, (size_t)words * 4,
                                  MORTAR_GUEST_DMA_NO_HUGE, dev->err, sizeof dev->err);
}

static int setup_msix(mortar_guest_dev *dev, unsigned vectors)
{
    const char *bdf = dev->info.bdf;
    unsigned cap = (unsigned)dev->cap_msix;
    if (!cap) {
        return guest_fail(dev, MORTAR_ENOENT, "%s has no MSI-X capability", bdf);
    }
    uint32_t ctrl, table;
    int rc = mortar_guest_config_read(dev, cap + MSIX_CTRL, 2, &ctrl);
    if (rc == 0) {
        rc = mortar_guest_config_read(dev, cap + MSIX_TABLE, 4, &table);
    }
    if (rc != 0) {
        return rc;
    }
    unsigned size = (ctrl & MSIX_CTRL_SIZE) + 1;
    if (vectors == 0) {
        vectors = size;
    }
    if (vectors > size) {
        return guest_fail(dev, MORTAR_EINVAL,
                          "%s: %u MSI-X vectors asked, the device has %u", bdf, vectors,
                          size);
    }
    const mortar_guest_bar *bar;
    rc = mortar_guest_bar_map(dev, table & 7, &bar);
    if (rc != 0) {
        return rc;
    }
    if ((table & ~7u) + (uint64_t)size * MSIX_ENTRY_SIZE > bar->size) {
        return guest_fail(dev, MORTAR_EPROTO,
                          "%s: MSI-X table (0x%x, %u entries) beyond BAR %u", bdf,
                          table & ~7u, size, table & 7);
    }
    rc = alloc_mailbox(dev, vectors);
    if (rc != 0) {
        return rc;
    }
    /* Program masked entries, enable, then unmask the ones we use. */
    for (unsigned v = 0; v < size; v++) {
        uint64_t e = msix_entry(dev, &bar, v);
        mortar_guest_write32(bar, e + MSIX_ENTRY_CTRL, MSIX_ENTRY_MASKED);
        if (v < vectors) {
            uint64_t addr = mortar_guest_dma_phys(dev->mailbox, (size_t)v * 4);
            mortar_guest_write32(bar, e + 0, (uint32_t)addr);
            mortar_guest_write32(bar, e + 4, (uint32_t)(addr >> 32));
            mortar_guest_write32(bar, e + 8, MSIX_DATA(v));
        }
    }
    rc = mortar_guest_config_write(dev, cap + MSIX_CTRL, 2,
                                   (ctrl | MSIX_CTRL_ENABLE) & ~(uint32_t)MSIX_CTRL_MASK);
    if (rc != 0) {
        return rc;
    }
    dev->irq_mode = MORTAR_GUEST_IRQ_MSIX;
    dev->irq_vectors = vectors;
    for (unsigned v = 0; v < vectors; v++) {
        mortar_guest_write32(bar, msix_entry(dev, &bar, v) + MSIX_ENTRY_CTRL, 0);
    }
    return 0;
}

static int setup_msi(mortar_guest_dev *dev, unsigned vectors)
{
    const char *bdf = dev->info.bdf;
    unsigned cap = (unsigned)dev->cap_msi;
    if (!cap) {
        return guest_fail(dev, MORTAR_ENOENT, "%s has no MSI capability", bdf);
    }
    uint32_t ctrl;
    int rc = mortar_guest_config_read(dev, cap + MSI_CTRL, 2, &ctrl);
    if (rc != 0) {
        return rc;
    }
    unsigned max = 1u << ((ctrl & MSI_CTRL_MMC) >> 1);
    unsigned log2 = 0;
    while ((1u << log2) < vectors) {
        log2++;
    }
    if (vectors == 0) {
        vectors = max;
        log2 = (ctrl & MSI_CTRL_MMC) >> 1;
    } else if (vectors > max) {
        return guest_fail(dev, MORTAR_EINVAL,
                          "%s: %u MSI vectors asked, the device has %u", bdf, vectors,
                          max);
    } else {
        vectors = 1u << log2;
    }
    rc = alloc_mailbox(dev, 1);
    if (rc != 0) {
        return rc;
    }
    uint64_t addr = mortar_guest_dma_phys(dev->mailbox, 0);
    bool is64 = ctrl & MSI_CTRL_64BIT;
    if (!is64 && addr >> 32) {
        return guest_fail(dev, MORTAR_ENOMEM, "%s: 32-bit MSI, mailbox above 4 GiB", bdf);
    }
    unsigned data_off = cap + (is64 ? 12 : 8);
    rc = mortar_guest_config_write(dev, cap + MSI_ADDR_LO, 4, (uint32_t)addr);
    if (rc == 0 && is64) {
        rc = mortar_guest_config_write(dev, cap + 8, 4, (uint32_t)(addr >> 32));
    }
    if (rc == 0) {
        rc = mortar_guest_config_write(dev, data_off, 2, MSI_DATA_BASE);
    }
    if (rc == 0 && (ctrl & MSI_CTRL_MASKBIT)) {
        rc = mortar_guest_config_write(dev, data_off + 4, 4, 0); /* unmask all */
    }
    if (rc == 0) {
        uint32_t on = (ctrl & ~(uint32_t)MSI_CTRL_MME) | log2 << 4 | MSI_CTRL_ENABLE;
        rc = mortar_guest_config_write(dev, cap + MSI_CTRL, 2, on);
    }
    if (rc != 0) {
        return rc;
    }
    dev->msi_data_base = MSI_DATA_BASE;
    dev->irq_mode = MORTAR_GUEST_IRQ_MSI;
    dev->irq_vectors = vectors;
    return 0;
}

static int setup_intx(mortar_guest_dev *dev)
{
    int rc = guest_bind_uio(dev);
    if (rc != 0) {
        return rc;
    }
    char path[128], name[32] = "";
    snprintf(path, sizeof path, "%s/uio", dev->info.path);
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strncmp(e->d_name, "uio", 3) == 0) {
                snprintf(name, sizeof name, "%s", e->d_name);
                break;
            }
        }
        closedir(d);
    }
    if (!name[0]) {
        return guest_fail(dev, MORTAR_ENOENT,
                          "%s: bound to uio_pci_generic but no %s/uioN", dev->info.bdf,
                          path);
    }
    snprintf(path, sizeof path, "/dev/%s", name);
    dev->uio_fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (dev->uio_fd < 0) {
        return guest_fail(dev, MORTAR_EIO, "opening %s: %s", path, strerror(errno));
    }
    rc = set_intx_disabled(dev, false);
    if (rc != 0) {
        return rc;
    }
    dev->irq_mode = MORTAR_GUEST_IRQ_INTX;
    dev->irq_vectors = 1;
    return 0;
}

int mortar_guest_irq_setup(mortar_guest_dev *dev, mortar_guest_irq_mode mode,
                           unsigned vectors)
{
    mortar_guest_irq_teardown(dev);
    /* Whatever ran before (another program) may have left MSI/MSI-X on. */
    if (dev->cap_msix) {
        config_clear_bits(dev, (unsigned)dev->cap_msix + MSIX_CTRL, MSIX_CTRL_ENABLE);
    }
    if (dev->cap_msi) {
        config_clear_bits(dev, (unsigned)dev->cap_msi + MSI_CTRL, MSI_CTRL_ENABLE);
    }
    int rc;
    switch (mode) {
    case MORTAR_GUEST_IRQ_NONE:
        return 0;
    case MORTAR_GUEST_IRQ_INTX:
        if (vectors > 1) {
            return guest_fail(dev, MORTAR_EINVAL, "INTx has one vector, %u asked",
                              vectors);
        }
        rc = setup_intx(dev);
        break;
    case MORTAR_GUEST_IRQ_MSI:
    case MORTAR_GUEST_IRQ_MSIX:
        /* As Linux does: no INTx while message interrupts are on. */
        rc = set_intx_disabled(dev, true);
        if (rc == 0) {
            rc = mode == MORTAR_GUEST_IRQ_MSI ? setup_msi(dev, vectors)
                                              : setup_msix(dev, vectors);
        }
        break;
    default:
        return guest_fail(dev, MORTAR_EINVAL, "unknown interrupt mode %d", (int)mode);
    }
    if (rc != 0) {
        char keep[sizeof dev->err];
        memcpy(keep, dev->err, sizeof keep);
        mortar_guest_irq_teardown(dev);
        memcpy(dev->err, keep, sizeof keep);
    }
    return rc;
}

static int wait_mailbox(mortar_guest_dev *dev, unsigned vector, uint64_t timeout_ns)
{
    bool msix = dev->irq_mode == MORTAR_GUEST_IRQ_MSIX;
    uint32_t *word =
        (uint32_t *)mortar_guest_dma_virt(dev->mailbox) + (msix ? vector : 0);
    uint32_t expect = msix ? MSIX_DATA(vector) : dev->msi_data_base | vector;
    uint64_t start = mortar_guest_now_ns();
    uint64_t deadline = timeout_ns > UINT64_MAX - start ? UINT64_MAX : start + timeout_ns;
    for (bool last = false;; last = mortar_guest_now_ns() >= deadline) {
        for (int i = 0; i < 64; i++) {
            uint32_t seen = expect;
            if (__atomic_compare_exchange_n(word, &seen, 0, false, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                return 0;
            }
            if (msix && seen != 0) {
                return guest_fail(dev, MORTAR_EPROTO,
                                  "%s: MSI-X vector %u wrote 0x%08x, expected 0x%08x",
                                  dev->info.bdf, vector, seen, expect);
            }
        }
        if (last) {
            return guest_fail(dev, MORTAR_ETIMEDOUT,
                              "%s: no %s interrupt on vector %u within %llu ns",
                              dev->info.bdf, mortar_guest_irq_mode_name(dev->irq_mode),
                              vector, (unsigned long long)timeout_ns);
        }
    }
}

static int wait_uio(mortar_guest_dev *dev, uint64_t timeout_ns)
{
    uint64_t start = mortar_guest_now_ns();
    for (;;) {
        uint32_t count;
        if (read(dev->uio_fd, &count, sizeof count) == (ssize_t)sizeof count) {
            return 0;
        }
        if (errno != EAGAIN && errno != EINTR) {
            return guest_fail(dev, MORTAR_EIO, "%s: reading /dev/uio: %s", dev->info.bdf,
                              strerror(errno));
        }
        uint64_t spent = mortar_guest_now_ns() - start;
        if (spent >= timeout_ns) {
            return guest_fail(dev, MORTAR_ETIMEDOUT,
                              "%s: no INTx interrupt within %llu ns", dev->info.bdf,
                              (unsigned long long)timeout_ns);
        }
        uint64_t left = timeout_ns - spent;
        struct timespec ts = {.tv_sec = (time_t)(left / 1000000000u),
                              .tv_nsec = (long)(left % 1000000000u)};
        struct pollfd p = {.fd = dev->uio_fd, .events = POLLIN};
        if (ppoll(&p, 1, &ts, NULL) < 0 && errno != EINTR) {
            return guest_fail(dev, MORTAR_EIO, "%s: ppoll on /dev/uio: %s", dev->info.bdf,
                              strerror(errno));
        }
    }
}

int mortar_guest_irq_wait(mortar_guest_dev *dev, unsigned vector, uint64_t timeout_ns)
{
    if (dev->irq_mode == MORTAR_GUEST_IRQ_NONE) {
        return guest_fail(dev, MORTAR_ESTATE, "%s: interrupts are not set up",
                          dev->info.bdf);
    }
    if (vector >= dev->irq_vectors) {
        return guest_fail(dev, MORTAR_EINVAL, "%s: vector %u, only %u set up (%s)",
                          dev->info.bdf, vector, dev->irq_vectors,
                          mortar_guest_irq_mode_name(dev->irq_mode));
    }
    if (dev->irq_mode == MORTAR_GUEST_IRQ_INTX) {
        return wait_uio(dev, timeout_ns);
    }
    return wait_mailbox(dev, vector, timeout_ns);
}

int mortar_guest_irq_unmask(mortar_guest_dev *dev)
{
    if (dev->irq_mode != MORTAR_GUEST_IRQ_INTX) {
        return 0;
    }
    return set_intx_disabled(dev, false);
}
