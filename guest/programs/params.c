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
 * cli/run/params_file.c).
 *
 * Then the host's programs (the spec's "programs", fw_cfg files
 * "opt/mortar/bin/NAME") are copied to /usr/local/bin/NAME, executable;
 * a name the image already has is refused.
 *
 * Exit status 0 with the file printed, 1 when the machine has no such file
 * (the parameters are on the kernel command line then), 2 on an error, 3
 * when a program could not be installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/io.h>
#include <sys/stat.h>

#include "fw_cfg_dir.h"
#include "mortar_guest.h"

#define FW_CFG_PORT_SELECTOR 0x510
#define FW_CFG_PORT_DATA 0x511
#define FW_CFG_SIGNATURE 0x0000
#define FW_CFG_FILE_DIR 0x0019
#define PARAMS_FILE "opt/mortar/params"
#define PARAMS_MAX_BYTES (1u << 20)
#define PROGRAMS_FW_CFG_DIR "opt/mortar/bin/"
#define PROGRAMS_DIR "/usr/local/bin"
#define PROGRAM_MAX_BYTES (16u << 20)
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

/* fw_cfg_dir's reader: the data port of the selected item. */
static void read_port(void *ctx, void *buf, size_t size)
{
    (void)ctx;
    fw_cfg_read(buf, size);
}

/* Copies fw_cfg file `f` to `fd` (open for writing). */
static int copy_file(const fw_cfg_file *f, int fd)
{
    fw_cfg_select(f->key);
    char chunk[4096];
    for (uint32_t done = 0; done < f->size;) {
        uint32_t n = f->size - done < sizeof chunk ? f->size - done : (uint32_t)sizeof chunk;
        fw_cfg_read(chunk, n);
        if (write(fd, chunk, n) != (ssize_t)n)
            return -1;
        done += n;
    }
    return 0;
}

/* The image's own programs are never replaced: init and the run's
 * command rely on them. */
static bool shadows_image_program(const char *name)
{
    static const char *const dirs[] = {"/bin", "/sbin", "/usr/bin", "/usr/sbin"};
    char path[128];
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dirs[i], name);
        if (access(path, F_OK) == 0)
            return true;
    }
    return false;
}

/* One program of the spec's host "programs" into PROGRAMS_DIR. */
static int install_program(const fw_cfg_file *f)
{
    const char *name = f->name + strlen(PROGRAMS_FW_CFG_DIR);
    if (!name[0] || name[0] == '.' || strchr(name, '/') || f->size > PROGRAM_MAX_BYTES) {
        fprintf(stderr, "mortar-params: %s: not a program name or too large\n", f->name);
        return -1;
    }
    if (shadows_image_program(name)) {
        fprintf(stderr, "mortar-params: program %s: the image has a program of that name\n",
                name);
        return -1;
    }
    char path[128];
    snprintf(path, sizeof path, "%s/%s", PROGRAMS_DIR, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0755);
    if (fd < 0 || copy_file(f, fd) != 0) {
        fprintf(stderr, "mortar-params: writing %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return close(fd);
}

static int install_programs(const fw_cfg_file *files, int n)
{
    int rc = 0;
    mkdir("/usr/local", 0755);
    mkdir(PROGRAMS_DIR, 0755);
    for (int i = 0; i < n; i++)
        if (!strncmp(files[i].name, PROGRAMS_FW_CFG_DIR, strlen(PROGRAMS_FW_CFG_DIR)) &&
            install_program(&files[i]) != 0)
            rc = -1;
    return rc;
}

static int print_params(const fw_cfg_file *f)
{
    if (f->size > PARAMS_MAX_BYTES) {
        fprintf(stderr, "mortar-params: %s holds %u bytes (at most %u)\n", PARAMS_FILE,
                f->size, PARAMS_MAX_BYTES);
        return 2;
    }
    fflush(stdout);
    return copy_file(f, STDOUT_FILENO) == 0 ? 0 : 2;
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
    if (memcmp(sig, "QEMU", 4))
        return 1;
    fw_cfg_file *files;
    fw_cfg_select(FW_CFG_FILE_DIR);
    int n = fw_cfg_dir_read(read_port, NULL, &files);
    if (n < 0)
        return 2;
    const fw_cfg_file *params = fw_cfg_dir_find(files, n, PARAMS_FILE);
    int rc = params ? print_params(params) : 1;
    if (rc != 2 && install_programs(files, n) != 0)
        rc = 3;
    free(files);
    return rc;
}
