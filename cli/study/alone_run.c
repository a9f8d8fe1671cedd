/*
 * alone_run.c - the alone times of study variants (alone.h): a variant's
 * alone command with the knob values put in, run as a child process
 * (launch.h) with its output in temporary files, its result key read from
 * the key=value lines, and alone_time(), which reads the newest recorded
 * alone run of that command from the results database and measures (and
 * records) one only when there is none. Nothing here knows a study's
 * program or the numbers it should print.
 */
#include "alone.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "errbuf.h"
#include "launch.h"
#include "paths.h"
#include "spec.h"

#define ALONE_MAX_WORDS 64
/* An alone benchmark prints a few lines; more than this is not read. */
#define ALONE_MAX_OUTPUT (1 << 20)

/* ---- the command --------------------------------------------------------- */

/* Appends `n` bytes of `s` to out[*len]; -1 when it does not fit. */
static int append(char *out, size_t size, size_t *len, const char *s, size_t n)
{
    if (*len + n >= size)
        return -1;
    memcpy(out + *len, s, n);
    *len += n;
    out[*len] = '\0';
    return 0;
}

/* The value of knob `name` in `at` as --set text, in `buf`. */
static int knob_value(const study_variant *v, json_t *at, const char *name, char *buf,
                      size_t size, char *err, size_t err_size)
{
    json_t *value = json_object_get(at, name);
    if (!value)
        return errbuf_fail(err, err_size,
                           "the alone command of variant %s needs a value of knob %s",
                           v->name, name);
    if (spec_value_text(value, buf, size) || strpbrk(buf, " \t\n"))
        return errbuf_fail(err, err_size,
                           "the value of knob %s is not a word an alone command can take",
                           name);
    return 0;
}

int alone_command(const study_variant *v, json_t *at, char *out, size_t size, char *err,
                  size_t err_size)
{
    const char *p = v->alone.command;
    size_t len = 0;
    out[0] = '\0';
    if (!p)
        return errbuf_fail(err, err_size, "variant %s has no alone benchmark", v->name);
    while (*p) {
        size_t words = strspn(p, " \t");
        if (words) {
            p += words;
            if (*p && len && append(out, size, &len, " ", 1))
                goto too_long;
            continue;
        }
        if (*p != '$') {
            size_t n = strcspn(p, "$ \t");
            if (append(out, size, &len, p, n))
                goto too_long;
            p += n;
            continue;
        }
        bool braced = p[1] == '{';
        const char *start = p + 1 + braced;
        size_t n = braced ? strcspn(start, "}")
                          : strspn(start, "abcdefghijklmnopqrstuvwxyz"
                                          "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");
        char name[256], value[256];
        if (n == 0 || n >= sizeof name || (braced && !start[n]))
            return errbuf_fail(err, err_size,
                               "the alone command of variant %s: a bad '$'", v->name);
        snprintf(name, sizeof name, "%.*s", (int)n, start);
        if (knob_value(v, at, name, value, sizeof value, err, err_size))
            return -1;
        if (append(out, size, &len, value, strlen(value)))
            goto too_long;
        p = start + n + braced;
    }
    return 0;
too_long:
    return errbuf_fail(err, err_size, "the alone command of variant %s is too long",
                       v->name);
}

/* ---- running it ------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A new empty file for a child's output, its path in `path`. */
static int temp_file(char *path, size_t size, const char *what, char *err,
                     size_t err_size)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, size, "%s/mortar-alone-%s-XXXXXX", dir && *dir ? dir : "/tmp", what);
    int fd = mkstemp(path);
    if (fd < 0)
        return errbuf_fail(err, err_size, "%s: %s", path, strerror(errno));
    close(fd);
    return 0;
}

/* The text of file `path` (up to ALONE_MAX_OUTPUT bytes), a new string. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text = calloc(1, ALONE_MAX_OUTPUT + 1);
    size_t n = f && text ? fread(text, 1, ALONE_MAX_OUTPUT, f) : 0;
    if (text)
        text[n] = '\0';
    if (f)
        fclose(f);
    return text;
}

/* The value of the last `key=<number>` line of `text`; false when none. */
static bool result_of(const char *text, const char *key, double *out)
{
    size_t klen = strlen(key);
    bool found = false;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        if (n > klen && !strncmp(line, key, klen) && line[klen] == '=') {
            char num[64], *stop;
            snprintf(num, sizeof num, "%.*s", (int)(n - klen - 1), line + klen + 1);
            errno = 0;
            double v = strtod(num, &stop);
            if (stop != num && *stop == '\0' && errno == 0) {
                *out = v;
                found = true;
            }
        }
        line = end ? end + 1 : NULL;
    }
    return found;
}

/* The last line of `text` (for an error), in `buf`. */
static const char *last_line(const char *text, char *buf, size_t size)
{
    size_t n = strlen(text);
    while (n && text[n - 1] == '\n')
        n--;
    size_t start = n;
    while (start && text[start - 1] != '\n')
        start--;
    snprintf(buf, size, "%.*s", (int)(n - start), text + start);
    return buf;
}

/* Splits `command` (words joined by one space) into argv over `copy`. */
static size_t split_words(char *copy, char **argv, size_t max)
{
    size_t n = 0;
    for (char *save, *w = strtok_r(copy, " ", &save); w && n + 1 < max;
         w = strtok_r(NULL, " ", &save))
        argv[n++] = w;
    argv[n] = NULL;
    return n;
}

/* Waits for the child, its launch_status. */
static int wait_child(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return launch_status(status);
}

static void judge(alone_outcome *o, int status, const char *result_key)
{
    char line[256];
    if (status != 0)
        snprintf(o->error, sizeof o->error, "exit status %d%s%s", status,
                 *o->errors ? ": " : "", last_line(o->errors, line, sizeof line));
    else if (!result_of(o->output, result_key, &o->result))
        snprintf(o->error, sizeof o->error, "it printed no %s=<number> line", result_key);
    else
        o->ok = 1;
}

int alone_run_command(const char *command, const char *result_key, alone_outcome *o,
                      char *err, size_t err_size)
{
    *o = (alone_outcome){0};
    char *copy = strdup(command), *argv[ALONE_MAX_WORDS], program[PATH_MAX];
    char out_path[PATH_MAX], err_path[PATH_MAX];
    int rc = -1;
    if (!copy || split_words(copy, argv, ALONE_MAX_WORDS) == 0) {
        errbuf_fail(err, err_size, "an empty alone command");
        goto done;
    }
    if (paths_program(argv[0], program, sizeof program, err, err_size) ||
        temp_file(out_path, sizeof out_path, "out", err, err_size))
        goto done;
    if (temp_file(err_path, sizeof err_path, "err", err, err_size)) {
        unlink(out_path);
        goto done;
    }
    launch_spec spec = {.who = "mortar",
                        .name = argv[0],
                        .path = program,
                        .argv = argv,
                        .out_path = out_path,
                        .err_path = err_path,
                        .append = true,
                        .death_signal = SIGKILL};
    double t0 = now_s();
    pid_t pid = launch_start(&spec);
    int status = pid < 0 ? -1 : wait_child(pid);
    o->wall_s = now_s() - t0;
    o->output = read_text(out_path);
    o->errors = read_text(err_path);
    unlink(out_path);
    unlink(err_path);
    if (pid < 0 || status < 0 || !o->output || !o->errors) {
        errbuf_fail(err, err_size, "cannot run %s: %s", program, strerror(errno));
        alone_outcome_free(o);
        goto done;
    }
    judge(o, status, result_key);
    rc = 0;
done:
    free(copy);
    return rc;
}

void alone_outcome_free(alone_outcome *o)
{
    free(o->output);
    free(o->errors);
    o->output = o->errors = NULL;
}

/* ---- alone_time ------------------------------------------------------------ */

int alone_time(const char *db_path, const study *s, const study_variant *v, json_t *at,
               double *us, char *err, size_t size)
{
    if (!v->alone.command)
        return 1;
    char command[4096], why[512];
    if (alone_command(v, at, command, sizeof command, err, size))
        return -1;
    /* A database this user cannot write is still read; the time measured
     * then is not recorded. */
    db_conn *db = NULL;
    if (db_path && db_open(&db, db_path, why, sizeof why))
        db = NULL;
    int found = db ? db_alone_result(db, v->name, command, us, why, sizeof why) : 0;
    if (found == 1) {
        db_close(db);
        return 0;
    }
    alone_outcome o;
    if (alone_run_command(command, v->alone.result, &o, err, size)) {
        db_close(db);
        return -1;
    }
    if (db) {
        db_alone_run run = {.variant = v->name,
                            .command = command,
                            .status = o.ok ? "ok" : "failed",
                            .error = o.ok ? NULL : o.error,
                            .output = o.output,
                            .result_us = o.result,
                            .wall_s = o.wall_s};
        db_record_alone_run(db, &run);
        db_close(db);
    }
    int rc = 0;
    if (o.ok)
        *us = o.result;
    else
        rc = errbuf_fail(err, size, "%s: the alone benchmark of %s (%s) failed: %s",
                         s->path, v->name, command, o.error);
    alone_outcome_free(&o);
    return rc;
}
