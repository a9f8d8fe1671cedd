/*
 * sweep_cmd.c - `mortar sweep SPEC|SWEEPFILE [--grid path=v1,v2,...]...
 * [--set path=value]... [--jobs N] [--db FILE] [--out DIR] [--trace|--no-trace]
 * [--cold-boot]`: many runs of a grid, several at a time, resumable.
 *
 * The points come from sweep_plan.c: all of them are resolved and validated
 * before anything starts, and the points that already have an ok run in the
 * database are skipped. Each remaining point is one `mortar run` of the
 * same binary (/proc/self/exe) as a child process, its output in a log of
 * its own under <out>/sweep-<name>/; every run records itself, so a run
 * that finished is never lost, whatever happens to the sweep. A failed run
 * is reported and the sweep goes on; the next invocation retries it.
 *
 * Ctrl-C (or SIGTERM, or SIGHUP) is forwarded to the runs as SIGINT; they end their
 * processes and record themselves as interrupted; the sweep waits for them,
 * prints the summary and exits 130. A second Ctrl-C kills the runs. If the
 * sweep itself is killed, each run gets SIGTERM (PR_SET_PDEATHSIG) and
 * cleans up the same way.
 *
 * Exit: 0 when every point has an ok run, 1 otherwise, 2 for bad input
 * (nothing started), 130 when interrupted.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "db.h"
#include "host_tools.h"
#include "owner.h"
#include "dirs.h"
#include "errbuf.h"
#include "launch.h"
#include "cpu_share.h"
#include "kept_hosts.h"
#include "sweep_progress.h"
#include "sweep_cmd.h"
#include "sweep_plan.h"
#include "sweep_refine.h"
#include "study.h"
#include "usage.h"

#define MAX_ARGS         64
#define EXIT_INTERRUPTED 130

typedef struct sweep_opts {
    const char *path, *db_path, *out_dir;
    char *grids[MAX_ARGS], *sets[MAX_ARGS];
    size_t ngrids, nsets;
    long jobs;
    bool trace, dry_run, cold_boot;
    int refine;             /* 1 --refine, 0 --no-refine, -1 neither: the study's */
    const char *resolution; /* --resolution, or NULL */
    const char *study;      /* --study, or NULL */
} sweep_opts;

/* A run in progress. */
typedef struct job {
    pid_t pid; /* 0: the slot is free */
    size_t point;
    double start_s;
} job;

typedef struct sweep {
    const sweep_opts *opts;
    sweep_plan plan;
    size_t grid_npoints;  /* the grid's points; refinement points follow them */
    bool refining;        /* with the grid, the refinement (refine) */
    bool refine_said;     /* its first run started: the line saying so is out */
    sweep_refine refine;
    size_t refine_ok, refine_failed, refine_interrupted;
    bool refine_error;    /* the refinement stopped on an error */
    db_conn *db;
    int64_t last_id_before; /* runs recorded by this sweep have larger ids */
    char dir[PATH_MAX];     /* the sweep's logs */
    job *jobs;
    size_t njobs;
    size_t next;                /* the next point to consider */
    size_t skipped, ok, failed; /* skipped: already done before */
    size_t interrupted;         /* ended by a Ctrl-C of the sweep (grid points) */
    char **errors;              /* per point: "failed: <point>: <error>", or NULL */
    size_t errors_room;
    progress prog;
    double start_s;
} sweep;

static volatile sig_atomic_t stop_signals; /* Ctrl-C / SIGTERM / SIGHUP received */

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_signals++;
}

/* ---- options ---------------------------------------------------------------- */

/* As many runs as cores, each on its own core (cpu_share.h): a run's
 * processes (two QEMU hosts and a simulator) mostly take turns, so one
 * core carries a run nearly as fast as two. Measured with bench-sweep on 2
 * cores before the runs were kept apart (the quick sweep, 3 processes a
 * run): 2 at a time 1.20x the sweeps of 1, 3 at a time 1.11x, the same
 * results each (docs/experiments.md). */
static long default_jobs(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 1 ? cores : 1;
}

#define MAX_JOBS 256

static int parse_jobs(const char *text, long *jobs)
{
    char *end;
    errno = 0;
    *jobs = strtol(text, &end, 10);
    if (errno || end == text || *end || *jobs < 1 || *jobs > MAX_JOBS)
        return cli_usage_error(&mortar_cmd_sweep, "--jobs %s: expected a number from 1 to %d",
                               text, MAX_JOBS);
    return CLI_PARSED;
}

static int add_arg(char **list, size_t *n, const char *arg, const char *what)
{
    if (*n == MAX_ARGS)
        return cli_usage_error(&mortar_cmd_sweep, "more than %d %s options", MAX_ARGS, what);
    list[(*n)++] = (char *)arg;
    return CLI_PARSED;
}

static int set_refine(sweep_opts *o, int on)
{
    if (o->refine >= 0 && o->refine != on)
        return cli_usage_error(&mortar_cmd_sweep, "--refine and --no-refine together");
    o->refine = on;
    return CLI_PARSED;
}

/* --resolution means refining; a STUDY is its own --study. */
static int check_refine_args(sweep_opts *o)
{
    if (o->resolution && o->refine == 0)
        return cli_usage_error(&mortar_cmd_sweep, "--resolution %s with --no-refine",
                               o->resolution);
    if (o->resolution)
        o->refine = 1;
    if (o->study && access(o->path, R_OK) == 0 && study_is_study_file(o->path))
        return cli_usage_error(&mortar_cmd_sweep,
                               "--study %s: %s is a study, and the one refined for", o->study,
                               o->path);
    if (o->study && o->refine != 1)
        return cli_usage_error(&mortar_cmd_sweep,
                               "--study %s: a sweep names a study only to --refine",
                               o->study);
    return CLI_PARSED;
}

/* Returns CLI_PARSED, or the exit status after --help, --version or a usage
 * error. */
static int parse_args(int argc, char **argv, sweep_opts *o)
{
    *o = (sweep_opts){
        .db_path = "mortar.db", .out_dir = "runs", .jobs = default_jobs(), .refine = -1};
    const cli_command *cmd = &mortar_cmd_sweep;
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    for (int key; (key = cli_next(&p)) != CLI_DONE;) {
        int rc = CLI_PARSED;
        if (key == CLI_KEY_GRID)
            rc = add_arg(o->grids, &o->ngrids, p.value, "--grid");
        else if (key == CLI_KEY_SET)
            rc = add_arg(o->sets, &o->nsets, p.value, "--set");
        else if (key == CLI_KEY_JOBS)
            rc = parse_jobs(p.value, &o->jobs);
        else if (key == CLI_KEY_DB)
            o->db_path = p.value;
        else if (key == CLI_KEY_OUT)
            o->out_dir = p.value;
        else if (key == CLI_KEY_DRY_RUN)
            o->dry_run = true;
        else if (key == CLI_KEY_COLD_BOOT)
            o->cold_boot = true;
        else if (key == CLI_KEY_TRACE || key == CLI_KEY_NO_TRACE)
            o->trace = key == CLI_KEY_TRACE;
        else if (key == CLI_KEY_REFINE || key == CLI_KEY_NO_REFINE)
            rc = set_refine(o, key == CLI_KEY_REFINE);
        else if (key == CLI_KEY_RESOLUTION)
            o->resolution = p.value;
        else if (key == CLI_KEY_STUDY)
            o->study = p.value;
        else
            return cli_stop_status(key);
        if (rc != CLI_PARSED)
            return rc;
    }
    if (argc - p.first_operand != 1)
        return cli_usage_error(cmd, "one SPEC, SWEEPFILE or STUDY, please");
    o->path = argv[p.first_operand];
    /* a spec without a grid is one run: that is `mortar run` */
    if (o->ngrids == 0 && access(o->path, R_OK) == 0 && !sweep_plan_is_sweep_file(o->path))
        return cli_usage_error(cmd, "%s is a spec and no --grid is given", o->path);
    return check_refine_args(o);
}

/* ---- preparing -------------------------------------------------------------- */

/* <out>/sweep-<name>, with anything but [A-Za-z0-9._-] in the name as '_'. */
static void sweep_dir_path(sweep *s)
{
    char name[128];
    snprintf(name, sizeof name, "%s", s->plan.name);
    for (char *c = name; *c; c++)
        if (!(*c == '.' || *c == '_' || *c == '-' || (*c >= '0' && *c <= '9') ||
              ((*c | 0x20) >= 'a' && (*c | 0x20) <= 'z')))
            *c = '_';
    snprintf(s->dir, sizeof s->dir, "%s/sweep-%s", s->opts->out_dir, name);
}

static int make_sweep_dir(const sweep *s)
{
    char err[PATH_MAX + 64];
    if (dirs_make(s->dir, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "mortar sweep: %s\n", err);
    return -1;
}

/* `mortar run` takes at most 64 --set. */
static int check_set_counts(const sweep_plan *plan)
{
    for (size_t i = 0; i < plan->npoints; i++)
        if (plan->points[i].nsets > MAX_ARGS) {
            fprintf(stderr,
                    "mortar sweep: %s: more than %d overrides (mortar run's limit)\n",
                    plan->points[i].label, MAX_ARGS);
            return -1;
        }
    return 0;
}

/* Opens the database and marks the points already done. --dry-run never
 * creates or changes the database: without one, nothing is done. */
static int find_done(sweep *s, char *err, size_t size)
{
    const sweep_opts *o = s->opts;
    if (o->dry_run && access(o->db_path, F_OK) != 0)
        return 0;
    if (o->dry_run ? db_open_read(&s->db, o->db_path, err, size)
                   : db_open(&s->db, o->db_path, err, size))
        return -1;
    int done = sweep_plan_match_done(&s->plan, s->db, err, size);
    if (done < 0)
        return -1;
    if ((s->last_id_before = sweep_max_run_id(s->db)) < 0)
        return errbuf_fail(err, size, "%s: %s", o->db_path, db_last_error());
    s->skipped = (size_t)done;
    return 0;
}

/* Whether and how the sweep refines: a study refines when it has "refine"
 * or --refine asks (not with --no-refine); a sweep file or a spec only with
 * --refine, for --study or the default study. */
static int prepare_refine(sweep *s, char *err, size_t size)
{
    const sweep_opts *o = s->opts;
    bool is_study = study_is_study_file(o->path);
    if (o->refine == 0 || (o->refine < 0 && !is_study))
        return 0;
    if (sweep_refine_init(&s->refine, &s->plan, is_study ? o->path : o->study,
                          o->resolution, err, size))
        return -1;
    s->refining = o->refine == 1 || s->refine.st.refine.on;
    return 0;
}

/* Loads the plan, opens the database, finds what is done. Returns 0, or
 * the exit code. */
static int prepare(sweep *s)
{
    char err[2048];
    const sweep_opts *o = s->opts;
    if (sweep_plan_load(&s->plan, o->path, o->grids, o->ngrids, o->sets, o->nsets, err,
                        sizeof err)) {
        fprintf(stderr, "mortar sweep: %s\n", err);
        return 2;
    }
    if (check_set_counts(&s->plan))
        return 2;
    s->grid_npoints = s->plan.npoints;
    if (prepare_refine(s, err, sizeof err)) {
        fprintf(stderr, "mortar sweep: %s\n", err);
        return 2;
    }
    if (find_done(s, err, sizeof err)) {
        fprintf(stderr, "mortar sweep: %s\n", err);
        return 1;
    }
    if (!o->dry_run && owner_reap_and_say(s->db, "[sweep]", err, sizeof err)) {
        fprintf(stderr, "mortar sweep: %s\n", err);
        return 1;
    }
    s->njobs = (size_t)o->jobs;
    s->jobs = calloc(s->njobs, sizeof *s->jobs);
    s->errors = calloc(s->plan.npoints + 1, sizeof *s->errors);
    s->errors_room = s->plan.npoints + 1;
    if (!s->jobs || !s->errors)
        return 1;
    sweep_dir_path(s);
    return o->dry_run || make_sweep_dir(s) == 0 ? 0 : 1;
}

/* ---- running one point ------------------------------------------------------ */

/* point-NNN.log for a grid point (its place in the grid); a refinement
 * run's log is named by its label, which says what it runs
 * (refine-design-b_x=1.25us.log, any other character as '_'). */
static void point_log_path(const sweep *s, size_t point, char *buf, size_t size)
{
    if (point < s->grid_npoints) {
        snprintf(buf, size, "%s/point-%03zu.log", s->dir, point + 1);
        return;
    }
    char name[256];
    snprintf(name, sizeof name, "%s", s->plan.points[point].label);
    for (char *c = name; *c; c++)
        if (!(*c == '.' || *c == '=' || *c == '-' || (*c >= '0' && *c <= '9') ||
              ((*c | 0x20) >= 'a' && (*c | 0x20) <= 'z')))
            *c = c == name + 6 ? '-' : '_';
    snprintf(buf, size, "%s/%s.log", s->dir, name);
}

/* The `mortar run` command line of a point (NULL-terminated, to free; the
 * strings are borrowed). */
static char **run_argv(const sweep *s, const sweep_point *pt)
{
    char **argv = calloc(2 * pt->nsets + 10, sizeof *argv);
    if (!argv)
        return NULL;
    size_t n = 0;
    argv[n++] = "mortar";
    argv[n++] = "run";
    argv[n++] = pt->spec_path;
    for (size_t i = 0; i < pt->nsets; i++) {
        argv[n++] = "--set";
        argv[n++] = pt->sets[i];
    }
    argv[n++] = "--db";
    argv[n++] = (char *)s->opts->db_path;
    argv[n++] = "--out";
    argv[n++] = (char *)s->opts->out_dir;
    if (s->opts->trace)
        argv[n++] = "--trace";
    if (s->opts->cold_boot)
        argv[n++] = "--cold-boot";
    argv[n] = NULL;
    return argv;
}

/* Keeps the log of an earlier attempt at the point (a sweep interrupted or
 * failed, and run again): <name>.log becomes the first free <name>.N.log,
 * N = 1, 2, ..., so <name>.log is always the latest attempt's. A link
 * never replaces a file; the old name goes once the new one holds it. */
static int keep_earlier_log(const char *log)
{
    if (access(log, F_OK) != 0)
        return 0;
    size_t stem = strlen(log) - strlen(".log");
    char kept[PATH_MAX];
    for (int n = 1; n < 10000; n++) {
        snprintf(kept, sizeof kept, "%.*s.%d.log", (int)stem, log, n);
        if (link(log, kept) == 0)
            return unlink(log);
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

/* The log starts with what ran; the run's output follows. */
static int write_log_header(const char *log, const sweep_point *pt, char *const argv[])
{
    if (keep_earlier_log(log))
        return -1;
    FILE *f = fopen(log, "w");
    if (!f)
        return -1;
    fprintf(f, "# mortar sweep point: %s\n#", pt->label);
    for (size_t i = 0; argv[i]; i++)
        fprintf(f, " %s", argv[i]);
    fprintf(f, "\n");
    return fclose(f);
}

/* Starts `mortar run` for the point (the same binary), its output appended
 * to the log, on job slot `slot`'s share of the CPUs (cpu_share.h); it gets
 * SIGTERM, and cleans up, if the sweep dies. Returns its pid or -1. */
static pid_t start_run(const sweep *s, const sweep_point *pt, const char *log, size_t slot)
{
    char **argv = run_argv(s, pt);
    if (!argv || write_log_header(log, pt, argv)) {
        free(argv);
        return -1;
    }
    launch_spec spec = {.who = "mortar sweep", .name = pt->label, .path = "/proc/self/exe",
                        .argv = argv, .out_path = log, .err_path = log, .append = true,
                        .death_signal = SIGTERM};
    cpu_set_t share;
    if (cpu_share_of_slot(slot, s->njobs, &share))
        spec.cpus = &share;
    pid_t pid = launch_start(&spec);
    free(argv);
    return pid;
}

/* The next grid point that is not done yet, or grid_npoints. */
static size_t next_todo(sweep *s)
{
    while (s->next < s->grid_npoints && s->plan.points[s->next].done_run_id > 0)
        s->next++;
    return s->next;
}

static job *free_job(sweep *s)
{
    for (size_t i = 0; i < s->njobs; i++)
        if (s->jobs[i].pid == 0)
            return &s->jobs[i];
    return NULL;
}

static size_t running_jobs(const sweep *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->njobs; i++)
        n += s->jobs[i].pid != 0;
    return n;
}

/* A run that did not end ok: failed, or interrupted by the sweep's Ctrl-C. */
static void record_failure(sweep *s, size_t point, const char *error)
{
    char text[1200];
    snprintf(text, sizeof text, "%s: %s: %s", stop_signals ? "interrupted" : "failed",
             s->plan.points[point].label, error);
    free(s->errors[point]);
    s->errors[point] = strdup(text);
    bool grid = point < s->grid_npoints;
    if (stop_signals)
        (*(grid ? &s->interrupted : &s->refine_interrupted))++;
    else
        (*(grid ? &s->failed : &s->refine_failed))++;
}

/* Starts a run of the point in job slot j. */
static void start_point(sweep *s, size_t point, job *j)
{
    char log[PATH_MAX + 300];
    point_log_path(s, point, log, sizeof log);
    pid_t pid = start_run(s, &s->plan.points[point], log, (size_t)(j - s->jobs));
    s->plan.points[point].started = true;
    progress_started(&s->prog);
    if (pid < 0) {
        char why[PATH_MAX + 340];
        snprintf(why, sizeof why, "cannot start mortar run (log %s)", log);
        s->plan.points[point].ended = true;
        record_failure(s, point, why);
        progress_finished(&s->prog, false, 0, why);
        return;
    }
    *j = (job){.pid = pid, .point = point, .start_s = progress_now()};
}

/* Starts grid runs while slots are free and points are left. */
static void start_runs(sweep *s)
{
    job *j;
    while (!stop_signals && next_todo(s) < s->grid_npoints && (j = free_job(s)))
        start_point(s, s->next++, j);
}

/* The run's last line in its log (not the sweep's header), for a run that
 * recorded nothing. */
static void last_log_line(const char *log, char *buf, size_t size)
{
    FILE *f = fopen(log, "r");
    char line[1024];
    snprintf(buf, size, "(no output)");
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] && line[0] != '#')
            snprintf(buf, size, "%.*s", (int)size - 1, line);
    }
    if (f)
        fclose(f);
}

/* What the run recorded, or why there is no record. Returns true if ok. */
static bool run_outcome(sweep *s, const job *j, int status, sweep_run_result *r)
{
    const sweep_point *pt = &s->plan.points[j->point];
    if (sweep_find_run(s->db, pt->canonical, s->last_id_before, r))
        snprintf(r->error, sizeof r->error, "cannot read the run: %s",
                 db_last_error());
    if (r->id > 0 && !strcmp(r->status, "ok") && status == 0)
        return true;
    if (r->id > 0 && !strcmp(r->status, "running"))
        snprintf(r->error, sizeof r->error,
                 "mortar run ended (status %d) without recording its result", status);
    if (!r->error[0]) {
        char log[PATH_MAX + 32], line[400];
        point_log_path(s, j->point, log, sizeof log);
        last_log_line(log, line, sizeof line);
        if (status > 128)
            snprintf(r->error, sizeof r->error, "mortar run ended by signal %d: %s",
                     status - 128, line);
        else
            snprintf(r->error, sizeof r->error, "mortar run exited with status %d: %s",
                     status, line);
    }
    return false;
}

static void finish_job(sweep *s, job *j, int status)
{
    sweep_run_result r;
    double wall = progress_now() - j->start_s;
    bool ok = run_outcome(s, j, status, &r);
    s->plan.points[j->point].ended = true;
    const char *label = s->plan.points[j->point].label;
    char line[PATH_MAX + 2048];
    if (ok) {
        (*(j->point < s->grid_npoints ? &s->ok : &s->refine_ok))++;
        snprintf(line, sizeof line, "run %lld ok      %s (%.0f s)", (long long)r.id,
                 label, wall);
    } else {
        record_failure(s, j->point, r.error);
        char log[PATH_MAX + 32];
        point_log_path(s, j->point, log, sizeof log);
        char id[32] = "-";
        if (r.id > 0)
            snprintf(id, sizeof id, "%lld", (long long)r.id);
        snprintf(line, sizeof line, "run %s %s  %s (%.0f s): %s [log %s]", id,
                 stop_signals ? "INTERRUPTED" : "FAILED", label, wall, r.error, log);
    }
    j->pid = 0;
    progress_finished(&s->prog, ok, wall, line);
}

/* How often the sweep looks for runs that ended. A run that ended frees its
 * job slot at once: the next run starts without a further wait, as an idle
 * slot costs a whole core on a machine with few. */
#define REAP_POLL_US 20000

/* Reaps the runs that ended. */
static void reap_runs(sweep *s)
{
    for (size_t i = 0; i < s->njobs; i++) {
        job *j = &s->jobs[i];
        int status;
        if (j->pid != 0 && launch_poll(j->pid, &status) == 1)
            finish_job(s, j, status);
    }
}

/* Signals each run's process group: the run and its helper scripts, as a
 * terminal would for a `mortar run` of its own (its simulators and hosts
 * have groups of their own; the run ends them). */
static void signal_runs(sweep *s, int sig)
{
    for (size_t i = 0; i < s->njobs; i++)
        if (s->jobs[i].pid != 0)
            launch_signal_group(s->jobs[i].pid, sig);
}

/* The first Ctrl-C stops new runs and asks the running ones to end; a
 * second one kills them. */
static void handle_stop(sweep *s, int *forwarded)
{
    if ((int)stop_signals <= *forwarded || *forwarded >= 2)
        return;
    if (*forwarded == 0) {
        progress_message(&s->prog,
                         "[sweep] interrupted: ending %zu running run(s), starting no"
                         " more (Ctrl-C again kills them)",
                         running_jobs(s));
        signal_runs(s, SIGINT);
        *forwarded = 1;
    } else {
        progress_message(&s->prog, "[sweep] killing the runs");
        signal_runs(s, SIGKILL);
        *forwarded = 2;
    }
}

/* ---- the refinement ---------------------------------------------------------- */

/* Room for an error text per point of the plan, which refinement grows. */
static int grow_errors(sweep *s)
{
    char **e = realloc(s->errors, (s->plan.npoints + 1) * sizeof *e);
    if (!e)
        return -1;
    for (size_t i = s->errors_room; i <= s->plan.npoints; i++)
        e[i] = NULL;
    s->errors = e;
    s->errors_room = s->plan.npoints + 1;
    return 0;
}

/* Asks the refinement for its next runs (read from the database) and
 * starts those not started yet while slots are free; the progress bar's
 * total becomes the grid, the refinement runs ended and those to come.
 * Returns how many started, or -1 after an error (reported). */
static int start_refine_runs(sweep *s)
{
    size_t *points = NULL, n = 0, left = 0, started = 0;
    char err[2048];
    int rc = sweep_refine_next(&s->refine, &s->plan, s->db, true, &points, &n, &left, err,
                               sizeof err);
    if (grow_errors(s) && !rc)
        rc = errbuf_fail(err, sizeof err, "out of memory");
    if (rc) {
        progress_message(&s->prog, "[sweep] refinement stopped: %s", err);
        s->refine_error = true;
        free(points);
        return -1;
    }
    size_t ended = s->refine_ok + s->refine_failed + s->refine_interrupted;
    progress_set_total(&s->prog, s->grid_npoints + ended + left);
    job *j;
    for (size_t i = 0; i < n && (j = free_job(s)); i++)
        if (!s->plan.points[points[i]].started) {
            if (!s->refine_said)
                progress_message(&s->prog, "[sweep] refining the crossings along %s to %.10g%s",
                                 s->refine.st.knobs[0].name, s->refine.resolution,
                                 s->refine.st.knobs[0].unit);
            s->refine_said = true;
            start_point(s, points[i], j);
            started++;
        }
    free(points);
    return (int)started;
}

/* One turn of a sweep loop: reaps the runs that ended, redraws the
 * progress about once a second, and waits up to REAP_POLL_US for a run to
 * end unless one did (its slot is free now). True when a run ended. */
static bool reap_and_wait(sweep *s, double *last_draw)
{
    size_t ended = s->prog.finished_here;
    reap_runs(s);
    if (progress_now() - *last_draw >= 1) {
        progress_draw(&s->prog);
        *last_draw = progress_now();
    }
    if (s->prog.finished_here != ended)
        return true;
    pid_t pids[MAX_JOBS];
    size_t n = 0;
    for (size_t i = 0; i < s->njobs && n < MAX_JOBS; i++)
        if (s->jobs[i].pid != 0)
            pids[n++] = s->jobs[i].pid;
    launch_wait_any(pids, n, REAP_POLL_US / 1000);
    return false;
}

/* The grid's runs and the refinement's, as many at a time as there are job
 * slots. A free slot takes a refinement run first: each is a step of a
 * bisection that waits for the step before, while grid points can run in
 * any order. The refinement is planned afresh whenever a run ends, from
 * the series whose grid points have all run (sweep_refine_next); one that
 * fails is not tried again in this invocation, nor after an error of the
 * refinement. Ends when nothing runs and nothing is left to start, or
 * after Ctrl-C. */
static void run_all(sweep *s)
{
    int forwarded = 0;
    bool replan = s->refining;
    double last_draw = 0;
    for (;;) {
        handle_stop(s, &forwarded);
        if (replan && !stop_signals && !s->refine_error && free_job(s)) {
            replan = false;
            (void)start_refine_runs(s);
        }
        start_runs(s);
        if (running_jobs(s) == 0)
            return;
        replan |= reap_and_wait(s, &last_draw);
    }
}

/* ---- reporting -------------------------------------------------------------- */

static void print_header(const sweep *s)
{
    size_t todo = s->grid_npoints - s->skipped;
    fprintf(stderr, "[sweep] %s: %zu points", s->plan.name, s->grid_npoints);
    if (s->plan.nduplicates)
        fprintf(stderr, " (%zu duplicates merged)", s->plan.nduplicates);
    fprintf(stderr, ", %zu already done, %zu to run, %zu at a time; logs in %s\n",
            s->skipped, todo, s->njobs, s->dir);
    if (s->refining)
        fprintf(stderr,
                "[sweep] then refining the crossings of %s and %s along %s to %.10g%s "
                "(%s), in %zu series, each once its grid points have run\n",
                s->refine.st.variants[s->refine.st.compared[0]].name,
                s->refine.st.variants[s->refine.st.compared[1]].name,
                s->refine.st.knobs[0].name, s->refine.resolution, s->refine.st.knobs[0].unit,
                s->refine.st.path, s->refine.nseries);
}

/* Each series of the refinement: where it stands. */
static void print_refine_status(const sweep *s)
{
    for (size_t i = 0; i < s->refine.nseries; i++) {
        char line[512];
        sweep_refine_status_line(&s->refine, i, line, sizeof line);
        printf("  %s\n", line);
    }
}

/* --dry-run of the refinement: the runs it would start next, from the runs
 * in the database now (the ones after them depend on their results). */
static void print_refine_plan(sweep *s)
{
    size_t *points = NULL, n = 0, left = 0;
    char err[2048];
    if (sweep_refine_next(&s->refine, &s->plan, s->db, false, &points, &n, &left, err,
                          sizeof err)) {
        fprintf(stderr, "mortar sweep: %s\n", err);
        free(points);
        return;
    }
    printf("refinement, next (from the runs in the database now; at most %zu runs left):\n",
           left);
    for (size_t i = 0; i < n; i++)
        printf("      %s\n", s->plan.points[points[i]].label);
    print_refine_status(s);
    free(points);
}

/* --dry-run: every point, and the run that already did it. */
static void print_points(const sweep *s)
{
    for (size_t i = 0; i < s->grid_npoints; i++) {
        const sweep_point *pt = &s->plan.points[i];
        printf("%4zu  %s", i + 1, pt->label);
        if (pt->done_run_id > 0)
            printf("   [done: run %lld]", (long long)pt->done_run_id);
        printf("\n");
    }
}

static void print_summary(const sweep *s, bool interrupted)
{
    double wall = progress_now() - s->start_s;
    size_t ran = s->ok + s->failed + s->interrupted;
    size_t not_run = s->grid_npoints - s->skipped - ran;
    char d[32];
    printf("\nsweep %s: %zu points: %zu ok, %zu failed, %zu skipped (already done)",
           s->plan.name, s->grid_npoints, s->ok, s->failed, s->skipped);
    if (s->interrupted)
        printf(", %zu interrupted", s->interrupted);
    if (not_run)
        printf(", %zu not run", not_run);
    printf("\n");
    for (size_t i = 0; i < s->plan.npoints; i++)
        if (s->errors[i])
            printf("  %s\n", s->errors[i]);
    size_t refined = s->refine_ok + s->refine_failed + s->refine_interrupted;
    if (s->refining) {
        printf("refinement: %zu runs: %zu ok, %zu failed", refined, s->refine_ok,
               s->refine_failed);
        if (s->refine_interrupted)
            printf(", %zu interrupted", s->refine_interrupted);
        printf("%s\n", s->refine_error ? " (stopped on an error)" : "");
        print_refine_status(s);
    }
    printf("wall %s, %.2f runs per minute\n", status_line_duration(wall, d, sizeof d),
           wall > 0 ? (double)(ran + refined) * 60.0 / wall : 0.0);
    if (interrupted)
        printf(
            "interrupted: run the same command again to resume (done runs are kept)\n");
    else if (s->failed || s->refine_failed)
        printf("run the same command again to retry the failed points\n");
    printf("next: mortar verdict --db %s\n", s->opts->db_path);
    fflush(stdout);
}

static void install_signals(void)
{
    struct sigaction sa = {.sa_handler = on_stop_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL); /* the terminal closed: as Ctrl-C */
}

static void sweep_free(sweep *s)
{
    for (size_t i = 0; s->errors && i < s->errors_room; i++)
        free(s->errors[i]);
    free(s->errors);
    free(s->jobs);
    sweep_refine_free(&s->refine);
    sweep_plan_free(&s->plan);
    if (s->db)
        db_close(s->db);
}

static void say_tools_note(const char *what)
{
    fprintf(stderr, "[sweep] %s\n", what);
}

/* Finds QEMU and the guest image once and names them to every run
 * (host_tools.h, rule 0), so that no run looks for them again. When they
 * cannot be found, each run says so in its own log, as without this. */
static void pass_host_tools_on(void)
{
    host_tools t;
    char err[2 * PATH_MAX + 512];
    if (host_tools_find(&t, say_tools_note, err, sizeof err) != 0)
        return;
    /* both or neither: one alone is an error in every run */
    if (setenv(HOST_TOOLS_QEMU_ENV, t.qemu, 1) != 0 ||
        setenv(HOST_TOOLS_IMAGE_ENV, t.image, 1) != 0)
        unsetenv(HOST_TOOLS_QEMU_ENV);
}

int mortar_sweep_main(int argc, char **argv)
{
    sweep_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc != CLI_PARSED)
        return rc;
    sweep s = {.opts = &o, .start_s = progress_now()};
    rc = prepare(&s);
    if (rc) {
        sweep_free(&s);
        return rc;
    }
    print_header(&s);
    if (o.dry_run) {
        print_points(&s);
        if (s.refining)
            print_refine_plan(&s);
        sweep_free(&s);
        return 0;
    }
    pass_host_tools_on();
    install_signals();
    kept_hosts kept;
    kept_hosts_open(&kept);
    progress_init(&s.prog, s.grid_npoints, s.skipped, s.njobs, isatty(STDERR_FILENO));
    progress_expect(&s.prog, sweep_plan_expected_wall_s(&s.plan, s.db));
    run_all(&s);
    kept_hosts_close(&kept);
    progress_end(&s.prog);
    bool interrupted = stop_signals > 0;
    print_summary(&s, interrupted);
    bool all_ok = s.skipped + s.ok == s.grid_npoints && !s.refine_failed && !s.refine_error;
    sweep_free(&s);
    return interrupted ? EXIT_INTERRUPTED : all_ok ? 0 : 1;
}
