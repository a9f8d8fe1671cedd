/*
 * test_host_tools.c - how mortar finds its QEMU build and guest image
 * (cli/run/host_tools.h): an install's cache-keys name the builds, looked up in
 * the cache; what is missing is named with where and how to get it; a key
 * cannot leave the cache; MORTAR_SOURCE wins over an install; MORTAR_QEMU and
 * MORTAR_GUEST_IMAGE, as a sweep sets them, win over both. Nothing here
 * runs QEMU: the "builds" are empty files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "host_tools.h"

#define QEMU_KEY  "7.2+dfsg-7+deb12u1-0123456789ab"
#define GUEST_KEY "6.1.0-1_1.35.0-4_ba9876543210"

typedef struct install {
    char dir[64], data[PATH_MAX], cache[PATH_MAX];
} install;

static void make_dirs(const char *path)
{
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
    assert_int_equal(system(cmd), 0);
}

/* An install's data dir with `keys` as its cache-keys, and an empty cache,
 * made the places host_tools_find looks at. */
static void make_install(install *in, const char *keys)
{
    snprintf(in->dir, sizeof in->dir, "%s", scratch_dir());
    snprintf(in->data, sizeof in->data, "%s/share/mortar", in->dir);
    snprintf(in->cache, sizeof in->cache, "%s/cache", in->dir);
    make_dirs(in->data);
    char file[PATH_MAX + 32];
    snprintf(file, sizeof file, "%s/" HOST_TOOLS_KEYS_FILE, in->data);
    write_text(file, keys);
    unsetenv("MORTAR_SOURCE");
    setenv("MORTAR_DATA", in->data, 1);
    setenv("MORTAR_CACHE", in->cache, 1);
}

static void add_qemu(const install *in)
{
    char dir[PATH_MAX + 64], file[PATH_MAX + 96];
    snprintf(dir, sizeof dir, "%s/qemu/" QEMU_KEY "/bin", in->cache);
    make_dirs(dir);
    snprintf(file, sizeof file, "%s/qemu-system-x86_64", dir);
    write_text(file, "#!/bin/sh\nexit 1\n");
    assert_int_equal(chmod(file, 0755), 0);
}

static void add_image(const install *in)
{
    char dir[PATH_MAX + 64], file[PATH_MAX + 96];
    snprintf(dir, sizeof dir, "%s/guest/" GUEST_KEY, in->cache);
    make_dirs(dir);
    snprintf(file, sizeof file, "%s/vmlinuz", dir);
    write_text(file, "");
    snprintf(file, sizeof file, "%s/initramfs.cpio.gz", dir);
    write_text(file, "");
}

static const char *const good_keys = "# a comment\n"
                                     "qemu " QEMU_KEY "\n"
                                     "guest " GUEST_KEY "\n"
                                     "source /src/mortar\n"
                                     "commit abc1234\n";

static void done(const install *in)
{
    unsetenv("MORTAR_DATA");
    unsetenv("MORTAR_CACHE");
    remove_tree(in->dir);
}

static void test_an_install_finds_the_builds_its_keys_name_in_the_cache(void **state)
{
    (void)state;
    install in;
    make_install(&in, good_keys);
    add_qemu(&in);
    add_image(&in);
    host_tools t;
    char err[4096], want[PATH_MAX * 2];
    assert_int_equal(host_tools_find(&t, NULL, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/qemu/" QEMU_KEY "/bin/qemu-system-x86_64", in.cache);
    assert_string_equal(t.qemu, want);
    snprintf(want, sizeof want, "%s/guest/" GUEST_KEY, in.cache);
    assert_string_equal(t.image, want);
    done(&in);
}

static void test_missing_builds_are_named_with_where_and_how_to_build_them(void **state)
{
    (void)state;
    install in;
    make_install(&in, good_keys);
    host_tools t;
    char err[4096];
    assert_int_equal(host_tools_find(&t, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "QEMU build " QEMU_KEY));
    assert_non_null(strstr(err, "guest image " GUEST_KEY));
    assert_non_null(strstr(err, in.cache));
    assert_non_null(strstr(err, "make setup"));
    assert_non_null(strstr(err, "/src/mortar"));
    assert_non_null(strstr(err, "abc1234"));

    add_qemu(&in); /* only the image missing: only the image named */
    assert_int_equal(host_tools_find(&t, NULL, err, sizeof err), -1);
    assert_null(strstr(err, "QEMU build " QEMU_KEY));
    assert_non_null(strstr(err, "guest image " GUEST_KEY));
    done(&in);
}

static void test_a_key_that_leaves_the_cache_is_refused(void **state)
{
    (void)state;
    const char *bad[] = {"qemu ../../usr\nguest " GUEST_KEY "\n",
                         "qemu " QEMU_KEY "\nguest ..\n",
                         "qemu " QEMU_KEY "\nguest a/b\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        install in;
        make_install(&in, bad[i]);
        host_tools t;
        char err[4096];
        assert_int_equal(host_tools_find(&t, NULL, err, sizeof err), -1);
        assert_non_null(strstr(err, HOST_TOOLS_KEYS_FILE ": line"));
        done(&in);
    }
}

static void test_keys_that_name_no_guest_image_are_refused(void **state)
{
    (void)state;
    install in;
    make_install(&in, "qemu " QEMU_KEY "\n");
    host_tools t;
    char err[4096];
    assert_int_equal(host_tools_find(&t, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "names no guest image"));
    done(&in);
}

static void test_mortar_source_wins_over_an_install(void **state)
{
    (void)state;
    install in;
    make_install(&in, good_keys);
    add_qemu(&in);
    add_image(&in);
    char saved[PATH_MAX];
    snprintf(saved, sizeof saved, "%s", source_dir());
    setenv("MORTAR_SOURCE", "/no/such/mortar", 1);
    host_tools t;
    char err[4096];
    assert_int_equal(host_tools_find(&t, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "/no/such/mortar/hosts/qemu/build.sh"));
    setenv("MORTAR_SOURCE", saved, 1);
    done(&in);
}

/* Rule 0: the two variables a sweep sets name the builds, checked; one
 * without the other, or a name with nothing there, is an error naming it. */
static void test_mortar_qemu_and_guest_image_name_the_builds(void **state)
{
    (void)state;
    install in;
    make_install(&in, "");
    add_qemu(&in);
    add_image(&in);
    char qemu[PATH_MAX + 96], image[PATH_MAX + 64], err[4096];
    snprintf(qemu, sizeof qemu, "%s/qemu/" QEMU_KEY "/bin/qemu-system-x86_64", in.cache);
    snprintf(image, sizeof image, "%s/guest/" GUEST_KEY, in.cache);
    host_tools t;

    setenv(HOST_TOOLS_QEMU_ENV, qemu, 1);
    assert_int_equal(host_tools_find(&t, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, HOST_TOOLS_IMAGE_ENV " is not"));

    setenv(HOST_TOOLS_IMAGE_ENV, image, 1);
    assert_int_equal(host_tools_find(&t, NULL, err, sizeof err), 0);
    assert_string_equal(t.qemu, qemu);
    assert_string_equal(t.image, image);

    setenv(HOST_TOOLS_IMAGE_ENV, in.cache, 1);
    assert_int_equal(host_tools_find(&t, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "no guest image there"));

    setenv(HOST_TOOLS_IMAGE_ENV, image, 1);
    setenv(HOST_TOOLS_QEMU_ENV, image, 1); /* a directory: no binary */
    assert_int_equal(host_tools_find(&t, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "not an executable"));

    unsetenv(HOST_TOOLS_QEMU_ENV);
    unsetenv(HOST_TOOLS_IMAGE_ENV);
    done(&in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_an_install_finds_the_builds_its_keys_name_in_the_cache),
        cmocka_unit_test(test_missing_builds_are_named_with_where_and_how_to_build_them),
        cmocka_unit_test(test_a_key_that_leaves_the_cache_is_refused),
        cmocka_unit_test(test_keys_that_name_no_guest_image_are_refused),
        cmocka_unit_test(test_mortar_source_wins_over_an_install),
        cmocka_unit_test(test_mortar_qemu_and_guest_image_name_the_builds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
