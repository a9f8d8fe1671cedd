/*
 * pcitest.c - mortar-pcitest, the guest side of mortar's QEMU tests.
 *
 * Drives the "pcitest" device model (vendor 0x1de5, device 0x7e57) through
 * mortar-pci from inside the guest, with the guest library (guest/lib):
 *
 *   mortar-pcitest ids                 identity and BAR sizes from sysfs
 *   mortar-pcitest mmio-timing N       N timed MMIO reads of COUNTER
 *   mortar-pcitest dma-irq [--irq=M]   DMA both ways, completion interrupts
 *   mortar-pcitest selftest            the library without the device
 *
 * Each prints one line of key=value pairs and exits 0, or prints
 * "mortar-pcitest: <what failed>" on stderr and exits 1 (2: bad usage).
 * Timings are CLOCK_MONOTONIC, i.e. simulated time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest_cli.h"
#include "mortar_guest.h"

#define PCITEST_VENDOR   0x1de5
#define PCITEST_DEVICE   0x7e57
#define PCITEST_ID_VALUE 0x7e570001u

/* BAR0 registers (32-bit, little-endian). */
enum {
    REG_ID = 0x00,
    REG_SCRATCH = 0x04,
    REG_COUNTER = 0x08, /* increments on every read */
    REG_DMA_ADDR_LO = 0x10,
    REG_DMA_ADDR_HI = 0x14,
    REG_DMA_LEN = 0x18,
    REG_DMA_PATTERN = 0x1c,
    REG_DMA_CMD = 0x20,
    REG_DMA_STATUS = 0x24,
    REG_DMA_RESULT = 0x28,
    REG_DMA_TIME = 0x2c, /* ns from the command to the last completion */
    REG_IRQ_RAISE = 0x30,
    REG_IRQ_ACK = 0x34,
    REG_IRQ_COUNT = 0x38,
    REG_DMA_IRQ_VECTOR = 0x3c,
};
#define DMA_CMD_WRITE  1 /* device writes the pattern to host memory */
#define DMA_CMD_READ   2 /* device reads host memory, sums the bytes */
#define DMA_ST_BUSY    0x1
#define DMA_ST_DONE    0x2
#define DMA_ST_ERROR   0x4
#define DMA_IRQ_NONE   0xffffffffu
#define DMA_TEST_BYTES 65536u
#define DMA_SEED       0x5a
#define IRQ_TIMEOUT_NS 1000000000ull /* 1 s of guest time */

static const char *prog = "mortar-pcitest";

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s ids\n"
            "       %s mmio-timing N\n"
            "       %s dma-irq [--irq=auto|msix|msi|intx]\n"
            "       %s selftest\n",
            prog, prog, prog, prog);
}

static mortar_guest_dev *open_pcitest(unsigned flags)
{
    mortar_guest_dev *dev;
    char err[320];
    if (mortar_guest_open(&dev, PCITEST_VENDOR, PCITEST_DEVICE, flags, err, sizeof err) !=
        0) {
        cli_die("%s", err);
    }
    return dev;
}

/* Map BAR0 and check the ID register. */
static const mortar_guest_bar *map_regs(mortar_guest_dev *dev)
{
    const mortar_guest_bar *regs;
    if (mortar_guest_bar_map(dev, 0, &regs) != 0) {
        cli_die("%s", mortar_guest_errmsg(dev));
    }
    uint32_t id = mortar_guest_read32(regs, REG_ID);
    if (id != PCITEST_ID_VALUE) {
        cli_die("ID register reads 0x%08x, expected 0x%08x", id, PCITEST_ID_VALUE);
    }
    return regs;
}

/* ---- ids ------------------------------------------------------------------------ */

static int cmd_ids(void)
{
    mortar_guest_dev *dev = open_pcitest(0);
    const mortar_guest_pci_info *in = mortar_guest_info(dev);
    printf("vendor=0x%04x device=0x%04x class=0x%06x", in->vendor_id, in->device_id,
           in->class_code);
    for (int i = 0; i < MORTAR_GUEST_BARS; i++) {
        if (in->bar_size[i]) {
            printf(" bar%d_size=%llu", i, (unsigned long long)in->bar_size[i]);
        }
    }
    for (int i = 0; i < MORTAR_GUEST_BARS; i++) {
        uint64_t f = in->bar_flags[i];
        if (in->bar_size[i]) {
            printf(" bar%d_type=%s%s%s", i, f & MORTAR_GUEST_BAR_IO ? "io" : "mem",
                   f & MORTAR_GUEST_BAR_MEM64 ? "64" : "32",
                   f & MORTAR_GUEST_BAR_PREFETCH ? "-prefetch" : "");
        }
    }
    printf(" irq_pin=%u", in->irq_pin);
    uint32_t ctrl, table, pba;
    int msi = mortar_guest_find_capability(dev, 0x05);
    if (msi > 0 && mortar_guest_config_read(dev, (unsigned)msi + 2, 2, &ctrl) == 0) {
        printf(" msi_vectors=%u", 1u << ((ctrl >> 1) & 7));
    } else {
        printf(" msi_vectors=0");
    }
    int msix = mortar_guest_find_capability(dev, 0x11);
    if (msix > 0 && mortar_guest_config_read(dev, (unsigned)msix + 2, 2, &ctrl) == 0 &&
        mortar_guest_config_read(dev, (unsigned)msix + 4, 4, &table) == 0 &&
        mortar_guest_config_read(dev, (unsigned)msix + 8, 4, &pba) == 0) {
        printf(" msix_vectors=%u msix_table=bar%u+0x%x msix_pba=bar%u+0x%x",
               (ctrl & 0x7ff) + 1, table & 7, table & ~7u, pba & 7, pba & ~7u);
    } else {
        printf(" msix_vectors=0");
    }
    printf(" bdf=%s\n", in->bdf);
    mortar_guest_close(dev);
    return 0;
}

/* ---- mmio-timing
 * ----------------------------------------------------------------------- */

static void check_consecutive(const uint32_t *vals, size_t n, uint32_t *prev, bool *have,
                              const char *pass)
{
    for (size_t i = 0; i < n; i++) {
        if (*have && vals[i] != (uint32_t)(*prev + 1)) {
            cli_die("COUNTER not consecutive (%s read %zu): 0x%08x after 0x%08x", pass, i,
                    vals[i], *prev);
        }
        *prev = vals[i];
        *have = true;
    }
}

static int cmd_mmio_timing(const char *arg)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(arg, &end, 10);
    if (errno || *end || n == 0 || n > 10000000) {
        cli_die("mmio-timing: N must be 1..10000000, not '%s'", arg);
    }
    mortar_guest_dev *dev = open_pcitest(0);
    const mortar_guest_bar *regs = map_regs(dev);
    uint32_t *vals = malloc(n * sizeof *vals);
    uint64_t *dt = malloc(n * sizeof *dt);
    if (!vals || !dt) {
        cli_die("out of memory for %llu reads", n);
    }
    /* Pass 1: the batch, the clock read only before and after. */
    uint64_t t0 = mortar_guest_now_ns();
    for (size_t i = 0; i < n; i++) {
        vals[i] = mortar_guest_read32(regs, REG_COUNTER);
    }
    uint64_t total = mortar_guest_now_ns() - t0;
    uint32_t prev = 0;
    bool have = false;
    check_consecutive(vals, n, &prev, &have, "batch");

    /* The cost of the clock itself, to read the per-read numbers against. */
    uint64_t clock_ns = UINT64_MAX;
    for (int i = 0; i < 100; i++) {
        uint64_t a = mortar_guest_now_ns(), b = mortar_guest_now_ns();
        clock_ns = b - a < clock_ns ? b - a : clock_ns;
    }
    /* Pass 2: each read timed on its own (clock included). */
    for (size_t i = 0; i < n; i++) {
        uint64_t a = mortar_guest_now_ns();
        vals[i] = mortar_guest_read32(regs, REG_COUNTER);
        dt[i] = mortar_guest_now_ns() - a;
    }
    check_consecutive(vals, n, &prev, &have, "timed");
    qsort(dt, n, sizeof *dt, cli_cmp_u64);
    printf("reads=%llu total_ns=%llu per_read_ns=%llu min_ns=%llu median_ns=%llu "
           "max_ns=%llu clock_ns=%llu counter_ok=1\n",
           n, (unsigned long long)total, (unsigned long long)(total / n),
           (unsigned long long)dt[0], (unsigned long long)dt[n / 2],
           (unsigned long long)dt[n - 1], (unsigned long long)clock_ns);
    free(vals);
    free(dt);
    mortar_guest_close(dev);
    return 0;
}

/* ---- dma-irq -------------------------------------------------------------------------
 */

typedef struct dma_test {
    mortar_guest_dev *dev;
    const mortar_guest_bar *regs;
    unsigned dma_vector;   /* vector the DMA completion raises */
    unsigned raise_vector; /* vector for the IRQ_RAISE test */
} dma_test;

/* Wait for `vector`; on INTx acknowledge at the device and unmask. Returns
 * the wait in ns. Dies with the device's state on a timeout. */
static uint64_t wait_irq(dma_test *t, unsigned vector, uint64_t since_ns,
                         const char *what)
{
    int rc = mortar_guest_irq_wait(t->dev, vector, IRQ_TIMEOUT_NS);
    uint64_t waited = mortar_guest_now_ns() - since_ns;
    if (rc != 0) {
        cli_die("%s: %s (DMA_STATUS=0x%x IRQ_COUNT=%u)", what,
                mortar_guest_errmsg(t->dev), mortar_guest_read32(t->regs, REG_DMA_STATUS),
                mortar_guest_read32(t->regs, REG_IRQ_COUNT));
    }
    if (mortar_guest_irq_get_mode(t->dev) == MORTAR_GUEST_IRQ_INTX) {
        mortar_guest_write32(t->regs, REG_IRQ_ACK, 1);
        if (mortar_guest_irq_unmask(t->dev) != 0) {
            cli_die("%s", mortar_guest_errmsg(t->dev));
        }
    }
    return waited;
}

static void check_dma_done(dma_test *t, const char *what)
{
    uint32_t st = mortar_guest_read32(t->regs, REG_DMA_STATUS);
    if ((st & (DMA_ST_BUSY | DMA_ST_DONE | DMA_ST_ERROR)) != DMA_ST_DONE) {
        cli_die("%s: DMA_STATUS=0x%x after the interrupt, expected done (0x2)", what, st);
    }
    mortar_guest_write32(t->regs, REG_DMA_STATUS, 0);
}

/* Set up interrupts: the mode asked for, or with "auto" MSI-X, then MSI,
 * then INTx, whichever the device has. */
static void setup_irq(dma_test *t, const char *mode)
{
    static const mortar_guest_irq_mode order[] = {
        MORTAR_GUEST_IRQ_MSIX, MORTAR_GUEST_IRQ_MSI, MORTAR_GUEST_IRQ_INTX};
    bool any = strcmp(mode, "auto") == 0;
    char tried[640] = "";
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *name = mortar_guest_irq_mode_name(order[i]);
        if (!any && strcmp(mode, name) != 0) {
            continue;
        }
        if (mortar_guest_irq_setup(t->dev, order[i], 0) == 0) {
            unsigned n = mortar_guest_irq_vectors(t->dev);
            /* MSI-X: vectors 1 and 2 as the test asks; else what exists. */
            t->dma_vector = n > 1 ? 1 : 0;
            t->raise_vector = n > 2 ? 2 : 0;
            return;
        }
        snprintf(tried + strlen(tried), sizeof tried - strlen(tried), "%s%s: %s",
                 tried[0] ? "; " : "", name, mortar_guest_errmsg(t->dev));
    }
    cli_die("dma-irq: no interrupts: %s", tried);
}

static int cmd_dma_irq(const char *irq_mode)
{
    dma_test t = {.dev = open_pcitest(0)};
    t.regs = map_regs(t.dev);
    char err[320];
    mortar_guest_dma *dma;
    if (mortar_guest_dma_alloc(&dma, DMA_TEST_BYTES, 0, err, sizeof err) != 0) {
        cli_die("DMA buffer: %s", err);
    }
    if (!mortar_guest_dma_contiguous(dma, 0, DMA_TEST_BYTES)) {
        cli_die("DMA buffer of %u bytes is not physically contiguous (%s pages)",
                DMA_TEST_BYTES, mortar_guest_dma_is_huge(dma) ? "huge" : "no huge");
    }
    uint8_t *buf = mortar_guest_dma_virt(dma);
    uint64_t phys = mortar_guest_dma_phys(dma, 0);
    if (mortar_guest_bus_master(t.dev, true) != 0) {
        cli_die("%s", mortar_guest_errmsg(t.dev));
    }
    setup_irq(&t, irq_mode);
    mortar_guest_irq_mode mode = mortar_guest_irq_get_mode(t.dev);
    uint32_t count0 = mortar_guest_read32(t.regs, REG_IRQ_COUNT);

    /* 1. Device writes the pattern; every byte starts as something else. */
    for (uint32_t i = 0; i < DMA_TEST_BYTES; i++) {
        buf[i] = (uint8_t) ~(DMA_SEED + i);
    }
    mortar_guest_write32(t.regs, REG_DMA_STATUS, 0);
    mortar_guest_write32(t.regs, REG_DMA_ADDR_LO, (uint32_t)phys);
    mortar_guest_write32(t.regs, REG_DMA_ADDR_HI, (uint32_t)(phys >> 32));
    mortar_guest_write32(t.regs, REG_DMA_LEN, DMA_TEST_BYTES);
    mortar_guest_write32(t.regs, REG_DMA_PATTERN, DMA_SEED);
    mortar_guest_write32(t.regs, REG_DMA_IRQ_VECTOR, t.dma_vector);
    uint64_t start = mortar_guest_now_ns();
    mortar_guest_write32(t.regs, REG_DMA_CMD, DMA_CMD_WRITE);
    uint64_t write_wait = wait_irq(&t, t.dma_vector, start, "DMA write");
    check_dma_done(&t, "DMA write");
    uint32_t write_dma_ns = mortar_guest_read32(t.regs, REG_DMA_TIME);
    size_t bad = 0, first_bad = 0;
    for (uint32_t i = 0; i < DMA_TEST_BYTES; i++) {
        if (buf[i] != (uint8_t)(DMA_SEED + i) && bad++ == 0) {
            first_bad = i;
        }
    }
    if (bad) {
        cli_die("DMA write: %zu of %u bytes wrong, first at %zu: 0x%02x, expected 0x%02x",
                bad, DMA_TEST_BYTES, first_bad, buf[first_bad],
                (uint8_t)(DMA_SEED + first_bad));
    }

    /* 2. Device reads back bytes the CPU wrote and sums them. */
    uint32_t x = 12345, sum = 0;
    for (uint32_t i = 0; i < DMA_TEST_BYTES; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (uint8_t)(x >> 16);
        sum += buf[i];
    }
    start = mortar_guest_now_ns();
    mortar_guest_write32(t.regs, REG_DMA_CMD, DMA_CMD_READ);
    uint64_t read_wait = wait_irq(&t, t.dma_vector, start, "DMA read");
    check_dma_done(&t, "DMA read");
    uint32_t read_dma_ns = mortar_guest_read32(t.regs, REG_DMA_TIME);
    uint32_t result = mortar_guest_read32(t.regs, REG_DMA_RESULT);
    if (result != sum) {
        cli_die("DMA read: DMA_RESULT=%u, expected the byte sum %u", result, sum);
    }

    /* 3. An interrupt raised by register write. */
    mortar_guest_write32(t.regs, REG_DMA_IRQ_VECTOR, DMA_IRQ_NONE);
    start = mortar_guest_now_ns();
    mortar_guest_write32(t.regs, REG_IRQ_RAISE, t.raise_vector);
    uint64_t raise_wait = wait_irq(&t, t.raise_vector, start, "IRQ_RAISE");
    uint32_t count1 = mortar_guest_read32(t.regs, REG_IRQ_COUNT);

    printf("dma_bytes=%u pattern_ok=1 irq=%s vector=%u irq_wait_ns=%llu readback_ok=1 "
           "readback_sum=%u readback_wait_ns=%llu raise_vector=%u raise_wait_ns=%llu "
           "irq_count=%u delivery=%s dma_phys=0x%llx huge=%d write_dma_ns=%u "
           "read_dma_ns=%u\n",
           DMA_TEST_BYTES, mortar_guest_irq_mode_name(mode), t.dma_vector,
           (unsigned long long)write_wait, sum, (unsigned long long)read_wait,
           t.raise_vector, (unsigned long long)raise_wait, count1 - count0,
           mode == MORTAR_GUEST_IRQ_INTX ? "uio" : "mailbox", (unsigned long long)phys,
           mortar_guest_dma_is_huge(dma), write_dma_ns, read_dma_ns);
    mortar_guest_close(t.dev); /* interrupts off, bus mastering off */
    mortar_guest_dma_free(dma);
    return 0;
}

/* ---- selftest -----------------------------------------------------------------------
 */

/* Checks the library where no device is needed: DMA memory and its physical
 * addresses, the clock, the uio modules. */
static int cmd_selftest(void)
{
    char err[320];
    mortar_guest_dma *huge, *small;
    if (mortar_guest_dma_alloc(&huge, DMA_TEST_BYTES, MORTAR_GUEST_DMA_HUGE_ONLY, err,
                               sizeof err) != 0) {
        cli_die("huge-page DMA buffer: %s", err);
    }
    if (!mortar_guest_dma_contiguous(huge, 0, DMA_TEST_BYTES) ||
        mortar_guest_dma_contiguous(huge, 1, DMA_TEST_BYTES)) {
        cli_die("huge-page buffer: wrong contiguity answers");
    }
    uint64_t p0 = mortar_guest_dma_phys(huge, 0), p;
    if (p0 % (2u << 20) || mortar_guest_dma_phys(huge, 12345) != p0 + 12345 ||
        mortar_guest_dma_phys(huge, DMA_TEST_BYTES) != 0) {
        cli_die(
            "huge-page buffer: physical address 0x%llx not 2 MiB aligned or not linear",
            (unsigned long long)p0);
    }
    uint8_t *v = mortar_guest_dma_virt(huge);
    if (mortar_guest_virt_to_phys(v + 4097, &p, err, sizeof err) != 0 || p != p0 + 4097) {
        cli_die("virt_to_phys disagrees with the buffer's table: %s", err);
    }
    if (mortar_guest_dma_alloc(&small, DMA_TEST_BYTES, MORTAR_GUEST_DMA_NO_HUGE, err,
                               sizeof err) != 0) {
        cli_die("normal-page DMA buffer: %s", err);
    }
    size_t runs = 1;
    for (size_t off = 4096; off < DMA_TEST_BYTES; off += 4096) {
        if (mortar_guest_dma_phys(small, off) !=
            mortar_guest_dma_phys(small, off - 4096) + 4096) {
            runs++;
        }
    }
    if (mortar_guest_dma_contiguous(small, 0, DMA_TEST_BYTES) != (runs == 1)) {
        cli_die("normal-page buffer: contiguity answer disagrees with the page table");
    }
    uint64_t a = mortar_guest_now_ns(), b = mortar_guest_now_ns();
    if (b < a) {
        cli_die("CLOCK_MONOTONIC went backwards");
    }
    int uio = mortar_guest_load_module("uio", NULL, err, sizeof err) == 0 &&
              mortar_guest_load_module("uio_pci_generic", NULL, err, sizeof err) == 0;
    if (!uio) {
        cli_die("%s", err);
    }
    mortar_guest_pci_info info;
    int found =
        mortar_guest_pci_find(PCITEST_VENDOR, PCITEST_DEVICE, 0, &info, err, sizeof err);
    if (found != 0 && found != MORTAR_ENOENT) {
        cli_die("%s", err);
    }
    printf("huge_phys=0x%llx huge_ok=1 small_runs=%zu small_contiguous=%d uio=1 "
           "device=%d selftest_ok=1\n",
           (unsigned long long)p0, runs, runs == 1, found == 0);
    mortar_guest_dma_free(huge);
    mortar_guest_dma_free(small);
    return 0;
}

int main(int argc, char **argv)
{
    cli_set_prog(prog);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "ids") == 0 && argc == 2) {
        return cmd_ids();
    }
    if (strcmp(cmd, "mmio-timing") == 0 && argc == 3) {
        return cmd_mmio_timing(argv[2]);
    }
    if (strcmp(cmd, "dma-irq") == 0 && argc <= 3) {
        const char *mode = "auto";
        if (argc == 3) {
            if (strncmp(argv[2], "--irq=", 6) != 0) {
                usage(stderr);
                return 2;
            }
            mode = argv[2] + 6;
        }
        if (strcmp(mode, "auto") && strcmp(mode, "msix") && strcmp(mode, "msi") &&
            strcmp(mode, "intx")) {
            fprintf(stderr, "%s: dma-irq: unknown interrupt mode '%s'\n", prog, mode);
            usage(stderr);
            return 2;
        }
        return cmd_dma_irq(mode);
    }
    if (strcmp(cmd, "selftest") == 0 && argc == 2) {
        return cmd_selftest();
    }
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        usage(stdout);
        return 0;
    }
    usage(stderr);
    return 2;
}
