/*
 * fuzz_study.c - a libFuzzer target for study files (cli/spec/study.c):
 * loading and checking, the study as the explorer reads it (study_json.c),
 * a run placed in it, and `mortar run STUDY --set AXIS=VALUE` picking a
 * variant.
 *
 * The input is text: leading lines "--set path=value" (at most 8) are the
 * command line's, the rest is the study file, written beside the matmul
 * experiment's specs (FUZZ_SPEC_DIR) so that it can name them. Whatever the
 * file holds, it is loaded or refused with the file and field named, never
 * a crash, a hang or a sanitizer report.
 */
#include <jansson.h>

#include "fuzz_files.h"
#include "study.h"
#include "study_json.h"
#include "study_wire.h"

#ifndef FUZZ_SPEC_DIR
#error "define FUZZ_SPEC_DIR"
#endif

#define MAX_SETS 8

/* Where a run of the study lands: its variant and knob values. */
static void place_run(const study *st)
{
    json_t *run =
        json_pack("{s:{s:s, s:s, s:f, s:i}}", "vars", st->axis ? st->axis : "design", "a",
                  "pcie.latency", "1us", "speed", 0.5, "inflight", 2);
    study_json_annotate_run(st, run);
    json_decref(run);
    for (size_t k = 0; k < st->nknobs; k++)
        for (size_t v = 0; v < st->knobs[k].nvalues; v++) {
            json_t *value = json_string(st->knobs[k].values[v]);
            double x;
            study_knob_number(&st->knobs[k], value, &x);
            json_decref(value);
        }
}

static void load(const char *path, char *const sets[], size_t nsets)
{
    study st;
    char err[1024];
    if (study_load(&st, path, err, sizeof err) == 0) {
        json_decref(study_json(&st));
        place_run(&st);
        const char *spec;
        char *kept[MAX_SETS];
        size_t nkept;
        study_pick_variant(&st, sets, nsets, &spec, kept, &nkept, err, sizeof err);
        if (st.wire) {
            FILE *devnull = fopen("/dev/null", "w");
            study_wire_lua(devnull, st.name, st.wire);
            fclose(devnull);
        }
    }
    study_free(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) {
        fuzz_copy_specs(FUZZ_SPEC_DIR);
        ready = true;
    }
    char *text = fuzz_text(data, size), *body = text;
    char *sets[MAX_SETS];
    size_t nsets = 0;
    while (nsets < MAX_SETS && !strncmp(body, "--set ", 6)) {
        char *eol = strchr(body, '\n');
        if (!eol)
            break;
        *eol = '\0';
        sets[nsets++] = body + 6;
        body = eol + 1;
    }
    char path[128];
    fuzz_write("fuzz-study.json", body, size - (size_t)(body - text), path, sizeof path);
    load(path, sets, nsets);
    free(text);
    return 0;
}
