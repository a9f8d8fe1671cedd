/*
 * guest_cli.h - what every guest program's command line needs: one way to
 * name the program in messages, to give up, to warn and to read a number.
 *
 * The library proper (mortar_guest.h) never prints and never exits; these
 * helpers do both, so only programs (guest/programs) include this header.
 * Exit codes: 1 for a failure at run time (cli_die), 2 for a bad command
 * line (cli_parse_u64), as the programs' usage texts say.
 */
#ifndef MORTAR_GUEST_CLI_H
#define MORTAR_GUEST_CLI_H

#include <stdint.h>

/* Sets the name every message starts with ("mortar-my-client: ..."). */
void cli_set_prog(const char *name);

/* The name set by cli_set_prog ("mortar" before). */
const char *cli_prog(void);

/* Prints "<prog>: <message>\n" to stderr (stdout flushed first, so the two
 * streams stay in order on the console) and exits with status 1. */
void cli_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* As cli_die, without exiting. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The value of option `opt` given as `text` (decimal, or 0x hex); a value
 * that is not a number in min..max ends the program with status 2 and a
 * message naming the option, the range and the text. */
uint64_t cli_parse_u64(const char *opt, const char *text, uint64_t min, uint64_t max);

/* Prints "MORTAR-STEP <step> <s>" with the guest's CLOCK_MONOTONIC in
 * seconds (microsecond digits) and flushes: where a run's guest time goes
 * before its work starts, next to guest/init's lines (docs/hosts.md). */
void cli_step(const char *step);

/* qsort comparator for uint64_t, ascending. */
int cli_cmp_u64(const void *a, const void *b);

#endif
