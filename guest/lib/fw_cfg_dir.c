/*
 * fw_cfg_dir.c - reading QEMU's fw_cfg file directory (see fw_cfg_dir.h).
 */
#include "fw_cfg_dir.h"

#include <stdlib.h>
#include <string.h>

static uint32_t be32(const unsigned char *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

int fw_cfg_dir_read(fw_cfg_reader read, void *ctx, fw_cfg_file **files)
{
    unsigned char count[4];
    read(ctx, count, sizeof count);
    uint32_t n = be32(count) < FW_CFG_MAX_FILES ? be32(count) : FW_CFG_MAX_FILES;
    *files = calloc(n ? n : 1, sizeof **files);
    if (!*files)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        unsigned char entry[8 + FW_CFG_NAME_SIZE];
        read(ctx, entry, sizeof entry);
        entry[sizeof entry - 1] = '\0';
        (*files)[i].size = be32(entry);
        (*files)[i].key = (uint16_t)(entry[4] << 8 | entry[5]);
        memcpy((*files)[i].name, entry + 8, FW_CFG_NAME_SIZE);
    }
    return (int)n;
}

const fw_cfg_file *fw_cfg_dir_find(const fw_cfg_file *files, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(files[i].name, name))
            return &files[i];
    return NULL;
}
