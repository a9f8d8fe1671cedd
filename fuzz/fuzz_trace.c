/*
 * fuzz_trace.c - a libFuzzer target for the trace reader and what `mortar
 * trace` and the explorer make of a run's trace files (lib/trace.c's
 * reader, cli/trace/: the join, the causal arrows, the time split and the
 * three exports).
 *
 * The input is up to three trace files separated by FUZZ_FILE_SEP:
 * client.trace, sims.trace and server.trace of one run directory. Whatever
 * they hold, the export ends with a document or an error naming the file,
 * never a crash, a hang or a sanitizer report. The input's length picks
 * the export (modulo 3): the timeline of the median request with its time
 * split, Perfetto's JSON of request 0 or OTLP's of request 1.
 */
#include <jansson.h>

#include "fuzz_files.h"
#include "trace_export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"client.trace", "sims.trace", "server.trace"};
    const uint8_t *part[3];
    size_t len[3];
    size_t nparts = fuzz_split(data, size, part, len, 3);
    char paths[3][128];
    for (size_t i = 0; i < nparts; i++)
        fuzz_write(names[i], part[i], len[i], paths[i], sizeof paths[i]);
    char err[512];
    trace_run run = {.id = 1,
                     .db_path = "/fuzz/results.db",
                     .machine_id = "fuzz",
                     .epoch_unix_ns = 1700000000000000000ull};
    json_t *doc;
    split_parts parts;
    switch (size % 3) { /* each reads and joins the files again: one per input */
    case 0:
        split_parts_default(&parts);
        doc = trace_timeline(fuzz_dir(), TRACE_REQUEST_MEDIAN, &parts, err, sizeof err);
        break;
    case 1:
        doc = trace_perfetto(fuzz_dir(), 0, err, sizeof err);
        break;
    default:
        doc = trace_otlp(fuzz_dir(), 1, &run, err, sizeof err);
    }
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "export %zu: %s\n", size % 3, doc ? "ok" : err);
    json_decref(doc);
    for (size_t i = 0; i < nparts; i++)
        unlink(paths[i]);
    return 0;
}
