/*
 * dirs.c - creating the directories a command writes into (dirs.h).
 */
#include "dirs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

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

int dirs_write_new_json(json_t *json, const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
    if (fd < 0)
        return -1;
    int rc = json_dumpfd(json, fd, JSON_INDENT(1));
    return close(fd) || rc ? -1 : 0;
}
