/*
 * dma.c - memory a device can DMA to: pinned buffers and their physical
 * addresses.
 *
 * The guest (QEMU's pc machine) has no IOMMU, so a device addresses host
 * memory by physical address. A buffer must therefore stay where it is:
 * hugetlb pages are never swapped or moved by compaction; locked normal
 * pages are not swapped, and compaction leaves them alone once
 * vm.compact_unevictable_allowed is 0. Physical addresses are read once,
 * at allocation, from /proc/self/pagemap (root only: others see PFN 0),
 * into a table per 4 KiB page, so lookups cost no system call.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

#define SMALL_PAGE      4096u
#define HUGE_PAGE       (2u << 20)
#define HUGE_SYSFS      "/sys/kernel/mm/hugepages/hugepages-2048kB"
#define NR_HUGEPAGES    "/proc/sys/vm/nr_hugepages"
#define COMPACT_UNEVICT "/proc/sys/vm/compact_unevictable_allowed"

/* pagemap entry: bit 63 present, bits 0-54 page frame number. */
#define PM_PRESENT  (1ull << 63)
#define PM_PFN_MASK ((1ull << 55) - 1)

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

struct mortar_guest_dma {
    uint8_t *virt;
    size_t size;     /* asked for */
    size_t map_size; /* mapped: a multiple of the page size */
    bool huge;
    size_t pages;    /* 4 KiB pages in the mapping */
    uint64_t phys[]; /* physical address of each 4 KiB page */
};

/* Read the pagemap entries of `pages` 4 KiB pages from `virt` into phys[]. */
static int read_pagemap(const uint8_t *virt, size_t pages, uint64_t *phys, char *err,
                        size_t err_size)
{
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return guest_fail_buf(err, err_size, MORTAR_EIO, "opening /proc/self/pagemap: %s",
                              strerror(errno));
    }
    off_t off = (off_t)((uintptr_t)virt / SMALL_PAGE * sizeof(uint64_t));
    size_t want = pages * sizeof(uint64_t);
    ssize_t n = pread(fd, phys, want, off);
    int e = errno;
    close(fd);
    if (n != (ssize_t)want) {
        return guest_fail_buf(err, err_size, MORTAR_EIO, "reading /proc/self/pagemap: %s",
                              n < 0 ? strerror(e) : "short read");
    }
    for (size_t i = 0; i < pages; i++) {
        if (!(phys[i] & PM_PRESENT)) {
            return guest_fail_buf(err, err_size, MORTAR_EIO,
                                  "page %zu of the buffer is not present", i);
        }
        uint64_t pfn = phys[i] & PM_PFN_MASK;
        if (pfn == 0) {
            return guest_fail_buf(err, err_size, MORTAR_EIO,
                                  "/proc/self/pagemap shows no frame numbers "
                                  "(physical addresses need root, CAP_SYS_ADMIN)");
        }
        phys[i] = pfn * SMALL_PAGE;
    }
    return 0;
}

int mortar_guest_virt_to_phys(const void *addr, uint64_t *phys, char *err,
                              size_t err_size)
{
    uintptr_t a = (uintptr_t)addr;
    uint64_t page;
    int rc = read_pagemap((const uint8_t *)(a & ~(uintptr_t)(SMALL_PAGE - 1)), 1, &page,
                          err, err_size);
    if (rc == 0) {
        *phys = page + (a & (SMALL_PAGE - 1));
    }
    return rc;
}

/* Make sure the 2 MiB pool has `need` free pages, growing it if not.
 * Returns true if it has them now. */
static bool reserve_huge_pages(size_t need)
{
    uint64_t free_pages = 0, total = 0;
    if (sysfs_read_u64(HUGE_SYSFS "/free_hugepages", &free_pages) != 0) {
        return false;
    }
    if (free_pages >= need) {
        return true;
    }
    if (sysfs_read_u64(NR_HUGEPAGES, &total) != 0) {
        return false;
    }
    char text[32];
    snprintf(text, sizeof text, "%" PRIu64, total + (need - free_pages));
    sysfs_write(NR_HUGEPAGES, text); /* the kernel may grant fewer */
    if (sysfs_read_u64(HUGE_SYSFS "/free_hugepages", &free_pages) == 0 &&
        free_pages >= need) {
        return true;
    }
    /* Not enough: give back what was taken, the guest needs its memory. */
    snprintf(text, sizeof text, "%" PRIu64, total);
    sysfs_write(NR_HUGEPAGES, text);
    return false;
}

/* Map `map_size` bytes, huge or not, populated, locked and zeroed. */
static void *map_pinned(size_t map_size, bool huge)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE;
    if (huge) {
        flags |= MAP_HUGETLB | (21 << MAP_HUGE_SHIFT);
    }
    void *p = mmap(NULL, map_size, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (p == MAP_FAILED) {
        return NULL;
    }
    /* Not in a fork()ed child: its copy-on-write would move our pages. */
    if (mlock(p, map_size) != 0 || madvise(p, map_size, MADV_DONTFORK) != 0) {
        munmap(p, map_size);
        return NULL;
    }
    memset(p, 0, map_size);
    return p;
}

int mortar_guest_dma_alloc(mortar_guest_dma **dmap, size_t size_bytes, unsigned flags,
                           char *err, size_t err_size)
{
    *dmap = NULL;
    if (size_bytes == 0 || size_bytes > ((size_t)1 << 40)) {
        return guest_fail_buf(err, err_size, MORTAR_EINVAL, "bad DMA buffer size %zu",
                              size_bytes);
    }
    if ((flags & MORTAR_GUEST_DMA_HUGE_ONLY) && (flags & MORTAR_GUEST_DMA_NO_HUGE)) {
        return guest_fail_buf(err, err_size, MORTAR_EINVAL,
                              "MORTAR_GUEST_DMA_HUGE_ONLY with MORTAR_GUEST_DMA_NO_HUGE");
    }
    void *virt = NULL;
    bool huge = false;
    size_t map_size = 0;
    if (!(flags & MORTAR_GUEST_DMA_NO_HUGE)) {
        map_size = (size_bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        if (reserve_huge_pages(map_size / HUGE_PAGE)) {
            virt = map_pinned(map_size, true);
            huge = virt != NULL;
        }
        if (!virt && (flags & MORTAR_GUEST_DMA_HUGE_ONLY)) {
            return guest_fail_buf(err, err_size, MORTAR_ENOMEM,
                                  "no %zu free 2 MiB huge pages (see %s)",
                                  map_size / HUGE_PAGE, NR_HUGEPAGES);
        }
    }
    if (!virt) {
        sysfs_write(COMPACT_UNEVICT, "0"); /* best effort: see the file comment */
        map_size = (size_bytes + SMALL_PAGE - 1) / SMALL_PAGE * SMALL_PAGE;
        virt = map_pinned(map_size, false);
        if (!virt) {
            return guest_fail_buf(err, err_size, MORTAR_ENOMEM,
                                  "cannot map and lock %zu bytes: %s (RLIMIT_MEMLOCK?)",
                                  map_size, strerror(errno));
        }
    }
    size_t pages = map_size / SMALL_PAGE;
    mortar_guest_dma *dma = malloc(sizeof *dma + pages * sizeof(uint64_t));
    if (!dma) {
        munmap(virt, map_size);
        return guest_fail_buf(err, err_size, MORTAR_ENOMEM, "out of memory");
    }
    *dma = (mortar_guest_dma){.virt = virt,
                              .size = size_bytes,
                              .map_size = map_size,
                              .huge = huge,
                              .pages = pages};
    int rc = read_pagemap(dma->virt, pages, dma->phys, err, err_size);
    if (rc != 0) {
        mortar_guest_dma_free(dma);
        return rc;
    }
    *dmap = dma;
    return 0;
}

void mortar_guest_dma_free(mortar_guest_dma *dma)
{
    if (!dma) {
        return;
    }
    munmap(dma->virt, dma->map_size);
    free(dma);
}

void *mortar_guest_dma_virt(const mortar_guest_dma *dma)
{
    return dma->virt;
}

size_t mortar_guest_dma_size(const mortar_guest_dma *dma)
{
    return dma->size;
}

bool mortar_guest_dma_is_huge(const mortar_guest_dma *dma)
{
    return dma->huge;
}

uint64_t mortar_guest_dma_phys(const mortar_guest_dma *dma, size_t offset)
{
    if (offset >= dma->size) {
        return 0;
    }
    return dma->phys[offset / SMALL_PAGE] + offset % SMALL_PAGE;
}

bool mortar_guest_dma_contiguous(const mortar_guest_dma *dma, size_t offset, size_t len)
{
    if (len == 0 || offset >= dma->size || len > dma->size - offset) {
        return false;
    }
    size_t first = offset / SMALL_PAGE, last = (offset + len - 1) / SMALL_PAGE;
    for (size_t i = first; i < last; i++) {
        if (dma->phys[i + 1] != dma->phys[i] + SMALL_PAGE) {
            return false;
        }
    }
    return true;
}
