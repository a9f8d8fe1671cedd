/*
 * commands.c - the text of every `mortar` command's usage, and its flags:
 * the one place `--help`, `mortar help CMD`, the man page and the bash
 * completion read (usage.h). A flag is defined once, in cli_flags, so it
 * has one meaning in every command that takes it.
 */
#include <stddef.h>
#include <string.h>

#include "alone_cmd.h"
#include "import_cmd.h"
#include "profile_cmd.h"
#include "report_cmd.h"
#include "results.h"
#include "run.h"
#include "spec_cmd.h"
#include "sweep_cmd.h"
#include "trace_cmd.h"
#include "usage.h"
#include "verdict_cmd.h"
#include "dissector_cmd.h"

const cli_flag cli_flags[] = {
    {CLI_KEY_HELP, "help", NULL},
    {CLI_KEY_VERSION, "version", NULL},
    {CLI_KEY_DB, "db", "FILE"},
    {CLI_KEY_OUT, "out", "DIR"},
    {CLI_KEY_OUTPUT, "output", "FILE"},
    {CLI_KEY_SET, "set", "KEY=VALUE"},
    {CLI_KEY_GRID, "grid", "KEY=V1,V2,..."},
    {CLI_KEY_TRACE, "trace", NULL},
    {CLI_KEY_NO_TRACE, "no-trace", NULL},
    {CLI_KEY_STALL_TIMEOUT, "stall-timeout", "SECONDS"},
    {CLI_KEY_TIMEOUT, "timeout", "SECONDS"},
    {CLI_KEY_JSON, "json", NULL},
    {CLI_KEY_JOBS, "jobs", "N"},
    {CLI_KEY_DRY_RUN, "dry-run", NULL},
    {CLI_KEY_FORMAT, "format", "perfetto|otlp|timeline|split"},
    {CLI_KEY_REQUEST, "request", "N"},
    {CLI_KEY_PORT, "port", "N"},
    {CLI_KEY_ALLOW_HOST, "allow-host", "NAME[:PORT]"},
    {CLI_KEY_VIDEO, "video", NULL},
    {CLI_KEY_STUDY, "study", "FILE"},
    {CLI_KEY_ALL, "all", NULL},
    {CLI_KEY_CSV, "csv", NULL},
    {CLI_KEY_REQUESTS, "requests", NULL},
    {CLI_KEY_COLD_BOOT, "cold-boot", NULL},
    {CLI_KEY_REFINE, "refine", NULL},
    {CLI_KEY_NO_REFINE, "no-refine", NULL},
    {CLI_KEY_RESOLUTION, "resolution", "RES"},
    {0, NULL, NULL},
};

const char cli_program_summary[] =
    "Run full-system simulations (QEMU hosts, device models, one virtual clock),\n"
    "record their results and explore them.";

const char cli_program_details[] =
    "Run 'mortar help COMMAND' or 'mortar COMMAND --help' for a command's options.\n"
    "Options take their value as '--opt value' or '--opt=value'; '-' as an\n"
    "output file is stdout. The environment variable MORTAR_LOG sets the log level.\n";

#define DB_READ_HELP  "the results database to read (default mortar.db; it must exist)"
#define DB_WRITE_HELP "the results database (default mortar.db; created if missing)"

/* What --study means to the commands that read results. */
#define STUDY_HELP "the study that names the variants compared and the baselines (default: the case study's, docs/studies.md)"

const cli_command mortar_cmd_alone = {
    "alone",
    "[STUDY]",
    "run a study variant's alone benchmark and record it",
    "Runs the alone command of the variant --set AXIS=VARIANT names, with the knob\n"
    "values of the other --set options in its $knob references, prints its\n"
    "key=value lines and records the run (the verdict reads it from there).\n"
    "STUDY: the default study without one (docs/studies.md, \"Alone benchmarks\").\n",
    {{CLI_KEY_SET, "AXIS=VARIANT picks the variant, KNOB=VALUE a knob's value (repeatable)"},
     {CLI_KEY_DB, DB_WRITE_HELP}},
    mortar_alone_main,
};

const cli_command mortar_cmd_run = {
    "run",
    "SPEC|STUDY",
    "run one experiment and record it in the results database",
    "Validates the spec, starts the simulators and the QEMU hosts, watches them and\n"
    "records the run: status, versions, per-request results, stats, losses.\n"
    "A study file runs the spec of the variant --set AXIS=VARIANT names\n"
    "(docs/studies.md).\n",
    {{CLI_KEY_SET,
      "set a variable of the spec, or the value at a JSON path (repeatable)"},
     {CLI_KEY_DB, DB_WRITE_HELP},
     {CLI_KEY_OUT, "where run directories go (default runs)"},
     {CLI_KEY_TRACE, "record trace files (for mortar trace)"},
     {CLI_KEY_STALL_TIMEOUT,
      "end a run in which nothing moved for this long (default 120)"},
     {CLI_KEY_TIMEOUT, "end a run that takes longer (default 3600)"},
     {CLI_KEY_COLD_BOOT, "boot the hosts instead of starting them from snapshots"}},
    mortar_run_main,
};

const cli_command mortar_cmd_results = {
    "results",
    "",
    "list the recorded runs",
    "--json writes {\"schema_version\": 2, \"runs\": [...]}; --csv one row per run.\n"
    "With --requests, each run's requests too (a list per run, or a CSV row per\n"
    "request). Columns and schema: docs/experiments.md.\n",
    {{CLI_KEY_DB, DB_READ_HELP},
     {CLI_KEY_STUDY, "the study whose variant axis and knobs are the table's columns (default: the case study's)"},
     {CLI_KEY_JSON, "print JSON instead of a table"},
     {CLI_KEY_CSV, "print CSV instead of a table"},
     {CLI_KEY_REQUESTS, "with --json or --csv: the per-request data too"}},
    mortar_results_main,
};

const cli_command mortar_cmd_import = {
    "import",
    "RUNDIR/result.json",
    "record a result its run could not write into the database",
    NULL,
    {{CLI_KEY_DB, DB_WRITE_HELP}},
    mortar_import_main,
};

const cli_command mortar_cmd_sweep = {
    "sweep",
    "SPEC|SWEEPFILE|STUDY",
    "run a grid of experiments, several at a time, resumably",
    "The points are the cross product of the grids (a SWEEPFILE, JSON with \"parts\",\n"
    "or a STUDY, docs/studies.md, names its own); a spec without --grid is not a sweep. Points that have an ok run\n"
    "in the database are skipped. Exits 130 when interrupted.\n"
    "With --refine (the default for a STUDY with \"refine\"), once a series' grid points\n"
    "have run, wherever the compared ranking changes between neighbouring values of the\n"
    "study's first knob, both\n"
    "compared variants run at the midpoint, again and again, until every crossing is\n"
    "bracketed within the resolution (for a time knob 0.05us unless the study or\n"
    "--resolution says otherwise), in every series; resumable like the grid.\n",
    {{CLI_KEY_GRID, "a parameter's values (repeatable; the first varies slowest)"},
     {CLI_KEY_SET, "fix a value for every point (repeatable)"},
     {CLI_KEY_JOBS, "runs at a time, 1 to 256 (default the number of cores)"},
     {CLI_KEY_DB, DB_WRITE_HELP},
     {CLI_KEY_OUT, "where run directories and sweep logs go (default runs)"},
     {CLI_KEY_TRACE, "trace every run"},
     {CLI_KEY_NO_TRACE, "do not trace (the default)"},
     {CLI_KEY_COLD_BOOT, "every run boots its hosts instead of starting from snapshots"},
     {CLI_KEY_DRY_RUN, "list the points and which are done; run nothing"},
     {CLI_KEY_REFINE, "after the grid, bisect where the compared ranking changes"},
     {CLI_KEY_NO_REFINE, "do not refine, even when the study asks for it"},
     {CLI_KEY_RESOLUTION, "how narrow a crossing's bracket gets, in the first knob's kind "
                          "(\"0.05us\"); implies --refine"},
     {CLI_KEY_STUDY, "the study whose compared variants a SPEC's or SWEEPFILE's refinement "
                     "follows (default the case study's; a STUDY is its own)"}},
    mortar_sweep_main,
};

const cli_command mortar_cmd_verdict = {
    "verdict",
    "",
    "which design wins where, computed from the runs",
    NULL,
    {{CLI_KEY_DB, DB_READ_HELP}, {CLI_KEY_JSON, "print JSON instead of text"},
     {CLI_KEY_STUDY, STUDY_HELP}},
    mortar_verdict_main,
};

const cli_command mortar_cmd_dissector = {
    "dissector",
    "",
    "write the Wireshark dissector of the study's protocol",
    "From the \"wire\" of the study file, in Lua. Load it with\n"
    "tshark -X lua_script:FILE, or copy it into ~/.local/lib/wireshark/plugins/.\n",
    {{CLI_KEY_OUTPUT, "write to FILE ('-' or none: stdout)"}, {CLI_KEY_STUDY, STUDY_HELP}},
    mortar_dissector_main,
};

const cli_command mortar_cmd_trace = {
    "trace",
    "RUN",
    "export one request of a traced run",
    "RUN is a run id (as in mortar results). The median request unless --request.\n",
    {{CLI_KEY_FORMAT, "the export format (required)"},
     {CLI_KEY_OUTPUT, "write to FILE ('-' or none: stdout)"},
     {CLI_KEY_REQUEST, "the request's index (default: the median request)"},
     {CLI_KEY_DB, DB_READ_HELP},
     {CLI_KEY_STUDY, "the study whose parts the split and the timeline's split are in "
                     "(default: the case study's; without one, the trace's activities)"}},
    mortar_trace_main,
};

const cli_command mortar_cmd_profile = {
    "profile",
    "RUN",
    "who waits for whom: where each process's wall time went in a run",
    "RUN is a run id (the profile recorded in the database) or a run directory (read\n"
    "from its files). Per process: wall time busy and waiting, on which link and for\n"
    "which peer (largest first, % of the wall time), messages and syncs (null\n"
    "messages) sent and received, events, simulated time reached; the QEMU hosts'\n"
    "figures (their wall waiting is not measured yet). Layout: docs/profile.md.\n",
    {{CLI_KEY_DB, DB_READ_HELP}, {CLI_KEY_JSON, "print JSON instead of text"}},
    mortar_profile_main,
};

const cli_command mortar_cmd_report = {
    "report",
    "",
    "write the explorer page",
    "Writes DIR/index.html and the traced requests it loads on demand in DIR/traces/,\n"
    "and prints the page's path. With --video, also the narrated walkthrough made\n"
    "from the page: DIR/walkthrough.mp4, its subtitles walkthrough.vtt and its\n"
    "script walkthrough.json (needs node, chromium, espeak-ng and ffmpeg).\n",
    {{CLI_KEY_DB, DB_READ_HELP}, {CLI_KEY_OUT, "where the page goes (default report)"},
     {CLI_KEY_VIDEO, "also write the one-minute walkthrough video"},
     {CLI_KEY_STUDY, STUDY_HELP}},
    mortar_report_main,
};

const cli_command mortar_cmd_serve = {
    "serve",
    "",
    "serve the explorer on 127.0.0.1",
    "The page is rebuilt from the database on every load; Ctrl-C stops.\n"
    "A request must name the server in its Host header: 127.0.0.1:PORT or\n"
    "localhost:PORT, or a name given with --allow-host; any other is answered\n"
    "421 (a page on another site whose name resolves to 127.0.0.1).\n",
    {{CLI_KEY_DB, DB_READ_HELP},
     {CLI_KEY_PORT, "the port, 0 to 65535 (default 8080; 0: any free)"},
     {CLI_KEY_ALLOW_HOST,
      "also answer requests for this Host: NAME on any port, NAME:PORT on that one "
      "(repeatable; for a tunnel or a proxy)"},
     {CLI_KEY_STUDY, STUDY_HELP}},
    mortar_serve_main,
};

const cli_command mortar_cmd_spec = {
    "spec",
    "SPEC|STUDY",
    "check a spec and print it resolved",
    "A study file checks the spec of the variant --set AXIS=VARIANT names.\n",
    {{CLI_KEY_SET,
      "set a variable of the spec, or the value at a JSON path (repeatable)"}},
    mortar_spec_main,
};

const cli_command mortar_cmd_version = {
    "version", "", "print the version", NULL, {{0, NULL}}, mortar_version_main,
};

const cli_command mortar_cmd_help = {
    "help",
    "[COMMAND]",
    "show the commands, or one command's usage",
    NULL,
    {{CLI_KEY_ALL, "every command's usage, one after the other"}},
    mortar_help_main,
};

const cli_command mortar_cmd_completion = {
    "completion",
    "bash",
    "print the bash completion script",
    "Load it with: source <(mortar completion bash)\n",
    {{0, NULL}},
    mortar_completion_main,
};

const cli_command *const cli_commands[] = {
    &mortar_cmd_run,        &mortar_cmd_sweep,
    &mortar_cmd_results,    &mortar_cmd_verdict,
    &mortar_cmd_trace,      &mortar_cmd_profile,
    &mortar_cmd_report,     &mortar_cmd_dissector,
    &mortar_cmd_serve,      &mortar_cmd_spec,
    &mortar_cmd_alone,      &mortar_cmd_import,
    &mortar_cmd_version,    &mortar_cmd_help,
    &mortar_cmd_completion, NULL,
};

const cli_command *cli_command_find(const char *name)
{
    for (size_t i = 0; cli_commands[i]; i++)
        if (!strcmp(cli_commands[i]->name, name))
            return cli_commands[i];
    return NULL;
}

const cli_flag *cli_flag_of(int key)
{
    for (size_t i = 0; cli_flags[i].key; i++)
        if (cli_flags[i].key == key)
            return &cli_flags[i];
    return NULL;
}
