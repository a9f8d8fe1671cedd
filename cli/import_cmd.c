/*
 * import_cmd.c - `mortar import FILE [--db FILE]` (see import_cmd.h).
 */
#include "import_cmd.h"

#include <stdio.h>
#include <string.h>

#include "db.h"
#include "run_record.h"
#include "usage.h"

int mortar_import_main(int argc, char **argv)
{
    const char *db_path = "mortar.db", *file = NULL;
    cli_parser p;
    cli_parser_init(&p, &mortar_cmd_import, argc, argv);
    for (int key; (key = cli_next(&p)) != CLI_DONE;) {
        if (key != CLI_KEY_DB)
            return cli_stop_status(key);
        db_path = p.value;
    }
    if (argc - p.first_operand != 1)
        return cli_usage_error(&mortar_cmd_import, "one RUNDIR/" RUN_RECORD_FILE ", please");
    file = argv[p.first_operand];
    db_conn *db;
    char err[1024];
    int64_t id;
    if (db_open(&db, db_path, err, sizeof err)) {
        fprintf(stderr, "mortar import: %s\n", err);
        return 1;
    }
    int rc = run_record_import(db, file, &id, err, sizeof err);
    db_close(db);
    if (rc) {
        fprintf(stderr, "mortar import: %s\n", err);
        return 1;
    }
    printf("run %lld recorded in %s\n", (long long)id, db_path);
    return 0;
}
