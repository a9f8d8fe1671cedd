/*
 * host_tools.h - finds the two things a QEMU host needs: mortar's QEMU build
 * (qemu-system-x86_64) and the guest image (a directory with vmlinuz,
 * initramfs.cpio.gz and kernel-version). Both live in the cache
 * (paths_cache_dir), built by hosts/qemu/build.sh and guest/build-image.sh
 * (`make setup`); docs/install.md states the rules.
 *
 * In this order:
 *   0. $MORTAR_QEMU and $MORTAR_GUEST_IMAGE set: those two, checked, nothing
 *      built (a sweep finds the builds once and passes them on to its runs
 *      so: the scripts of 1 and 3 take most of a second);
 *   1. $MORTAR_SOURCE set: that source tree's scripts say where the builds
 *      are (the guest image is built when it is missing);
 *   2. an installed mortar (<data dir>/cache-keys, written by
 *      `cmake --install`): the QEMU build and guest image named there are
 *      taken from the cache, never built;
 *   3. the source tree above the binary (<source>/build/bin/mortar): as 1.
 */
#ifndef MORTAR_CLI_HOST_TOOLS_H
#define MORTAR_CLI_HOST_TOOLS_H

#include <limits.h>
#include <stddef.h>

/* The file, in the data dir, that names an install's QEMU build and guest
 * image. Lines "qemu KEY", "guest KEY", "source DIR", "commit HASH"; KEY is
 * a directory name under <cache>/qemu/ and <cache>/guest/; '#' starts a
 * comment line. */
#define HOST_TOOLS_KEYS_FILE "cache-keys"

/* The variables of rule 0: the QEMU binary and the guest image directory. */
#define HOST_TOOLS_QEMU_ENV  "MORTAR_QEMU"
#define HOST_TOOLS_IMAGE_ENV "MORTAR_GUEST_IMAGE"

typedef struct host_tools {
    char qemu[PATH_MAX];  /* .../qemu/<key>/bin/qemu-system-x86_64 */
    char image[PATH_MAX]; /* .../guest/<key> */
    char kernel[PATH_MAX + 32]; /* <image>/vmlinuz */
    char initrd[PATH_MAX + 32]; /* <image>/initramfs.cpio.gz */
} host_tools;

/* Called, when not NULL, with a line saying what is about to happen before
 * something that can take long (building the guest image). */
typedef void host_tools_note(const char *what);

/* Fills `t`, or returns -1 with `err` naming what is missing, where it was
 * looked for and how to get it. May run the source tree's scripts (their
 * output is not shown), which takes minutes when the guest image has to be
 * built; `note` hears of that first. */
int host_tools_find(host_tools *t, host_tools_note *note, char *err, size_t err_size);

/* Runs `cmd` with the shell and leaves the last non-empty line of its
 * stdout in `out` (size bytes). Returns 0, or -1 when the command fails or
 * prints nothing. */
int host_tools_last_line(const char *cmd, char *out, size_t size);

#endif
