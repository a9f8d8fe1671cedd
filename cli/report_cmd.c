/*
 * report_cmd.c - `mortar report [--db FILE] [--out DIR]`: writes the
 * explorer (report_page.h) for a results database to DIR/index.html, one
 * self-contained file that opens from disk. `mortar serve` is in serve.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report_cmd.h"
#include "report_page.h"

static const char report_usage[] =
    "usage: mortar report [--db FILE] [--out DIR]\n"
    "  writes the explorer page for the results database FILE (default mortar.db)\n"
    "  to DIR/index.html (default report/) and prints its path\n";

/* Creates `dir` and its missing parents. */
static int make_dirs(const char *dir, char *err, size_t err_size)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        snprintf(err, err_size, "%s: path too long", dir);
        return -1;
    }
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            snprintf(err, err_size, "cannot create %s: %s", path, strerror(errno));
            return -1;
        }
        *p = c;
        if (!c)
            break;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, err_size, "%s is not a directory", dir);
        return -1;
    }
    return 0;
}

/* Writes the page next to its final name, then renames it there, so that a
 * browser reloading the page never sees half of it. */
static int write_page(const char *path, const char *page, size_t len, char *err,
                      size_t err_size)
{
    char tmp[PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        snprintf(err, err_size, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    int failed = fwrite(page, 1, len, f) != len;
    failed |= fclose(f) != 0;
    if (failed || rename(tmp, path) != 0) {
        snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

int mortar_report_main(int argc, char **argv)
{
    const char *db_path = "mortar.db", *out_dir = "report";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--db") && i + 1 < argc) {
            db_path = argv[++i];
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out_dir = argv[++i];
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(report_usage, stdout);
            return 0;
        } else {
            fprintf(stderr, "mortar report: unexpected '%s'\n%s", argv[i], report_usage);
            return 2;
        }
    }
    char err[2048];
    size_t len;
    char *page = report_page_build(db_path, &len, err, sizeof err);
    if (!page) {
        fprintf(stderr, "mortar report: %s\n", err);
        return 1;
    }
    char path[PATH_MAX];
    size_t n = strlen(out_dir);
    snprintf(path, sizeof path, "%s%sindex.html", out_dir,
             n && out_dir[n - 1] == '/' ? "" : "/");
    int rc = make_dirs(out_dir, err, sizeof err) ||
             write_page(path, page, len, err, sizeof err);
    free(page);
    if (rc) {
        fprintf(stderr, "mortar report: %s\n", err);
        return 1;
    }
    printf("%s\n", path);
    return 0;
}
