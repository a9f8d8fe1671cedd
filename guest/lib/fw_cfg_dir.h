/*
 * fw_cfg_dir.h - QEMU's fw_cfg file directory as the guest reads it
 * (mortar-params, guest/programs/params.c): a big-endian count, then one
 * 64-byte entry per file (size, selector key, reserved, a 56-byte name).
 * The bytes come through a reader, so that the parse runs without fw_cfg's
 * I/O ports too (fuzz/fuzz_params.c feeds it any bytes).
 */
#ifndef MORTAR_GUEST_FW_CFG_DIR_H
#define MORTAR_GUEST_FW_CFG_DIR_H

#include <stddef.h>
#include <stdint.h>

#define FW_CFG_NAME_SIZE 56
/* More entries than any machine has; a count past it is cut to it. */
#define FW_CFG_MAX_FILES 4096

typedef struct fw_cfg_file {
    uint32_t size;
    uint16_t key;
    char name[FW_CFG_NAME_SIZE]; /* NUL-terminated, whatever the bytes said */
} fw_cfg_file;

/* Reads the next `size` bytes of the selected fw_cfg item into `buf`. */
typedef void (*fw_cfg_reader)(void *ctx, void *buf, size_t size);

/* Reads the directory (already selected) into *files (malloc'd, the
 * caller's); returns its length, -1 when out of memory. */
int fw_cfg_dir_read(fw_cfg_reader read, void *ctx, fw_cfg_file **files);

/* The file called `name` among files[0 .. n), or NULL. */
const fw_cfg_file *fw_cfg_dir_find(const fw_cfg_file *files, int n, const char *name);

#endif
