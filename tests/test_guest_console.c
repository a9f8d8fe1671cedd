/*
 * test_guest_console.c - what a guest's console line says
 * (cli/proc/guest_console.c): a kernel crash only as a kernel message (a
 * program's "DEBUG: " once failed its run as a crashed kernel), and init's
 * exit status.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "guest_console.h"

static void test_a_crash_is_a_kernel_message_that_starts_with_its_phrase(void **state)
{
    (void)state;
    const char *crashes[] = {
        "[   12.345678] BUG: kernel NULL pointer dereference, address: 0000000000000000\n",
        "[    0.000001] Oops: 0000 [#1] PREEMPT SMP NOPTI\n",
        "[ 1234.5] general protection fault, probably for non-canonical address\n",
        "Kernel panic - not syncing: VFS: Unable to mount root fs\n",
        "BUG: soft lockup - CPU#0 stuck for 22s!\n",
    };
    for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++)
        if (!guest_console_kernel_crash(crashes[i]))
            fail_msg("not a crash: %s", crashes[i]);
    const char *fine[] = {
        "DEBUG: step 3\n",
        "req=1 latency_ns=5 note=BUG: \n",
        "[   12.3] i40e 0000:00:04.0: no BUG: here\n",
        "[12.3]BUG: no space after the stamp is not the kernel's\n",
        "mortar-matmul-server: Oops: the input was short\n",
        "\n",
    };
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++)
        if (guest_console_kernel_crash(fine[i]))
            fail_msg("taken for a crash: %s", fine[i]);
}

static void test_init_exit_line_gives_the_status(void **state)
{
    (void)state;
    long status = -1;
    assert_true(guest_console_exit("MORTAR-EXIT 0\n", &status));
    assert_int_equal(status, 0);
    assert_true(guest_console_exit("MORTAR-EXIT 3\n", &status));
    assert_int_equal(status, 3);
    assert_true(guest_console_exit("MORTAR-EXIT x\n", &status));
    assert_int_equal(status, 255);
    assert_false(guest_console_exit("echo MORTAR-EXIT 0\n", &status));
}

static void test_init_fail_line_gives_the_reason(void **state)
{
    (void)state;
    const char *why = NULL;
    assert_true(guest_console_setup_failed("MORTAR-FAIL a program was not installed", &why));
    assert_string_equal(why, "a program was not installed");
    assert_false(guest_console_setup_failed("echo MORTAR-FAIL x", &why));
    assert_false(guest_console_setup_failed("MORTAR-FAILED x", &why));
}

/* What guest_console_failure() says of a console holding `text`. */
static bool console_failure(const char *text, char *what, size_t size)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(f);
    bool failed = guest_console_failure(f, what, size);
    fclose(f);
    return failed;
}

static void test_a_console_line_still_being_written_is_not_read(void **state)
{
    (void)state;
    char what[400] = "";
    /* a reason cut short had been recorded as the run's error */
    assert_false(console_failure("boot\nMORTAR-FAIL a program of this host was not insta",
                                 what, sizeof what));
    assert_true(console_failure("boot\nMORTAR-FAIL a program of this host was not "
                                "installed: sh\nMORTAR-EXIT 3\n",
                                what, sizeof what));
    assert_string_equal(what, "a program of this host was not installed: sh");
    assert_true(console_failure("MORTAR-EXIT 0\n[    1.5] BUG: bad\n", what, sizeof what));
    assert_string_equal(what, "the guest kernel crashed: [    1.5] BUG: bad");
    assert_true(console_failure("MORTAR-EXIT 2\n", what, sizeof what));
    assert_string_equal(what, "its program failed: MORTAR-EXIT 2");
    assert_false(console_failure("MORTAR-EXIT 0\nMORTAR-EXIT 2", what, sizeof what));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_crash_is_a_kernel_message_that_starts_with_its_phrase),
        cmocka_unit_test(test_init_exit_line_gives_the_status),
        cmocka_unit_test(test_init_fail_line_gives_the_reason),
        cmocka_unit_test(test_a_console_line_still_being_written_is_not_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
