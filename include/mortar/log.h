/*
 * mortar/log.h - the one logging module of executables and models.
 *
 * Lines go to stderr as "[level] name: message". Library code in lib/ does not
 * log; it returns errors. Models and executables log through here, with the
 * component's or program's name as prefix.
 */
#ifndef MORTAR_LOG_H
#define MORTAR_LOG_H

#include <stdarg.h>

typedef enum {
    MORTAR_LOG_ERROR = 0,
    MORTAR_LOG_WARN = 1,
    MORTAR_LOG_INFO = 2,
    MORTAR_LOG_DEBUG = 3,
} mortar_log_level;

/* Lines above this level are dropped. Default INFO; MORTAR_LOG=debug sets it. */
void mortar_log_set_level(mortar_log_level level);
mortar_log_level mortar_log_get_level(void);

/* Reads MORTAR_LOG (error, warn, info, debug) from the environment. */
void mortar_log_init_from_env(void);

void mortar_log(mortar_log_level level, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mortar_vlog(mortar_log_level level, const char *name, const char *fmt, va_list ap);

#endif
