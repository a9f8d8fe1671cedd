/*
 * test_snapshot_cache.c - the snapshot cache's size limit
 * (cli/run/snapshot_cache.c): the least recently used snapshots beyond the
 * limit go, with their identities; recently used ones and the caller's
 * stay; other files are never touched; the limit comes from
 * MORTAR_SNAPSHOT_CACHE_MB, checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"
#include "snapshot_cache.h"

#define MIB  (1024u * 1024u)
#define NOW  1000000000
#define HOUR 3600

/* A file of `mib` MiB (sparse) last used `age` seconds before NOW. */
static void make_file(const char *dir, const char *name, unsigned mib, int64_t age,
                      char *path, size_t size)
{
    snprintf(path, size, "%s/%s", dir, name);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)mib * MIB), 0);
    close(fd);
    struct timespec t[2] = {{.tv_sec = NOW - age}, {.tv_sec = NOW - age}};
    assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
}

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static void test_the_least_recently_used_beyond_the_limit_go(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char newest[512], middle[512], old[512], oldest[512], other[512], tmp[512];
    make_file(dir, "a.vm", 40, 2 * HOUR, newest, sizeof newest);
    make_file(dir, "b.vm", 40, 3 * HOUR, middle, sizeof middle);
    make_file(dir, "c.vm", 40, 4 * HOUR, old, sizeof old);
    make_file(dir, "d.vm", 40, 5 * HOUR, oldest, sizeof oldest);
    make_file(dir, "notes.txt", 40, 9 * HOUR, other, sizeof other);
    make_file(dir, "e.vm.123.tmp", 40, 9 * HOUR, tmp, sizeof tmp);
    char newest_id[512], old_id[512];
    make_file(dir, "a.sha256", 0, 9 * HOUR, newest_id, sizeof newest_id);
    make_file(dir, "c.sha256", 0, 9 * HOUR, old_id, sizeof old_id);
    snapshot_prune_result r;
    char err[256];
    assert_int_equal(
        snapshot_cache_prune(dir, 100 * MIB, NOW, HOUR, NULL, 0, &r, err, sizeof err), 0);
    assert_true(exists(newest));
    assert_true(exists(middle));
    assert_false(exists(old));
    assert_false(exists(oldest));
    assert_true(exists(other)); /* not a snapshot */
    assert_true(exists(tmp));   /* one being written */
    assert_true(exists(newest_id));
    assert_false(exists(old_id)); /* a snapshot's identity goes with it */
    assert_int_equal(r.removed, 2);
    assert_int_equal(r.removed_bytes, 80ull * MIB);
    assert_int_equal(r.kept_bytes, 80ull * MIB);
    remove_tree(dir);
}

/* A snapshot's guest RAM (<key>.ram, sparse) counts what it takes on disk
 * and goes with its snapshot. */
static void test_a_snapshots_ram_counts_and_goes_with_it(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char a[512], b[512], a_ram[512], b_ram[512];
    make_file(dir, "a.vm", 10, 2 * HOUR, a, sizeof a);
    make_file(dir, "b.vm", 10, 3 * HOUR, b, sizeof b);
    static char data[MIB];
    memset(data, 7, sizeof data);
    const char *rams[] = {"a.ram", "b.ram"};
    char *paths[] = {a_ram, b_ram};
    for (int i = 0; i < 2; i++) {
        snprintf(paths[i], 512, "%s/%s", dir, rams[i]);
        int fd = open(paths[i], O_CREAT | O_WRONLY | O_TRUNC, 0644);
        assert_true(fd >= 0);
        for (int m = 0; m < 3; m++)
            assert_int_equal(write(fd, data, sizeof data), (ssize_t)sizeof data);
        assert_int_equal(ftruncate(fd, 512 * (off_t)MIB), 0); /* the rest never touched */
        close(fd);
    }
    snapshot_prune_result r;
    char err[256];
    assert_int_equal(
        snapshot_cache_prune(dir, 20 * MIB, NOW, HOUR, NULL, 0, &r, err, sizeof err), 0);
    assert_true(exists(a) && exists(a_ram));
    assert_false(exists(b) || exists(b_ram));
    assert_int_equal(r.removed, 1);
    assert_true(r.removed_bytes >= 13ull * MIB && r.removed_bytes < 14ull * MIB);
    assert_true(r.kept_bytes >= 13ull * MIB && r.kept_bytes < 14ull * MIB);
    remove_tree(dir);
}

static void test_recently_used_and_named_snapshots_stay(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char fresh[512], named[512], stale[512];
    make_file(dir, "fresh.vm", 40, 10, fresh, sizeof fresh);
    make_file(dir, "named.vm", 40, 7 * HOUR, named, sizeof named);
    make_file(dir, "stale.vm", 40, 8 * HOUR, stale, sizeof stale);
    const char *keep[] = {named};
    snapshot_prune_result r;
    char err[256];
    assert_int_equal(
        snapshot_cache_prune(dir, 1 * MIB, NOW, HOUR, keep, 1, &r, err, sizeof err), 0);
    assert_true(exists(fresh)); /* used within the grace period */
    assert_true(exists(named)); /* the caller's */
    assert_false(exists(stale));
    assert_int_equal(r.removed, 1);
    remove_tree(dir);
}

static void test_touching_makes_a_snapshot_the_most_recent(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char a[512], b[512];
    make_file(dir, "a.vm", 40, 3 * HOUR, a, sizeof a);
    make_file(dir, "b.vm", 40, 2 * HOUR, b, sizeof b);
    snapshot_cache_touch(a);
    struct stat st;
    assert_int_equal(stat(a, &st), 0);
    snapshot_prune_result r;
    char err[256];
    /* a is now newer than b, even with the grace period left out */
    assert_int_equal(snapshot_cache_prune(dir, 50 * MIB, (int64_t)st.st_mtime + 10 * HOUR, 0,
                                          NULL, 0, &r, err, sizeof err),
                     0);
    assert_true(exists(a));
    assert_false(exists(b));
    remove_tree(dir);
}

static void test_the_limit_comes_from_the_environment_checked(void **state)
{
    (void)state;
    uint64_t bytes;
    char err[256];
    unsetenv("MORTAR_SNAPSHOT_CACHE_MB");
    assert_int_equal(snapshot_cache_limit(&bytes, err, sizeof err), 0);
    assert_int_equal(bytes, (uint64_t)SNAPSHOT_CACHE_DEFAULT_MB * MIB);
    setenv("MORTAR_SNAPSHOT_CACHE_MB", "512", 1);
    assert_int_equal(snapshot_cache_limit(&bytes, err, sizeof err), 0);
    assert_int_equal(bytes, 512ull * MIB);
    const char *bad[] = {"0", "-5", "12x", "lots", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("MORTAR_SNAPSHOT_CACHE_MB", bad[i], 1);
        assert_int_equal(snapshot_cache_limit(&bytes, err, sizeof err), -1);
        assert_non_null(strstr(err, "MORTAR_SNAPSHOT_CACHE_MB"));
    }
    unsetenv("MORTAR_SNAPSHOT_CACHE_MB");
}

static void test_an_unreadable_cache_is_an_error(void **state)
{
    (void)state;
    snapshot_prune_result r;
    char err[256];
    assert_int_equal(snapshot_cache_prune("/nonexistent/mortar-cache", MIB, NOW, HOUR, NULL, 0,
                                          &r, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "/nonexistent/mortar-cache"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_least_recently_used_beyond_the_limit_go),
        cmocka_unit_test(test_a_snapshots_ram_counts_and_goes_with_it),
        cmocka_unit_test(test_recently_used_and_named_snapshots_stay),
        cmocka_unit_test(test_touching_makes_a_snapshot_the_most_recent),
        cmocka_unit_test(test_the_limit_comes_from_the_environment_checked),
        cmocka_unit_test(test_an_unreadable_cache_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
