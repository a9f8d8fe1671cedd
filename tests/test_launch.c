/*
 * test_launch.c - the one launcher of child processes (cli/proc/launch.h), as
 * `mortar run` and `mortar sweep` use it: a missing program is reported
 * (its error in the child's stderr file, exit 127), exit codes and signals
 * are reported as the command reports them, the output goes to new files
 * or is appended, the extra environment arrives, a file arrives open at
 * fd 3 (or the child does not start), a child leads its own
 * process group and killing it kills that group, a signal the parent
 * blocks or handles reaches the child at its default, and a wait for
 * children wakes when one ends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "launch.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", scratch_dir());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *file_in_dir(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", dir, name);
    return buf;
}

/* Waits (up to 10 s) for the child to end; its launch_status. */
static int wait_for(pid_t pid)
{
    int status;
    for (int i = 0; i < 10000; i++) {
        int r = launch_poll(pid, &status);
        assert_int_not_equal(r, -1);
        if (r == 1)
            return status;
        usleep(1000);
    }
    fail_msg("the child did not end");
    return -1;
}

/* Runs `sh -c script` with stdout and stderr to new files; its status. */
static int run_sh(const char *script, char *const env[], const char *out, const char *err)
{
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    launch_spec spec = {.who = "test", .name = "sh", .argv = argv, .env = env,
                        .out_path = out, .err_path = err, .death_signal = SIGKILL};
    pid_t pid = launch_start(&spec);
    assert_true(pid > 0);
    return wait_for(pid);
}

static void test_a_missing_program_is_reported(void **state)
{
    (void)state;
    char err[128];
    char *argv[] = {"/nonexistent/mortar-nothing", NULL};
    launch_spec spec = {.who = "mortar", .name = "x", .argv = argv,
                        .err_path = file_in_dir("missing.err", err, sizeof err),
                        .death_signal = SIGKILL};
    pid_t pid = launch_start(&spec);
    assert_true(pid > 0);
    assert_int_equal(wait_for(pid), LAUNCH_EXEC_FAILED);
    char *text = read_text(err);
    assert_non_null(text);
    if (!strstr(text, "mortar: cannot run /nonexistent/mortar-nothing: No such file"))
        fail_msg("stderr: %s", text);
    free(text);
}

static void test_exit_codes_and_signals_are_reported(void **state)
{
    (void)state;
    assert_int_equal(run_sh("exit 0", NULL, NULL, NULL), 0);
    assert_int_equal(run_sh("exit 3", NULL, NULL, NULL), 3);
    assert_int_equal(run_sh("kill -SEGV $$", NULL, NULL, NULL), 128 + SIGSEGV);
}

static void test_output_goes_to_new_files_and_env_arrives(void **state)
{
    (void)state;
    char out[128], err[128];
    char env0[] = "MORTAR_TEST_LAUNCH=hello";
    char *env[] = {env0, NULL};
    file_in_dir("out.txt", out, sizeof out);
    file_in_dir("err.txt", err, sizeof err);
    assert_int_equal(run_sh("echo \"$MORTAR_TEST_LAUNCH\"; echo oops >&2; read x || echo eof",
                            env, out, err),
                     0);
    char *o = read_text(out), *e = read_text(err);
    assert_string_equal(o, "hello\neof\n"); /* stdin is /dev/null */
    assert_string_equal(e, "oops\n");
    free(o);
    free(e);
    /* an existing file is never overwritten: the child cannot start */
    assert_int_equal(run_sh("exit 0", NULL, out, NULL), LAUNCH_LOG_FAILED);
}

/* A file the child reads at fd 3 (QEMU's snapshot): open read-only there;
 * one that cannot be opened keeps the child from starting, named. */
static void test_a_file_arrives_at_fd_3(void **state)
{
    (void)state;
    char in[128], out[128], err[128];
    file_in_dir("fd3.txt", in, sizeof in);
    FILE *f = fopen(in, "w");
    assert_non_null(f);
    fputs("snapshot bytes\n", f);
    fclose(f);
    file_in_dir("fd3.out", out, sizeof out);
    char *argv[] = {"/bin/sh", "-c", "cat <&3; echo more >&3 || echo read-only", NULL};
    launch_spec spec = {.who = "test", .name = "sh", .argv = argv, .out_path = out,
                        .death_signal = SIGKILL, .fd3_path = in};
    pid_t pid = launch_start(&spec);
    assert_true(pid > 0);
    assert_int_equal(wait_for(pid), 0);
    char *o = read_text(out);
    assert_string_equal(o, "snapshot bytes\nread-only\n");
    free(o);
    file_in_dir("fd3.err", err, sizeof err);
    file_in_dir("missing.vm", in, sizeof in);
    spec.out_path = NULL;
    spec.err_path = err;
    pid = launch_start(&spec);
    assert_true(pid > 0);
    assert_int_equal(wait_for(pid), LAUNCH_LOG_FAILED);
    char *e = read_text(err);
    assert_non_null(strstr(e, "test: sh: cannot open "));
    assert_non_null(strstr(e, "missing.vm"));
    free(e);
}

static void test_output_can_be_appended_to_a_log(void **state)
{
    (void)state;
    char log[128];
    file_in_dir("append.log", log, sizeof log);
    FILE *f = fopen(log, "w");
    fputs("# header\n", f);
    fclose(f);
    char *argv[] = {"/bin/sh", "-c", "echo out; echo err >&2", NULL};
    launch_spec spec = {.who = "test", .name = "sh", .argv = argv, .out_path = log,
                        .err_path = log, .append = true, .death_signal = SIGTERM};
    pid_t pid = launch_start(&spec);
    assert_int_equal(wait_for(pid), 0);
    char *text = read_text(log);
    assert_string_equal(text, "# header\nout\nerr\n");
    free(text);
}

/* Whether process `pid` exists (a zombie counts as gone). */
static bool alive(pid_t pid)
{
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r"); /* its size reads as 0: no read_text */
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    const char *end = strrchr(text, ')');
    return end && end[1] == ' ' && end[2] != 'Z' && end[2] != 'X';
}

static void test_killing_a_child_kills_its_group(void **state)
{
    (void)state;
    char pidfile[128], script[512];
    file_in_dir("grandchild.pid", pidfile, sizeof pidfile);
    /* the child starts a grandchild in its group, writes its pid, waits */
    snprintf(script, sizeof script, "sleep 60 & echo $! > '%s.tmp'; mv '%s.tmp' '%s'; wait",
             pidfile, pidfile, pidfile);
    char *argv[] = {"/bin/sh", "-c", script, NULL};
    launch_spec spec = {.who = "test", .name = "sh", .argv = argv, .death_signal = SIGKILL};
    pid_t pid = launch_start(&spec);
    assert_true(pid > 0);
    char *text = NULL;
    for (int i = 0; i < 10000 && !(text = read_text(pidfile)); i++)
        usleep(1000);
    assert_non_null(text);
    pid_t grandchild = (pid_t)atoi(text);
    free(text);
    assert_int_equal(getpgid(pid), pid); /* a group of its own */
    assert_int_equal(getpgid(grandchild), pid);
    assert_true(alive(grandchild));
    assert_int_equal(launch_kill(pid), 128 + SIGKILL);
    for (int i = 0; i < 5000 && alive(grandchild); i++)
        usleep(1000);
    assert_false(alive(grandchild));
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static pid_t start_sleep(const char *seconds)
{
    char *argv[] = {"/bin/sleep", (char *)seconds, NULL};
    launch_spec spec = {.who = "test", .name = "sleep", .argv = argv, .death_signal = SIGKILL};
    pid_t pid = launch_start(&spec);
    assert_true(pid > 0);
    return pid;
}

/* launch_wait_any wakes when a child ends, not when its timeout does, and
 * waits out the timeout while none ends; it reaps nothing. */
static void test_waiting_for_children_wakes_when_one_ends(void **state)
{
    (void)state;
    pid_t pids[2] = {start_sleep("60"), start_sleep("0.2")};
    double start = seconds_now();
    launch_wait_any(pids, 2, 20000);
    double woke = seconds_now() - start;
    assert_true(woke >= 0.1 && woke < 10);
    int status;
    assert_int_equal(launch_poll(pids[1], &status), 1); /* ended, reaped only now */
    assert_int_equal(status, 0);
    start = seconds_now();
    launch_wait_any(pids, 1, 300);
    assert_true(seconds_now() - start >= 0.25);
    assert_int_equal(launch_poll(pids[0], &status), 0);
    launch_kill(pids[0]);
}

static void test_a_signal_the_parent_handles_reaches_the_child_at_its_default(void **state)
{
    (void)state;
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old;
    sigaction(SIGTERM, &ignore, &old);
    char *argv[] = {"/bin/sleep", "60", NULL};
    launch_spec spec = {.who = "test", .name = "sleep", .argv = argv,
                        .death_signal = SIGKILL};
    pid_t pid = launch_start(&spec);
    assert_true(pid > 0);
    usleep(100000); /* exec'd by now, in all likelihood; either way it must end */
    launch_signal_group(pid, SIGTERM);
    assert_int_equal(wait_for(pid), 128 + SIGTERM);
    sigaction(SIGTERM, &old, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_missing_program_is_reported),
        cmocka_unit_test(test_exit_codes_and_signals_are_reported),
        cmocka_unit_test(test_output_goes_to_new_files_and_env_arrives),
        cmocka_unit_test(test_a_file_arrives_at_fd_3),
        cmocka_unit_test(test_output_can_be_appended_to_a_log),
        cmocka_unit_test(test_killing_a_child_kills_its_group),
        cmocka_unit_test(test_a_signal_the_parent_handles_reaches_the_child_at_its_default),
        cmocka_unit_test(test_waiting_for_children_wakes_when_one_ends),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
