/*
 * mark.c - marks for the host's trace, and finding the mortar devices.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mortar_guest.h"

#define MARKER_OFFSET 0xfc
#define MARK_OFFSET 0xf8

int mortar_guest_mortar_devices(int *fds, int max)
{
    int n = 0;
    DIR *d = opendir("/sys/bus/pci/devices");
    struct dirent *e;
    while (d && (e = readdir(d)) && n < max) {
        char path[300];
        unsigned char sig[4];
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/config", e->d_name);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (pread(fd, sig, sizeof sig, MARKER_OFFSET) == (ssize_t)sizeof sig &&
            memcmp(sig, "MRT", 3) == 0)
            fds[n++] = fd;
        else
            close(fd);
    }
    if (d)
        closedir(d);
    return n;
}

/* The device marks go to: found once; -1 when there is none. */
static int mark_fd(void)
{
    static int fd = -2;
    if (fd == -2 && mortar_guest_mortar_devices(&fd, 1) != 1)
        fd = -1;
    return fd;
}

void mortar_guest_mark(mortar_guest_mark_kind kind, uint64_t req)
{
    int fd = mark_fd();
    if (fd < 0)
        return;
    uint32_t v = (uint32_t)kind << 24 | (uint32_t)(req & 0xffffff);
    uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    if (pwrite(fd, le, sizeof le, MARK_OFFSET) != (ssize_t)sizeof le) {
        /* a lost mark only thins the trace */
    }
}
