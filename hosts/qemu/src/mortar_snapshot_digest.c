/*
 * mortar_snapshot_digest.c - the identity of a booted-guest snapshot: a
 * SHA-256 of the machine as it stands at the snapshot point (every RAM
 * block, by name and length, its contents, then the instruction count and
 * the virtual clock), written as 64 hex digits and a newline.
 *
 * The snapshot file itself cannot serve: two builds of the same machine
 * give different bytes (the migration stream cuts its RAM into parts at
 * wall-clock moments, and QEMU's "timer" section holds host-clock offsets
 * that icount never reads). What the guest can see is the same, and that
 * is what this digest covers (docs/snapshots.md).
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "exec/cpu-common.h"
#include "qemu/timer.h"
#include "sysemu/cpu-timers.h"

#include "mortar_snapshot_digest.h"

static void add_u64(GChecksum *sum, uint64_t v)
{
    uint64_t le = cpu_to_le64(v);
    g_checksum_update(sum, (const guchar *)&le, sizeof le);
}

static int add_block(RAMBlock *rb, void *opaque)
{
    GChecksum *sum = opaque;
    const char *name = qemu_ram_get_idstr(rb);
    uint64_t length = qemu_ram_get_used_length(rb);
    g_checksum_update(sum, (const guchar *)name, strlen(name) + 1);
    add_u64(sum, length);
    g_checksum_update(sum, qemu_ram_get_host_addr(rb), length);
    return 0;
}

bool mortar_snapshot_write_digest(const char *path, Error **errp)
{
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
    qemu_ram_foreach_block(add_block, sum);
    add_u64(sum, (uint64_t)icount_get_raw());
    add_u64(sum, (uint64_t)qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    g_autofree char *text = g_strdup_printf("%s\n", g_checksum_get_string(sum));
    g_autoptr(GError) gerr = NULL;
    if (!g_file_set_contents(path, text, -1, &gerr)) {
        error_setg(errp, "mortar: cannot write the snapshot's digest to %s: %s", path,
                   gerr->message);
        return false;
    }
    return true;
}
