/*
 * sysfs.c - small helpers of the guest library: reading and writing the
 * one-line files of sysfs and procfs, error texts, and loading a kernel
 * module from the image's /lib/modules (busybox has insmod, but a library
 * should not run programs: finit_module() does the same).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

int guest_fail(mortar_guest_dev *dev, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dev->err, sizeof dev->err, fmt, ap);
    va_end(ap);
    return code;
}

int guest_fail_buf(char *err, size_t err_size, int code, const char *fmt, ...)
{
    if (err && err_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_size, fmt, ap);
        va_end(ap);
    }
    return code;
}

int sysfs_read(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -errno;
    }
    ssize_t n = read(fd, buf, size - 1);
    int e = errno;
    close(fd);
    if (n < 0) {
        return -e;
    }
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ')) {
        n--;
    }
    buf[n] = '\0';
    return (int)n;
}

int sysfs_read_u64(const char *path, uint64_t *value)
{
    char buf[64];
    int n = sysfs_read(path, buf, sizeof buf);
    if (n < 0) {
        return n;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 0);
    if (end == buf || errno) {
        return -EINVAL;
    }
    *value = v;
    return 0;
}

int sysfs_write(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        return -errno;
    }
    size_t len = strlen(text);
    ssize_t n = write(fd, text, len);
    int e = errno;
    if (close(fd) != 0 && n >= 0) {
        return -errno;
    }
    if (n < 0) {
        return -e;
    }
    return (size_t)n == len ? 0 : -EIO;
}

/* Copy `name` into out with '-' turned into '_' (how /sys/module spells it). */
static void module_sysfs_name(const char *name, char *out, size_t size)
{
    size_t i = 0;
    for (; name[i] && i + 1 < size; i++) {
        out[i] = name[i] == '-' ? '_' : name[i];
    }
    out[i] = '\0';
}

int mortar_guest_load_module(const char *name, const char *params, char *err,
                             size_t err_size)
{
    char sysname[64], path[128];
    struct stat st;
    module_sysfs_name(name, sysname, sizeof sysname);
    snprintf(path, sizeof path, "/sys/module/%s", sysname);
    if (stat(path, &st) == 0) {
        return 0;
    }
    /* Image modules are flat in /lib/modules; the file may use - or _. */
    char alt[64];
    snprintf(alt, sizeof alt, "%s", name);
    for (char *c = alt; *c; c++) {
        *c = *c == '-' ? '_' : *c == '_' ? '-' : *c;
    }
    const char *names[] = {name, alt};
    int fd = -1;
    for (int i = 0; i < 2 && fd < 0; i++) {
        snprintf(path, sizeof path, "/lib/modules/%s.ko", names[i]);
        fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0) {
        return guest_fail_buf(err, err_size, MORTAR_ENOENT,
                              "module %s is not loaded and /lib/modules/%s.ko is not in "
                              "the image (add it to MODULES in guest/build-image.sh)",
                              name, name);
    }
    long r = syscall(SYS_finit_module, fd, params ? params : "", 0);
    int e = errno;
    close(fd);
    if (r != 0 && e != EEXIST) {
        return guest_fail_buf(err, err_size, MORTAR_EIO, "loading %s: %s", path,
                              strerror(e));
    }
    return 0;
}
