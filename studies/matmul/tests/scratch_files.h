/*
 * scratch_files.h - files for tests that load specs, sweeps and studies:
 * the case study's files in the source tree, paths in a test's scratch
 * directory, and writing one. Include after <cmocka.h>.
 */
#ifndef MORTAR_TEST_SCRATCH_FILES_H
#define MORTAR_TEST_SCRATCH_FILES_H

#include <stdio.h>
#include <stdlib.h>

/* studies/matmul/experiments/NAME of the source tree ($MORTAR_SOURCE, else "."):
 * one of four static buffers, so a call may take a few. */
static inline const char *matmul(const char *name)
{
    static char buf[4][1024];
    static int next;
    const char *src = getenv("MORTAR_SOURCE");
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0], "%s/studies/matmul/experiments/%s", src ? src : ".", name);
    return b;
}

/* DIR/NAME, in one of four static buffers. */
static inline const char *scratch_file(const char *dir, const char *name)
{
    static char buf[4][1024];
    static int next;
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0], "%s/%s", dir, name);
    return b;
}

static inline void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

#endif
