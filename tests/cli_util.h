/*
 * cli_util.h - helpers for tests that run the `mortar` command: a private
 * scratch directory, and one command's exit status, stdout and stderr.
 */
#ifndef MORTAR_TEST_CLI_UTIL_H
#define MORTAR_TEST_CLI_UTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "proc_util.h"

/* A fresh directory under /tmp (static buffer). */
static inline const char *scratch_dir(void)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/mortar-cli-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(99);
    }
    return dir;
}

static inline const char *source_dir(void)
{
    const char *s = getenv("MORTAR_SOURCE");
    return s ? s : ".";
}

/* Whether this build's default study (<MORTAR_BIN>/../share/mortar/
 * default-study, relative to the source tree) is there: a build of the
 * platform without studies/ has none, and a test of a command that reads
 * it is skipped there. */
static inline bool have_default_study(void)
{
    const char *bin = getenv("MORTAR_BIN");
    char path[1024], rel[512] = "";
    snprintf(path, sizeof path, "%s/../share/mortar/default-study", bin ? bin : "build/bin");
    FILE *f = fopen(path, "r");
    bool read = f && fgets(rel, sizeof rel, f);
    if (f)
        fclose(f);
    rel[strcspn(rel, "\n")] = '\0';
    snprintf(path, sizeof path, "%s/%s", source_dir(), rel);
    return read && rel[0] && access(path, F_OK) == 0;
}

/* Runs `mortar <args>` (a shell word list) in `dir` with stderr captured
 * into `err` (size bytes); returns the exit status. */
static inline int run_mortar(const char *dir, const char *args, char *err, size_t size)
{
    char cmd[4096], log[128];
    snprintf(log, sizeof log, "%s/stderr.txt", dir);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s/mortar' %s >/dev/null 2>'%s'", dir,
             bin_dir(), args, log);
    int st = system(cmd);
    char *text = read_text(log);
    snprintf(err, size, "%s", text ? text : "");
    free(text);
    remove(log);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* What one command did: its exit status (128 when it did not exit) and
 * its stdout and stderr (malloc'd, never NULL). */
typedef struct cli_result {
    int status;
    char *out, *err;
} cli_result;

/* Runs the shell command `command` in `dir`, stdin from /dev/null, with
 * stdout and stderr captured. */
static inline cli_result run_command(const char *dir, const char *command)
{
    char cmd[8192], out[256], err[256];
    snprintf(out, sizeof out, "%s/stdout.txt", dir);
    snprintf(err, sizeof err, "%s/stderr.txt", dir);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s </dev/null >'%s' 2>'%s'", dir, command, out, err);
    int st = system(cmd);
    cli_result r = {.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128};
    r.out = read_text(out);
    r.err = read_text(err);
    if (!r.out)
        r.out = calloc(1, 1);
    if (!r.err)
        r.err = calloc(1, 1);
    remove(out);
    remove(err);
    return r;
}

/* Runs `<bin dir>/<program> <args>` (args: a shell word list) in `dir`, as
 * run_command. */
static inline cli_result run_program(const char *dir, const char *program, const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s/%s' %s", bin_dir(), program, args);
    return run_command(dir, cmd);
}

static inline void cli_result_free(cli_result *r)
{
    free(r->out);
    free(r->err);
}

static inline void remove_tree(const char *dir)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

#endif
