/*
 * spec_cmd.c - `mortar spec SPEC [--set key=value]...`: load, resolve and
 * check an experiment spec (or a study's variant: `mortar spec STUDY --set
 * design=rtl-b`) without running it; prints the resolved spec,
 * and on stderr a warning for every link faster than what it attaches.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "spec.h"
#include "study.h"
#include "spec_cmd.h"
#include "usage.h"

int mortar_spec_main(int argc, char **argv)
{
    const char *path = NULL;
    char *sets[64];
    size_t nsets = 0;
    cli_parser p;
    cli_parser_init(&p, &mortar_cmd_spec, argc, argv);
    for (int key; (key = cli_next(&p)) != CLI_DONE;) {
        if (key != CLI_KEY_SET)
            return cli_stop_status(key);
        if (nsets == 64)
            return cli_usage_error(&mortar_cmd_spec, "more than 64 --set options");
        sets[nsets++] = (char *)p.value;
    }
    if (argc - p.first_operand != 1)
        return cli_usage_error(&mortar_cmd_spec, "one SPEC or STUDY, please");
    path = argv[p.first_operand];
    char err[1024], *kept[64];
    size_t nkept;
    study st;
    const char *spec_path;
    json_t *spec = NULL;
    if (study_resolve_spec(&st, path, sets, nsets, &spec_path, kept, &nkept, err,
                           sizeof err) < 0) {
        fprintf(stderr, "mortar: %s\n", err);
        study_free(&st);
        return 1;
    }
    spec = spec_load(spec_path, kept, nkept, err, sizeof err);
    bool valid = spec && spec_validate(spec, err, sizeof err) == 0;
    if (!spec)
        fprintf(stderr, "mortar: %s\n", err); /* it names the file */
    else if (!valid)
        fprintf(stderr, "mortar: %s: %s\n", spec_path, err);
    if (!valid) {
        json_decref(spec);
        study_free(&st);
        return 1;
    }
    study_free(&st);
    json_t *warnings = spec_rate_warnings(spec);
    size_t i;
    json_t *w;
    json_array_foreach(warnings, i, w)
        fprintf(stderr, "warning: %s\n", json_string_value(w));
    json_decref(warnings);
    json_dumpf(spec, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(spec);
    return 0;
}
