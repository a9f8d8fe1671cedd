/*
 * import_cmd.c - `mortar import FILE [--db FILE]` (see import_cmd.h).
 */
#include "import_cmd.h"

#include <stdio.h>
#include <string.h>

#include "db.h"
#include "run_record.h"

int mortar_import_main(int argc, char **argv)
{
    const char *db_path = "mortar.db", *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--db") && i + 1 < argc)
            db_path = argv[++i];
        else if (argv[i][0] != '-' && !file)
            file = argv[i];
        else
            file = NULL, i = argc;
    }
    if (!file) {
        fprintf(stderr, "usage: mortar import RUNDIR/" RUN_RECORD_FILE " [--db FILE]\n");
        return 2;
    }
    sqlite3 *db;
    char err[1024];
    int64_t id;
    if (db_open(&db, db_path, err, sizeof err)) {
        fprintf(stderr, "mortar import: %s\n", err);
        return 1;
    }
    int rc = run_record_import(db, file, &id, err, sizeof err);
    sqlite3_close(db);
    if (rc) {
        fprintf(stderr, "mortar import: %s\n", err);
        return 1;
    }
    printf("run %lld recorded in %s\n", (long long)id, db_path);
    return 0;
}
