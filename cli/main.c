/*
 * main.c - the `mortar` command: a dispatcher over subcommands.
 *
 *   mortar alone --design a|b|regcopy --speed S   component benchmark
 *   mortar run SPEC [--set key=value]...          run an experiment, record it
 *   mortar results [--db FILE] [--json]           the recorded runs
 *   mortar import RUNDIR/result.json [--db FILE]   record a run's kept result
 *   mortar sweep SPEC --grid path=v1,v2 ...        run a grid of experiments
 *   mortar verdict [--db FILE] [--json]           which design wins where
 *   mortar trace RUN --format perfetto|otlp|timeline|split   export one request of a run
 *   mortar report [--db FILE] [--out DIR]         write the explorer page
 *   mortar serve [--db FILE] [--port N]           serve the explorer
 *   mortar spec SPEC [--set key=value]...         check a spec, print it resolved
 *   mortar version                                versions of the parts
 *   mortar help                                   this list
 *
 * Each subcommand lives in its own file and has the signature of main().
 */
#include <stdio.h>
#include <string.h>

#include "mortar/log.h"
#include "alone.h"
#include "import_cmd.h"
#include "results.h"
#include "run.h"
#include "report_cmd.h"
#include "spec_cmd.h"
#include "sweep_cmd.h"
#include "trace_cmd.h"
#include "verdict_cmd.h"

typedef struct subcommand {
    const char *name;
    const char *usage;
    int (*run)(int argc, char **argv);
} subcommand;

static int version_main(int argc, char **argv);
static int help_main(int argc, char **argv);

static const subcommand subcommands[] = {
    {"alone", "alone --design a|b|regcopy --speed S   one request through a device model alone",
     mortar_alone_main},
    {"run", "run SPEC [--set key=value]... [--db FILE] [--out DIR] [--trace] [--cold-boot]   run one experiment",
     mortar_run_main},
    {"results", "results [--db FILE] [--json]            list the recorded runs",
     mortar_results_main},
    {"import", "import RUNDIR/result.json [--db FILE]   record a result its run could not write",
     mortar_import_main},
    {"sweep", "sweep SPEC --grid path=v1,v2,... [--grid ...] [--jobs N] [--db FILE]   run a grid",
     mortar_sweep_main},
    {"verdict", "verdict [--db FILE] [--json]            which design wins where, from the runs",
     mortar_verdict_main},
    {"trace", "trace RUN [--db FILE] --format perfetto|otlp|timeline|split [--out FILE] [--request N]   one request of a run",
     mortar_trace_main},
    {"report", "report [--db FILE] [--out DIR]          write the explorer page", mortar_report_main},
    {"serve", "serve [--db FILE] [--port N]            serve the explorer on 127.0.0.1",
     mortar_serve_main},
    {"spec", "spec SPEC [--set key=value]...         check a spec and print it resolved",
     mortar_spec_main},
    {"version", "version                                 print versions", version_main},
    {"help", "help                                    this list", help_main},
};

#define N_SUBCOMMANDS (sizeof subcommands / sizeof subcommands[0])

static int version_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("mortar %s (commit %s)\n", MORTAR_VERSION, MORTAR_COMMIT);
    return 0;
}

static int help_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("usage: mortar COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < N_SUBCOMMANDS; i++)
        printf("  mortar %s\n", subcommands[i].usage);
    return 0;
}

int main(int argc, char **argv)
{
    mortar_log_init_from_env();
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return help_main(argc, argv) == 0 && argc >= 2 ? 0 : 2;
    for (size_t i = 0; i < N_SUBCOMMANDS; i++)
        if (!strcmp(argv[1], subcommands[i].name))
            return subcommands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "mortar: unknown command '%s' (try 'mortar help')\n", argv[1]);
    return 2;
}
