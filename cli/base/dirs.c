/*
 * dirs.c - creating the directories a command writes into (dirs.h).
 */
#include "dirs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "errbuf.h"

int dirs_make(const char *dir, char *err, size_t size)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return errbuf_fail(err, size, "%s: path too long", dir);
    /* each prefix that ends at a '/', then the whole path */
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            return errbuf_fail(err, size, "cannot create %s: %s", path, strerror(errno));
        *p = c;
        if (!c)
            break;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return errbuf_fail(err, size, "%s is not a directory", dir);
    return 0;
}

int dirs_make_fresh(const char *parent, const char *base, char *dir, size_t size, char *err,
                    size_t err_size)
{
    enum { MAX_VARIANTS = 1000 };
    for (int n = 1; n <= MAX_VARIANTS; n++) {
        int len = n == 1 ? snprintf(dir, size, "%s/%s", parent, base)
                         : snprintf(dir, size, "%s/%s-%d", parent, base, n);
        if (len < 0 || len >= (int)size)
            return errbuf_fail(err, err_size, "%s/%s: path too long", parent, base);
        if (mkdir(dir, 0755) == 0)
            return 0;
        if (errno != EEXIST)
            return errbuf_fail(err, err_size, "cannot create %s: %s", dir, strerror(errno));
    }
    return errbuf_fail(err, err_size, "cannot create %s/%s: %d variants exist", parent, base,
                       MAX_VARIANTS);
}

int dirs_open_at(int at, const char *name, const char *shown, char *err, size_t size)
{
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        return fd;
    struct stat st;
    if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return errbuf_fail(err, size, "%s is a symbolic link: not writing through it", shown);
    return errbuf_fail(err, size, "cannot open %s: %s", shown, strerror(errno));
}

/* Writes all of `data` to `fd`. */
static int write_all(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t k = write(fd, data, len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        data += k;
        len -= (size_t)k;
    }
    return 0;
}

int dirs_write_new_json(json_t *json, const char *path)
{
    /* one write: json_dumpfd writes each token on its own */
    char *text = json_dumps(json, JSON_INDENT(1));
    if (!text)
        return -1;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
    int rc = fd < 0 ? -1 : write_all(fd, text, strlen(text));
    free(text);
    if (fd >= 0 && close(fd) != 0)
        rc = -1;
    return rc;
}

int dirs_replace_file(int dirfd, const char *name, const char *shown, const void *data,
                      size_t len, char *err, size_t size)
{
    char tmp[NAME_MAX + 1];
    if (snprintf(tmp, sizeof tmp, ".%s.%ld.tmp", name, (long)getpid()) >= (int)sizeof tmp)
        return errbuf_fail(err, size, "%s: name too long", shown);
    unlinkat(dirfd, tmp, 0); /* a leftover, or a link planted there: gone, not followed */
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return errbuf_fail(err, size, "cannot write %s: %s", shown, strerror(errno));
    int failed = write_all(fd, data, len);
    failed |= close(fd);
    if (failed || renameat(dirfd, tmp, dirfd, name) != 0) {
        errbuf_fail(err, size, "cannot write %s: %s", shown, strerror(errno));
        unlinkat(dirfd, tmp, 0);
        return -1;
    }
    return 0;
}

int dirs_full_note(const char *dir, char *note, size_t size)
{
    struct statvfs fs;
    note[0] = '\0';
    if (statvfs(dir, &fs) != 0)
        return 0;
    /* f_bfree, not f_bavail: mortar's processes may write into blocks
     * reserved for root */
    unsigned long long free_bytes = (unsigned long long)fs.f_bfree * fs.f_frsize;
    bool no_inode = fs.f_files > 0 && fs.f_ffree == 0;
    if (free_bytes >= DIRS_FULL_BYTES && !no_inode)
        return 0;
    snprintf(note, size, "the file system holding %s is full: %s (%llu KiB free%s)", dir,
             strerror(ENOSPC), free_bytes / 1024, no_inode ? ", no free inode" : "");
    return 1;
}

char *dirs_read_file(const char *path, size_t *len, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0)
        buf = malloc((size_t)size + 1);
    size_t got = buf ? fread(buf, 1, (size_t)size, f) : 0;
    fclose(f);
    if (!buf || got != (size_t)size) {
        free(buf);
        snprintf(err, err_size, "%s: cannot read it", path);
        return NULL;
    }
    buf[got] = '\0';
    *len = got;
    return buf;
}
