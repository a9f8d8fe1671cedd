/*
 * test_serve_reply.c - how `mortar serve` sends a successful answer
 * (cli/explorer/serve_reply.h): gzip when the client takes it, an ETag
 * that changes with the bytes, and 304 for a client whose copy is current.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "serve_reply.h"
#include "gzip.h"

static void test_the_etag_follows_the_bytes(void **state)
{
    (void)state;
    char a[SERVE_REPLY_ETAG_SIZE], b[SERVE_REPLY_ETAG_SIZE], c[SERVE_REPLY_ETAG_SIZE];
    serve_reply_etag("{\"runs\": []}", 12, a);
    serve_reply_etag("{\"runs\": []}", 12, b);
    serve_reply_etag("{\"runs\": [1]}", 13, c);
    assert_string_equal(a, b);
    assert_string_not_equal(a, c);
    assert_int_equal(strlen(a), 18);
    assert_true(a[0] == '"' && a[17] == '"');
}

static void test_a_current_copy_is_not_sent_again(void **state)
{
    (void)state;
    const char *tag = "\"0123456789abcdef\"";
    assert_true(serve_reply_not_modified("\"0123456789abcdef\"", tag));
    assert_true(serve_reply_not_modified("\"x\", W/\"0123456789abcdef\"", tag));
    assert_true(serve_reply_not_modified(" * ", tag));
    assert_false(serve_reply_not_modified(NULL, tag));
    assert_false(serve_reply_not_modified("", tag));
    assert_false(serve_reply_not_modified("\"0123456789abcdee\"", tag));
    assert_false(serve_reply_not_modified("0123456789abcdef", tag)); /* unquoted */
}

static void test_gzip_when_accepted(void **state)
{
    (void)state;
    assert_true(serve_reply_accepts_gzip("gzip"));
    assert_true(serve_reply_accepts_gzip("br, GZIP;q=0.5, deflate"));
    assert_true(serve_reply_accepts_gzip("*"));
    assert_false(serve_reply_accepts_gzip(NULL));
    assert_false(serve_reply_accepts_gzip("identity"));
    assert_false(serve_reply_accepts_gzip("gzip;q=0"));
    assert_false(serve_reply_accepts_gzip("x-gzip2"));
}

/* What the client gets back: inflating the answer gives the bytes. */
static void test_the_gzip_member_inflates_to_the_body(void **state)
{
    (void)state;
    size_t n = 100000;
    char *body = malloc(n);
    for (size_t i = 0; i < n; i++)
        body[i] = "mortar serve\n"[i % 13];
    size_t zlen;
    unsigned char *z = gzip_bytes(body, n, &zlen);
    assert_non_null(z);
    assert_true(zlen < n / 10);
    assert_true(z[0] == 0x1f && z[1] == 0x8b); /* gzip, not zlib's header */
    z_stream s = {0};
    assert_int_equal(inflateInit2(&s, 15 + 16), Z_OK);
    char *back = malloc(n + 1);
    s.next_in = z;
    s.avail_in = (uInt)zlen;
    s.next_out = (Bytef *)back;
    s.avail_out = (uInt)n + 1;
    assert_int_equal(inflate(&s, Z_FINISH), Z_STREAM_END);
    assert_int_equal(s.total_out, n);
    assert_memory_equal(back, body, n);
    inflateEnd(&s);
    free(back);
    free(z);
    free(body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_etag_follows_the_bytes),
        cmocka_unit_test(test_a_current_copy_is_not_sent_again),
        cmocka_unit_test(test_gzip_when_accepted),
        cmocka_unit_test(test_the_gzip_member_inflates_to_the_body),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
