/*
 * report_data.h - everything the explorer page shows, as one JSON object
 * built from the results database: the runs, the verdict (or the reason
 * there is none) and one traced request per run the page can show.
 * report_page.h embeds it into the page; docs/explorer.md describes it.
 */
#ifndef MORTAR_CLI_REPORT_DATA_H
#define MORTAR_CLI_REPORT_DATA_H

#include <jansson.h>
#include <sqlite3.h>

/* The page's data for the open database `db` (found at `db_path`, which is
 * only shown): {"generator", "generated_at", "database", "runs": [...],
 * "verdict": {...}|null, "verdict_error": text|null, "traces": {"<run id>":
 * timeline | {"error": text}}}. Traces are taken for the runs the verdict's
 * cells point at, or without a verdict for the newest finished run of each
 * design A/B grid point. Never NULL; the caller owns the result. */
json_t *report_data(sqlite3 *db, const char *db_path);

#endif
