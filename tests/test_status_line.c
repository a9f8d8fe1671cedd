/*
 * test_status_line.c - the status line of `mortar run` and `mortar sweep`
 * (cli/base/status_line.c) on a pseudo-terminal: redrawn in place, cut to the
 * terminal's width, and cleared; nothing at all when not on a terminal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "status_line.h"

typedef struct pty {
    int master, saved_stderr;
} pty;

/* Points stderr at a new pseudo-terminal `columns` wide, raw (no newline
 * translation), so what is written reads back as it is from the master. */
static void pty_open(pty *t, unsigned short columns)
{
    t->master = posix_openpt(O_RDWR | O_NOCTTY);
    assert_true(t->master >= 0);
    assert_int_equal(grantpt(t->master), 0);
    assert_int_equal(unlockpt(t->master), 0);
    int slave = open(ptsname(t->master), O_RDWR | O_NOCTTY);
    assert_true(slave >= 0);
    struct termios tio;
    assert_int_equal(tcgetattr(slave, &tio), 0);
    cfmakeraw(&tio);
    assert_int_equal(tcsetattr(slave, TCSANOW, &tio), 0);
    struct winsize ws = {.ws_row = 24, .ws_col = columns};
    assert_int_equal(ioctl(slave, TIOCSWINSZ, &ws), 0);
    fflush(stderr);
    t->saved_stderr = dup(STDERR_FILENO);
    assert_int_equal(dup2(slave, STDERR_FILENO), STDERR_FILENO);
    close(slave);
}

/* What the terminal received so far (waiting a moment for it to arrive). */
static void pty_read(pty *t, char *buf, size_t size)
{
    fflush(stderr);
    size_t got = 0;
    struct pollfd pfd = {.fd = t->master, .events = POLLIN};
    while (got < size - 1 && poll(&pfd, 1, 200) == 1) {
        ssize_t n = read(t->master, buf + got, size - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
}

static void pty_close(pty *t)
{
    fflush(stderr);
    dup2(t->saved_stderr, STDERR_FILENO);
    close(t->saved_stderr);
    close(t->master);
}

static void test_the_line_is_redrawn_cut_to_the_width_and_cleared(void **state)
{
    (void)state;
    pty t;
    pty_open(&t, 20);
    status_line s = {.tty = isatty(STDERR_FILENO)};
    assert_true(s.tty);
    char got[256];
    status_line_show(&s, "[mortar] run 12: 3.41 ms simulated, 37/60 requests");
    pty_read(&t, got, sizeof got);
    /* one column short of the width, so the cursor never wraps */
    assert_string_equal(got, "\r\033[K[mortar] run 12: 3.");
    assert_true(s.drawn);
    status_line_show(&s, "short");
    pty_read(&t, got, sizeof got);
    assert_string_equal(got, "\r\033[Kshort");
    status_line_clear(&s);
    pty_read(&t, got, sizeof got);
    assert_string_equal(got, "\r\033[K");
    assert_false(s.drawn);
    /* cleared already: nothing more */
    status_line_clear(&s);
    pty_read(&t, got, sizeof got);
    assert_string_equal(got, "");
    pty_close(&t);
}

static void test_nothing_is_written_when_not_on_a_terminal(void **state)
{
    (void)state;
    pty t;
    pty_open(&t, 80);
    status_line s = {.tty = false};
    status_line_show(&s, "anything");
    status_line_clear(&s);
    char got[64];
    pty_read(&t, got, sizeof got);
    assert_string_equal(got, "");
    assert_false(s.drawn);
    pty_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_line_is_redrawn_cut_to_the_width_and_cleared),
        cmocka_unit_test(test_nothing_is_written_when_not_on_a_terminal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
