/*
 * mortar_sim.c - the simulator runner: runs one or more components on one
 * event loop, with their ports bound to links, from a JSON description.
 *
 *   mortar-sim DESCRIPTION.json     run it
 *   mortar-sim --list               the component kinds (built in, plugins)
 *
 * A kind that is not built in is loaded from a plugin (sims/plugins.h,
 * docs/sdk.md).
 *   mortar-sim --help | --version
 *
 * The environment variable MORTAR_PROFILE=0 switches the wall-clock
 * profile off (no clock reads, no profile file); the simulated results are
 * the same either way.
 *
 * Exit status: 0 after a clean end, 1 on a bad description or when the run
 * failed (a peer died, a protocol error; the reason is on stderr), 2 for a
 * usage error: the rule of every mortar command.
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mortar/error.h"
#include "mortar/log.h"
#include "mortar/profile.h"
#include "mortar/progress.h"
#include "mortar/version.h"
#include "sim_config.h"
#include "sims/plugins.h"
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

static void list_plugin(const char *file, const mortar_component_ops *ops, const char *why,
                        void *arg)
{
    if (ops)
        printf("%-10s %s (plugin %s)\n", ops->kind, ops->summary ? ops->summary : "", file);
    else {
        fflush(stdout); /* the lines in their order when both go to a terminal */
        mortar_log(MORTAR_LOG_WARN, "mortar-sim", "%s", why);
    }
}

/* The built-in kinds, then the plugins the search would use. */
static int list_kinds(void)
{
    const mortar_component_ops *const *all = mortar_registry_all();
    for (int i = 0; all[i]; i++)
        printf("%-10s %s\n", all[i]->kind, all[i]->summary);
    char installed[1024];
    mortar_plugin_installed_dir(installed, sizeof installed);
    mortar_model_list_plugins(installed, list_plugin, NULL);
    return 0;
}

static void usage(FILE *out)
{
    fputs("Usage: mortar-sim [OPTION]... DESCRIPTION.json\n"
          "Run device models on one event loop, their ports bound to links, from a JSON\n"
          "description (docs/mortar-sim.md).\n"
          "\n"
          "Options:\n"
          "      --list      list the component kinds, built in and plugins, and exit\n"
          "  -h, --help      show this help and exit\n"
          "      --version   print the version and exit\n"
          "\n"
          "Environment: MORTAR_PROFILE=0 records no wall-clock profile (no\n"
          "\"profile\" file; the simulated results are the same), MORTAR_LOG the log level,\n"
          "MORTAR_PLUGIN_PATH the directories (colon-separated) searched first for\n"
          "mortar-model-KIND.so when a kind is not built in (docs/sdk.md).\n"
          "\n"
          "Exit status: 0 after a clean end, 1 for a bad description or a failed run\n"
          "(a peer died, a protocol error), 2 for a usage error.\n",
          out);
}

static int usage_error(void)
{
    fputs("Try 'mortar-sim --help' for more information.\n", stderr);
    return 2;
}

enum { OPT_LIST = 256, OPT_VERSION };

/* Returns -1 to run argv[optind], or the exit status. */
static int parse_args(int argc, char **argv)
{
    static const struct option options[] = {{"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL, OPT_VERSION},
                                            {"list", no_argument, NULL, OPT_LIST},
                                            {NULL, 0, NULL, 0}};
    bool list = false;
    for (int c; (c = getopt_long(argc, argv, "h", options, NULL)) != -1;) {
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        if (c == OPT_VERSION) {
            printf("mortar-sim %s\n", mortar_version());
            return 0;
        }
        if (c != OPT_LIST)
            return usage_error();
        list = true;
    }
    if (list)
        return optind == argc ? list_kinds() : usage_error();
    if (argc - optind != 1) {
        fputs("mortar-sim: one DESCRIPTION.json, please\n", stderr);
        return usage_error();
    }
    return -1;
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

/* MORTAR_PROFILE=0 (or "off") switches the profile off. */
static bool profiling_wanted(void)
{
    const char *v = getenv("MORTAR_PROFILE");
    return !v || (strcmp(v, "0") != 0 && strcmp(v, "off") != 0);
}

static int write_profile(sim_config *cfg)
{
    if (!cfg->profile_path[0] || !profiling_wanted())
        return 0;
    FILE *f = fopen(cfg->profile_path, "w");
    int rc = f ? mortar_loop_write_profile(cfg->loop, f) : MORTAR_EIO;
    if (f && fclose(f) != 0)
        rc = MORTAR_EIO;
    if (rc != 0) {
        mortar_log(MORTAR_LOG_ERROR, "mortar-sim", "cannot write the profile to %s",
                   cfg->profile_path);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    mortar_log_init_from_env();
    signal(SIGPIPE, SIG_IGN);
    int status = parse_args(argc, argv);
    if (status >= 0)
        return status;
    const char *path = argv[optind];
    char *text = read_file(path);
    if (!text) {
        mortar_log(MORTAR_LOG_ERROR, "mortar-sim", "cannot read %s", path);
        return 1;
    }
    sim_config cfg;
    char err[1024];
    int rc = sim_config_build(text, &cfg, err, sizeof err);
    free(text);
    if (rc != 0) {
        mortar_log(MORTAR_LOG_ERROR, "mortar-sim", "%s: %s", path, err);
        return 1;
    }
    mortar_loop_set_profiling(cfg.loop, profiling_wanted());
    /* MORTAR_PROMISES=0: plain null messages, whatever the description
     * says (for comparing runs with and without lookahead promises). */
    const char *promises = getenv("MORTAR_PROMISES");
    if (promises && !strcmp(promises, "0"))
        mortar_loop_set_promises(cfg.loop, false);
    /* MORTAR_BOUND_JITTER=1: promise less at random, a check that results
     * do not depend on how far the peers had promised */
    const char *jitter = getenv("MORTAR_BOUND_JITTER");
    if (jitter && !strcmp(jitter, "1"))
        mortar_loop_set_bound_jitter(cfg.loop, true);
    reporter rep;
    bool reporting = reporter_start(&rep, &cfg);
    rc = mortar_loop_run(cfg.loop, cfg.until_ps);
    reporter_stop(&rep, reporting);
    if (rc != 0)
        mortar_log(MORTAR_LOG_ERROR, "mortar-sim", "run failed: %s", mortar_loop_errmsg(cfg.loop));
    int st = write_stats(&cfg);
    if (write_profile(&cfg) != 0)
        st = 1;
    mortar_loop_destroy(cfg.loop);
    return rc != 0 ? 1 : st;
}
