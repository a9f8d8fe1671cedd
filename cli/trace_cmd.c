/*
 * trace_cmd.c - `mortar trace RUN [--db FILE] --format
 * perfetto|otlp|timeline|split [--output FILE|-o FILE] [--request N]
 * [--study FILE]`: one request of a recorded run, joined from the run's
 * trace files (trace_export.h), written to a file or stdout (`-`, the
 * default); `split` writes where its time went (time_split.h), in the
 * study's parts (split_parts.h), as the timeline's split does.
 *
 * RUN is a run id in the results database. The run's started_at (UTC) is
 * the wall-clock epoch: the OTLP spans land at the wall time the run
 * started plus the virtual time, as the switch's pcap does; the OTLP trace
 * id also hashes this machine's id, the database's path and the run id.
 * Exit status: 0; 1 when the run, its trace or the request is missing, or
 * a trace file is corrupt; 2 for a usage error (an unknown format among
 * them).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "db_query.h"
#include "study.h"
#include "trace_cmd.h"
#include "time_split.h"
#include "trace_export.h"
#include "trace_format.h"
#include "usage.h"

typedef struct trace_opts {
    const char *db, *format, *out, *study;
    int64_t run, request;
} trace_opts;

/* A whole non-negative decimal number. */
static int parse_index(const char *s, int64_t *out)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v < 0)
        return -1;
    *out = v;
    return 0;
}

/* Returns CLI_PARSED, or the exit status after --help, --version or a usage
 * error. */
static int parse_opts(int argc, char **argv, trace_opts *o)
{
    *o = (trace_opts){.db = "mortar.db", .run = -1, .request = TRACE_REQUEST_MEDIAN};
    const cli_command *cmd = &mortar_cmd_trace;
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    for (int key; (key = cli_next(&p)) != CLI_DONE;) {
        if (key == CLI_KEY_DB)
            o->db = p.value;
        else if (key == CLI_KEY_FORMAT)
            o->format = p.value;
        else if (key == CLI_KEY_STUDY)
            o->study = p.value;
        else if (key == CLI_KEY_OUTPUT)
            o->out = strcmp(p.value, "-") ? p.value : NULL;
        else if (key == CLI_KEY_REQUEST) {
            if (parse_index(p.value, &o->request))
                return cli_usage_error(cmd, "--request takes a request index (0, 1, ...)");
        } else
            return cli_stop_status(key);
    }
    int operands = argc - p.first_operand;
    if (operands == 0)
        return cli_usage_error(cmd, "which run? (its id, as in mortar results)");
    if (operands > 1)
        return cli_usage_error(cmd, "only one RUN");
    if (parse_index(argv[p.first_operand], &o->run))
        return cli_usage_error(cmd, "RUN is a run id (a number, as in mortar results)");
    if (!o->format)
        return cli_usage_error(cmd, "--format is required");
    if (!trace_format_known(o->format))
        return cli_usage_error(cmd, "unknown format '%s' (perfetto, otlp, timeline or split)",
                               o->format);
    return CLI_PARSED;
}

/* The run's directory; 0, or 1 with the error printed. */
static int look_up_run(const trace_opts *o, char *dir, size_t dir_size)
{
    struct stat st;
    if (stat(o->db, &st) != 0) {
        fprintf(stderr, "mortar trace: no database %s (--db FILE)\n", o->db);
        return 1;
    }
    db_conn *db;
    char err[512];
    if (db_open_read(&db, o->db, err, sizeof err)) {
        fprintf(stderr, "mortar trace: %s\n", err);
        return 1;
    }
    db_run_place place;
    int rc = 1;
    int found = db_run_place_of(db, o->run, &place, err, sizeof err);
    if (found < 0) {
        fprintf(stderr, "mortar trace: %s: %s\n", o->db, err);
    } else if (!found) {
        fprintf(stderr, "mortar trace: no run %lld in %s (see mortar results)\n",
                (long long)o->run, o->db);
    } else if (!place.has_run_dir) {
        fprintf(stderr, "mortar trace: run %lld has no run directory\n",
                (long long)o->run);
    } else {
        snprintf(dir, dir_size, "%s", place.run_dir);
        if (!place.has_started_at && !strcmp(o->format, "otlp"))
            fprintf(stderr,
                    "mortar trace: run %lld has no start time; OTLP times start at"
                    " 1970\n",
                    (long long)o->run);
        rc = 0;
    }
    db_close(db);
    return rc;
}

static int write_json(json_t *doc, const char *path)
{
    FILE *f = path ? fopen(path, "w") : stdout;
    if (!f) {
        fprintf(stderr, "mortar trace: cannot write %s\n", path);
        return 1;
    }
    size_t len = 0;
    char *text = trace_format_text(doc, &len);
    int bad = !text || fwrite(text, 1, len, f) != len;
    free(text);
    if (path)
        bad |= fclose(f) != 0;
    else
        bad |= fflush(f) != 0;
    if (bad) {
        fprintf(stderr, "mortar trace: cannot write %s\n", path ? path : "the output");
        return 1;
    }
    return 0;
}

/* The parts a request's time is split into: the study's (--study FILE, an
 * error when it cannot be read; else the default study), else one per
 * activity of the trace. */
static int split_parts_of(const trace_opts *o, split_parts *parts, char *err,
                          size_t err_size)
{
    study st;
    int rc = study_load_default(&st, o->study, err, err_size);
    if (!rc)
        *parts = st.metric.split;
    else if (!o->study) {
        split_parts_default(parts);
        rc = 0;
    }
    study_free(&st);
    return rc;
}

/* The export in the chosen format (trace_format.h). */
static json_t *export_run(const trace_opts *o, char *err, size_t err_size)
{
    split_parts parts;
    if (split_parts_of(o, &parts, err, err_size))
        return NULL;
    db_conn *db;
    if (db_open_read(&db, o->db, err, err_size))
        return NULL;
    json_t *doc =
        trace_format_run(db, o->db, o->run, o->request, o->format, &parts, err, err_size);
    db_close(db);
    return doc;
}

int mortar_trace_main(int argc, char **argv)
{
    trace_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc != CLI_PARSED)
        return rc;
    char dir[4096];
    if (look_up_run(&o, dir, sizeof dir))
        return 1;
    int nfiles = trace_count_files(dir);
    if (nfiles < 0) {
        fprintf(stderr, "mortar trace: run %lld's directory %s is gone\n",
                (long long)o.run, dir);
        return 1;
    }
    if (nfiles == 0) {
        fprintf(stderr, "mortar trace: run %lld has no trace: rerun it with --trace\n",
                (long long)o.run);
        return 1;
    }
    char err[1024] = "";
    json_t *doc = export_run(&o, err, sizeof err);
    if (!doc) {
        fprintf(stderr, "mortar trace: run %lld: %s\n", (long long)o.run, err);
        return 1;
    }
    rc = write_json(doc, o.out);
    json_t *req = json_object_get(doc, "request");
    if (!req)
        req = json_object_get(json_object_get(doc, "otherData"), "request");
    if (rc == 0 && o.out && req)
        fprintf(stderr, "mortar trace: wrote request %lld of run %lld to %s\n",
                (long long)json_integer_value(req), (long long)o.run, o.out);
    else if (rc == 0 && o.out)
        fprintf(stderr, "mortar trace: wrote run %lld to %s\n", (long long)o.run, o.out);
    json_decref(doc);
    return rc;
}
