/*
 * cli.c - the guest programs' command-line helpers (guest_cli.h).
 */
#include "guest_cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *prog_name = "mortar";

void cli_set_prog(const char *name)
{
    prog_name = name;
}

const char *cli_prog(void)
{
    return prog_name;
}

static void vreport(const char *fmt, va_list ap)
{
    fflush(stdout);
    fprintf(stderr, "%s: ", prog_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(fmt, ap);
    va_end(ap);
    exit(1);
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(fmt, ap);
    va_end(ap);
}

uint64_t cli_parse_u64(const char *opt, const char *text, uint64_t min, uint64_t max)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    /* strtoull accepts "-1" as a huge number; a sign is never meant here */
    if (errno || *end || !*text || *text == '-' || v < min || v > max) {
        fprintf(stderr, "%s: %s wants a number in %" PRIu64 "..%" PRIu64 ", not '%s'\n",
                prog_name, opt, min, max, text);
        exit(2);
    }
    return v;
}

void cli_step(const char *step)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    printf("MORTAR-STEP %s %lld.%06ld\n", step, (long long)ts.tv_sec, ts.tv_nsec / 1000);
    fflush(stdout);
}

int cli_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
