/*
 * mortar_guest.h - the guest-side library: drive a mortar device from a
 * user-space program inside the simulated host.
 *
 * A guest program (linked statically, run by the guest image's /init as
 * root) finds its device on the PCI bus, maps its BARs, gets DMA memory
 * whose physical addresses it can hand to the device, turns on bus
 * mastering and waits for the device's interrupts. Everything goes through
 * the kernel's generic interfaces; no driver of our own is needed:
 *
 *   PCI identity, config  /sys/bus/pci/devices/<bdf>/{vendor,device,class,
 *                         resource,config}
 *   BARs                  mmap of /sys/bus/pci/devices/<bdf>/resource<N>
 *   DMA memory            a 2 MiB huge page (or locked normal pages) and
 *                         /proc/self/pagemap for physical addresses; the pc
 *                         machine has no IOMMU, so physical = bus address
 *   INTx                  the uio_pci_generic driver: a real interrupt, the
 *                         wait sleeps in ppoll() on /dev/uioN
 *   MSI, MSI-X            programmed from user space to write their message
 *                         into a "mailbox" word in RAM; the wait polls it
 *
 * Why not VFIO: Debian's 6.1 kernel is built without CONFIG_VFIO_NOIOMMU and
 * the pc machine has no IOMMU, so vfio-pci cannot take a device (see
 * docs/guest-programs.md). MSI/MSI-X therefore do not enter the guest kernel:
 * the device's message is an ordinary posted memory write, as on a real bus,
 * and the program sees it by polling memory. Its timing is the device's and
 * the link's, without the cost of an interrupt entry and a wakeup.
 *
 * Errors: functions return 0 (or a documented non-negative value) on
 * success and a negative MORTAR_E code (mortar/error.h) on failure. A device
 * keeps the text of its last error (mortar_guest_errmsg); functions without a
 * device write it into the caller's buffer. The library never prints and
 * never exits.
 *
 * Time: mortar_guest_now_ns() is CLOCK_MONOTONIC, which inside the simulation
 * is simulated time. Every timeout here is in that time.
 *
 * Threading: a device and a DMA buffer belong to one thread at a time.
 */
#ifndef MORTAR_GUEST_H
#define MORTAR_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "mortar/error.h"

/* ---- clock ---------------------------------------------------------------- */

/* Nanoseconds of CLOCK_MONOTONIC: simulated time when run in a mortar host. */
static inline uint64_t mortar_guest_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- finding a device ------------------------------------------------------- */

#define MORTAR_GUEST_BARS 6

/* What sysfs says about a PCI function. */
typedef struct mortar_guest_pci_info {
    char bdf[16];    /* "0000:00:04.0" */
    char path[64];   /* "/sys/bus/pci/devices/0000:00:04.0" */
    char driver[32]; /* bound driver's name, "" if none */
    uint16_t vendor_id, device_id;
    uint32_t class_code; /* class << 16 | subclass << 8 | prog-if, e.g. 0xff0000 */
    uint8_t irq_pin;     /* 0 none, 1-4 INTA-INTD (config 0x3d) */
    unsigned irq_line;   /* the kernel's IRQ number for INTx (sysfs `irq`), 0 if none */
    /* From the `resource` file. A 64-bit BAR fills its slot; the next slot
     * is then empty (size 0). */
    uint64_t bar_phys[MORTAR_GUEST_BARS];
    uint64_t bar_size[MORTAR_GUEST_BARS];  /* bytes, 0 if absent */
    uint64_t bar_flags[MORTAR_GUEST_BARS]; /* MORTAR_GUEST_BAR_* bits */
} mortar_guest_pci_info;

/* bar_flags bits (the kernel's IORESOURCE_* values, as `resource` prints them). */
#define MORTAR_GUEST_BAR_IO       0x00000100u
#define MORTAR_GUEST_BAR_MEM      0x00000200u
#define MORTAR_GUEST_BAR_PREFETCH 0x00002000u
#define MORTAR_GUEST_BAR_MEM64    0x00100000u

/* Find the `nth` (0 = first, in BDF order) PCI function with the given IDs
 * and fill `info`. MORTAR_ENOENT, with "no device VVVV:DDDD" in `err`, if
 * there is none; MORTAR_EIO if sysfs cannot be read. `err` may be NULL. */
int mortar_guest_pci_find(uint16_t vendor_id, uint16_t device_id, unsigned nth,
                          mortar_guest_pci_info *info, char *err, size_t err_size);

/* Fill `info` for the function at `bdf` ("0000:00:04.0"). */
int mortar_guest_pci_info_read(const char *bdf, mortar_guest_pci_info *info, char *err,
                               size_t err_size);

/* ---- opening a device ----------------------------------------------------------- */

typedef struct mortar_guest_dev mortar_guest_dev;

/* mortar_guest_open flags. */
enum {
    /* Bind the device to uio_pci_generic now, so that INTx can be used
     * (mortar_guest_irq_setup does it anyway when asked for INTx; with this
     * flag a missing driver or IRQ fails the open instead). */
    MORTAR_GUEST_OPEN_INTX = 1u << 0,
};

/* Open the first device with the given IDs: read its identity, open its
 * config space and enable it (write 1 to sysfs `enable` when no driver has
 * done it; undone by mortar_guest_close). A device bound to a kernel driver
 * other than uio_pci_generic is refused (MORTAR_ESTATE): that driver owns
 * it. Needs root. On success *devp is the caller's, to mortar_guest_close.
 * Fails with MORTAR_ENOENT ("no device 1de5:7e57") if there is no such device. */
int mortar_guest_open(mortar_guest_dev **devp, uint16_t vendor_id, uint16_t device_id,
                      unsigned flags, char *err, size_t err_size);

/* The same for the function at `bdf`. */
int mortar_guest_open_bdf(mortar_guest_dev **devp, const char *bdf, unsigned flags,
                          char *err, size_t err_size);

/* Tear down interrupts, unmap the BARs, turn bus mastering off if this
 * handle turned it on, disable the device if this handle enabled it, and
 * free the handle. The device stays bound to uio_pci_generic if it was
 * bound (the next open finds it so). NULL is ignored. */
void mortar_guest_close(mortar_guest_dev *dev);

/* Identity read at open (the driver field is updated when binding). */
const mortar_guest_pci_info *mortar_guest_info(const mortar_guest_dev *dev);

/* The text of the device's last error, with its context; "" if none. */
const char *mortar_guest_errmsg(const mortar_guest_dev *dev);

/* ---- config space ------------------------------------------------------------------ */

/* Read or write `size` (1, 2 or 4) bytes of config space at `offset`
 * (little-endian values). Through the sysfs `config` file. */
int mortar_guest_config_read(mortar_guest_dev *dev, unsigned offset, unsigned size,
                             uint32_t *value);
int mortar_guest_config_write(mortar_guest_dev *dev, unsigned offset, unsigned size,
                              uint32_t value);

/* Offset of capability `cap_id` (0x05 MSI, 0x11 MSI-X, ...) in config
 * space, or MORTAR_ENOENT. */
int mortar_guest_find_capability(mortar_guest_dev *dev, uint8_t cap_id);

/* Set (on) or clear the Command register's Bus Master bit, so the device may
 * issue DMA (and MSI/MSI-X messages, which are DMA writes). */
int mortar_guest_bus_master(mortar_guest_dev *dev, bool on);

/* ---- BARs ----------------------------------------------------------------------------
 */

/* A mapped memory BAR. Owned by the device handle: valid until
 * mortar_guest_close. */
typedef struct mortar_guest_bar {
    volatile uint8_t *base;
    uint64_t size; /* bytes */
    unsigned index;
} mortar_guest_bar;

/* Map memory BAR `index` (mmap of sysfs resource<index>, uncached) and
 * return it in *bar (may be NULL). Mapping the same BAR again returns the
 * same mapping. MORTAR_EINVAL for an I/O or absent BAR. */
int mortar_guest_bar_map(mortar_guest_dev *dev, unsigned index,
                         const mortar_guest_bar **bar);

/* MMIO accessors: one access of exactly that width (each read is a round trip
 * to the device model; writes are posted). `offset` must be naturally
 * aligned and inside the BAR; not checked on this hot path. */
static inline uint32_t mortar_guest_read32(const mortar_guest_bar *bar, uint64_t offset)
{
    return *(volatile uint32_t *)(bar->base + offset);
}

static inline void mortar_guest_write32(const mortar_guest_bar *bar, uint64_t offset,
                                        uint32_t value)
{
    *(volatile uint32_t *)(bar->base + offset) = value;
}

static inline uint64_t mortar_guest_read64(const mortar_guest_bar *bar, uint64_t offset)
{
    return *(volatile uint64_t *)(bar->base + offset);
}

static inline void mortar_guest_write64(const mortar_guest_bar *bar, uint64_t offset,
                                        uint64_t value)
{
    *(volatile uint64_t *)(bar->base + offset) = value;
}

/* ---- DMA memory -------------------------------------------------------------------- */

typedef struct mortar_guest_dma mortar_guest_dma;

/* mortar_guest_dma_alloc flags. */
enum {
    MORTAR_GUEST_DMA_HUGE_ONLY = 1u << 0, /* fail rather than use normal pages */
    MORTAR_GUEST_DMA_NO_HUGE = 1u << 1,   /* use normal pages only */
};

/* Allocate `size_bytes` of zeroed memory that stays at one physical place
 * while the buffer lives, for the device to DMA to and from.
 *
 * First choice: 2 MiB huge pages (size rounded up to 2 MiB), mapped with
 * MAP_HUGETLB; if the pool has too few free pages, /proc/sys/vm/nr_hugepages
 * is raised (the pages stay in the pool after free). A single huge page is
 * physically contiguous. Fallback: normal pages, locked with mlock, and
 * /proc/sys/vm/compact_unevictable_allowed set to 0 so compaction does not
 * move them; these are usually NOT contiguous (check with
 * mortar_guest_dma_contiguous). The buffer is not inherited by fork().
 * Physical addresses come from /proc/self/pagemap and need root.
 * On success *dmap is the caller's, to mortar_guest_dma_free. */
int mortar_guest_dma_alloc(mortar_guest_dma **dmap, size_t size_bytes, unsigned flags,
                           char *err, size_t err_size);

/* Unmap and free. NULL is ignored. */
void mortar_guest_dma_free(mortar_guest_dma *dma);

/* The buffer's first byte, and its usable size (the size asked for). */
void *mortar_guest_dma_virt(const mortar_guest_dma *dma);
size_t mortar_guest_dma_size(const mortar_guest_dma *dma);

/* True when the buffer is backed by huge pages. */
bool mortar_guest_dma_is_huge(const mortar_guest_dma *dma);

/* Physical (= bus) address of byte `offset` of the buffer; 0 if `offset` is
 * outside it. A table lookup: no system call. */
uint64_t mortar_guest_dma_phys(const mortar_guest_dma *dma, size_t offset);

/* True when bytes [offset, offset + len) are physically contiguous (a single
 * device DMA may cover them); false if not or if the range leaves the buffer. */
bool mortar_guest_dma_contiguous(const mortar_guest_dma *dma, size_t offset, size_t len);

/* Physical address of any mapped, present byte of this process (e.g. of
 * locked memory obtained elsewhere), from /proc/self/pagemap. */
int mortar_guest_virt_to_phys(const void *addr, uint64_t *phys, char *err,
                              size_t err_size);

/* ---- interrupts ----------------------------------------------------------------------
 */

typedef enum mortar_guest_irq_mode {
    MORTAR_GUEST_IRQ_NONE = 0,
    /* INTx through uio_pci_generic. One vector (0). After each interrupt
     * the kernel masks INTx (Command.InterruptDisable); the program clears
     * the device's interrupt condition and then calls
     * mortar_guest_irq_unmask. */
    MORTAR_GUEST_IRQ_INTX,
    /* MSI, written to the mailbox. With several vectors, all share the
     * single MSI address (so one mailbox word): a message for one vector
     * overwrites a not yet consumed one for another. */
    MORTAR_GUEST_IRQ_MSI,
    /* MSI-X, one mailbox word per vector. */
    MORTAR_GUEST_IRQ_MSIX,
} mortar_guest_irq_mode;

/* "none", "intx", "msi", "msix". */
const char *mortar_guest_irq_mode_name(mortar_guest_irq_mode mode);

/* Set up `vectors` interrupt vectors of kind `mode` (0: as many as the
 * device has; MSI rounds up to a power of two). The other kinds are turned
 * off first. MSI/MSI-X: allocates the mailbox, writes the MSI capability or
 * the MSI-X table (BAR mapped as needed) and enables it; the messages reach
 * memory only while bus mastering is on. INTx: binds uio_pci_generic (loading
 * uio.ko and uio_pci_generic.ko from /lib/modules if needed) and opens
 * /dev/uioN. MORTAR_ENOENT if the device lacks that kind of interrupt. */
int mortar_guest_irq_setup(mortar_guest_dev *dev, mortar_guest_irq_mode mode,
                           unsigned vectors);

/* The current mode and vector count. */
mortar_guest_irq_mode mortar_guest_irq_get_mode(const mortar_guest_dev *dev);
unsigned mortar_guest_irq_vectors(const mortar_guest_dev *dev);

/* Wait up to `timeout_ns` (guest time) for an interrupt on `vector` and
 * consume it. Returns 0, MORTAR_ETIMEDOUT, or an error. An interrupt that
 * arrived before the call counts (it is remembered until consumed); several
 * that arrived meanwhile count as one. MSI/MSI-X: busy-polls the mailbox word
 * (the CPU runs, as a polling driver would). INTx: sleeps in ppoll(). */
int mortar_guest_irq_wait(mortar_guest_dev *dev, unsigned vector, uint64_t timeout_ns);

/* INTx: re-enable the interrupt after the device's condition was cleared
 * (clears Command.InterruptDisable, which the kernel set when it fired).
 * MSI/MSI-X: nothing to do; returns 0. */
int mortar_guest_irq_unmask(mortar_guest_dev *dev);

/* The file descriptor that becomes readable on an INTx interrupt (for a
 * program's own poll loop; read 4 bytes to consume), or -1 in other modes. */
int mortar_guest_irq_fd(const mortar_guest_dev *dev);

/* Turn the interrupts off (MSI-X entries masked and MSI-X/MSI disabled;
 * INTx: /dev/uioN closed) and free the mailbox. */
void mortar_guest_irq_teardown(mortar_guest_dev *dev);

/* ---- marks for the host's trace ----------------------------------------------------- */

/*
 * Every mortar-pci device shows 'M' 'R' 'T' <state> at config offset 0xfc.
 * Opens the sysfs config file of each (read-write) into fds; returns how
 * many (0 when the guest runs outside mortar).
 */
int mortar_guest_mortar_devices(int *fds, int max);

/* What a mark says happened; the host's trace names them (docs/traces.md). */
typedef enum mortar_guest_mark_kind {
    MORTAR_MARK_REQUEST_START = 1, /* client: request sent off */
    MORTAR_MARK_REQUEST_END,       /* client: reply complete */
    MORTAR_MARK_REQUEST_RECEIVED,  /* server: request complete */
    MORTAR_MARK_DEVICE_START,      /* server: handed to the backend */
    MORTAR_MARK_DEVICE_DONE,       /* server: backend finished */
    MORTAR_MARK_REPLY_SENT,        /* server: reply handed to TCP */
} mortar_guest_mark_kind;

/*
 * Records `kind` for request `req` (its low 24 bits) in the host's trace at
 * the current simulated time: a 4-byte config write to the first mortar
 * device (offset 0xf8), costing the same whether the run traces or not.
 * Does nothing outside mortar.
 */
void mortar_guest_mark(mortar_guest_mark_kind kind, uint64_t req);

/* ---- kernel modules ---------------------------------------------------------------- */

/* Make sure module `name` is loaded: nothing to do if /sys/module/<name>
 * exists (- and _ alike); else load /lib/modules/<name>.ko with
 * finit_module() and `params` ("" or NULL for none). Dependencies are the
 * caller's: load them first. */
int mortar_guest_load_module(const char *name, const char *params, char *err,
                             size_t err_size);

#endif
