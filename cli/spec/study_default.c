/*
 * study_default.c - which study the commands read when none is named (see
 * study_load_default in study.h). The platform names no study: the build
 * writes the default one's path into <data dir>/default-study (the
 * top-level CMakeLists.txt, MORTAR_DEFAULT_STUDY), and a user may point
 * MORTAR_STUDY at any other.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errbuf.h"
#include "paths.h"
#include "study.h"

/* The first line of <data>/default-study into `rel`; false when unread. */
static bool read_pointer(const char *data, char *rel, size_t size)
{
    char file[4200];
    snprintf(file, sizeof file, "%s/%s", data, STUDY_DEFAULT_FILE);
    FILE *f = fopen(file, "r");
    if (!f)
        return false;
    bool ok = fgets(rel, (int)size, f) != NULL;
    fclose(f);
    rel[strcspn(rel, "\r\n")] = '\0';
    return ok && rel[0];
}

/* `rel` under `dir` (or `rel` itself when absolute) into `path` when it can
 * be read. */
static bool readable_under(const char *dir, const char *rel, char *path, size_t size)
{
    int n = rel[0] == '/' ? snprintf(path, size, "%s", rel)
                          : snprintf(path, size, "%s/%s", dir, rel);
    return n > 0 && (size_t)n < size && access(path, R_OK) == 0;
}

int study_load_default(study *st, const char *path, char *err, size_t err_size)
{
    *st = (study){0};
    const char *env = getenv("MORTAR_STUDY");
    if (!path && env && *env)
        path = env;
    if (path)
        return study_load(st, path, err, err_size);
    char data[4096], source[4096], rel[1024], file[8192], why[512];
    if (paths_data_dir(data, sizeof data, why, sizeof why))
        return errbuf_fail(err, err_size,
                           "no study given (--study FILE, or MORTAR_STUDY) and no data "
                           "directory to find the default one in: %s",
                           why);
    if (!read_pointer(data, rel, sizeof rel))
        return errbuf_fail(err, err_size,
                           "no study given (--study FILE, or MORTAR_STUDY) and no default "
                           "one: %s/%s is missing or empty",
                           data, STUDY_DEFAULT_FILE);
    bool have_source = !paths_source_dir(source, sizeof source, why, sizeof why);
    if (readable_under(data, rel, file, sizeof file) ||
        (have_source && readable_under(source, rel, file, sizeof file)))
        return study_load(st, file, err, err_size);
    return errbuf_fail(err, err_size,
                       "no study given (--study FILE, or MORTAR_STUDY), and the default "
                       "one (%s, from %s/%s) is neither in the data directory nor in the "
                       "source tree (%s)",
                       rel, data, STUDY_DEFAULT_FILE, have_source ? source : "none");
}
