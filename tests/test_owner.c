/*
 * test_owner.c - a run's owning process (cli/run/owner.c): its start time from
 * /proc, a PID given to another process not taken for the owner, and the
 * runs whose owner is gone marked abandoned with their private directory
 * removed, while the runs of live owners are left alone; private
 * directories whose owner file names a gone process removed too.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <sqlite3.h>

#include "db.h"
#include "owner.h"

/* The PID of a process that has ended (and been reaped). */
static pid_t gone_pid(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    return pid;
}

static void test_a_process_is_its_pid_and_its_start_time(void **state)
{
    (void)state;
    uint64_t start = owner_start_time(getpid());
    assert_true(start > 0);
    assert_true(owner_alive(getpid(), start));
    /* the same PID with another start time: a recycled PID, not the owner */
    assert_false(owner_alive(getpid(), start + 1));
    assert_false(owner_alive(gone_pid(), start));
    assert_int_equal(owner_start_time(gone_pid()), 0);
    assert_int_equal(owner_start_time(-1), 0);
}

static void test_only_a_private_run_directory_is_removed(void **state)
{
    (void)state;
    assert_true(owner_private_dir_ok("/tmp/mortar-run-Ab3xZ9"));
    assert_false(owner_private_dir_ok("/tmp/mortar-run-../etc"));
    assert_false(owner_private_dir_ok("/tmp/mortar-run-Ab3xZ9/x"));
    assert_false(owner_private_dir_ok("/tmp/mortar-run-"));
    assert_false(owner_private_dir_ok("/etc"));
    assert_false(owner_private_dir_ok(NULL));
}

static int64_t add_run(sqlite3 *db, pid_t pid, uint64_t start, const char *private_dir)
{
    json_t *spec = json_object();
    db_run_info info = {.name = "t", .run_dir = "/tmp", .spec = spec, .pid = pid, .pid_start = start};
    int64_t id = db_begin_run(db, &info);
    json_decref(spec);
    assert_true(id > 0);
    if (private_dir)
        assert_int_equal(db_set_run_dirs(db, id, NULL, private_dir), 0);
    return id;
}

static const char *status_of(sqlite3 *db, int64_t id, char *buf, size_t size)
{
    sqlite3_stmt *st;
    assert_int_equal(
        sqlite3_prepare_v2(db, "SELECT status FROM runs WHERE id=?", -1, &st, NULL), 0);
    sqlite3_bind_int64(st, 1, id);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return buf;
}

static void test_runs_whose_owner_is_gone_are_abandoned_and_cleaned(void **state)
{
    (void)state;
    char dir[64], path[96], priv[32], sock[64], err[256], buf[32];
    snprintf(dir, sizeof dir, "/tmp/test_owner_XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/results.db", dir);
    snprintf(priv, sizeof priv, "/tmp/mortar-run-XXXXXX");
    assert_non_null(mkdtemp(priv));
    snprintf(sock, sizeof sock, "%s/link.sock", priv);
    fclose(fopen(sock, "w"));
    sqlite3 *db;
    assert_int_equal(db_open(&db, path, err, sizeof err), 0);
    uint64_t me = owner_start_time(getpid());
    pid_t dead = gone_pid();
    int64_t live = add_run(db, getpid(), me, NULL);
    int64_t killed = add_run(db, dead, me, priv);
    int64_t recycled = add_run(db, getpid(), me + 1, NULL);
    json_t *gone = owner_reap(db);
    assert_int_equal(json_array_size(gone), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(gone, 0), "id")),
                     killed);
    const char *error = json_string_value(json_object_get(json_array_get(gone, 0), "error"));
    char want[64];
    snprintf(want, sizeof want, "PID %d", (int)dead);
    assert_non_null(strstr(error, want));
    json_decref(gone);
    assert_string_equal(status_of(db, live, buf, sizeof buf), "running");
    assert_string_equal(status_of(db, killed, buf, sizeof buf), "abandoned");
    assert_string_equal(status_of(db, recycled, buf, sizeof buf), "abandoned");
    struct stat st;
    assert_int_not_equal(stat(priv, &st), 0);
    /* a second look finds nothing more */
    gone = owner_reap(db);
    assert_int_equal(json_array_size(gone), 0);
    json_decref(gone);
    sqlite3_close(db);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* A private directory for the test, with an "owner" file naming `pid`
 * (none when pid is 0). */
static void private_dir_owned_by(char *dir, size_t size, pid_t pid)
{
    snprintf(dir, size, "/tmp/mortar-run-XXXXXX");
    assert_non_null(mkdtemp(dir));
    if (pid == getpid()) {
        assert_int_equal(owner_mark_private_dir(dir), 0);
    } else if (pid > 0) {
        char path[64];
        snprintf(path, sizeof path, "%s/owner", dir);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "%d %llu\n", (int)pid, (unsigned long long)owner_start_time(getpid()));
        fclose(f);
    }
}

static void test_private_dirs_left_by_a_gone_owner_are_removed(void **state)
{
    (void)state;
    char mine[32], orphan[32], unmarked[32];
    private_dir_owned_by(mine, sizeof mine, getpid());
    private_dir_owned_by(orphan, sizeof orphan, gone_pid());
    private_dir_owned_by(unmarked, sizeof unmarked, 0);
    assert_true(owner_reap_private_dirs() >= 1);
    struct stat st;
    assert_int_equal(stat(mine, &st), 0);
    assert_int_not_equal(stat(orphan, &st), 0);
    assert_int_equal(stat(unmarked, &st), 0);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", mine, unmarked);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_process_is_its_pid_and_its_start_time),
        cmocka_unit_test(test_only_a_private_run_directory_is_removed),
        cmocka_unit_test(test_runs_whose_owner_is_gone_are_abandoned_and_cleaned),
        cmocka_unit_test(test_private_dirs_left_by_a_gone_owner_are_removed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
