/*
 * test_matmul_sweep_plan.c - the points of `mortar sweep`: grids crossed in order,
 * the case study's sweep file (72 points after merging the duplicates),
 * its study file giving the very same points, the variant axis left to a
 * study's parts,
 * spec paths relative to the sweep file, every kind of bad input rejected
 * before anything starts with the path and value named, and resuming:
 * only runs with status "ok" and the same resolved spec count as done.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>

#include "db.h"
#include "spec.h"
#include "sweep_plan.h"
#include "scratch_files.h"

static char tmp_dir[] = "/tmp/mortar-test-sweep-XXXXXX";

static const char *tmp_file(const char *name)
{
    return scratch_file(tmp_dir, name);
}

/* Loads a plan that must load; fails the test with the error otherwise. */
static void load_ok(sweep_plan *plan, const char *path, char *const grids[],
                    size_t ngrids, char *const sets[], size_t nsets)
{
    char err[2048] = "";
    if (sweep_plan_load(plan, path, grids, ngrids, sets, nsets, err, sizeof err))
        fail_msg("%s: %s", path, err);
}

/* Loads a plan that must be rejected with `expected` in the message. */
static void load_fails(const char *path, char *const grids[], size_t ngrids,
                       char *const sets[], size_t nsets, const char *expected)
{
    sweep_plan plan;
    char err[2048] = "";
    int rc = sweep_plan_load(&plan, path, grids, ngrids, sets, nsets, err, sizeof err);
    sweep_plan_free(&plan);
    if (rc == 0)
        fail_msg("%s was accepted (expected an error with '%s')", path, expected);
    if (!strstr(err, expected))
        fail_msg("error '%s' does not contain '%s'", err, expected);
}

static size_t count_label(const sweep_plan *plan, const char *prefix)
{
    size_t n = 0;
    for (size_t i = 0; i < plan->npoints; i++)
        n += !strncmp(plan->points[i].label, prefix, strlen(prefix));
    return n;
}

/* ---- the cross product ------------------------------------------------------ */

static void test_grids_cross_in_order_first_axis_slowest(void **state)
{
    (void)state;
    char *grids[] = {"pcie.latency=0.5us,1us,1.5us", "speed=0.25,1"};
    sweep_plan plan;
    load_ok(&plan, matmul("design-b.json"), grids, 2, NULL, 0);
    assert_int_equal(plan.npoints, 6);
    assert_int_equal(plan.nduplicates, 0);
    const char *labels[] = {
        "design-b pcie.latency=0.5us speed=0.25", "design-b pcie.latency=0.5us speed=1",
        "design-b pcie.latency=1us speed=0.25",   "design-b pcie.latency=1us speed=1",
        "design-b pcie.latency=1.5us speed=0.25", "design-b pcie.latency=1.5us speed=1"};
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(plan.points[i].label, labels[i]);
    assert_string_equal(plan.name, "design-b");
    sweep_plan_free(&plan);
}

static void test_fixed_sets_come_first_and_reach_the_resolved_spec(void **state)
{
    (void)state;
    char *grids[] = {"pcie.latency=2.5us"};
    char *sets[] = {"requests=2", "warmup=1"};
    sweep_plan plan;
    load_ok(&plan, matmul("design-a.json"), grids, 1, sets, 2);
    assert_int_equal(plan.npoints, 1);
    sweep_point *pt = &plan.points[0];
    assert_int_equal(pt->nsets, 3);
    assert_string_equal(pt->sets[0], "requests=2");
    assert_string_equal(pt->sets[1], "warmup=1");
    assert_string_equal(pt->sets[2], "pcie.latency=2.5us");
    assert_string_equal(pt->label, "design-a pcie.latency=2.5us");
    assert_non_null(strstr(pt->canonical, "--requests 2 --warmup 1"));
    assert_non_null(strstr(pt->canonical, "\"latency\":\"2.5us\""));
    sweep_plan_free(&plan);
}

/* The resolved spec is the one `mortar run` records for the same --set. */
static void test_point_is_identified_like_mortar_run_records_it(void **state)
{
    (void)state;
    char *grids[] = {"speed=0.5"};
    sweep_plan plan;
    load_ok(&plan, matmul("design-b.json"), grids, 1, NULL, 0);
    char err[512], *sets[] = {"speed=0.5"};
    json_t *spec = spec_load(matmul("design-b.json"), sets, 1, err, sizeof err);
    assert_non_null(spec);
    char *text = json_dumps(spec, JSON_COMPACT | JSON_SORT_KEYS);
    assert_string_equal(plan.points[0].canonical, text);
    free(text);
    json_decref(spec);
    sweep_plan_free(&plan);
}

static void test_identical_points_are_merged(void **state)
{
    (void)state;
    char *grids[] = {"speed=1,2,1"};
    sweep_plan plan;
    load_ok(&plan, matmul("design-b.json"), grids, 1, NULL, 0);
    assert_int_equal(plan.npoints, 2);
    assert_int_equal(plan.nduplicates, 1);
    sweep_plan_free(&plan);

    /* 1 and 1.0 in a sweep file are the same value */
    char json[2048];
    snprintf(json, sizeof json,
             "{\"parts\": [{\"specs\": [\"%s\"], \"grid\": {\"speed\": [1, 1.0, 0.1]}}]}",
             matmul("design-b.json"));
    write_file(tmp_file("merge.json"), json);
    load_ok(&plan, tmp_file("merge.json"), NULL, 0, NULL, 0);
    assert_int_equal(plan.npoints, 2);
    assert_string_equal(plan.points[0].sets[0], "speed=1");
    assert_string_equal(plan.points[1].sets[0], "speed=0.1");
    sweep_plan_free(&plan);
}

/* ---- the sweep file --------------------------------------------------------- */

static void test_case_study_sweep_file_has_the_grid_baselines_and_load(void **state)
{
    (void)state;
    sweep_plan plan;
    load_ok(&plan, matmul("sweep.json"), NULL, 0, NULL, 0);
    assert_string_equal(plan.name, "matmul");
    /* 40 grid + 10 baselines + 10 at x8 + 16 load, 4 of which (1 in flight)
     * are grid points */
    assert_int_equal(plan.npoints, 72);
    assert_int_equal(plan.nduplicates, 4);
    assert_int_equal(count_label(&plan, "design-a "), 26);
    assert_int_equal(count_label(&plan, "design-b "), 26);
    assert_int_equal(count_label(&plan, "software "), 5);
    assert_int_equal(count_label(&plan, "design-regcopy "), 5);
    assert_int_equal(count_label(&plan, "design-a-x8 "), 5);
    assert_int_equal(count_label(&plan, "design-b-x8 "), 5);
    for (size_t i = 0; i < plan.npoints; i++)
        if (access(plan.points[i].spec_path, R_OK))
            fail_msg("point %zu: spec %s is not readable", i, plan.points[i].spec_path);
    assert_string_equal(plan.points[0].label, "design-a pcie.latency=0.5us speed=0.25");
    assert_string_equal(plan.points[71].label, "design-b pcie.latency=2.5us inflight=8");
    sweep_plan_free(&plan);
}

/* The study's parts are sweep.json's: the same points, in the same order,
 * with the same labels and resolved specs. */
static void test_case_study_study_has_the_sweep_files_points(void **state)
{
    (void)state;
    sweep_plan sweep, study;
    load_ok(&sweep, matmul("sweep.json"), NULL, 0, NULL, 0);
    load_ok(&study, matmul("study.json"), NULL, 0, NULL, 0);
    assert_string_equal(study.name, "matmul");
    assert_int_equal(study.npoints, sweep.npoints);
    assert_int_equal(study.nduplicates, sweep.nduplicates);
    for (size_t i = 0; i < sweep.npoints; i++) {
        assert_string_equal(study.points[i].spec_path, sweep.points[i].spec_path);
        assert_string_equal(study.points[i].label, sweep.points[i].label);
        assert_string_equal(study.points[i].canonical, sweep.points[i].canonical);
    }
    sweep_plan_free(&sweep);
    sweep_plan_free(&study);
}

static void test_study_sweep_leaves_the_variant_axis_to_its_parts(void **state)
{
    (void)state;
    char *sets[] = {"design=b"};
    load_fails(matmul("study.json"), NULL, 0, sets, 1,
               "--set design=b: the study's parts");
    char *grids[] = {"design=a,b"};
    load_fails(matmul("study.json"), grids, 1, NULL, 0, "--grid design=a,b");
    char *requests[] = {"requests=5"};
    sweep_plan plan;
    load_ok(&plan, matmul("study.json"), NULL, 0, requests, 1);
    assert_non_null(strstr(plan.points[0].canonical, "--requests 5"));
    sweep_plan_free(&plan);
}

static void test_sweep_file_specs_are_relative_to_the_file(void **state)
{
    (void)state;
    char json[2048];
    snprintf(json, sizeof json, "{\"base\": \"%s\", \"name\": \"mine\"}",
             matmul("design-b.json"));
    write_file(tmp_file("mine.json"), json);
    write_file(
        tmp_file("rel.json"),
        "{\"name\": \"rel\", \"description\": \"a test\", \"parts\": ["
        "{\"specs\": [\"mine.json\"], \"grid\": {\"pcie.latency\": [\"1us\", \"2us\"]},"
        " \"set\": {\"requests\": 4}}]}");
    char cwd[1024];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir("/"), 0);
    sweep_plan plan;
    load_ok(&plan, tmp_file("rel.json"), NULL, 0, NULL, 0);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(plan.npoints, 2);
    assert_string_equal(plan.name, "rel");
    assert_string_equal(plan.points[0].spec_path, tmp_file("mine.json"));
    assert_string_equal(plan.points[0].sets[0], "requests=4");
    assert_string_equal(plan.points[1].label, "mine pcie.latency=2us");
    sweep_plan_free(&plan);
}

static void test_command_line_grids_extend_every_part(void **state)
{
    (void)state;
    char *grids[] = {"seed=1,2"};
    sweep_plan plan;
    load_ok(&plan, matmul("sweep.json"), grids, 1, NULL, 0);
    assert_int_equal(plan.npoints, 144);
    sweep_plan_free(&plan);
}

static void test_sweep_file_mistakes_are_named(void **state)
{
    (void)state;
    struct {
        const char *json, *expected;
    } cases[] = {
        {"{\"parts\": []}", "parts: expected a non-empty array"},
        {"{\"parts\": [{\"grid\": {}}]}", "parts[0].specs: expected a non-empty array"},
        {"{\"parts\": [{\"specs\": [\"%s\"], \"grids\": {}}]}", "unknown key 'grids'"},
        {"{\"parts\": [{\"specs\": [\"%s\"], \"grid\": {\"speed\": 1}}]}",
         "parts[0].grid.speed: expected a non-empty array"},
        {"{\"parts\": [{\"specs\": [\"%s\"], \"grid\": {\"speed\": [{}]}}]}",
         "grid.speed[0]: expected a string, number or boolean"},
        {"{\"parts\": [{\"specs\": [\"%s\"], \"set\": {\"speed\": 1},"
         " \"grid\": {\"speed\": [2]}}]}",
         "'speed' is given twice"},
        {"{\"parts\": [{\"specs\": [\"nope.json\"]}]}", "nope.json: No such file"},
        {"{\"parts\": [{\"specs\": [\"%s\"]}], \"nmae\": \"x\"}", "unknown key 'nmae'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[2048];
        snprintf(json, sizeof json, cases[i].json, matmul("design-a.json"));
        write_file(tmp_file("bad.json"), json);
        load_fails(tmp_file("bad.json"), NULL, 0, NULL, 0, cases[i].expected);
    }
}

/* ---- bad input -------------------------------------------------------------- */

static void test_bad_grid_syntax_is_rejected(void **state)
{
    (void)state;
    const char *spec = matmul("design-b.json");
    const char *bad[] = {"speed=", "speed", "=1,2", "speed=1,,2", "speed=1,"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *grids[] = {(char *)bad[i]};
        load_fails(spec, grids, 1, NULL, 0, "--grid");
    }
    char *sets[] = {"requests"};
    load_fails(spec, NULL, 0, sets, 1, "--set requests: expected path=value");
}

static void test_unknown_path_is_named_with_its_value(void **state)
{
    (void)state;
    char *grids[] = {"pcie.latency=1us", "speeed=0.5,1"};
    load_fails(matmul("design-b.json"), grids, 2, NULL, 0,
               "speeed=0.5: 'speeed' is neither");
    char *hosts[] = {"hosts.0.nosuch=1"};
    load_fails(matmul("design-b.json"), hosts, 1, NULL, 0, "'hosts.0.nosuch' is neither");
    char *index[] = {"hosts.7.memory_mib=1"};
    load_fails(matmul("design-b.json"), index, 1, NULL, 0,
               "'hosts.7.memory_mib' is neither");
    /* an existing place, and a new model parameter (the model checks it) */
    char *place[] = {"hosts.0.memory_mib=256,1024", "components.3.params.foo=1"};
    load_fails(matmul("design-b.json"), place, 2, NULL, 0,
               "params.foo: unknown parameter");
    sweep_plan plan;
    load_ok(&plan, matmul("design-b.json"), place, 1, NULL, 0);
    assert_int_equal(plan.npoints, 2);
    sweep_plan_free(&plan);
}

static void test_invalid_value_names_the_point(void **state)
{
    (void)state;
    char *grids[] = {"speed=1", "pcie.latency=1us,0ns"};
    load_fails(matmul("design-a.json"), grids, 2, NULL, 0,
               "with speed=1 pcie.latency=0ns: links[0].latency: must be greater than 0");
}

static void test_unknown_file_is_rejected(void **state)
{
    (void)state;
    char *grids[] = {"speed=1"};
    load_fails(matmul("no-such-spec.json"), grids, 1, NULL, 0,
               "No such file or directory");
    write_file(tmp_file("broken.json"), "{\"base\": ");
    load_fails(tmp_file("broken.json"), grids, 1, NULL, 0, "broken.json:");
}

/* ---- resuming --------------------------------------------------------------- */

/* Records a run of `spec_name` with `sets` as `mortar run` would. */
static int64_t record_run(sqlite3 *db, const char *spec_name, char *const sets[],
                          size_t n, const char *status)
{
    char err[512];
    json_t *spec = spec_load(matmul(spec_name), sets, n, err, sizeof err);
    assert_non_null(spec);
    db_run_info info = {.name = "matmul-b", .run_dir = "", .spec = spec};
    int64_t id = db_begin_run(db, &info);
    assert_true(id > 0);
    if (status) {
        db_summary sum = {0};
        assert_int_equal(db_finish_run(db, id, status,
                                       strcmp(status, "ok") ? "boom" : NULL, 1.0, NULL,
                                       NULL, NULL, 0, &sum),
                         0);
    }
    json_decref(spec);
    return id;
}

static sqlite3 *open_db(const char *name)
{
    sqlite3 *db;
    char err[512];
    unlink(tmp_file(name));
    if (db_open(&db, tmp_file(name), err, sizeof err))
        fail_msg("%s", err);
    return db;
}

static void test_only_ok_runs_of_the_same_spec_are_done(void **state)
{
    (void)state;
    sqlite3 *db = open_db("resume.db");
    char *s025[] = {"speed=0.25"}, *s05[] = {"speed=0.5"}, *s1[] = {"speed=1"};
    char *s2[] = {"requests=2", "speed=2"};
    int64_t done = record_run(db, "design-b.json", s025, 1, "ok");
    record_run(db, "design-b.json", s05, 1, "failed");
    record_run(db, "design-b.json", s1, 1, NULL); /* still "running": interrupted */
    record_run(db, "design-b.json", s2, 2, "ok"); /* another spec: requests differ */
    record_run(db, "design-a.json", s1, 1, "ok"); /* another design */

    char *grids[] = {"speed=0.25,0.5,1,2"};
    sweep_plan plan;
    load_ok(&plan, matmul("design-b.json"), grids, 1, NULL, 0);
    char err[512];
    assert_int_equal(sweep_plan_match_done(&plan, db, err, sizeof err), 1);
    assert_int_equal(plan.points[0].done_run_id, done);
    for (size_t i = 1; i < 4; i++)
        assert_int_equal(plan.points[i].done_run_id, 0);

    /* a retry of the failed point that succeeds makes it done */
    record_run(db, "design-b.json", s05, 1, "ok");
    assert_int_equal(sweep_plan_match_done(&plan, db, err, sizeof err), 2);
    sweep_plan_free(&plan);
    sqlite3_close(db);
}

static void test_the_run_a_point_recorded_is_found(void **state)
{
    (void)state;
    sqlite3 *db = open_db("find.db");
    assert_int_equal(sweep_max_run_id(db), 0);
    char *grids[] = {"speed=0.5"};
    sweep_plan plan;
    load_ok(&plan, matmul("design-b.json"), grids, 1, NULL, 0);
    const char *canonical = plan.points[0].canonical;
    sweep_run_result r;
    int64_t before = record_run(db, "design-b.json", grids, 1, "ok");
    assert_int_equal(sweep_find_run(db, canonical, before, &r), 0);
    assert_int_equal(r.id, 0); /* only runs after `before` count */
    int64_t failed = record_run(db, "design-b.json", grids, 1, "failed");
    assert_int_equal(sweep_max_run_id(db), failed);
    assert_int_equal(sweep_find_run(db, canonical, before, &r), 0);
    assert_int_equal(r.id, failed);
    assert_string_equal(r.status, "failed");
    assert_string_equal(r.error, "boom");
    sweep_plan_free(&plan);
    sqlite3_close(db);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmp_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grids_cross_in_order_first_axis_slowest),
        cmocka_unit_test(test_fixed_sets_come_first_and_reach_the_resolved_spec),
        cmocka_unit_test(test_point_is_identified_like_mortar_run_records_it),
        cmocka_unit_test(test_identical_points_are_merged),
        cmocka_unit_test(test_case_study_sweep_file_has_the_grid_baselines_and_load),
        cmocka_unit_test(test_case_study_study_has_the_sweep_files_points),
        cmocka_unit_test(test_study_sweep_leaves_the_variant_axis_to_its_parts),
        cmocka_unit_test(test_sweep_file_specs_are_relative_to_the_file),
        cmocka_unit_test(test_command_line_grids_extend_every_part),
        cmocka_unit_test(test_sweep_file_mistakes_are_named),
        cmocka_unit_test(test_bad_grid_syntax_is_rejected),
        cmocka_unit_test(test_unknown_path_is_named_with_its_value),
        cmocka_unit_test(test_invalid_value_names_the_point),
        cmocka_unit_test(test_unknown_file_is_rejected),
        cmocka_unit_test(test_only_ok_runs_of_the_same_spec_are_done),
        cmocka_unit_test(test_the_run_a_point_recorded_is_found),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
