/*
 * report_page.h - the explorer page: the template built from web/ (one HTML
 * file with its script, style and the charting library inlined) filled with
 * the data of a results database (report_data.h). Used by `mortar report`,
 * which writes it to a file, and `mortar serve`, which builds it per request.
 */
#ifndef MORTAR_CLI_REPORT_PAGE_H
#define MORTAR_CLI_REPORT_PAGE_H

#include <stddef.h>

/* The template's file name, and the text in it that the data replaces
 * (exactly once, inside <script type="application/json" id="mortar-data">). */
#define REPORT_PAGE_TEMPLATE "explorer.html"
#define REPORT_PAGE_SLOT     "@MORTAR_DATA@"

/* Finds the template: in $MORTAR_WEB_DIR when that is set, otherwise in
 * share/mortar/web beside the directory of the running mortar binary
 * (build/bin/mortar -> build/share/mortar/web/explorer.html, where the build's
 * "web" target puts it). Writes its path into `path`; 0, or -1 with `err`
 * saying where it looked and how to build it. */
int report_page_find_template(char *path, size_t size, char *err, size_t err_size);

/* What report_page_build needs, checked without building the page (which
 * computes the verdict): the template is there and `db_path` is a results
 * database. 0, or -1 with `err` set. */
int report_page_check(const char *db_path, char *err, size_t err_size);

/* The page for the results database at `db_path`: a NUL-terminated HTML
 * string of `*len` bytes that the caller frees, or NULL with `err` set (no
 * database at that path, not a results database, no template). The database
 * is opened and closed inside; a missing one is never created. */
char *report_page_build(const char *db_path, size_t *len, char *err, size_t err_size);

#endif
