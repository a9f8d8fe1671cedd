/*
 * test_mmio_bound.c - whether a run was bound by MMIO reads
 * (cli/sweep/mmio_bound.c), from the host.json files in its run directory:
 * a host stalled for at least half of its synchronized simulated time makes
 * it so, a host below that or never synchronized does not, and a directory
 * without host files is not.
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

#include "mmio_bound.h"
#include "profile_data.h"

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/mortar-test-mmio.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Writes <name>.host.json: synchronized from 1 ms, reached 1 ms + `ran_us`,
 * `stalled_us` of it stalled on MMIO reads. */
static void host(const char *name, bool synchronized, unsigned ran_us, unsigned stalled_us)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s.host.json", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"virtual_time_ps\": %llu, \"sync_start_ps\": 1000000000, \"synchronized\": %s,"
            " \"mmio_reads\": 1, \"mmio_stall_ps\": %llu}\n",
            1000000000ull + ran_us * 1000000ull, synchronized ? "true" : "false",
            stalled_us * 1000000ull);
    fclose(f);
}

static bool bound(void)
{
    char err[256];
    json_t *profile = profile_collect(dir, err, sizeof err);
    assert_non_null(profile);
    bool b = mmio_bound_profile(profile);
    json_decref(profile);
    return b;
}

static void test_a_host_stalled_half_the_time_makes_the_run_mmio_bound(void **state)
{
    (void)state;
    host("client", true, 1000, 10);
    host("server", true, 1000, 500);
    assert_true(bound());
}

static void test_hosts_stalled_less_do_not(void **state)
{
    (void)state;
    host("client", true, 1000, 10);
    host("server", true, 1000, 499);
    assert_false(bound());
}

static void test_a_host_that_never_synchronized_does_not(void **state)
{
    (void)state;
    host("server", false, 1000, 900);
    assert_false(bound());
}

static void test_a_run_without_host_files_is_not(void **state)
{
    (void)state;
    assert_false(bound());
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, make_dir, remove_dir)
    const struct CMUnitTest tests[] = {
        T(test_a_host_stalled_half_the_time_makes_the_run_mmio_bound),
        T(test_hosts_stalled_less_do_not),
        T(test_a_host_that_never_synchronized_does_not),
        T(test_a_run_without_host_files_is_not),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
