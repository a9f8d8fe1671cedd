/*
 * test_xalloc.c - allocations that do not fail (cli/base/xalloc.c): they give
 * memory also for a zero count or size, where calloc and realloc may give
 * NULL, and an impossible size aborts the process instead of returning
 * NULL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xalloc.h"

static void test_copies_and_zeroed_memory_are_given(void **state)
{
    (void)state;
    char *s = xstrdup("study");
    assert_string_equal(s, "study");
    free(s);
    int *v = xcalloc(4, sizeof *v);
    for (int i = 0; i < 4; i++)
        assert_int_equal(v[i], 0);
    v = xrealloc(v, 8 * sizeof *v);
    v[7] = 1;
    free(v);
}

static void test_a_zero_count_or_size_still_gives_memory(void **state)
{
    (void)state;
    void *a = xcalloc(0, 8), *b = xcalloc(8, 0), *c = xrealloc(NULL, 0);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    free(a);
    free(b);
    free(c);
}

static const char *self; /* this program, run again as the child below */

/* The child: asks for more than there is. */
static int impossible_allocation(void)
{
    void *p = xrealloc(NULL, SIZE_MAX - 4096);
    free(p);
    return 0; /* not reached */
}

static void test_an_impossible_size_aborts(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* a sanitized build reports the size itself unless told to return
         * NULL, as plain malloc does; it reads that when the program starts */
        setenv("ASAN_OPTIONS", "allocator_may_return_null=1:detect_leaks=0", 1);
        execl(self, self, "--impossible-allocation", (char *)NULL);
        _exit(127);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

int main(int argc, char **argv)
{
    self = argv[0];
    if (argc > 1 && !strcmp(argv[1], "--impossible-allocation"))
        return impossible_allocation();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copies_and_zeroed_memory_are_given),
        cmocka_unit_test(test_a_zero_count_or_size_still_gives_memory),
        cmocka_unit_test(test_an_impossible_size_aborts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
