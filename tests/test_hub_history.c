/*
 * test_hub_history.c - the QEMU hub's last steps in time
 * (hosts/qemu/src/mortar_hub_history.c, compiled in): the ring keeps the
 * last MORTAR_HISTORY_LEN steps, writes them oldest first, one line each
 * with the prefix, names each step's link, and survives an unknown kind or
 * link.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mortar_hub_history.h"

static const char *const names[] = {"nic", "accel"};

/* What mortar_history_write writes, as a string the caller frees. */
static char *written(const mortar_history *h)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    assert_non_null(f);
    mortar_history_write(h, f, "> ", names, 2);
    fclose(f);
    return buf;
}

static unsigned lines(const char *s)
{
    unsigned n = 0;
    for (; *s; s++) {
        n += *s == '\n';
    }
    return n;
}

static void keeps_every_step_until_full(void **state)
{
    (void)state;
    static mortar_history h;
    memset(&h, 0, sizeof h);
    mortar_history_note(&h, MORTAR_STEP_SEND, 1, 0x40, 1000, 3500, 7, 0);
    mortar_history_note(&h, MORTAR_STEP_ARM, 0, 0, 2000, 4, 4, 0);
    mortar_history_note(&h, MORTAR_STEP_BOUND, 0, 1, 2000, 5000, 6000, UINT64_MAX);
    char *s = written(&h);
    assert_int_equal(lines(s), 3);
    assert_non_null(strstr(s, "> 1000 send accel type 0x40: stamp 3500, 7 sent\n"));
    assert_non_null(strstr(s, "> 2000 arm: horizon 4 ns, committed 4 ns\n"));
    assert_non_null(strstr(s, "> 2000 bound nic: let 5000, input bound 6000, first unseen "
                              "18446744073709551615, a message waits\n"));
    assert_true(strstr(s, "send") < strstr(s, "arm"));
    free(s);
}

static void keeps_the_last_steps_oldest_first(void **state)
{
    (void)state;
    static mortar_history h;
    memset(&h, 0, sizeof h);
    for (uint64_t i = 0; i < 3 * MORTAR_HISTORY_LEN + 5; i++) {
        mortar_history_note(&h, MORTAR_STEP_IDLE_JUMP, 0, 0, i, i + 1, 0, 0);
    }
    char *s = written(&h);
    assert_int_equal(lines(s), MORTAR_HISTORY_LEN);
    char first[64], last[64];
    snprintf(first, sizeof first, "> %d idle-jump: to %d\n", 2 * MORTAR_HISTORY_LEN + 5,
             2 * MORTAR_HISTORY_LEN + 6);
    snprintf(last, sizeof last, "> %d idle-jump: to %d\n", 3 * MORTAR_HISTORY_LEN + 4,
             3 * MORTAR_HISTORY_LEN + 5);
    assert_ptr_equal(strstr(s, first), s);
    assert_non_null(strstr(s, last));
    assert_int_equal(strlen(strstr(s, last)), strlen(last));
    free(s);
}

static void unknown_kinds_and_links_are_written_plainly(void **state)
{
    (void)state;
    static mortar_history h;
    memset(&h, 0, sizeof h);
    mortar_history_note(&h, MORTAR_STEP_HANDLE, 9, 0x21, 10, 11, 0, 0);
    mortar_history_note(&h, (mortar_step_kind)200, 0, 0, 20, 21, 0, 0);
    char *s = written(&h);
    assert_non_null(strstr(s, "> 10 handle ? type 0x21: stamp 11\n"));
    assert_non_null(strstr(s, "> 20 ?: to 21\n"));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keeps_every_step_until_full),
        cmocka_unit_test(keeps_the_last_steps_oldest_first),
        cmocka_unit_test(unknown_kinds_and_links_are_written_plainly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
