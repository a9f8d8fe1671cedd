/*
 * fuzz_spec.c - a libFuzzer target for experiment specs: overrides,
 * variable substitution and validation (cli/spec/spec.c, cli/spec/spec_check.c).
 *
 * The input is text: leading lines "--set path=value" (at most 8) become
 * overrides, the rest is the spec's JSON. Whatever the input, loading,
 * resolving and checking must end with a spec or an error message, never
 * a crash, a hang or a sanitizer report; a spec that passes the checks
 * also gets its line-rate warnings computed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

#define MAX_SETS 8

static void check(json_t *root, char *const sets[], size_t nsets)
{
    char err[1024];
    json_t *spec = spec_resolve(root, sets, nsets, err, sizeof err);
    if (spec && spec_validate(spec, err, sizeof err) == 0)
        json_decref(spec_rate_warnings(spec));
    json_decref(spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *sets[MAX_SETS], *body = text;
    size_t nsets = 0;
    while (nsets < MAX_SETS && !strncmp(body, "--set ", 6)) {
        char *eol = strchr(body, '\n');
        if (!eol)
            break;
        *eol = '\0';
        sets[nsets++] = body + 6;
        body = eol + 1;
    }
    json_t *root = json_loads(body, JSON_REJECT_DUPLICATES, NULL);
    if (json_is_object(root))
        check(root, sets, nsets);
    json_decref(root);
    free(text);
    return 0;
}
