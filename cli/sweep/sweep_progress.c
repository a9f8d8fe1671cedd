/*
 * sweep_progress.c - the sweep's progress bar and status lines. See
 * sweep_progress.h.
 */
#include "sweep_progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "status_line.h"

#define BAR_WIDTH 16

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_init(progress *p, size_t total, size_t done_before, size_t jobs, bool tty)
{
    *p = (progress){.total = total,
                    .done = done_before,
                    .jobs = jobs ? jobs : 1,
                    .start_s = progress_now(),
                    .line = {.tty = tty}};
}

void progress_set_total(progress *p, size_t total)
{
    p->total = total > p->done + p->running ? total : p->done + p->running;
}

void progress_expect(progress *p, double wall_s)
{
    p->expected_s = wall_s > 0 ? wall_s : 0;
}

double progress_eta_s(const progress *p, double now)
{
    double per_run =
        p->finished_here ? p->wall_sum_s / (double)p->finished_here : p->expected_s;
    if (per_run <= 0)
        return -1;
    size_t not_started = p->total - p->done - p->running;
    double running_left =
        (double)p->running * per_run - ((double)p->running * now - p->started_sum_s);
    double work = (double)not_started * per_run + (running_left > 0 ? running_left : 0);
    return work / (double)p->jobs;
}

/* "ETA 1h10m", or "ETA --" while it cannot be told. */
static const char *eta_text(const progress *p, char *buf, size_t size)
{
    double eta = progress_eta_s(p, progress_now());
    char d[32];
    snprintf(buf, size, "ETA %s",
             eta < 0 ? "--" : status_line_duration(eta, d, sizeof d));
    return buf;
}

static void status_text(const progress *p, char *buf, size_t size)
{
    char elapsed[32], eta[48];
    snprintf(
        buf, size, "%zu/%zu done, %zu failed, %zu running, %s elapsed, %s", p->done,
        p->total, p->failed, p->running,
        status_line_duration(progress_now() - p->start_s, elapsed, sizeof elapsed),
        eta_text(p, eta, sizeof eta));
}

static void clear_bar(progress *p)
{
    status_line_clear(&p->line);
}

void progress_draw(progress *p)
{
    if (!p->line.tty)
        return;
    char bar[BAR_WIDTH + 1], status[256];
    size_t filled = p->total ? p->done * BAR_WIDTH / p->total : BAR_WIDTH;
    for (size_t i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    status_text(p, status, sizeof status);
    char line[300];
    snprintf(line, sizeof line, "[%s] %s", bar, status);
    status_line_show(&p->line, line);
}

void progress_message(progress *p, const char *fmt, ...)
{
    clear_bar(p);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    progress_draw(p);
}

void progress_started(progress *p)
{
    p->running++;
    p->started_sum_s += progress_now();
    progress_draw(p);
}

void progress_finished(progress *p, bool ok, double wall_s, const char *line)
{
    p->running--;
    p->started_sum_s -= progress_now() - wall_s;
    p->done++;
    p->failed += !ok;
    p->finished_here++;
    p->wall_sum_s += wall_s;
    progress_message(p, "%s", line);
    if (!p->line.tty) {
        char status[256];
        status_text(p, status, sizeof status);
        fprintf(stderr, "[sweep] %s\n", status);
    }
}

void progress_end(progress *p)
{
    clear_bar(p);
    fflush(stderr);
}
