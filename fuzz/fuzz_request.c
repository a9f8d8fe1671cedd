/*
 * fuzz_request.c - a libFuzzer target for the per-request lines a run's
 * guests print (cli/run/request_read.c, request_line.c) and the summary made
 * of them (request_summary.c).
 *
 * The input is up to three consoles separated by FUZZ_FILE_SEP: the
 * measuring host's ("client"), then two others. Whatever the text, reading
 * must end with requests or an error naming the line, never a crash or a
 * sanitizer report; room for a few requests only, so that "more than a run
 * records" is reached too.
 */
#include <jansson.h>

#include "fuzz_files.h"
#include "request_read.h"
#include "request_summary.h"
#include "run_record.h"

#define MAX_FUZZ_REQUESTS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"client", "server", "other"};
    const uint8_t *part[3];
    size_t len[3];
    size_t nparts = fuzz_split(data, size, part, len, 3);
    char paths[3][128];
    request_source src[3];
    for (size_t i = 0; i < nparts; i++) {
        char file[32];
        snprintf(file, sizeof file, "%s.console", names[i]);
        fuzz_write(file, part[i], len[i], paths[i], sizeof paths[i]);
        src[i] = (request_source){names[i], paths[i]};
    }
    db_request reqs[MAX_FUZZ_REQUESTS];
    size_t n = 0;
    char err[512];
    request_read(src, nparts, "client", reqs, MAX_FUZZ_REQUESTS, &n, err, sizeof err);
    run_record r = {.id = 1,
                    .status = "ok",
                    .reqs = reqs,
                    .nreqs = n,
                    .summary = request_summary(reqs, n)};
    json_decref(run_record_json(&r));
    for (size_t i = 0; i < n; i++)
        json_decref(reqs[i].fields);
    for (size_t i = 0; i < nparts; i++)
        unlink(paths[i]);
    return 0;
}
