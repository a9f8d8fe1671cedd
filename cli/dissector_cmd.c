/*
 * dissector_cmd.c - `mortar dissector [--study FILE] [--output FILE]`: writes
 * the Wireshark dissector of the study's protocol, from the "wire" of its
 * study file (study_wire.h), to FILE or stdout.
 */
#include "dissector_cmd.h"

#include <stdio.h>
#include <string.h>

#include "study.h"
#include "study_wire.h"
#include "usage.h"

static int write_dissector(const study *st, const char *path)
{
    FILE *f = path ? fopen(path, "w") : stdout;
    if (!f) {
        fprintf(stderr, "mortar dissector: cannot write %s\n", path);
        return 1;
    }
    int bad = study_wire_lua(f, st->name, st->wire) != 0;
    bad |= path ? fclose(f) != 0 : fflush(f) != 0;
    if (bad) {
        fprintf(stderr, "mortar dissector: cannot write %s\n", path ? path : "the output");
        return 1;
    }
    return 0;
}

int mortar_dissector_main(int argc, char **argv)
{
    const char *study_path = NULL, *out = NULL;
    cli_parser p;
    cli_parser_init(&p, &mortar_cmd_dissector, argc, argv);
    for (int key; (key = cli_next(&p)) != CLI_DONE;) {
        if (key == CLI_KEY_STUDY)
            study_path = p.value;
        else if (key == CLI_KEY_OUTPUT)
            out = strcmp(p.value, "-") ? p.value : NULL;
        else
            return cli_stop_status(key);
    }
    if (p.first_operand < argc)
        return cli_usage_error(&mortar_cmd_dissector, "unexpected '%s'", argv[p.first_operand]);
    study st;
    char err[1024];
    int rc = 1;
    if (study_load_default(&st, study_path, err, sizeof err))
        fprintf(stderr, "mortar dissector: %s\n", err);
    else if (!st.wire)
        fprintf(stderr,
                "mortar dissector: the study %s (%s) describes no protocol: add \"wire\" to "
                "its study file (docs/studies.md)\n",
                st.name, st.path);
    else
        rc = write_dissector(&st, out);
    study_free(&st);
    return rc;
}
