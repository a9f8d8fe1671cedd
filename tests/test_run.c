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

#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* How many times `needle` is in `text`. */
static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* A spec that is not there is named once, with the reason (it was
 * "/x.json: /x.json:-1:-1: unable to open /x.json: ..."). */
static void test_a_missing_spec_is_named_once(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char spec[128], args[256], err[4096];
    snprintf(spec, sizeof spec, "%s/no-such-spec.json", dir);
    const char *cmds[] = {"run", "spec"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(args, sizeof args, "%s '%s'", cmds[i], spec);
        int rc = run_mortar(dir, args, err, sizeof err);
        if (rc != 1 || count_of(err, spec) != 1 || !strstr(err, "No such file or directory") ||
            strstr(err, "-1:-1"))
            fail_msg("mortar %s: status %d, stderr: %s", args, rc, err);
    }
    remove_tree(dir);
}

/* Makes the folder `ro` read-only for this process, root included (file
 * modes do not stop root): in a mount namespace of its own, the folder is
 * bound onto itself read-only. Nothing outside the process sees it. */
static int make_read_only(const char *ro)
{
    if (geteuid() != 0)
        return chmod(ro, 0555);
    return unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
           mount(ro, ro, NULL, MS_BIND, NULL) ||
           mount(NULL, ro, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
}

/* Runs `mortar <args>` in `dir` with the folder `ro` (holding the
 * database `db`) read-only, stderr into `err`; returns the exit status. */
static int run_as_reader(const char *dir, const char *ro, const char *db, const char *args,
                         char *err, size_t size)
{
    char log[128], cmd[4096];
    snprintf(log, sizeof log, "%s/reader.err", dir);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s/mortar' %s >/dev/null 2>'%s'", dir, bin_dir(),
             args, log);
    chmod(db, 0444);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (make_read_only(ro))
            _exit(90);
        if (access(db, W_OK) == 0)
            _exit(91); /* the test would prove nothing */
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(92);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    char *text = read_text(log);
    snprintf(err, size, "%s", text ? text : "");
    free(text);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* A database `mortar run` cannot write is refused with the reason before
 * anything starts (it said "cannot record the run" and nothing more). */
static void test_a_read_only_database_is_refused_with_the_reason(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char ro[128], db[160], args[1024], err[4096];
    snprintf(ro, sizeof ro, "%s/ro", dir);
    snprintf(db, sizeof db, "%s/mortar.db", ro);
    assert_int_equal(mkdir(ro, 0755), 0);
    /* a database made by mortar: `import` opens it (creating it) before it
     * finds there is no record to import */
    int made = run_mortar(dir, "import none.json --db ro/mortar.db", err, sizeof err);
    assert_int_equal(made, 1);
    assert_true(exists(db));
    snprintf(args, sizeof args, "run '%s/experiments/examples/pcitest.json' --db ro/mortar.db",
             source_dir());
    int rc = run_as_reader(dir, ro, db, args, err, sizeof err);
    if (rc == 90 || rc == 91 || rc == 92)
        fail_msg("cannot drop the right to write %s (status %d)", db, rc);
    if (rc != 1 || !strstr(err, "mortar.db: the database is read-only"))
        fail_msg("mortar %s as a reader: status %d, stderr: %s", args, rc, err);
    char runs[128];
    snprintf(runs, sizeof runs, "%s/runs", dir);
    assert_false(exists(runs));
    chmod(ro, 0755);
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
        cmocka_unit_test(test_a_read_only_database_is_refused_with_the_reason),
        cmocka_unit_test(test_a_missing_spec_is_named_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
