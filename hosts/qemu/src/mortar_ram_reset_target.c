/*
 * mortar_ram_reset_target.c - a kept QEMU's guest RAM back to the
 * snapshot's (see mortar_ram_reset.h). Compiled per target: it drops
 * translated code (exec/exec-all.h).
 */
#include "qemu/osdep.h"
#include "qemu/rcu.h"
#include "exec/cpu-common.h"
#include "exec/exec-all.h"

#include "mortar_ram_reset.h"

#define PAGEMAP_PRESENT (1ull << 63)
#define PAGEMAP_SWAPPED (1ull << 62)
#define PAGEMAP_FILE (1ull << 61) /* a page of the file, not a private copy */
#define CHUNK 4096                /* pagemap entries read at once */

typedef struct ram_area {
    ram_addr_t offset; /* in QEMU's RAM address space */
    uint8_t *host;
    ram_addr_t length;
    bool from_file; /* the guest's RAM, mapped privately from the snapshot's file */
} ram_area;

static int collect_blocks(RAMBlock *rb, void *opaque)
{
    GArray *areas = opaque;
    ram_area a = {.offset = qemu_ram_get_offset(rb), .host = qemu_ram_get_host_addr(rb),
                  .length = qemu_ram_get_used_length(rb),
                  .from_file = qemu_ram_get_fd(rb) >= 0 && !qemu_ram_is_shared(rb)};
    g_array_append_val(areas, a);
    return 0;
}

/* A page the run wrote: a private copy, resident or swapped out. */
static bool page_written(uint64_t entry)
{
    return (entry & PAGEMAP_SWAPPED) || ((entry & PAGEMAP_PRESENT) && !(entry & PAGEMAP_FILE));
}

/* Drops the translated code of every page of `a` the run wrote, a run of
 * neighbouring pages at a time. */
static bool forget_written_code(int pagemap, const ram_area *a, Error **errp)
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
            if (page_written(entries[i]) && from == SIZE_MAX) {
                from = p;
            } else if (!page_written(entries[i]) && from != SIZE_MAX) {
                tb_invalidate_phys_range(a->offset + from * page, a->offset + p * page);
                from = SIZE_MAX;
            }
        }
    }
    if (from != SIZE_MAX) {
        tb_invalidate_phys_range(a->offset + from * page, a->offset + pages * page);
    }
    return true;
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
    bool ok = true;
    for (guint i = 0; ok && i < areas->len; i++) {
        const ram_area *a = &g_array_index(areas, ram_area, i);
        if (!a->from_file) {
            /* the snapshot's stream carries it (firmware, option ROMs): the
             * load writes it over without telling the translation cache */
            tb_invalidate_phys_range(a->offset, a->offset + a->length);
            continue;
        }
        ok = forget_written_code(pagemap, a, errp);
        if (ok) {
            WITH_RCU_READ_LOCK_GUARD() {
                qemu_ram_remap(a->offset, a->length); /* the file's bytes again */
            }
        }
    }
    close(pagemap);
    return ok;
}
