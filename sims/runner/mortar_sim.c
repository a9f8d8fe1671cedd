/*
 * mortar_sim.c - the simulator runner: runs one or more components on one
 * event loop, with their ports bound to links, from a JSON description.
 *
 *   mortar-sim DESCRIPTION.json     run it
 *   mortar-sim --list               the built-in component kinds
 *
 * Exit status: 0 after a clean end, 1 on a bad description, 2 when the run
 * failed (a peer died, a protocol error); the reason is on stderr.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mortar/error.h"
#include "mortar/log.h"
#include "mortar/progress.h"
#include "sim_config.h"
#include "sims/registry.h"

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = '\0';
    fclose(f);
    return buf;
}

static int usage(FILE *out)
{
    fprintf(out, "usage: mortar-sim DESCRIPTION.json\n"
                 "       mortar-sim --list\n");
    return out == stderr ? 1 : 0;
}

static int list_kinds(void)
{
    const mortar_component_ops *const *all = mortar_registry_all();
    for (int i = 0; all[i]; i++)
        printf("%-10s %s\n", all[i]->kind, all[i]->summary);
    return 0;
}

/* Reports the loop's time into the progress file once a second, until
 * the run ends (see mortar/progress.h). */
typedef struct reporter {
    sim_config *cfg;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
} reporter;

static void *report_progress(void *arg)
{
    reporter *r = arg;
    pthread_mutex_lock(&r->lock);
    while (!r->done) {
        mortar_progress_write(r->cfg->progress_path, mortar_loop_now_shared(r->cfg->loop));
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&r->cond, &r->lock, &until);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

static bool reporter_start(reporter *r, sim_config *cfg)
{
    *r = (reporter){.cfg = cfg};
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->cond, NULL);
    return cfg->progress_path[0] && pthread_create(&r->thread, NULL, report_progress, r) == 0;
}

static void reporter_stop(reporter *r, bool started)
{
    if (started) {
        pthread_mutex_lock(&r->lock);
        r->done = true;
        pthread_cond_signal(&r->cond);
        pthread_mutex_unlock(&r->lock);
        pthread_join(r->thread, NULL);
    }
    pthread_cond_destroy(&r->cond);
    pthread_mutex_destroy(&r->lock);
}

static int write_stats(sim_config *cfg)
{
    FILE *f = cfg->stats_path[0] ? fopen(cfg->stats_path, "w") : NULL;
    if (cfg->stats_path[0] && !f) {
        mortar_log(MORTAR_LOG_ERROR, "mortar-sim", "cannot write stats to %s", cfg->stats_path);
        return 1;
    }
    if (f) {
        mortar_loop_write_stats(cfg->loop, f);
        fclose(f);
    }
    return 0;
}

int main(int argc, char **argv)
{
    mortar_log_init_from_env();
    signal(SIGPIPE, SIG_IGN);
    if (argc != 2)
        return usage(stderr);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return usage(stdout);
    if (!strcmp(argv[1], "--list"))
        return list_kinds();
    char *text = read_file(argv[1]);
    if (!text) {
        mortar_log(MORTAR_LOG_ERROR, "mortar-sim", "cannot read %s", argv[1]);
        return 1;
    }
    sim_config cfg;
    char err[1024];
    int rc = sim_config_build(text, &cfg, err, sizeof err);
    free(text);
    if (rc != 0) {
        mortar_log(MORTAR_LOG_ERROR, "mortar-sim", "%s: %s", argv[1], err);
        return 1;
    }
    reporter rep;
    bool reporting = reporter_start(&rep, &cfg);
    rc = mortar_loop_run(cfg.loop, cfg.until_ps);
    reporter_stop(&rep, reporting);
    if (rc != 0)
        mortar_log(MORTAR_LOG_ERROR, "mortar-sim", "run failed: %s", mortar_loop_errmsg(cfg.loop));
    int st = write_stats(&cfg);
    mortar_loop_destroy(cfg.loop);
    return rc != 0 ? 2 : st;
}
