/*
 * progress.c - progress files (see mortar/progress.h).
 */
#include "mortar/progress.h"

#include <inttypes.h>
#include <stdio.h>

#include "mortar/error.h"

int mortar_progress_write(const char *path, uint64_t time_ps)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return MORTAR_EINVAL;
    FILE *f = fopen(tmp, "w");
    if (!f)
        return MORTAR_EIO;
    int bad = fprintf(f, "%" PRIu64 "\n", time_ps) < 0;
    bad |= fclose(f) != 0;
    /* rename: a reader never sees a half-written file */
    if (bad || rename(tmp, path) != 0) {
        remove(tmp);
        return MORTAR_EIO;
    }
    return MORTAR_OK;
}

int mortar_progress_read(const char *path, uint64_t *time_ps)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int n = fscanf(f, "%" SCNu64, time_ps);
    fclose(f);
    return n == 1 ? 0 : -1;
}
