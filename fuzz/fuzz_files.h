/*
 * fuzz_files.h - what the parser targets share: a private scratch
 * directory (made once, removed at exit) and writing an input's parts into
 * it as files, for parsers that read a path or a run directory.
 *
 * An input made of several files separates them with FUZZ_FILE_SEP on a
 * line of its own; fuzz_split() hands back the parts.
 */
#ifndef MORTAR_FUZZ_FILES_H
#define MORTAR_FUZZ_FILES_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_FILE_SEP "\n--8<--\n"

static char fuzz_dir_path[64];

static inline int fuzz_remove_one(const char *path, const struct stat *st, int flag,
                                  struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static inline void fuzz_remove_dir(void)
{
    if (fuzz_dir_path[0])
        nftw(fuzz_dir_path, fuzz_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The scratch directory ("/tmp/mortar-fuzz-XXXXXX"), made on first use. */
static inline const char *fuzz_dir(void)
{
    if (!fuzz_dir_path[0]) {
        snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "/tmp/mortar-fuzz-XXXXXX");
        if (!mkdtemp(fuzz_dir_path))
            abort();
        atexit(fuzz_remove_dir);
    }
    return fuzz_dir_path;
}

/* Writes `size` bytes to `name` in the scratch directory (replacing it);
 * the file's path into `path`. */
static inline void fuzz_write(const char *name, const void *data, size_t size, char *path,
                              size_t path_size)
{
    snprintf(path, path_size, "%s/%s", fuzz_dir(), name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
        abort();
}

/* The input as text: a new NUL-terminated copy. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *t = malloc(size + 1);
    if (!t)
        abort();
    memcpy(t, data, size);
    t[size] = '\0';
    return t;
}

/* Splits `data` at FUZZ_FILE_SEP into at most `max` parts (the last one
 * takes the rest); their starts and sizes into part[] and len[]. Returns
 * the number of parts (at least 1). */
static inline size_t fuzz_split(const uint8_t *data, size_t size, const uint8_t *part[],
                                size_t len[], size_t max)
{
    size_t n = 0, sep = strlen(FUZZ_FILE_SEP);
    while (n + 1 < max) {
        const uint8_t *at = memmem(data, size, FUZZ_FILE_SEP, sep);
        if (!at)
            break;
        part[n] = data;
        len[n++] = (size_t)(at - data);
        size -= (size_t)(at - data) + sep;
        data = at + sep;
    }
    part[n] = data;
    len[n++] = size;
    return n;
}

/* Copies every *.json file of `dir` (an experiment's specs) into the
 * scratch directory, so that files written there can name them. */
static inline void fuzz_copy_specs(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp %s/*.json %s/", dir, fuzz_dir());
    if (system(cmd) != 0)
        abort();
}

#endif
