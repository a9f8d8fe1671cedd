/*
 * fuzz_sweep.c - a libFuzzer target for sweep plans (cli/sweep/sweep_plan.c):
 * a sweep file, a study or a spec, with the command line's --grid and --set.
 *
 * The input is text: leading lines "--grid path=v1,v2,..." and "--set
 * path=value" (at most 8 in all) are the command line's, the rest is the
 * file, written beside the matmul experiment's specs (FUZZ_SPEC_DIR) so
 * that it can name them. Whatever it holds, the plan is made or refused
 * with the file, the path and the value named, never a crash, a hang or a
 * sanitizer report.
 *
 * Every point is resolved and validated, so an input asking for more than
 * MAX_FUZZ_POINTS points (a grid's values multiply) is skipped: that many
 * points are the user's wish, not a parser's fault, and would only slow
 * the fuzzer down.
 */
#include <jansson.h>

#include "fuzz_files.h"
#include "sweep_plan.h"

#ifndef FUZZ_SPEC_DIR
#error "define FUZZ_SPEC_DIR"
#endif

#define MAX_ARGS        8
#define MAX_FUZZ_POINTS 128

static size_t len_or_one(json_t *a)
{
    return json_is_array(a) && json_array_size(a) ? json_array_size(a) : 1;
}

/* An upper bound of the points the file and `--grid`s (`cmd_points` values
 * crossed) ask for; SIZE_MAX when past any reasonable count. */
static size_t points_asked(const char *body, size_t cmd_points)
{
    json_t *j = json_loads(body, 0, NULL), *parts = json_object_get(j, "parts");
    size_t total = 0, i;
    json_t *part;
    json_array_foreach(parts, i, part) {
        size_t n = cmd_points * len_or_one(json_object_get(part, "specs")) *
                   len_or_one(json_object_get(part, "variants"));
        const char *key;
        json_t *values;
        json_object_foreach(json_object_get(part, "grid"), key, values) {
            n *= len_or_one(values);
            if (n > MAX_FUZZ_POINTS)
                break;
        }
        total += n;
        if (total > MAX_FUZZ_POINTS)
            break;
    }
    json_decref(j);
    return json_array_size(parts) ? total : cmd_points;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) {
        fuzz_copy_specs(FUZZ_SPEC_DIR);
        ready = true;
    }
    char *text = fuzz_text(data, size), *body = text;
    char *grids[MAX_ARGS], *sets[MAX_ARGS];
    size_t ngrids = 0, nsets = 0, cmd_points = 1;
    while (ngrids + nsets < MAX_ARGS) {
        bool grid = !strncmp(body, "--grid ", 7), set = !strncmp(body, "--set ", 6);
        char *eol = strchr(body, '\n');
        if ((!grid && !set) || !eol)
            break;
        *eol = '\0';
        if (grid) {
            grids[ngrids++] = body + 7;
            size_t values = 1;
            for (const char *c = body + 7; *c; c++)
                values += *c == ',';
            cmd_points *= values;
            cmd_points = cmd_points > MAX_FUZZ_POINTS ? MAX_FUZZ_POINTS + 1 : cmd_points;
        } else {
            sets[nsets++] = body + 6;
        }
        body = eol + 1;
    }
    if (points_asked(body, cmd_points) <= MAX_FUZZ_POINTS) {
        char path[128], err[1024];
        fuzz_write("fuzz-sweep.json", body, size - (size_t)(body - text), path,
                   sizeof path);
        sweep_plan plan;
        sweep_plan_load(&plan, path, grids, ngrids, sets, nsets, err, sizeof err);
        sweep_plan_free(&plan);
    }
    free(text);
    return 0;
}
