/*
 * test_snapshot_key.c - the cache key of a booted-guest snapshot
 * (cli/run/snapshot_key.c over plan_machine): it follows everything that shapes
 * the saved machine (memory, icount shift, what each device shows the host,
 * the files' contents) and nothing a run sets after the snapshot point (the
 * command, the address, a device's behaviour).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "files_digest.h"
#include "plan.h"
#include "snapshot_key.h"
#include "spec.h"

static const plan_tools tools = {
    .qemu = "/bin/false", .firmware = {"/usr/share/seabios", NULL}, .kernel = "vmlinuz",
    .initrd = "initrd"};

/* The key of the pcitest example's host with `sets` applied and, unless
 * NULL, `params` (JSON) as its device's parameters, over `file`. */
static void key_with(char *const *sets, size_t nsets, const char *params, const char *file,
                     char *key)
{
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/experiments/examples/pcitest.json", source_dir());
    json_t *spec = spec_load(path, (char **)sets, nsets, err, sizeof err);
    if (!spec || spec_validate(spec, err, sizeof err))
        fail_msg("%s", err);
    if (params)
        json_object_set_new(json_array_get(json_object_get(spec, "components"), 0), "params",
                            json_loads(params, 0, NULL));
    json_t *m = plan_machine(spec, json_array_get(json_object_get(spec, "hosts"), 0), &tools);
    const char *files[] = {file, NULL};
    if (snapshot_key(m, files, key, err, 1024))
        fail_msg("%s", err);
    json_decref(m);
    json_decref(spec);
}

static void key_of(char *const *sets, size_t nsets, const char *file, char *key)
{
    key_with(sets, nsets, NULL, file, key);
}

static char *file_with(const char *dir, const char *content)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/input", dir);
    FILE *f = fopen(path, "w");
    fputs(content, f);
    fclose(f);
    return path;
}

static void test_the_same_machine_gets_the_same_key(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char a[SNAPSHOT_KEY_HEX + 1], b[SNAPSHOT_KEY_HEX + 1];
    const char *f = file_with(dir, "kernel");
    key_of(NULL, 0, f, a);
    key_of(NULL, 0, f, b);
    assert_string_equal(a, b);
    assert_int_equal(strlen(a), SNAPSHOT_KEY_HEX);
    assert_int_equal(strspn(a, "0123456789abcdef"), SNAPSHOT_KEY_HEX);
    remove_tree(dir);
}

static void test_memory_and_icount_change_the_key(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    const char *f = file_with(dir, "kernel");
    char base[SNAPSHOT_KEY_HEX + 1], other[SNAPSHOT_KEY_HEX + 1];
    key_of(NULL, 0, f, base);
    char *mem[] = {"hosts.0.memory_mib=512"};
    key_of(mem, 1, f, other);
    assert_string_not_equal(base, other);
    char *shift[] = {"hosts.0.cpu_shift=2"};
    key_of(shift, 1, f, other);
    assert_string_not_equal(base, other);
    remove_tree(dir);
}

/* The key of a host with one device of `kind` and `params` (JSON). */
static void device_key(const char *kind, const char *params, char *key)
{
    json_t *spec = json_pack("{s:[{s:s}], s:[{s:s, s:s, s:o}], s:[{s:s, s:s, s:s}]}", "hosts",
                             "name", "h0", "components", "name", "dev", "kind", kind,
                             "params", json_loads(params, 0, NULL), "links", "name", "l",
                             "host", "h0", "component", "dev.0");
    json_t *m = plan_machine(spec, json_array_get(json_object_get(spec, "hosts"), 0), &tools);
    char err[256];
    if (snapshot_key(m, NULL, key, err, sizeof err))
        fail_msg("%s", err);
    json_decref(m);
    json_decref(spec);
}

static void test_only_what_the_device_shows_the_host_changes_the_key(void **state)
{
    (void)state;
    char base[SNAPSHOT_KEY_HEX + 1], other[SNAPSHOT_KEY_HEX + 1];
    device_key("pcitest", "{\"chunk\": 4096}", base);
    /* the DMA chunk is behaviour after the snapshot point: the same intro */
    device_key("pcitest", "{\"chunk\": 1024, \"outstanding\": 4}", other);
    assert_string_equal(base, other);
    /* another device (IDs, BARs, MSI-X): another intro */
    device_key("e1000", "{}", other);
    assert_string_not_equal(base, other);
    /* parameters the model refuses: keyed by the parameters themselves */
    device_key("pcitest", "{\"no_such\": 1}", other);
    assert_string_not_equal(base, other);
}

static void test_a_files_content_changes_the_key(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char a[SNAPSHOT_KEY_HEX + 1], b[SNAPSHOT_KEY_HEX + 1];
    key_of(NULL, 0, file_with(dir, "kernel 1"), a);
    key_of(NULL, 0, file_with(dir, "kernel 2"), b);
    assert_string_not_equal(a, b);
    remove_tree(dir);
}

static void test_per_run_values_leave_the_key_alone(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    const char *f = file_with(dir, "kernel");
    char base[SNAPSHOT_KEY_HEX + 1], other[SNAPSHOT_KEY_HEX + 1];
    key_of(NULL, 0, f, base);
    char *run[] = {"hosts.0.run=echo another command", "hosts.0.ip=10.0.0.9/24",
                   "hosts.0.mtu=1500", "reads=7"};
    key_of(run, 4, f, other);
    assert_string_equal(base, other);
    remove_tree(dir);
}

static void test_an_unreadable_file_is_named(void **state)
{
    (void)state;
    json_t *m = json_object();
    const char *files[] = {"/nonexistent/qemu", NULL};
    char key[SNAPSHOT_KEY_HEX + 1], err[256];
    assert_int_equal(snapshot_key(m, files, key, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/qemu"));
    json_decref(m);
}

/* The digest of `file` alone, as snapshot_key() computes it. */
static void plain_digest(const char *file, char *key)
{
    const char *files[] = {file, NULL};
    char err[256];
    if (snapshot_key(json_null(), files, key, err, sizeof err))
        fail_msg("%s", err);
}

static void digest_in(const char *dir, const char *file, char *key)
{
    const char *files[] = {file, NULL};
    char err[256];
    if (files_digest(files, dir, key, err, sizeof err))
        fail_msg("%s", err);
}

/* Writes `text` into the cache entry of `dir`, over its start ("r+") or
 * in place of it ("w"). */
static void write_entry(const char *dir, const char *mode, const char *text)
{
    char entry[128];
    snprintf(entry, sizeof entry, "%s/files.key", dir);
    FILE *e = fopen(entry, mode);
    assert_non_null(e);
    assert_true(fputs(text, e) >= 0);
    fclose(e);
}

static void test_the_files_digest_is_the_key_of_the_files(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    const char *f = file_with(dir, "qemu 1");
    char plain[SNAPSHOT_KEY_HEX + 1], first[SNAPSHOT_KEY_HEX + 1], again[SNAPSHOT_KEY_HEX + 1];
    plain_digest(f, plain);
    digest_in(dir, f, first);
    digest_in(dir, f, again);
    assert_string_equal(first, plain);
    assert_string_equal(again, plain);
    remove_tree(dir);
}

/* An entry with the files' signature is what the next run takes: written
 * over with another key, that key comes back. */
static void test_the_digest_comes_from_the_entry_while_the_files_stay(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    const char *f = file_with(dir, "qemu 1");
    char key[SNAPSHOT_KEY_HEX + 1];
    digest_in(dir, f, key);
    write_entry(dir, "r+", "0123456789abcdef0123456789abcdef");
    digest_in(dir, f, key);
    assert_string_equal(key, "0123456789abcdef0123456789abcdef");
    remove_tree(dir);
}

/* A file written again (the same size) is hashed again; a damaged entry
 * is not used. */
static void test_a_changed_file_or_a_damaged_entry_is_hashed_again(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char plain[SNAPSHOT_KEY_HEX + 1], key[SNAPSHOT_KEY_HEX + 1];
    digest_in(dir, file_with(dir, "qemu 1"), key);
    const char *f = file_with(dir, "qemu 2");
    plain_digest(f, plain);
    digest_in(dir, f, key);
    assert_string_equal(key, plain);
    write_entry(dir, "w", "not a key\n");
    digest_in(dir, f, key);
    assert_string_equal(key, plain);
    remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_same_machine_gets_the_same_key),
        cmocka_unit_test(test_memory_and_icount_change_the_key),
        cmocka_unit_test(test_only_what_the_device_shows_the_host_changes_the_key),
        cmocka_unit_test(test_a_files_content_changes_the_key),
        cmocka_unit_test(test_per_run_values_leave_the_key_alone),
        cmocka_unit_test(test_an_unreadable_file_is_named),
        cmocka_unit_test(test_the_files_digest_is_the_key_of_the_files),
        cmocka_unit_test(test_the_digest_comes_from_the_entry_while_the_files_stay),
        cmocka_unit_test(test_a_changed_file_or_a_damaged_entry_is_hashed_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
