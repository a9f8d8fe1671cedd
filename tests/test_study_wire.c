/*
 * test_study_wire.c - a study's protocol from its study file ("wire",
 * cli/spec/study_wire.h): what is refused and why, and the Lua dissector
 * written from it (studies/matmul/tests/dissector.sh runs one in tshark).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study_wire.h"

#define GOOD_MESSAGE                                                                   \
    "{\"name\": \"request\", \"magic\": \"RQ01\", \"header_bytes\": 16, "               \
    "\"payload_bytes\": \"length\", \"fields\": ["                                     \
    "{\"name\": \"kind\", \"offset\": 4, \"bytes\": 2, \"values\": {\"1\": \"work\"}}," \
    "{\"name\": \"length\", \"offset\": 8, \"bytes\": 8}]}"

/* The error of reading `text` as "wire", "" when it reads. */
static const char *wire_error(const char *text, study_wire *w)
{
    static char err[512];
    json_error_t jerr;
    json_t *j = json_loads(text, 0, &jerr);
    assert_non_null(j);
    err[0] = '\0';
    if (study_wire_read(j, w, err, sizeof err))
        assert_true(err[0]);
    json_decref(j);
    return err;
}

static void test_a_good_protocol_reads(void **state)
{
    (void)state;
    study_wire *w = calloc(1, sizeof *w);
    assert_string_equal(wire_error("{\"title\": \"t\", \"tcp_port\": 7000, \"byte_order\": "
                                   "\"little\", \"messages\": [" GOOD_MESSAGE "]}",
                                   w),
                        "");
    assert_int_equal(w->tcp_port, 7000);
    assert_int_equal(w->nmessages, 1);
    assert_int_equal(w->messages[0].payload_field, 1);
    assert_int_equal(w->messages[0].fields[0].nvalues, 1);
    assert_string_equal(w->messages[0].fields[0].values[0].name, "work");
    free(w);
}

static void test_what_is_refused_is_named(void **state)
{
    (void)state;
    static const struct {
        const char *messages, *error;
    } cases[] = {
        {"[]", "messages: expected an array of 1 to 8 messages"},
        {"[{\"name\": \"Req\", \"magic\": \"R\", \"header_bytes\": 4, \"fields\": []}]",
         "messages[0].name: expected a lower-case identifier"},
        {"[{\"name\": \"r\", \"magic\": \"R\\\"\", \"header_bytes\": 4, \"fields\": []}]",
         "messages[0].magic: expected 1 to 8 letters or digits"},
        {"[{\"name\": \"r\", \"magic\": \"R\", \"header_bytes\": 4, \"fields\": "
         "[{\"name\": \"x\", \"offset\": 2, \"bytes\": 4}]}]",
         "messages[0].fields[0].offset: the field ends past the header (4 bytes)"},
        {"[{\"name\": \"r\", \"magic\": \"R\", \"header_bytes\": 8, \"fields\": "
         "[{\"name\": \"x\", \"offset\": 0, \"bytes\": 3}]}]",
         "messages[0].fields[0].bytes: expected 1, 2, 4 or 8"},
        {"[{\"name\": \"r\", \"magic\": \"R\", \"header_bytes\": 8, \"payload_bytes\": \"y\", "
         "\"fields\": [{\"name\": \"x\", \"offset\": 0, \"bytes\": 4}]}]",
         "messages[0].payload_bytes: expected the name of one of its fields"},
        {"[{\"name\": \"r\", \"magic\": \"R\", \"header_bytes\": 8, \"fields\": "
         "[{\"name\": \"x\", \"offset\": 0, \"bytes\": 8, \"values\": {\"1\": \"a\"}}]}]",
         "messages[0].fields[0].values: only for a field of at most 4 bytes"},
        {"[{\"name\": \"r\", \"magic\": \"R\", \"header_bytes\": 8, \"fields\": "
         "[{\"name\": \"x\", \"offset\": 0, \"bytes\": 1, \"values\": {\"256\": \"a\"}}]}]",
         "messages[0].fields[0].values: \"256\": expected a value of 1 bytes"},
        {"[{\"name\": \"r\", \"magic\": \"R\", \"header_bytes\": 8, \"fields\": "
         "[{\"name\": \"x\", \"offset\": 0, \"bytes\": 1}, {\"name\": \"x\", \"offset\": 1, "
         "\"bytes\": 1}]}]",
         "messages[0].fields[1].name: \"x\" twice"},
        {"[{\"name\": \"r\", \"magic\": \"RQ\", \"header_bytes\": 8, \"fields\": []},"
         " {\"name\": \"s\", \"magic\": \"RQS\", \"header_bytes\": 8, \"fields\": []}]",
         "messages[0].magic: \"RQ\" starts messages[1]'s too"},
        {"[{\"name\": \"r\", \"magic\": \"R\", \"header_bytes\": 8, \"fields\": [], \"x\": 1}]",
         "messages[0].x: not a key of it"},
    };
    study_wire *w = calloc(1, sizeof *w);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"title\": \"t\", \"tcp_port\": 7000, \"byte_order\": \"little\", "
                 "\"messages\": %s}",
                 cases[i].messages);
        const char *err = wire_error(text, w);
        if (strncmp(err, cases[i].error, strlen(cases[i].error)))
            fail_msg("case %zu: \"%s\", expected \"%s\"", i, err, cases[i].error);
    }
    assert_string_equal(wire_error("{\"title\": \"t\", \"tcp_port\": 0, \"byte_order\": "
                                   "\"little\", \"messages\": []}",
                                   w),
                        "tcp_port: expected an integer from 1 to 65535");
    assert_string_equal(wire_error("{\"title\": \"a\\nb\", \"tcp_port\": 1, \"byte_order\": "
                                   "\"little\", \"messages\": []}",
                                   w),
                        "title: a control character");
    free(w);
}

/* The dissector's text for a protocol titled `title`. */
static char *lua_of(const char *title, const char *study_name, const char *order)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"title\": \"%s\", \"tcp_port\": 4242, \"byte_order\": \"%s\", "
             "\"messages\": [" GOOD_MESSAGE "]}",
             title, order);
    study_wire *w = calloc(1, sizeof *w);
    assert_string_equal(wire_error(text, w), "");
    char *out = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&out, &size);
    assert_int_equal(study_wire_lua(f, study_name, w), 0);
    fclose(f);
    free(w);
    return out;
}

static void test_the_dissector_quotes_what_it_is_given(void **state)
{
    (void)state;
    char *lua = lua_of("say \\\"hi\\\" \\\\ there", "my-study.2", "little");
    assert_non_null(strstr(lua, "local TITLE = \"say \\\"hi\\\" \\\\ there\"\n"));
    assert_non_null(strstr(lua, "local PROTOCOL = \"mortar_my_study_2\"\n"));
    assert_non_null(strstr(lua, "ProtoField.uint16(\"mortar_my_study_2.request.kind\", "
                                "\"kind\", base.DEC, { [1] = \"work\" })"));
    assert_non_null(strstr(lua, "ProtoField.uint64(\"mortar_my_study_2.request.length\""));
    assert_non_null(strstr(lua, "payload = 2,"));
    assert_non_null(strstr(lua, "item:add_le(f.field"));
    assert_non_null(strstr(lua, "DissectorTable.get(\"tcp.port\"):add(4242, proto)\n"));
    free(lua);
    lua = lua_of("t", "s", "big");
    assert_non_null(strstr(lua, "item:add(f.field"));
    assert_non_null(strstr(lua, "return r:uint64()"));
    assert_null(strstr(lua, "ADD"));
    free(lua);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_good_protocol_reads),
        cmocka_unit_test(test_what_is_refused_is_named),
        cmocka_unit_test(test_the_dissector_quotes_what_it_is_given),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
