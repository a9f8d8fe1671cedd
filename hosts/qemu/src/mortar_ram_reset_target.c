/*
 * mortar_ram_reset_target.c - a kept QEMU's guest RAM back to the
 * snapshot's (see mortar_ram_reset.h). Compiled per target: it drops
 * translated code (exec/exec-all.h).
 */
#include "qemu/osdep.h"
#include "exec/cpu-common.h"
#include "exec/exec-all.h"
#include "exec/memory.h"
#include "exec/ramblock.h"

#include "mortar_ram_reset.h"

#define PAGEMAP_PRESENT (1ull << 63)
#define PAGEMAP_SWAPPED (1ull << 62)
#define PAGEMAP_FILE (1ull << 61) /* a page of the file, not a private copy */
#define CHUNK 4096                /* pagemap entries read at once */

typedef struct ram_area {
    ram_addr_t offset; /* in QEMU's RAM address space */
    uint8_t *host;
    ram_addr_t length;
    int fd; /* the snapshot's RAM file the block maps privately, from offset 0; -1: none */
    MemoryRegion *mr;
    DirtyBitmapSnapshot *written; /* pages written since the last reset; NULL: not known */
} ram_area;

/* Whether the file-backed blocks' writes are logged (the VGA dirty client,
 * which no device of these machines uses): from the first reset on. */
static bool logging;

static int collect_blocks(RAMBlock *rb, void *opaque)
{
    GArray *areas = opaque;
    bool from_file = qemu_ram_get_fd(rb) >= 0 && !qemu_ram_is_shared(rb);
    ram_area a = {.offset = qemu_ram_get_offset(rb), .host = qemu_ram_get_host_addr(rb),
                  .length = qemu_ram_get_used_length(rb),
                  .fd = from_file ? qemu_ram_get_fd(rb) : -1, .mr = rb->mr};
    g_array_append_val(areas, a);
    return 0;
}

/* A private copy, resident or swapped out: a page some run wrote. */
static bool page_private(uint64_t entry)
{
    return (entry & PAGEMAP_SWAPPED) || ((entry & PAGEMAP_PRESENT) && !(entry & PAGEMAP_FILE));
}

/* Whether page `p` of `a` differs from the file (MORTAR_RESET_CHECK). */
static bool page_differs(const ram_area *a, size_t p)
{
    size_t page = qemu_real_host_page_size();
    g_autofree uint8_t *file = g_malloc(page);
    return pread(a->fd, file, page, (off_t)(p * page)) != (ssize_t)page ||
           memcmp(file, a->host + p * page, page) != 0;
}

/* Whether the last run may have changed page `p` (private: `entry`). A
 * private page the log saw no write to holds what the previous reset read
 * into it. With `missed`, such pages are compared with the file, and the
 * ones that differ counted: a write the log did not see. */
static bool page_written(const ram_area *a, size_t p, uint64_t entry, size_t *missed)
{
    if (!page_private(entry)) {
        return false;
    }
    size_t page = qemu_real_host_page_size();
    if (!a->written || memory_region_snapshot_get_dirty(a->mr, a->written, p * page, page)) {
        return true;
    }
    if (missed && page_differs(a, p)) {
        (*missed)++;
        return true;
    }
    return false;
}

/* Pages [from, to) of `a` back to the file's bytes: their translated code
 * dropped, the file read over the private copies, which stay mapped. */
static bool restore_pages(const ram_area *a, size_t from, size_t to, Error **errp)
{
    size_t page = qemu_real_host_page_size();
    size_t done = from * page, end = to * page;
    tb_invalidate_phys_range(a->offset + done, a->offset + end);
    while (done < end) {
        ssize_t n = pread(a->fd, a->host + done, end - done, (off_t)done);
        if (n <= 0) {
            error_setg_errno(errp, n < 0 ? errno : EIO, "cannot read the snapshot's RAM file");
            return false;
        }
        done += (size_t)n;
    }
    return true;
}

/* Every page of `a` the last run wrote back to the file's bytes, a run of
 * neighbouring pages at a time. */
static bool restore_written(int pagemap, const ram_area *a, size_t *missed, Error **errp)
{
    size_t page = qemu_real_host_page_size(), pages = a->length / page;
    size_t from = SIZE_MAX; /* the first page of the current run of written pages */
    g_autofree uint64_t *entries = g_new(uint64_t, CHUNK);
    for (size_t first = 0; first < pages; first += CHUNK) {
        size_t n = MIN((size_t)CHUNK, pages - first);
        off_t at = (off_t)(((uintptr_t)a->host / page + first) * sizeof(uint64_t));
        if (pread(pagemap, entries, n * sizeof(uint64_t), at) != (ssize_t)(n * sizeof(uint64_t))) {
            error_setg_errno(errp, errno, "cannot read /proc/self/pagemap");
            return false;
        }
        for (size_t i = 0; i < n; i++) {
            size_t p = first + i;
            bool written = page_written(a, p, entries[i], missed);
            if (written && from == SIZE_MAX) {
                from = p;
            } else if (!written && from != SIZE_MAX) {
                if (!restore_pages(a, from, p, errp)) {
                    return false;
                }
                from = SIZE_MAX;
            }
        }
    }
    return from == SIZE_MAX || restore_pages(a, from, pages, errp);
}

/* The pages written since the last call, and the log cleared for the next
 * run; NULL the first time, when logging starts. */
static DirtyBitmapSnapshot *take_written(MemoryRegion *mr, ram_addr_t length)
{
    if (!logging) {
        memory_region_set_log(mr, true, DIRTY_MEMORY_VGA);
    }
    DirtyBitmapSnapshot *snap =
        memory_region_snapshot_and_clear_dirty(mr, 0, length, DIRTY_MEMORY_VGA);
    if (!logging) {
        g_free(snap); /* every page is marked when the log starts */
        return NULL;
    }
    return snap;
}

bool mortar_ram_reset(Error **errp)
{
    g_autoptr(GArray) areas = g_array_new(false, false, sizeof(ram_area));
    qemu_ram_foreach_block(collect_blocks, areas);
    int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (pagemap < 0) {
        error_setg_errno(errp, errno, "cannot open /proc/self/pagemap");
        return false;
    }
    const char *check = getenv("MORTAR_RESET_CHECK");
    size_t missed = 0;
    bool ok = true;
    for (guint i = 0; ok && i < areas->len; i++) {
        ram_area *a = &g_array_index(areas, ram_area, i);
        if (a->fd < 0) {
            /* the snapshot's stream carries it (firmware, option ROMs): the
             * load writes it over without telling the translation cache */
            tb_invalidate_phys_range(a->offset, a->offset + a->length);
            continue;
        }
        a->written = take_written(a->mr, a->length);
        ok = restore_written(pagemap, a, check && !strcmp(check, "1") ? &missed : NULL, errp);
        g_free(a->written);
    }
    close(pagemap);
    logging = true;
    if (ok && missed) {
        error_setg(errp, "%zu pages of the guest's RAM changed without the write log "
                   "seeing it (MORTAR_RESET_CHECK)", missed);
        ok = false;
    }
    return ok;
}
