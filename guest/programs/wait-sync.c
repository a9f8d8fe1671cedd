/*
 * wait_sync.c - mortar-wait-sync: reports to every mortar-pci device that
 * the guest has booted, then waits until the host runs synchronized.
 *
 * Each mortar-pci device shows 'M' 'R' 'T' <state> at config offset 0xfc;
 * writing 1 to byte 0xff says "ready"; state becomes 1 at the common start.
 * Polls every 100 us of guest time (the idle guest costs nearly nothing).
 * Exit status 0 once synchronized (or when there is no mortar device).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEVICES 32

static int find_devices(int fds[MAX_DEVICES])
{
    int n = 0;
    DIR *d = opendir("/sys/bus/pci/devices");
    struct dirent *e;
    while (d && (e = readdir(d)) && n < MAX_DEVICES) {
        char path[300];
        unsigned char sig[4];
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/config", e->d_name);
        int fd = open(path, O_RDWR);
        if (fd < 0)
            continue;
        if (pread(fd, sig, 4, 0xfc) == 4 && memcmp(sig, "MRT", 3) == 0)
            fds[n++] = fd;
        else
            close(fd);
    }
    if (d)
        closedir(d);
    return n;
}

static int synchronized(const int *fds, int n)
{
    for (int i = 0; i < n; i++) {
        unsigned char state = 0;
        if (pread(fds[i], &state, 1, 0xff) != 1 || state != 1)
            return 0;
    }
    return 1;
}

int main(void)
{
    int fds[MAX_DEVICES];
    int n = find_devices(fds);
    const unsigned char ready = 1;
    for (int i = 0; i < n; i++)
        if (pwrite(fds[i], &ready, 1, 0xff) != 1)
            perror("mortar-wait-sync: reporting ready");
    struct timespec pause = {.tv_nsec = 100000};
    while (!synchronized(fds, n))
        nanosleep(&pause, NULL);
    return 0;
}
