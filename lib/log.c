/*
 * log.c - leveled log lines on stderr with a name prefix.
 *
 * Used by executables and models only; library code returns errors instead.
 */
#include "mortar/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mortar_log_level current_level = MORTAR_LOG_INFO;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

void mortar_log_set_level(mortar_log_level level)
{
    current_level = level;
}

mortar_log_level mortar_log_get_level(void)
{
    return current_level;
}

void mortar_log_init_from_env(void)
{
    const char *v = getenv("MORTAR_LOG");
    if (!v)
        return;
    for (int i = 0; i <= MORTAR_LOG_DEBUG; i++)
        if (strcmp(v, level_names[i]) == 0)
            current_level = (mortar_log_level)i;
}

void mortar_vlog(mortar_log_level level, const char *name, const char *fmt, va_list ap)
{
    if (level > current_level)
        return;
    char line[1024];
    int n = snprintf(line, sizeof line, "[%s] %s: ", level_names[level], name ? name : "mortar");
    if (n < 0)
        return;
    if ((size_t)n < sizeof line)
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    fprintf(stderr, "%s\n", line);
}

void mortar_log(mortar_log_level level, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mortar_vlog(level, name, fmt, ap);
    va_end(ap);
}
