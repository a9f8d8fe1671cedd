/*
 * run_progress.c - `mortar run`'s progress line. See run_progress.h.
 */
#include "run_progress.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request_line.h"
#include "status_line.h"

/* A per-request line that carries the request's value (a study may print
 * more lines for one request, such as the server's service time). */
static bool counts_as_done(const char *line)
{
    int64_t value;
    return request_line_is(line) &&
           request_line_int(line, REQUEST_KEY_VALUE, &value) == REQUEST_FIELD_OK;
}

size_t request_counter_update(request_counter *c, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return c->done;
    if (fseek(f, c->offset, SEEK_SET) != 0) {
        fclose(f);
        return c->done;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0 && line[len - 1] == '\n') {
        c->offset += len;
        c->done += counts_as_done(line);
    }
    free(line);
    fclose(f);
    return c->done;
}

double run_eta_s(size_t done, size_t total, double elapsed_s)
{
    if (total == 0 || done == 0)
        return -1;
    if (done >= total)
        return 0;
    return elapsed_s / (double)done * (double)(total - done);
}

double run_eta_past_s(double expected_s, double elapsed_s)
{
    if (expected_s <= 0)
        return -1;
    return expected_s > elapsed_s ? expected_s - elapsed_s : 0;
}

void run_progress_text(char *buf, size_t size, long long id, double sim_s, size_t done,
                       size_t total, double wall_s, double eta_s)
{
    char sim[32], requests[48], eta[48] = "", d[32];
    if (sim_s < 0)
        snprintf(sim, sizeof sim, "-- simulated");
    else if (sim_s >= 1)
        snprintf(sim, sizeof sim, "%.3f s simulated", sim_s);
    else
        snprintf(sim, sizeof sim, "%.2f ms simulated", sim_s * 1e3);
    if (total)
        snprintf(requests, sizeof requests, "%zu/%zu requests", done, total);
    else
        snprintf(requests, sizeof requests, "%zu requests", done);
    if (eta_s >= 0)
        snprintf(eta, sizeof eta, ", ETA %s",
                 status_line_duration(eta_s, d, sizeof d));
    snprintf(buf, size, "[mortar] run %lld: %s, %s, %.1f s wall%s", id, sim, requests,
             wall_s, eta);
}
