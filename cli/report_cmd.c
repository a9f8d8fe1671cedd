/*
 * report_cmd.c - `mortar report [--db FILE] [--out DIR]`: writes the
 * explorer (report_page.h) for a results database to DIR/index.html, a page
 * that opens from disk without a server, and the traced request of each run
 * it shows to DIR/traces/<run id>.js, a script the page loads when it shows
 * that run. `mortar serve` is in serve.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "dirs.h"
#include "report_cmd.h"
#include "report_data.h"
#include "study.h"
#include "report_page.h"
#include "walkthrough.h"
#include "usage.h"

/* `dir`/`name` into `path`; -1 with err when it does not fit. */
static int join_path(char *path, size_t size, const char *dir, const char *name,
                     char *err, size_t err_size)
{
    size_t n = strlen(dir);
    const char *sep = n && dir[n - 1] == '/' ? "" : "/";
    if (snprintf(path, size, "%s%s%s", dir, sep, name) >= (int)size) {
        snprintf(err, err_size, "%s%s%s: path too long", dir, sep, name);
        return -1;
    }
    return 0;
}

/* What the report wrote, for its closing message. */
typedef struct report_files {
    size_t page_bytes, traces, trace_bytes, stale;
} report_files;

/* The traces folder of the output folder open as `out`, created when
 * missing; never a link in its place (dirs_open_at). */
static int open_traces(int out, const char *out_dir, bool create, char *err,
                       size_t err_size)
{
    char shown[PATH_MAX];
    if (join_path(shown, sizeof shown, out_dir, REPORT_DATA_TRACES_DIR, err, err_size))
        return -1;
    if (create && mkdirat(out, REPORT_DATA_TRACES_DIR, 0755) != 0 && errno != EEXIST) {
        snprintf(err, err_size, "cannot create %s: %s", shown, strerror(errno));
        return -1;
    }
    return dirs_open_at(out, REPORT_DATA_TRACES_DIR, shown, err, err_size);
}

/* Writes run `id`'s traced request as Perfetto and as OTLP JSON beside its
 * script (report_page_trace_export), into the traces folder open as `dir`. */
static int write_exports(int dir, const char *out_dir, const char *db_path, json_int_t id,
                         report_files *done, char *err, size_t err_size)
{
    for (int k = REPORT_TRACE_PERFETTO; k <= REPORT_TRACE_OTLP; k++) {
        char file[64], shown[PATH_MAX], *data;
        size_t len;
        report_data_trace_file(id, (report_trace_kind)k, file, sizeof file);
        if (report_page_trace_export(db_path, id, (report_trace_kind)k, &data, &len, err,
                                     err_size))
            return -1;
        int rc = join_path(shown, sizeof shown, out_dir, file, err, err_size) ||
                 dirs_replace_file(dir, strrchr(file, '/') + 1, shown, data, len, err,
                                   err_size);
        free(data);
        if (rc)
            return -1;
        done->trace_bytes += len;
    }
    return 0;
}

/* Writes each of `timelines` ({"<run id>": timeline}) to
 * out_dir/traces/<run id>.js, and its exports beside it, creating the
 * folder when there is one. */
static int write_traces(int out, const char *out_dir, const char *db_path, json_t *timelines,
                        report_files *done, char *err, size_t err_size)
{
    if (!json_object_size(timelines))
        return 0;
    int dir = open_traces(out, out_dir, true, err, err_size);
    if (dir < 0)
        return -1;
    const char *key;
    json_t *timeline;
    int rc = 0;
    json_object_foreach(timelines, key, timeline) {
        json_int_t id = (json_int_t)strtoll(key, NULL, 10);
        char file[64], name[64], shown[PATH_MAX];
        report_data_trace_file(id, REPORT_TRACE_SCRIPT, file, sizeof file);
        snprintf(name, sizeof name, "%s", strrchr(file, '/') ? strrchr(file, '/') + 1 : file);
        size_t len;
        char *script = report_page_trace_script(id, timeline, &len);
        if (!script) {
            snprintf(err, err_size, "cannot serialize the trace of run %s", key);
            rc = -1;
            break;
        }
        rc = join_path(shown, sizeof shown, out_dir, file, err, err_size) ||
             dirs_replace_file(dir, name, shown, script, len, err, err_size);
        free(script);
        if (rc || (rc = write_exports(dir, out_dir, db_path, id, done, err, err_size)))
            break;
        done->traces++;
        done->trace_bytes += len;
    }
    close(dir);
    return rc ? -1 : 0;
}

/* Removes the trace files an earlier report left in out_dir/traces that
 * this one did not write (only names of the forms report_data_trace_id
 * reads), and the
 * folder when that empties it; through no link (a traces folder that is a
 * link to elsewhere is left alone). Failing to is only worth a warning:
 * the page never loads them. */
static void remove_stale_traces(int out, const char *out_dir, json_t *timelines,
                                report_files *done)
{
    char err[PATH_MAX + 64];
    int dir = open_traces(out, out_dir, false, err, sizeof err);
    DIR *d = dir >= 0 ? fdopendir(dir) : NULL;
    if (!d) {
        if (dir >= 0)
            close(dir);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        json_int_t id;
        report_trace_kind kind;
        char key[32];
        if (report_data_trace_id(e->d_name, &id, &kind))
            continue;
        snprintf(key, sizeof key, "%lld", (long long)id);
        if (json_object_get(timelines, key))
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0)
            done->stale++;
        else
            fprintf(stderr, "mortar report: warning: cannot remove the old %s/%s/%s: %s\n",
                    out_dir, REPORT_DATA_TRACES_DIR, e->d_name, strerror(errno));
    }
    closedir(d);
    unlinkat(out, REPORT_DATA_TRACES_DIR, AT_REMOVEDIR); /* only succeeds when empty */
}

/* "812 kB", "27.5 MB". */
static void format_size(char *buf, size_t size, size_t bytes)
{
    if (bytes >= 1000 * 1000)
        snprintf(buf, size, "%.1f MB", bytes / 1e6);
    else if (bytes >= 1000)
        snprintf(buf, size, "%.0f kB", bytes / 1e3);
    else
        snprintf(buf, size, "%zu bytes", bytes);
}

/* Says on stderr what was written (stdout has only the page's path). */
static void print_summary(const char *page_path, const char *out_dir,
                          const report_files *done)
{
    char page_size[32], trace_size[32], dir[PATH_MAX], err[64];
    format_size(page_size, sizeof page_size, done->page_bytes);
    format_size(trace_size, sizeof trace_size, done->trace_bytes);
    if (join_path(dir, sizeof dir, out_dir, REPORT_DATA_TRACES_DIR "/", err, sizeof err))
        snprintf(dir, sizeof dir, "%s", REPORT_DATA_TRACES_DIR "/");
    if (done->traces)
        fprintf(stderr,
                "mortar report: wrote %s (%s) and %zu traced request%s in %s (%s, each "
                "loaded when the page shows it)",
                page_path, page_size, done->traces, done->traces == 1 ? "" : "s", dir,
                trace_size);
    else
        fprintf(stderr,
                "mortar report: wrote %s (%s); none of the runs it shows has a trace "
                "(`mortar run --trace` records one)",
                page_path, page_size);
    if (done->stale)
        fprintf(stderr, "; removed %zu old trace file%s", done->stale,
                done->stale == 1 ? "" : "s");
    fputs("\n", stderr);
}

int mortar_report_main(int argc, char **argv)
{
    const char *db_path = "mortar.db", *out_dir = "report", *study_path = NULL;
    bool video = false;
    cli_parser p;
    cli_parser_init(&p, &mortar_cmd_report, argc, argv);
    for (int key; (key = cli_next(&p)) != CLI_DONE;) {
        if (key == CLI_KEY_DB)
            db_path = p.value;
        else if (key == CLI_KEY_OUT)
            out_dir = p.value;
        else if (key == CLI_KEY_STUDY)
            study_path = p.value;
        else if (key == CLI_KEY_VIDEO)
            video = true;
        else
            return cli_stop_status(key);
    }
    if (p.first_operand < argc)
        return cli_usage_error(&mortar_cmd_report, "unexpected '%s'", argv[p.first_operand]);
    char err[2048];
    json_t *timelines;
    report_files done = {0};
    study st;
    char *page = NULL;
    /* with --video the page names the walkthrough made after it from it */
    json_t *extra = video ? walkthrough_data() : NULL;
    if (!study_load_default(&st, study_path, err, sizeof err))
        page = report_page_build(db_path, &st, &timelines, NULL, extra, &done.page_bytes,
                                 err, sizeof err);
    json_decref(extra);
    if (!page) {
        study_free(&st);
        fprintf(stderr, "mortar report: %s\n", err);
        return 1;
    }
    /* The traces first, so that the new page finds each one it names. The
     * output folder is the user's (a link to it is followed); inside it
     * nothing is written through a link. */
    char path[PATH_MAX];
    int out = -1;
    int rc = join_path(path, sizeof path, out_dir, "index.html", err, sizeof err) ||
             dirs_make(out_dir, err, sizeof err);
    if (!rc && (out = open(out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        snprintf(err, sizeof err, "cannot open %s: %s", out_dir, strerror(errno));
        rc = 1;
    }
    if (!rc)
        rc = write_traces(out, out_dir, db_path, timelines, &done, err, sizeof err) ||
             dirs_replace_file(out, "index.html", path, page, done.page_bytes, err,
                               sizeof err);
    free(page);
    if (!rc)
        remove_stale_traces(out, out_dir, timelines, &done);
    json_decref(timelines);
    if (!rc) {
        printf("%s\n", path);
        fflush(stdout);
        print_summary(path, out_dir, &done);
    }
    if (!rc && video)
        rc = walkthrough_make(db_path, &st, out_dir, out, err, sizeof err);
    if (out >= 0)
        close(out);
    study_free(&st);
    if (rc) {
        fprintf(stderr, "mortar report: %s\n", err);
        return 1;
    }
    return 0;
}
