/*
 * test_alone.c - alone times as runs of their own (cli/alone*.c): a
 * variant's alone command with the knob values put in, run as a child,
 * its result read and recorded, and read back from the database instead
 * of run again; and a failing command recorded as failed. `mortar alone`
 * on the case study is the study's test (studies/matmul/tests/).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "alone.h"
#include "cli_util.h"
#include "db.h"

/* A scratch directory with bench.sh, which counts its runs in runs.txt
 * and prints `alone_us=<speed x 100>`, or fails when the speed is 0. */
typedef struct fixture {
    char dir[64], script[128], count[128], db[128];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "%s", scratch_dir());
    snprintf(f->script, sizeof f->script, "%s/bench.sh", f->dir);
    snprintf(f->count, sizeof f->count, "%s/runs.txt", f->dir);
    snprintf(f->db, sizeof f->db, "%s/results.db", f->dir);
    FILE *s = fopen(f->script, "w");
    if (!s)
        return -1;
    fprintf(s,
            "#!/bin/sh\n"
            "echo run >> '%s'\n"
            "[ \"$2\" = 0 ] && { echo 'no speed' >&2; exit 3; }\n"
            "echo \"name=$4\"\n"
            "awk \"BEGIN { print \\\"alone_us=\\\" $2 * 100 }\"\n",
            f->count);
    fclose(s);
    chmod(f->script, 0755);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    remove_tree(f->dir);
    free(f);
    return 0;
}

static int runs_of(const fixture *f)
{
    FILE *c = fopen(f->count, "r");
    int n = 0;
    for (int ch; c && (ch = fgetc(c)) != EOF;)
        n += ch == '\n';
    if (c)
        fclose(c);
    return n;
}

static study_variant variant_of(const fixture *f, char *command)
{
    snprintf(command, 512, "%s --speed $speed --name ${dev.name}", f->script);
    return (study_variant){.name = "x",
                           .alone = {.command = command, .result = "alone_us"}};
}

static void test_the_command_takes_the_knob_values_and_names_a_missing_one(void **state)
{
    fixture *f = *state;
    char command[512], out[1024], err[256], want[1024];
    study_variant v = variant_of(f, command);
    json_t *at =
        json_pack("{s:s, s:f, s:i}", "dev.name", "x1", "speed", 0.5, "unused", 3);
    assert_int_equal(alone_command(&v, at, out, sizeof out, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s --speed 0.5 --name x1", f->script);
    assert_string_equal(out, want);
    json_object_del(at, "dev.name");
    assert_int_equal(alone_command(&v, at, out, sizeof out, err, sizeof err), -1);
    assert_non_null(strstr(err, "needs a value of knob dev.name"));
    json_decref(at);
}

static void test_an_alone_time_is_measured_once_then_read_from_the_database(void **state)
{
    fixture *f = *state;
    char command[512], err[512];
    study_variant v = variant_of(f, command);
    study s = {.path = "study.json"};
    json_t *at = json_pack("{s:s, s:s}", "speed", "2", "dev.name", "d");
    double us = 0;
    assert_int_equal(alone_time(f->db, &s, &v, at, &us, err, sizeof err), 0);
    assert_true(us == 200);
    assert_int_equal(runs_of(f), 1);
    us = 0;
    assert_int_equal(alone_time(f->db, &s, &v, at, &us, err, sizeof err), 0);
    assert_true(us == 200);
    assert_int_equal(runs_of(f), 1); /* read, not run again */
    json_object_set_new(at, "speed", json_string("0.25"));
    assert_int_equal(alone_time(f->db, &s, &v, at, &us, err, sizeof err), 0);
    assert_true(us == 25);
    assert_int_equal(runs_of(f), 2);
    /* both recorded, each under its command */
    db_conn *db;
    assert_int_equal(db_open_read(&db, f->db, err, sizeof err), 0);
    json_t *runs = db_alone_runs_json(db);
    assert_int_equal(json_array_size(runs), 2);
    json_t *second = json_array_get(runs, 1);
    assert_string_equal(json_string_value(json_object_get(second, "variant")), "x");
    assert_non_null(strstr(json_string_value(json_object_get(second, "command")),
                           "--speed 0.25 --name d"));
    assert_string_equal(json_string_value(json_object_get(second, "status")), "ok");
    json_decref(runs);
    db_close(db);
    json_decref(at);
}

static void test_a_failing_alone_command_is_recorded_and_is_an_error(void **state)
{
    fixture *f = *state;
    char command[512], err[512];
    study_variant v = variant_of(f, command);
    study s = {.path = "study.json"};
    json_t *at = json_pack("{s:s, s:s}", "speed", "0", "dev.name", "d");
    double us = -1;
    assert_int_equal(alone_time(f->db, &s, &v, at, &us, err, sizeof err), -1);
    assert_non_null(strstr(err, "exit status 3: no speed"));
    assert_true(us == -1);
    /* recorded as failed, and never taken as a result: tried again */
    assert_int_equal(alone_time(f->db, &s, &v, at, &us, err, sizeof err), -1);
    assert_int_equal(runs_of(f), 2);
    db_conn *db;
    assert_int_equal(db_open_read(&db, f->db, err, sizeof err), 0);
    json_t *runs = db_alone_runs_json(db);
    assert_int_equal(json_array_size(runs), 2);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(runs, 0), "status")), "failed");
    json_decref(runs);
    db_close(db);
    /* a command that prints no result is an error too */
    v.alone.result = "other_us";
    json_object_set_new(at, "speed", json_string("1"));
    assert_int_equal(alone_time(f->db, &s, &v, at, &us, err, sizeof err), -1);
    assert_non_null(strstr(err, "no other_us=<number> line"));
    /* and a variant without an alone benchmark has none */
    study_variant none = {.name = "software"};
    assert_int_equal(alone_time(f->db, &s, &none, at, &us, err, sizeof err), 1);
    json_decref(at);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_the_command_takes_the_knob_values_and_names_a_missing_one, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_an_alone_time_is_measured_once_then_read_from_the_database, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_a_failing_alone_command_is_recorded_and_is_an_error, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
