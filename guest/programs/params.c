/*
 * params.c - mortar-params: the guest's snapshot point, then the run's
 * parameters (docs/snapshots.md).
 *
 * First it tells every mortar-pci device that the guest reached the
 * snapshot point (2 into config byte 0xff): a host building a snapshot
 * stops right there and saves the machine; any other host goes on at once.
 * Everything after this point may differ from run to run: the parameters
 * of this run come from QEMU's fw_cfg file "opt/mortar/params", which the
 * restoring (or cold-booting) QEMU's command line names. They are read
 * through fw_cfg's I/O ports (selector 0x510, data 0x511) and printed on
 * stdout: one "mortar.KEY=VALUE" a line (written by the orchestrator,
 * cli/params_file.c).
 *
 * Exit status 0 with the file printed, 1 when the machine has no such file
 * (the parameters are on the kernel command line then), 2 on an error.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/io.h>

#include "mortar_guest.h"

#define FW_CFG_PORT_SELECTOR 0x510
#define FW_CFG_PORT_DATA 0x511
#define FW_CFG_SIGNATURE 0x0000
#define FW_CFG_FILE_DIR 0x0019
#define FW_CFG_NAME_SIZE 56
#define PARAMS_FILE "opt/mortar/params"
#define PARAMS_MAX_BYTES (1u << 20)
#define MAX_DEVICES 32

static void announce_snapshot_point(void)
{
    int fds[MAX_DEVICES];
    int n = mortar_guest_mortar_devices(fds, MAX_DEVICES);
    const unsigned char at_snapshot_point = 2;
    for (int i = 0; i < n; i++) {
        if (pwrite(fds[i], &at_snapshot_point, 1, 0xff) != 1)
            perror("mortar-params: announcing the snapshot point");
        close(fds[i]);
    }
}

static void fw_cfg_select(uint16_t key)
{
    outw(key, FW_CFG_PORT_SELECTOR);
}

static void fw_cfg_read(void *buf, size_t size)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < size; i++)
        p[i] = inb(FW_CFG_PORT_DATA);
}

static uint32_t be32(const unsigned char *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* The selector and size of fw_cfg file `name`; 0 when there is none. */
static int find_file(const char *name, uint16_t *key, uint32_t *size)
{
    unsigned char count[4];
    fw_cfg_select(FW_CFG_FILE_DIR);
    fw_cfg_read(count, sizeof count);
    uint32_t n = be32(count);
    for (uint32_t i = 0; i < n && i < 4096; i++) {
        unsigned char entry[8 + FW_CFG_NAME_SIZE];
        fw_cfg_read(entry, sizeof entry);
        entry[sizeof entry - 1] = '\0';
        if (!strcmp((const char *)entry + 8, name)) {
            *size = be32(entry);
            *key = (uint16_t)(entry[4] << 8 | entry[5]);
            return 1;
        }
    }
    return 0;
}

int main(void)
{
    announce_snapshot_point();
    if (ioperm(FW_CFG_PORT_SELECTOR, 2, 1) != 0) {
        perror("mortar-params: ioperm");
        return 2;
    }
    char sig[4];
    fw_cfg_select(FW_CFG_SIGNATURE);
    fw_cfg_read(sig, sizeof sig);
    uint16_t key;
    uint32_t size;
    if (memcmp(sig, "QEMU", 4) || !find_file(PARAMS_FILE, &key, &size))
        return 1;
    if (size > PARAMS_MAX_BYTES) {
        fprintf(stderr, "mortar-params: %s holds %u bytes (at most %u)\n", PARAMS_FILE, size,
                PARAMS_MAX_BYTES);
        return 2;
    }
    fw_cfg_select(key);
    char chunk[4096];
    for (uint32_t done = 0; done < size;) {
        uint32_t n = size - done < sizeof chunk ? size - done : (uint32_t)sizeof chunk;
        fw_cfg_read(chunk, n);
        if (fwrite(chunk, 1, n, stdout) != n)
            return 2;
        done += n;
    }
    return fflush(stdout) == 0 ? 0 : 2;
}
