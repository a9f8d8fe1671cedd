/*
 * test_run.c - `mortar run` refuses bad input before anything starts: a
 * name that would put a file (or an unlink) outside the run's directories,
 * a timeout that is not a number. None of these reach QEMU, so no QEMU is
 * needed; the victim files must be untouched and no database created.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>

#include "cli_util.h"

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static void expect_refused(const char *dir, const char *args, int status,
                           const char *needle)
{
    char err[4096];
    int rc = run_mortar(dir, args, err, sizeof err);
    if (rc != status || !strstr(err, needle))
        fail_msg("mortar %s: status %d (expected %d), stderr: %s", args, rc, status, err);
    char db[128];
    snprintf(db, sizeof db, "%s/mortar.db", dir);
    if (exists(db))
        fail_msg("mortar %s created %s", args, db);
}

static void test_a_link_name_cannot_unlink_a_file_elsewhere(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char victim[128], args[1024];
    snprintf(victim, sizeof victim, "%s/victim.sock", dir);
    write_text(victim, "keep me\n");
    /* the socket is <private dir in /tmp>/<link name>.sock */
    snprintf(
        args, sizeof args,
        "run '%s/experiments/examples/pcitest.json' --set links.0.name=../..%s/victim",
        source_dir(), dir);
    expect_refused(dir, args, 1, "links[0].name: '../..");
    assert_true(exists(victim));
    remove_tree(dir);
}

static void test_a_spec_name_cannot_leave_the_out_directory(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char args[1024], escaped[128];
    snprintf(
        args, sizeof args,
        "run '%s/experiments/examples/pcitest.json' --out runs --set name=../../escaped",
        source_dir());
    expect_refused(dir, args, 1, "name: '../../escaped' is not a valid name");
    snprintf(escaped, sizeof escaped, "%s/escaped", dir);
    assert_false(exists(escaped));
    remove_tree(dir);
}

static void test_a_host_or_process_name_cannot_leave_the_run_directory(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char args[1024];
    snprintf(args, sizeof args,
             "run '%s/experiments/examples/pcitest.json' --set hosts.0.name=../h0",
             source_dir());
    expect_refused(dir, args, 1, "hosts[0].name: '../h0' is not a valid name");
    snprintf(args, sizeof args,
             "run '%s/experiments/examples/pcitest.json' --set components.0.process=a,b",
             source_dir());
    expect_refused(dir, args, 1, "components[0].process: 'a,b' is not a valid name");
    remove_tree(dir);
}

static void test_timeouts_must_be_whole_seconds(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char args[1024];
    const char *bad[][2] = {{"--timeout 5x", "is not a number of seconds"},
                            {"--timeout 0", "is not a number of seconds"},
                            {"--stall-timeout -3", "is not a number of seconds"},
                            {"--timeout ''", "'--timeout' wants a value; it is empty"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(args, sizeof args, "run '%s/experiments/examples/pcitest.json' %s",
                 source_dir(), bad[i][0]);
        expect_refused(dir, args, 2, bad[i][1]);
    }
    remove_tree(dir);
}

static void test_set_of_an_unknown_variable_fails_the_run(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char args[1024];
    snprintf(args, sizeof args,
             "run '%s/experiments/examples/pcitest.json' --set raeds=3", source_dir());
    expect_refused(dir, args, 1, "'raeds' is neither a variable");
    remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_link_name_cannot_unlink_a_file_elsewhere),
        cmocka_unit_test(test_a_spec_name_cannot_leave_the_out_directory),
        cmocka_unit_test(test_a_host_or_process_name_cannot_leave_the_run_directory),
        cmocka_unit_test(test_timeouts_must_be_whole_seconds),
        cmocka_unit_test(test_set_of_an_unknown_variable_fails_the_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
