/*
 * results.c - `mortar results [--db FILE] [--json|--csv] [--requests]`: the
 * runs in the database with their parameters and summaries, as a table, as
 * JSON or as CSV (results_format.h); --requests gives each run's measured
 * requests too (in JSON) or instead (in CSV).
 */
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "losses.h"
#include "results.h"
#include "results_format.h"
#include "usage.h"

static void print_table(json_t *runs)
{
    printf("%4s  %-8s %-16s %-8s %8s %6s %4s %9s %9s %9s %7s %6s\n", "id", "status", "name",
           "design", "L(us)", "speed", "inf", "requests", "median", "p99", "wall(s)", "lost");
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(runs, "runs"), i, r) {
        json_t *s = json_object_get(r, "summary");
        char lost[32], text[1024];
        printf("%4lld  %-8s %-16.16s %-8s %8.2f %6.2f %4lld %9lld %9.1f %9.1f %7.1f %6s\n",
               (long long)json_integer_value(json_object_get(r, "id")),
               json_string_value(json_object_get(r, "status")) ?: "?",
               json_string_value(json_object_get(r, "name")) ?: "?",
               json_string_value(json_object_get(r, "design")) ?: "?",
               json_number_value(json_object_get(r, "pcie_latency_us")),
               json_number_value(json_object_get(r, "speed")),
               (long long)json_integer_value(json_object_get(r, "in_flight")),
               (long long)json_integer_value(json_object_get(s, "requests")),
               json_number_value(json_object_get(s, "median_us")),
               json_number_value(json_object_get(s, "p99_us")),
               json_number_value(json_object_get(r, "wall_s")),
               losses_cell(r, lost, sizeof lost));
        const char *e = json_string_value(json_object_get(r, "error"));
        if (e)
            printf("      error: %s\n", e);
        if (json_array_size(json_object_get(r, "losses")))
            printf("      lost: %s\n",
                   losses_text(json_object_get(r, "losses"), text, sizeof text));
    }
}

int mortar_results_main(int argc, char **argv)
{
    const char *path = "mortar.db";
    int as_json = 0, as_csv = 0, with_requests = 0;
    cli_parser p;
    cli_parser_init(&p, &mortar_cmd_results, argc, argv);
    for (int key; (key = cli_next(&p)) != CLI_DONE;) {
        if (key == CLI_KEY_DB)
            path = p.value;
        else if (key == CLI_KEY_JSON)
            as_json = 1;
        else if (key == CLI_KEY_CSV)
            as_csv = 1;
        else if (key == CLI_KEY_REQUESTS)
            with_requests = 1;
        else
            return cli_stop_status(key);
    }
    if (p.first_operand < argc)
        return cli_usage_error(&mortar_cmd_results, "unexpected '%s'", argv[p.first_operand]);
    if (as_json && as_csv)
        return cli_usage_error(&mortar_cmd_results, "--json or --csv, not both");
    if (with_requests && !as_json && !as_csv)
        return cli_usage_error(&mortar_cmd_results, "--requests goes with --json or --csv");
    db_conn *db;
    char err[512];
    if (db_open_read(&db, path, err, sizeof err)) {
        fprintf(stderr, "mortar: %s\n", err);
        return 1;
    }
    int rc = 0;
    if (as_json || as_csv) {
        json_t *doc = results_json(db, with_requests);
        if (!doc)
            rc = -1;
        else if (as_json)
            rc = results_write_json(stdout, doc);
        else if (with_requests)
            rc = results_write_requests_csv(stdout, doc);
        else
            rc = results_write_runs_csv(stdout, doc);
        json_decref(doc);
    } else {
        json_t *runs = db_runs_json(db);
        print_table(runs);
        json_decref(runs);
    }
    db_close(db);
    if (rc)
        fprintf(stderr, "mortar results: cannot write the output\n");
    return rc ? 1 : 0;
}
