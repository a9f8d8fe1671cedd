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

const char *status_line_duration(double seconds, char *buf, size_t size)
{
    long s = seconds > 0 ? (long)(seconds + 0.5) : 0;
    if (s < 60)
        snprintf(buf, size, "%lds", s);
    else if (s < 3600)
        snprintf(buf, size, "%ldm%02lds", s / 60, s % 60);
    else
        snprintf(buf, size, "%ldh%02ldm", s / 3600, s % 3600 / 60);
    return buf;
}
