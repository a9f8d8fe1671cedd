/*
 * alone_cmd.c - `mortar alone [STUDY] --set AXIS=VARIANT [--set KNOB=VALUE ...]`:
 * runs a study variant's alone benchmark once (its command, with the knob
 * values put in; alone.h), passes its output through, and records the run
 * in the results database, where the verdict finds it (alone_time()).
 */
#include "alone_cmd.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "alone.h"
#include "db.h"
#include "study.h"
#include "usage.h"

#define ALONE_MAX_SETS 64

typedef struct alone_opts {
    const char *study_path; /* NULL: the default study */
    const char *db_path;
    const char *sets[ALONE_MAX_SETS];
    size_t nsets;
} alone_opts;

static int parse_args(int argc, char **argv, alone_opts *o)
{
    const cli_command *cmd = &mortar_cmd_alone;
    *o = (alone_opts){.db_path = "mortar.db"};
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    for (int key; (key = cli_next(&p)) != CLI_DONE;) {
        if (key == CLI_KEY_SET) {
            if (o->nsets == ALONE_MAX_SETS)
                return cli_usage_error(cmd, "too many --set options");
            o->sets[o->nsets++] = p.value;
        } else if (key == CLI_KEY_DB)
            o->db_path = p.value;
        else
            return cli_stop_status(key);
    }
    if (p.first_operand < argc)
        o->study_path = argv[p.first_operand];
    if (p.first_operand + 1 < argc)
        return cli_usage_error(cmd, "unexpected '%s'", argv[p.first_operand + 1]);
    return CLI_PARSED;
}

/* The variant the --set AXIS=... names and the knob values of the others
 * (into `at`); the exit status of a usage error, or CLI_PARSED. */
static int pick(const alone_opts *o, const study *st, const study_variant **v, json_t *at)
{
    const cli_command *cmd = &mortar_cmd_alone;
    *v = NULL;
    for (size_t i = 0; i < o->nsets; i++) {
        const char *eq = strchr(o->sets[i], '=');
        char key[256];
        snprintf(key, sizeof key, "%.*s", (int)(eq - o->sets[i]), o->sets[i]);
        if (!strcmp(key, st->axis)) {
            if (*v)
                return cli_usage_error(cmd, "--set %s= is given twice", st->axis);
            if (!(*v = study_variant_named(st, eq + 1)))
                return cli_usage_error(cmd, "--set %s: not a variant of %s", o->sets[i],
                                       st->path);
        } else if (!study_knob_named(st, key))
            return cli_usage_error(cmd, "--set %s: %s is not a knob of %s", o->sets[i],
                                   key, st->path);
        else
            json_object_set_new(at, key, json_string(eq + 1));
    }
    if (!*v)
        return cli_usage_error(cmd, "--set %s=VARIANT is required (the variants of %s)",
                               st->axis, st->path);
    return CLI_PARSED;
}

/* Records the run; 0, or -1 after saying why. */
static int record(const char *db_path, const study_variant *v, const char *command,
                  const alone_outcome *out, int64_t started)
{
    db_conn *db;
    char err[1024];
    if (db_open(&db, db_path, err, sizeof err)) {
        fprintf(stderr, "mortar alone: %s\n", err);
        return -1;
    }
    db_alone_run run = {.variant = v->name,
                        .command = command,
                        .status = out->ok ? "ok" : "failed",
                        .error = out->ok ? NULL : out->error,
                        .output = out->output,
                        .result_us = out->result,
                        .wall_s = out->wall_s,
                        .started_unix_s = started};
    int64_t id = db_record_alone_run(db, &run);
    if (id < 0)
        fprintf(stderr, "mortar alone: cannot record the run in %s: %s\n", db_path,
                db_last_error());
    else
        fprintf(stderr, "[mortar] alone run %lld recorded in %s\n", (long long)id,
                db_path);
    db_close(db);
    return id < 0 ? -1 : 0;
}

/* Runs the command, passes its output through and records it. */
static int run_alone(const alone_opts *o, const study *st, const study_variant *v,
                     json_t *at)
{
    char command[4096], err[1024];
    if (alone_command(v, at, command, sizeof command, err, sizeof err)) {
        fprintf(stderr, "mortar alone: %s: %s\n", st->path, err);
        return CLI_EXIT_FAILURE;
    }
    alone_outcome out;
    int64_t started = (int64_t)time(NULL);
    if (alone_run_command(command, v->alone.result, &out, err, sizeof err)) {
        fprintf(stderr, "mortar alone: %s\n", err);
        return CLI_EXIT_FAILURE;
    }
    fputs(out.output, stdout);
    fputs(out.errors, stderr);
    fflush(stdout);
    if (!out.ok)
        fprintf(stderr, "mortar alone: %s failed: %s\n", command, out.error);
    int rc = record(o->db_path, v, command, &out, started);
    int ok = out.ok;
    alone_outcome_free(&out);
    return ok && !rc ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

int mortar_alone_main(int argc, char **argv)
{
    alone_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc != CLI_PARSED)
        return rc;
    study st;
    char err[2048];
    if (study_load_default(&st, o.study_path, err, sizeof err)) {
        fprintf(stderr, "mortar alone: %s\n", err);
        study_free(&st);
        return CLI_EXIT_FAILURE;
    }
    json_t *at = json_object();
    const study_variant *v;
    rc = pick(&o, &st, &v, at);
    if (rc == CLI_PARSED && !v->alone.command) {
        fprintf(stderr, "mortar alone: %s: variant %s has no alone benchmark\n", st.path,
                v->name);
        rc = CLI_EXIT_FAILURE;
    } else if (rc == CLI_PARSED)
        rc = run_alone(&o, &st, v, at);
    json_decref(at);
    study_free(&st);
    return rc;
}
