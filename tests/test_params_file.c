/*
 * test_params_file.c - a host's per-run parameter file (cli/spec/params_file.c):
 * every parameter on a line of its own, the command in base64 whatever its
 * length, no line break smuggled into a value, no file overwritten.
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
#include "params_file.h"

static char *write_and_read(json_t *host, const char *name, int *rc)
{
    const char *dir = scratch_dir();
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/h.params", dir);
    *rc = params_file_write(path, name, host, err, sizeof err);
    char *text = *rc == 0 ? read_text(path) : NULL;
    remove_tree(dir);
    return text;
}

static void test_base64_matches_the_rfc_4648_vectors(void **state)
{
    (void)state;
    const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        char b[16];
        assert_int_equal(params_base64(in[i], strlen(in[i]), b, sizeof b), strlen(out[i]));
        assert_string_equal(b, out[i]);
    }
}

static void test_base64_refuses_a_short_buffer(void **state)
{
    (void)state;
    char b[4];
    assert_int_equal(params_base64("foo", 3, b, sizeof b), -1);
}

static void test_every_parameter_is_a_line(void **state)
{
    (void)state;
    json_t *host = json_pack("{s:s, s:s, s:i, s:s}", "name", "client", "ip", "10.0.0.1/24",
                             "mtu", 9000, "run", "foo");
    int rc;
    char *text = write_and_read(host, "client", &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(text, "mortar.hostname=client\nmortar.ip=10.0.0.1/24\n"
                              "mortar.mtu=9000\nmortar.run64=Zm9v\n");
    free(text);
    json_decref(host);
}

static void test_a_long_command_is_kept_whole(void **state)
{
    (void)state;
    static char run[5000];
    memset(run, 'x', sizeof run - 1);
    json_t *host = json_pack("{s:s}", "run", run);
    int rc;
    char *text = write_and_read(host, "h", &rc);
    assert_int_equal(rc, 0);
    const char *line = strstr(text, "mortar.run64=");
    assert_non_null(line);
    line += strlen("mortar.run64=");
    assert_int_equal(strcspn(line, "\n"), (sizeof run - 1 + 2) / 3 * 4);
    free(text);
    json_decref(host);
}

static void test_a_line_break_in_a_value_is_refused(void **state)
{
    (void)state;
    json_t *host = json_pack("{s:s, s:s}", "ip", "10.0.0.1/24\nmortar.run64=eA==", "run", "x");
    int rc;
    char *text = write_and_read(host, "h", &rc);
    assert_int_equal(rc, -1);
    assert_null(text);
    json_decref(host);
}

static void test_an_existing_file_is_not_overwritten(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/h.params", dir);
    FILE *f = fopen(path, "w");
    fputs("keep", f);
    fclose(f);
    json_t *host = json_pack("{s:s}", "run", "x");
    assert_int_equal(params_file_write(path, "h", host, err, sizeof err), -1);
    assert_non_null(strstr(err, "must not exist"));
    char *text = read_text(path);
    assert_string_equal(text, "keep");
    free(text);
    json_decref(host);
    remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base64_matches_the_rfc_4648_vectors),
        cmocka_unit_test(test_base64_refuses_a_short_buffer),
        cmocka_unit_test(test_every_parameter_is_a_line),
        cmocka_unit_test(test_a_long_command_is_kept_whole),
        cmocka_unit_test(test_a_line_break_in_a_value_is_refused),
        cmocka_unit_test(test_an_existing_file_is_not_overwritten),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
