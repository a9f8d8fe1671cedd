/*
 * files_digest.c - the snapshot files' digest, remembered by their stat
 * signature (see files_digest.h).
 */
#include "files_digest.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define ENTRY_MAX 8192
#define ENTRY_NAME "files.key"

/* Each file's path, device, inode, size and times, a line each; false
 * when a file cannot be looked at or the text does not fit. */
static bool signature(const char *const files[], char *out, size_t size)
{
    size_t used = 0;
    for (size_t i = 0; files[i]; i++) {
        struct stat st;
        if (stat(files[i], &st) != 0)
            return false;
        int n = snprintf(out + used, size - used,
                         "%s\t%" PRIuMAX " %" PRIuMAX " %" PRIdMAX " %lld.%09ld %lld.%09ld\n",
                         files[i], (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
                         (intmax_t)st.st_size, (long long)st.st_mtim.tv_sec,
                         st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
        if (n < 0 || (size_t)n >= size - used)
            return false;
        used += (size_t)n;
    }
    return true;
}

/* The entry's digest, if its signature is `sig`. */
static bool entry_read(const char *path, const char *sig, char key[SNAPSHOT_KEY_HEX + 1])
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char text[ENTRY_MAX + SNAPSHOT_KEY_HEX + 2];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    if (n < SNAPSHOT_KEY_HEX + 1 || text[SNAPSHOT_KEY_HEX] != '\n' ||
        strspn(text, "0123456789abcdef") != SNAPSHOT_KEY_HEX ||
        strcmp(text + SNAPSHOT_KEY_HEX + 1, sig) != 0)
        return false;
    memcpy(key, text, SNAPSHOT_KEY_HEX);
    key[SNAPSHOT_KEY_HEX] = '\0';
    return true;
}

static void entry_write(const char *path, const char *sig, const char *key)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid()) >= (int)sizeof tmp)
        return;
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    bool ok = fprintf(f, "%s\n%s", key, sig) > 0;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0)
        unlink(tmp);
}

int files_digest(const char *const files[], const char *cache_dir,
                 char key[SNAPSHOT_KEY_HEX + 1], char *err, size_t err_size)
{
    char path[4096], sig[ENTRY_MAX];
    bool cached = cache_dir && *cache_dir &&
                  snprintf(path, sizeof path, "%s/%s", cache_dir, ENTRY_NAME) < (int)sizeof path &&
                  signature(files, sig, sizeof sig);
    if (cached && entry_read(path, sig, key))
        return 0;
    json_t *none = json_null();
    if (snapshot_key(none, files, key, err, err_size) != 0)
        return -1;
    if (cached)
        entry_write(path, sig, key);
    return 0;
}
