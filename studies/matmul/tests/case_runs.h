/*
 * case_runs.h - runs of the case study recorded straight into a database,
 * for tests of what reads them (a sweep's refinement). Include after
 * <cmocka.h> and "db.h".
 */
#ifndef MORTAR_TEST_CASE_RUNS_H
#define MORTAR_TEST_CASE_RUNS_H

#include <jansson.h>
#include <stdint.h>

/* An ok run of the case study's `design` at `latency` and speed 1,
 * unloaded, of one request taking `median_us`. */
static inline void case_run_add(db_conn *db, const char *design, const char *latency,
                                double median_us)
{
    json_t *spec = json_pack("{s:{s:s, s:s, s:i, s:i}}", "vars", "design", design,
                             "pcie.latency", latency, "speed", 1, "inflight", 1);
    db_run_info info = {.name = "t", .run_dir = "", .spec = spec};
    int64_t id = db_begin_run(db, &info);
    json_decref(spec);
    assert_true(id > 0);
    db_request one = {.latency_ns = (int64_t)(median_us * 1000), .verified = 1};
    db_summary sum = {.requests = 1, .verified = 1, .median_us = median_us};
    assert_int_equal(db_finish_run(db, id, "ok", NULL, 1, NULL, NULL, &one, 1, &sum), 0);
}

#endif
