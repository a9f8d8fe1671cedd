/*
 * profile_cmd.c - `mortar profile RUN [--db FILE] [--json]`: the wall-clock
 * profile of a finished run, "who waits for whom" (docs/profile.md). RUN is
 * a run id (its profile as recorded in the database) or a run directory
 * (read from its files, no database needed). Per process: wall time busy
 * and waiting, on which link and for which peer, syncs and messages,
 * events and the simulated time reached; the QEMU hosts' own figures.
 */
#include "profile_cmd.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db_query.h"
#include "profile_data.h"
#include "usage.h"

typedef struct profile_opts {
    const char *db, *run;
    bool json;
    int64_t id; /* -1: RUN is a directory */
} profile_opts;

static int64_t parse_id(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    return *s && !*end && v > 0 ? v : -1;
}

static int parse_opts(int argc, char **argv, profile_opts *o)
{
    *o = (profile_opts){.db = "mortar.db", .id = -1};
    const cli_command *cmd = &mortar_cmd_profile;
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    for (int key; (key = cli_next(&p)) != CLI_DONE;) {
        if (key == CLI_KEY_DB)
            o->db = p.value;
        else if (key == CLI_KEY_JSON)
            o->json = true;
        else
            return cli_stop_status(key);
    }
    int operands = argc - p.first_operand;
    if (operands == 0)
        return cli_usage_error(
            cmd, "which run? (its id, as in mortar results, or its directory)");
    if (operands > 1)
        return cli_usage_error(cmd, "only one RUN");
    o->run = argv[p.first_operand];
    o->id = parse_id(o->run);
    return CLI_PARSED;
}

/* The run's recorded profile and directory from the database; NULL with
 * the error printed. */
static json_t *from_db(const profile_opts *o, char *dir, size_t dir_size)
{
    db_conn *db;
    char err[1024];
    if (db_open_read(&db, o->db, err, sizeof err)) {
        fprintf(stderr, "mortar profile: %s\n", err);
        return NULL;
    }
    db_run_place place;
    json_t *profile = NULL;
    int found = db_run_place_of(db, o->id, &place, err, sizeof err);
    if (found < 0)
        fprintf(stderr, "mortar profile: %s: %s\n", o->db, err);
    else if (!found)
        fprintf(stderr, "mortar profile: no run %lld in %s (see mortar results)\n",
                (long long)o->id, o->db);
    else {
        snprintf(dir, dir_size, "%s", place.run_dir);
        profile = db_run_profile(db, o->id);
        if (!profile)
            fprintf(stderr, "mortar profile: %s: %s\n", o->db, db_last_error());
    }
    db_close(db);
    return profile;
}

static json_t *from_dir(const char *dir)
{
    char err[1024];
    json_t *profile = profile_collect_checked(dir, err, sizeof err);
    if (!profile)
        fprintf(stderr, "mortar profile: %s\n", err);
    return profile;
}

static void print(const profile_opts *o, const char *dir, json_t *profile)
{
    if (o->json) {
        json_t *j = json_pack("{s:i, s:o, s:s, s:O}", "schema_version", 1, "run",
                              o->id > 0 ? json_integer(o->id) : json_null(), "run_dir",
                              dir, "processes", profile);
        json_dumpf(j, stdout, JSON_INDENT(1));
        putchar('\n');
        json_decref(j);
        return;
    }
    if (o->id > 0)
        printf("run %lld (%s)\n\n", (long long)o->id, dir);
    else
        printf("run directory %s\n\n", dir);
    profile_print(stdout, profile);
}

int mortar_profile_main(int argc, char **argv)
{
    profile_opts o;
    int status = parse_opts(argc, argv, &o);
    if (status != CLI_PARSED)
        return status;
    char dir[4096] = "";
    struct stat st;
    json_t *profile;
    if (o.id > 0)
        profile = from_db(&o, dir, sizeof dir);
    else if (stat(o.run, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(dir, sizeof dir, "%s", o.run);
        profile = from_dir(dir);
    } else {
        fprintf(stderr, "mortar profile: %s is neither a run id nor a run directory\n",
                o.run);
        return CLI_EXIT_FAILURE;
    }
    if (!profile)
        return CLI_EXIT_FAILURE;
    print(&o, dir, profile);
    json_decref(profile);
    return CLI_EXIT_OK;
}
