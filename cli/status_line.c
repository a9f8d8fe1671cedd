/*
 * status_line.c - the redrawn status line. See status_line.h.
 */
#include "status_line.h"

#include <stdio.h>
#include <unistd.h>
#include <sys/ioctl.h>

/* The terminal's width (80 when it cannot be asked). */
static int terminal_columns(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

void status_line_show(status_line *s, const char *text)
{
    if (!s->tty)
        return;
    fprintf(stderr, "\r\033[K%.*s", terminal_columns() - 1, text);
    fflush(stderr);
    s->drawn = true;
}

void status_line_clear(status_line *s)
{
    if (s->tty && s->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    s->drawn = false;
}
