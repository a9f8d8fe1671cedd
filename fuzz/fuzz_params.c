/*
 * fuzz_params.c - a libFuzzer target for the guest's reading of QEMU's
 * fw_cfg file directory (guest/lib/fw_cfg_dir.c, what mortar-params runs
 * in the guest), built for the host.
 *
 * The input is what fw_cfg's data port hands over after the directory is
 * selected; past its end the port reads zeros, as QEMU's does past an
 * item's end. Whatever the bytes, the directory is read with every name
 * NUL-terminated and the run's parameter file found or not, never a crash
 * or a sanitizer report.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fw_cfg_dir.h"

typedef struct port {
    const uint8_t *data;
    size_t size, pos;
} port;

static void read_port(void *ctx, void *buf, size_t size)
{
    port *p = ctx;
    size_t n = p->size - p->pos < size ? p->size - p->pos : size;
    memcpy(buf, p->data + p->pos, n);
    memset((uint8_t *)buf + n, 0, size - n);
    p->pos += n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    port p = {.data = data, .size = size};
    fw_cfg_file *files;
    int n = fw_cfg_dir_read(read_port, &p, &files);
    if (n < 0)
        return 0;
    for (int i = 0; i < n; i++)
        if (strnlen(files[i].name, FW_CFG_NAME_SIZE) == FW_CFG_NAME_SIZE)
            abort(); /* a name without its end */
    fw_cfg_dir_find(files, n, "opt/mortar/params");
    free(files);
    return 0;
}
