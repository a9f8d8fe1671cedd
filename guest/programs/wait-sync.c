/*
 * wait_sync.c - mortar-wait-sync: reports to every mortar-pci device that
 * the guest has booted, then waits until the host runs synchronized.
 *
 * Each mortar-pci device shows 'M' 'R' 'T' <state> at config offset 0xfc;
 * writing 1 to byte 0xff says "ready"; state becomes 1 at the common start.
 * Polls every 100 us of guest time (the idle guest costs nearly nothing).
 * Exit status 0 once synchronized (or when there is no mortar device).
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "mortar_guest.h"

#define MAX_DEVICES 32

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
    int n = mortar_guest_mortar_devices(fds, MAX_DEVICES);
    const unsigned char ready = 1;
    for (int i = 0; i < n; i++)
        if (pwrite(fds[i], &ready, 1, 0xff) != 1)
            perror("mortar-wait-sync: reporting ready");
    struct timespec pause = {.tv_nsec = 100000};
    while (!synchronized(fds, n))
        nanosleep(&pause, NULL);
    return 0;
}
