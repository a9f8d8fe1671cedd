/*
 * scratch_files.h - files for tests that load specs, sweeps and studies:
 * the case study's files in the source tree (its specs and its goldens),
 * paths in a test's scratch directory, and writing one. Include after <cmocka.h>.
 */
#ifndef MORTAR_TEST_SCRATCH_FILES_H
#define MORTAR_TEST_SCRATCH_FILES_H

#include <stdio.h>
#include <stdlib.h>

/* studies/matmul/DIR/NAME of the source tree ($MORTAR_SOURCE, else "."):
 * one of four static buffers, so a call may take a few. */
static inline const char *study_file(const char *dir, const char *name)
{
    static char buf[4][1024];
    static int next;
    const char *src = getenv("MORTAR_SOURCE");
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0], "%s/studies/matmul/%s/%s", src ? src : ".", dir, name);
    return b;
}

/* The case study's spec, sweep or study file NAME (its experiments/). */
static inline const char *matmul(const char *name)
{
    return study_file("experiments", name);
}

/* The golden output NAME its tests compare with (tests/golden/). */
static inline const char *golden(const char *name)
{
    return study_file("tests/golden", name);
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
