/*
 * dirs.c - creating the directories a command writes into (dirs.h).
 */
#include "dirs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
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
