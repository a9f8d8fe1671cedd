/*
 * status_line.h - one status line at the foot of a terminal, redrawn in
 * place and cut to the terminal's width (a longer line would wrap and break
 * the redraw); `mortar sweep`'s bar and `mortar run`'s progress share it.
 * Anything else printed to stderr clears it first.
 */
#ifndef MORTAR_CLI_STATUS_LINE_H
#define MORTAR_CLI_STATUS_LINE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct status_line {
    bool tty;   /* stderr is a terminal: draw; otherwise every call is a no-op */
    bool drawn; /* the line is on the screen */
} status_line;

/* Redraws the line with `text`. */
void status_line_show(status_line *s, const char *text);

/* Removes the line, so that the next output starts on a clean line. */
void status_line_clear(status_line *s);

/* A duration as both displays print it, "45s", "12m03s" or "1h05m", into
 * buf; returns buf. */
const char *status_line_duration(double seconds, char *buf, size_t size);

#endif
