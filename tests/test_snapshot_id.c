/*
 * test_snapshot_id.c - a snapshot's identity file (cli/run/snapshot_id.c):
 * `<key>.sha256` beside `<key>.vm`, read strictly (64 lowercase hex digits
 * and a newline, nothing else).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "snapshot_id.h"

#define HEX64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_the_identity_sits_beside_the_snapshot(void **state)
{
    (void)state;
    char path[256];
    snapshot_id_path("/cache/snapshots/0123abcd.vm", path, sizeof path);
    assert_string_equal(path, "/cache/snapshots/0123abcd.sha256");
    snapshot_ram_path("/cache/snapshots/0123abcd.vm", path, sizeof path);
    assert_string_equal(path, "/cache/snapshots/0123abcd.ram");
}

/* Writes `text` into dir/name; returns the path. */
static const char *put(const char *dir, const char *name, const char *text, char *path,
                       size_t size)
{
    snprintf(path, size, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_a_well_formed_identity_is_read(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char path[512], vm[512], id[SNAPSHOT_ID_HEX + 1];
    put(dir, "k.sha256", HEX64 "\n", path, sizeof path);
    assert_int_equal(snapshot_id_read(path, id), 0);
    assert_string_equal(id, HEX64);
    snprintf(vm, sizeof vm, "%s/k.vm", dir);
    memset(id, 0, sizeof id);
    assert_int_equal(snapshot_id_of(vm, id), 0);
    assert_string_equal(id, HEX64);
    remove_tree(dir);
}

static void test_anything_else_is_no_identity(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    const char *bad[] = {
        "",                             /* empty */
        HEX64,                          /* no newline */
        "0123456789abcdef\n",           /* short */
        HEX64 "0\n",                    /* long */
        HEX64 "\nmore\n",               /* a second line */
        "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef\n", /* upper */
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg\n", /* not hex */
    };
    char path[512], id[SNAPSHOT_ID_HEX + 1];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        put(dir, "k.sha256", bad[i], path, sizeof path);
        assert_int_equal(snapshot_id_read(path, id), -1);
    }
    snprintf(path, sizeof path, "%s/missing.sha256", dir);
    assert_int_equal(snapshot_id_read(path, id), -1);
    remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_identity_sits_beside_the_snapshot),
        cmocka_unit_test(test_a_well_formed_identity_is_read),
        cmocka_unit_test(test_anything_else_is_no_identity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
