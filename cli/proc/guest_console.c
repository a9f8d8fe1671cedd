/*
 * guest_console.c - reading a guest's console lines (see guest_console.h).
 */
#include "guest_console.h"

#include <ctype.h>
#include <stdio.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>

/* The message of a kernel line: past "[ <seconds>.<micro>] " if it has one. */
static const char *kernel_message(const char *line)
{
    if (line[0] != '[')
        return line;
    const char *p = line + 1 + strspn(line + 1, " ");
    size_t digits = strspn(p, "0123456789");
    if (!digits || p[digits] != '.')
        return line;
    p += digits + 1;
    p += strspn(p, "0123456789");
    return p[0] == ']' && p[1] == ' ' ? p + 2 : line;
}

bool guest_console_kernel_crash(const char *line)
{
    static const char *const starts[] = {"BUG: ", "Oops: ", "general protection fault",
                                         "double fault", "Kernel panic"};
    const char *msg = kernel_message(line);
    for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++)
        if (!strncmp(msg, starts[k], strlen(starts[k])))
            return true;
    return false;
}

bool guest_console_exit(const char *line, long *status)
{
    if (strncmp(line, "MORTAR-EXIT ", 12))
        return false;
    char *end;
    long v = strtol(line + 12, &end, 10);
    bool number = end != line + 12 && (*end == '\0' || isspace((unsigned char)*end));
    *status = number ? v : 255;
    return true;
}

bool guest_console_setup_failed(const char *line, const char **why)
{
    if (strncmp(line, "MORTAR-FAIL ", 12))
        return false;
    *why = line + 12;
    return true;
}

bool guest_console_failure(FILE *console, char *what, size_t size)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    bool failed = false;
    while (!failed && (n = getline(&line, &cap, console)) > 0 && line[n - 1] == '\n') {
        long code = 0;
        const char *why;
        bool crashed = guest_console_kernel_crash(line);
        line[strcspn(line, "\r\n")] = '\0';
        failed = true;
        if (guest_console_setup_failed(line, &why))
            snprintf(what, size, "%.300s", why);
        else if (crashed || (guest_console_exit(line, &code) && code != 0))
            snprintf(what, size, "%s: %.200s",
                     crashed ? "the guest kernel crashed" : "its program failed", line);
        else
            failed = false;
    }
    free(line);
    return failed;
}
