/*
 * guest_console.h - what a line of a guest's console says about the guest:
 * that its kernel crashed, that it could not be set up as its spec says
 * (guest/init prints "MORTAR-FAIL <why>"), or that its program ended
 * ("MORTAR-EXIT <status>").
 *
 * A kernel's crash report is a kernel message: it starts the line, after
 * the printk time stamp ("[   12.345678] ") when there is one. Text that
 * merely contains one of its phrases ("DEBUG: ...", a program that prints
 * "no BUG: here") is not a crash.
 */
#ifndef MORTAR_CLI_GUEST_CONSOLE_H
#define MORTAR_CLI_GUEST_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether `line` is the start of a kernel crash report (BUG, Oops, general
 * protection fault, double fault, Kernel panic). */
bool guest_console_kernel_crash(const char *line);

/* Whether `line` is init's "MORTAR-FAIL <why>"; *why points into `line`. */
bool guest_console_setup_failed(const char *line, const char **why);

/* Whether `line` is init's "MORTAR-EXIT <status>"; the status in *status
 * (a status that is not a number counts as 255). */
bool guest_console_exit(const char *line, long *status);

/* Reads a console log from its start and says whether it shows the guest
 * failed: a crash report, "MORTAR-FAIL <why>" or a nonzero "MORTAR-EXIT".
 * If so, what happened in `what` ("the guest kernel crashed: <line>",
 * "<why>", "its program failed: <line>"). A last line without its newline
 * is not read: the serial port writes a character at a time, so it may
 * still be growing. */
bool guest_console_failure(FILE *console, char *what, size_t size);

#endif
