/*
 * report_data.h - everything the explorer page shows, as one JSON object
 * built from the results database: the runs, the verdict (or the reason
 * there is none) and a summary of one traced request per run the page can
 * show; the traced requests themselves, which the page loads only when it
 * shows one (traces/<run id>.js beside it). report_page.h puts both into
 * files; docs/explorer.md describes them.
 */
#ifndef MORTAR_CLI_REPORT_DATA_H
#define MORTAR_CLI_REPORT_DATA_H

#include <jansson.h>
#include <stddef.h>

#include "db.h"
#include "study.h"

/* The folder, beside the page, of the traced requests' scripts. */
#define REPORT_DATA_TRACES_DIR "traces"

/* The page's data for the open database `db` (found at `db_path`, which is
 * only shown): {"generator", "generated_at", "database", "study": the study
 * `st` (study_json), "runs": [...] (each with its "variant", "x", "series"
 * and "load": study_json_annotate_run),
 * "verdict": {...}|null, "verdict_error": text|null, "traces": {"<run id>":
 * summary | {"error": text}}}, where a summary is {"request", "start_ps",
 * "end_ps", "latency_ps", "split" or "split_error" (trace_timeline), "events":
 * how many the timeline holds, "file":
 * "traces/<run id>.js"}. Traces are taken for the runs the verdict's cells
 * point at, or without a verdict for the newest finished unloaded run of
 * each grid point of the two variants the study `st` compares. When `timelines` is not NULL,
 * *timelines receives a new object {"<run id>": timeline (report_data_trace)} holding
 * every run whose summary names a file; the caller owns it. `cache`, when not NULL, is an
 * object the caller keeps across calls (mortar serve): the summaries of
 * finished runs are taken from it, or made and put there, since a finished
 * run's trace does not change; it is not used when `timelines` is asked for.
 * The caller owns the result; NULL, with `err` naming the database and the
 * problem, when the runs cannot be read (a damaged file is an error, not a
 * page with fewer runs). */
json_t *report_data(db_conn *db, const study *st, const char *db_path, json_t **timelines,
                    json_t *cache, char *err, size_t err_size);

/* The traced median request of run `id`, one of `runs` (db_runs_json's
 * array), as trace_timeline() gives it with its split into `parts` (the
 * study's); NULL with `err` set when the run is
 * not there, has no run directory or no trace. The caller owns the result. */
json_t *report_data_trace(json_t *runs, json_int_t id, const split_parts *parts, char *err,
                          size_t err_size);

/* The files of a run's traced request beside the page: the script the page
 * loads ("<id>.js"), and the request as Perfetto and as OTLP JSON,
 * gzip-compressed, as `mortar trace --format perfetto|otlp` writes them
 * ("<id>.perfetto.json.gz", "<id>.otlp.json.gz"; trace_format.h). */
typedef enum report_trace_kind {
    REPORT_TRACE_SCRIPT,
    REPORT_TRACE_PERFETTO,
    REPORT_TRACE_OTLP,
    REPORT_TRACE_KINDS
} report_trace_kind;

/* The export format of a kind other than the script ("perfetto", "otlp"). */
const char *report_data_trace_format(report_trace_kind kind);

/* The file name of run `id`'s trace of `kind`, relative to the page:
 * "traces/<id>.js", "traces/<id>.perfetto.json.gz", ... */
void report_data_trace_file(json_int_t id, report_trace_kind kind, char *buf, size_t size);

/* The run id and kind a trace file's name ("<id>" in decimal digits
 * without a leading zero, then one of the kinds' endings, nothing else)
 * stands for: 0 with *id and *kind set, or -1 when `name` is not such a
 * name. */
int report_data_trace_id(const char *name, json_int_t *id, report_trace_kind *kind);

#endif
