/*
 * test_profile.c - who waits for whom (mortar/profile.h, mortar-sim's
 * <name>.profile.json, `mortar profile`).
 *
 * A scripted pair of loops: a slow pinger (each of its timers takes wall
 * time) and an echoer that has nothing to do but wait for it, on two
 * threads joined by a link (the same rings, timing and waiting as between
 * processes). The echoer's wall time must be charged to waiting on that
 * link, the pinger's to being busy, and the message, sync and event counts
 * must be exact. Then two mortar-sim processes with the profile on and off
 * (MORTAR_PROFILE=0): the same handled events at the same times, and a
 * profile file only when on. Then `mortar profile` on a recorded run, by
 * id and by directory, as text and JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sqlite3.h>

#include "cli_util.h"
#include "db.h"
#include "mortar/error.h"
#include "mortar/profile.h"
#include "mortar/runtime.h"
#include "profile_data.h"
#include "run_record.h"

#define PINGS        5
#define SLOW_MS      40           /* wall time the pinger spends on each of its timers */
#define UNTIL_PS     MORTAR_US(8) /* just past the last echo (6 us) */
#define HANG_LIMIT_S 120

/* ---- the scripted pair ---------------------------------------------------------- */

typedef struct scripted {
    mortar_component *self;
    unsigned received;
} scripted;

static int scripted_create(mortar_component *self, const mortar_params *params,
                           void **state)
{
    (void)params;
    scripted *s = calloc(1, sizeof *s);
    s->self = self;
    *state = s;
    return mortar_port_declare(self, 0, MORTAR_PROTO_TEST, NULL, 0);
}

static void scripted_destroy(void *state)
{
    free(state);
}

/* The pinger: a timer at 1, 2, ... PINGS us; each takes SLOW_MS of wall
 * time, then sends one message. */
static void pinger_start(void *state)
{
    scripted *s = state;
    for (uint64_t i = 1; i <= PINGS; i++)
        mortar_timer_set(s->self, MORTAR_US(i), i);
}

static void pinger_timer(void *state, uint64_t cookie)
{
    scripted *s = state;
    usleep(SLOW_MS * 1000);
    mortar_send(s->self, 0, MORTAR_MSG_UPPER_MIN, &cookie, sizeof cookie, 0, NULL);
}

static void count_message(void *state, unsigned port, const mortar_msg *msg)
{
    (void)port;
    (void)msg;
    ((scripted *)state)->received++;
}

/* The echoer: sends every message back at once. */
static void echo_message(void *state, unsigned port, const mortar_msg *msg)
{
    scripted *s = state;
    s->received++;
    mortar_send(s->self, port, msg->type, msg->payload, msg->size, 0, NULL);
}

static const mortar_component_ops pinger_ops = {.kind = "pinger",
                                                .create = scripted_create,
                                                .start = pinger_start,
                                                .message = count_message,
                                                .timer = pinger_timer,
                                                .destroy = scripted_destroy};
static const mortar_component_ops echoer_ops = {.kind = "echoer",
                                                .create = scripted_create,
                                                .message = echo_message,
                                                .destroy = scripted_destroy};

typedef struct side {
    mortar_loop *loop;
    mortar_component *comp;
    pthread_t thread;
    int rc;
} side;

static void *run_side(void *arg)
{
    side *s = arg;
    s->rc = mortar_loop_run(s->loop, UNTIL_PS);
    return NULL;
}

/* Builds the pinger and the echoer on their own loops, joined by link "l"
 * (500 ns), with profiling `on`, and runs them to UNTIL_PS. */
static void run_pair(side *ping, side *echo, bool on)
{
    mortar_link_params p;
    mortar_link_params_init(&p);
    p.name = "l";
    mortar_link *la, *lb;
    assert_int_equal(mortar_link_pair(&la, &lb, &p), 0);
    side *sides[2] = {ping, echo};
    const mortar_component_ops *ops[2] = {&pinger_ops, &echoer_ops};
    const char *names[2] = {"pinger", "echoer"};
    mortar_link *links[2] = {la, lb};
    for (int i = 0; i < 2; i++) {
        *sides[i] = (side){0};
        assert_int_equal(mortar_loop_create(&sides[i]->loop), 0);
        assert_int_equal(
            mortar_loop_add(sides[i]->loop, ops[i], names[i], NULL, &sides[i]->comp), 0);
        assert_int_equal(mortar_loop_bind(sides[i]->loop, sides[i]->comp, 0, links[i]),
                         0);
        assert_int_equal(mortar_loop_set_profiling(sides[i]->loop, on), 0);
    }
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&sides[i]->thread, NULL, run_side, sides[i]), 0);
    for (int i = 0; i < 2; i++) {
        pthread_join(sides[i]->thread, NULL);
        assert_int_equal(sides[i]->rc, 0);
    }
}

static void link_of(side *s, mortar_link_profile *lp)
{
    assert_int_equal(mortar_loop_link_count(s->loop), 1);
    assert_int_equal(mortar_loop_get_link_profile(s->loop, 0, lp), 0);
    assert_int_equal(mortar_loop_get_link_profile(s->loop, 1, lp + 1), MORTAR_EINVAL);
}

static void test_the_idle_side_waits_on_the_link_and_the_slow_side_is_busy(void **state)
{
    (void)state;
    side ping, echo;
    run_pair(&ping, &echo, true);
    mortar_loop_profile pp, ep;
    mortar_loop_get_profile(ping.loop, &pp);
    mortar_loop_get_profile(echo.loop, &ep);
    mortar_link_profile pl[2], el[2];
    link_of(&ping, pl);
    link_of(&echo, el);
    uint64_t slow_ns = (uint64_t)PINGS * SLOW_MS * 1000000u;

    /* the echoer waited for the pinger, on link l, at least as long as the
     * pinger worked; the pinger was busy that long and waited less */
    assert_true(ep.enabled && pp.enabled);
    assert_string_equal(el[0].link, "l");
    assert_string_equal(el[0].component, "echoer");
    assert_true(el[0].wait_ns >= slow_ns * 9 / 10);
    assert_true(el[0].waits >= PINGS);
    assert_int_equal(ep.wait_ns, el[0].wait_ns + ep.wait_any_ns);
    assert_true(pp.busy_ns >= slow_ns);
    assert_true(pp.wait_ns < pp.busy_ns);
    assert_true(ep.wait_ns > ep.busy_ns);
    /* busy + waiting is the wall time, which holds the waits */
    assert_int_equal(pp.busy_ns + pp.wait_ns, pp.wall_ns);
    assert_int_equal(ep.busy_ns + ep.wait_ns, ep.wall_ns);
    assert_int_equal(pp.waits_any + ep.waits_any, 0);

    /* the counts are exact: PINGS each way, events = timers + messages */
    assert_int_equal(pl[0].counters.msgs_sent, PINGS);
    assert_int_equal(pl[0].counters.msgs_received, PINGS);
    assert_int_equal(el[0].counters.msgs_received, PINGS);
    assert_int_equal(el[0].counters.msgs_sent, PINGS);
    assert_int_equal(pp.events, 2 * PINGS);
    assert_int_equal(ep.events, PINGS);
    assert_int_equal(mortar_component_events(ping.comp), 2 * PINGS);
    assert_int_equal(mortar_component_events(echo.comp), PINGS);
    /* null messages flowed both ways; none is received that was not sent */
    assert_true(pl[0].counters.syncs_sent >= 1 && el[0].counters.syncs_sent >= 1);
    assert_true(el[0].counters.syncs_received >= 1);
    assert_true(el[0].counters.syncs_received <= pl[0].counters.syncs_sent);
    assert_true(pl[0].counters.syncs_received <= el[0].counters.syncs_sent);
    /* both reached the end */
    assert_int_equal(pp.sim_time_ps, UNTIL_PS);
    assert_int_equal(ep.sim_time_ps, UNTIL_PS);
    /* and profiling is switched before the run only */
    assert_int_equal(mortar_loop_set_profiling(ping.loop, false), MORTAR_ESTATE);
    mortar_loop_destroy(ping.loop);
    mortar_loop_destroy(echo.loop);
}

static void test_profiling_off_measures_no_time_and_changes_no_count(void **state)
{
    (void)state;
    side ping, echo;
    run_pair(&ping, &echo, false);
    mortar_loop_profile pp, ep;
    mortar_loop_get_profile(ping.loop, &pp);
    mortar_loop_get_profile(echo.loop, &ep);
    mortar_link_profile el[2];
    link_of(&echo, el);
    assert_false(pp.enabled || ep.enabled);
    assert_int_equal(pp.wall_ns + pp.wait_ns + ep.wall_ns + ep.wait_ns + el[0].wait_ns,
                     0);
    assert_int_equal(el[0].counters.msgs_received, PINGS);
    assert_int_equal(pp.events, 2 * PINGS);
    assert_int_equal(ep.events, PINGS);
    assert_int_equal(ep.sim_time_ps, UNTIL_PS);
    mortar_loop_destroy(ping.loop);
    mortar_loop_destroy(echo.loop);
}

/* ---- two mortar-sim processes --------------------------------------------------- */

static void sim_desc(const char *dir, const char *me, const char *listen_on,
                     const char *tag, unsigned seed)
{
    char desc[2048], path[256];
    snprintf(
        desc, sizeof desc,
        "{\"until\":\"300us\",\"profile\":\"%s/sim%s.profile.json\","
        "\"components\":[{\"name\":\"%s\",\"kind\":\"testgen\",\"params\":{\"ports\":2,"
        "\"seed\":%u,\"messages\":200,\"max_gap\":\"2us\",\"payload\":64,\"echo\":true,"
        "\"log\":\"%s/%s-%s.log\"}}],"
        "\"links\":[{\"name\":\"l0\",\"port\":\"%s.0\",\"%s\":\"%s/l0.sock\","
        "\"latency\":\"900ns\"},{\"name\":\"l1\",\"port\":\"%s.1\",\"%s\":\"%s/l1.sock\","
        "\"latency\":\"600ns\"}]}",
        dir, me, me, seed, dir, me, tag, me, listen_on[0] == '0' ? "listen" : "connect",
        dir, me, listen_on[0] == '1' ? "listen" : "connect", dir);
    snprintf(path, sizeof path, "%s/%s.json", dir, me);
    write_text(path, desc);
}

/* Runs processes a and b (a listens on l0, b on l1); logs tagged `tag`. */
static void run_sims(const char *dir, const char *tag)
{
    char path[256], err[2][256];
    sim_desc(dir, "a", "0", tag, 7);
    sim_desc(dir, "b", "1", tag, 8);
    pid_t pid[2];
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s.json", dir, i ? "b" : "a");
        snprintf(err[i], sizeof err[i], "%s/%s.err", dir, i ? "b" : "a");
        pid[i] = spawn_sim(path, err[i]);
    }
    for (int i = 0; i < 2; i++)
        assert_int_equal(wait_exit(pid[i], HANG_LIMIT_S), 0);
}

static char *file_in(const char *dir, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return read_text(path);
}

static bool exists_in(const char *dir, const char *name)
{
    char path[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

static void remove_in(const char *dir, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(remove(path), 0);
}

static uint64_t u(json_t *o, const char *key)
{
    return (uint64_t)json_integer_value(json_object_get(o, key));
}

/* A sim's profile file adds up: busy + waiting = wall, the links' waits
 * and the any-input waits = waiting, the components' events = events. */
static void check_profile_file(const char *dir, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_t *p = json_load_file(path, 0, NULL);
    assert_non_null(p);
    assert_true(json_is_true(json_object_get(p, "enabled")));
    assert_int_equal(u(p, "busy_ns") + u(p, "wait_ns"), u(p, "wall_ns"));
    assert_int_equal(u(p, "sim_time_ps"), MORTAR_US(300));
    uint64_t waits = u(p, "wait_any_ns"), events = 0;
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(p, "links"), i, x) {
        waits += u(x, "wait_ns");
        assert_true(u(x, "msgs_sent") > 0 && u(x, "syncs_sent") > 0);
    }
    json_array_foreach(json_object_get(p, "components"), i, x)
        events += u(x, "events");
    assert_int_equal(json_array_size(json_object_get(p, "links")), 2);
    assert_int_equal(waits, u(p, "wait_ns"));
    assert_int_equal(events, u(p, "events"));
    assert_true(events > 100);
    json_decref(p);
}

static void
test_mortar_sim_results_are_the_same_with_and_without_the_profile(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    run_sims(dir, "on");
    assert_true(exists_in(dir, "sima.profile.json") &&
                exists_in(dir, "simb.profile.json"));
    check_profile_file(dir, "sima.profile.json");
    check_profile_file(dir, "simb.profile.json");
    remove_in(dir, "sima.profile.json");
    remove_in(dir, "simb.profile.json");

    setenv("MORTAR_PROFILE", "0", 1);
    run_sims(dir, "off");
    unsetenv("MORTAR_PROFILE");
    assert_false(exists_in(dir, "sima.profile.json") ||
                 exists_in(dir, "simb.profile.json"));
    const char *names[] = {"a", "b"};
    for (int i = 0; i < 2; i++) {
        char on[32], off[32];
        snprintf(on, sizeof on, "%s-on.log", names[i]);
        snprintf(off, sizeof off, "%s-off.log", names[i]);
        char *x = file_in(dir, on), *y = file_in(dir, off);
        assert_non_null(x);
        assert_non_null(y);
        assert_true(strlen(x) > 1000); /* traffic was really handled */
        assert_string_equal(x, y);     /* every event, at the same time */
        free(x);
        free(y);
    }
    remove_tree(dir);
}

/* ---- mortar profile on a recorded run ------------------------------------------ */

/* The spec of the recorded run: l0 joins the two sims; l1 is named a host
 * link (h0's), so each side's wait on l1 counts as waiting for host h0. */
static const char *const spec_text =
    "{\"name\":\"p\",\"links\":[{\"name\":\"l0\",\"a\":\"a.0\",\"b\":\"b.0\"},"
    "{\"name\":\"l1\",\"host\":\"h0\",\"component\":\"b.1\"}]}";

static const char *const host_text =
    "{\"virtual_time_ps\": 300000000, \"sync_start_ps\": 0, \"synchronized\": true,"
    " \"mmio_reads\": 12, \"mmio_stall_ps\": 34000000, \"services\": 5, \"waits\": 6,"
    " \"messages\": 7, \"idle_skips\": 8, \"spin_skips\": 4, \"spin_skipped_insns\": 10000,"
    " \"spin_skipped_ps\": 2500000, \"spin_verified\": 3, \"spin_refused\": 1,"
    " \"spin_reads_served\": 17, \"late_messages\": 2, \"bound_breaks\": 3,"
    " \"horizon_overruns\": 5,"
    " \"guest_insns\": 123456, \"blocks_whole\": 789, \"io_insns_apart\": 21,"
    " \"profile\": {\"enabled\": true,"
    " \"wall_ns\": 2000000000, \"vcpu_ns\": 500000000, \"spin_ns\": 100000000,"
    " \"hub_ns\": 250000000,"
    " \"wait_ns\": 1250000000, \"links\": [{\"link\": \"b\", \"wait_ns\": 1250000000,"
    " \"waits\": 9, \"msgs_sent\": 1, \"msgs_received\": 2, \"syncs_sent\": 3,"
    " \"syncs_received\": 4, \"waits_blocked\": 0, \"wakes_sent\": 0,"
    " \"full_stalls\": 0}]}}";

/* A host built before host profiles: counters only. */
static const char *const old_host_text =
    "{\"virtual_time_ps\": 1, \"sync_start_ps\": 0, \"synchronized\": true,"
    " \"mmio_reads\": 0, \"mmio_stall_ps\": 0, \"services\": 0, \"waits\": 0,"
    " \"messages\": 0, \"idle_skips\": 0}";

/* A run directory with two sims' profiles, a host's figures and the spec,
 * recorded as run `*id` in `db_path`. */
static void record_run(const char *dir, const char *db_path, int64_t *id)
{
    run_sims(dir, "rec");
    char path[256];
    snprintf(path, sizeof path, "%s/spec.json", dir);
    write_text(path, spec_text);
    snprintf(path, sizeof path, "%s/h0.host.json", dir);
    write_text(path, host_text);
    snprintf(path, sizeof path, "%s/h1.host.json", dir);
    write_text(path, old_host_text);
    sqlite3 *db;
    char err[512];
    if (db_open(&db, db_path, err, sizeof err))
        fail_msg("%s", err);
    json_t *spec = json_loads(spec_text, 0, NULL);
    db_run_info info = {.name = "p", .spec = spec, .run_dir = dir};
    *id = db_begin_run(db, &info);
    assert_true(*id > 0);
    json_t *profile = profile_collect(dir, err, sizeof err);
    assert_non_null(profile);
    assert_int_equal(profile_check(profile, err, sizeof err), 0);
    run_record rec = {.id = *id, .status = "ok", .profile = profile};
    snprintf(path, sizeof path, "%s/result.json", dir);
    assert_int_equal(run_record_write(db, &rec, 1, path, err, sizeof err), 0);
    json_decref(profile);
    json_decref(spec);
    sqlite3_close(db);
}

static json_t *link_named(json_t *proc, const char *name)
{
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(proc, "links"), i, l) {
        if (!strcmp(json_string_value(json_object_get(l, "link")), name))
            return l;
    }
    return NULL;
}

static void test_mortar_profile_shows_a_recorded_run_by_id_and_by_directory(void **state)
{
    (void)state;
    const char *dir = scratch_dir();
    char db[128], args[512];
    snprintf(db, sizeof db, "%s/results.db", dir);
    int64_t id;
    record_run(dir, db, &id);

    snprintf(args, sizeof args, "profile %lld --db '%s'", (long long)id, db);
    cli_result r = run_program(dir, "mortar", args);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "process sima:"));
    assert_non_null(strstr(r.out, "process simb:"));
    assert_non_null(strstr(r.out, "waiting on link"));
    assert_non_null(strstr(r.out, "host h0: simulated time reached 300.000 us"));
    assert_non_null(strstr(r.out, "mmio reads 12"));
    /* the host's own wall time, and the link it waited on with its peer */
    assert_non_null(strstr(r.out, "wall 2.000 s: guest running 0.500 s (25.0%; spinning in "
                                  "pure waits 0.100 s, 5.0%), hub working 0.250 s (12.5%), "
                                  "waiting 1.250 s (62.5%)"));
    assert_non_null(strstr(r.out, "spinning: 3 pure waits found, 4 skips over 2.500 us "
                                  "simulated (10000 instructions not executed), 1 loops refused, "
                                  "17 device reads answered while waiting"));
    assert_non_null(strstr(r.out, "warning: 2 messages handled after the vCPU had passed "
                                  "them (late_messages)"));
    assert_non_null(strstr(r.out, "warning: 3 messages stamped before where the links "
                                  "had let the host go (bound_breaks)"));
    assert_non_null(strstr(r.out, "warning: 5 stops past the vCPU's horizon "
                                  "(horizon_overruns)"));
    assert_non_null(strstr(r.out, "guest instructions executed 123456; translation blocks "
                                  "run whole past a horizon 789; I/O instructions in "
                                  "blocks of their own 21"));
    assert_non_null(strstr(r.out, "l1                   b"));
    assert_non_null(strstr(r.out, "wall times not recorded"));
    /* what the models waited for the host: the waits on its links */
    assert_non_null(strstr(r.out, "process sima waited "));
    assert_non_null(strstr(r.out, "for it on link l1"));
    cli_result_free(&r);

    snprintf(args, sizeof args, "profile %lld --db '%s' --json", (long long)id, db);
    r = run_program(dir, "mortar", args);
    assert_int_equal(r.status, 0);
    json_t *j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "run")), id);
    json_t *procs = json_object_get(j, "processes");
    assert_int_equal(json_array_size(procs), 4); /* h0, h1, sima, simb, by name */
    json_t *h0 = json_array_get(procs, 0), *sima = json_array_get(procs, 2);
    assert_string_equal(json_string_value(json_object_get(h0, "kind")), "host");
    assert_int_equal(u(json_object_get(h0, "host"), "mmio_reads"), 12);
    json_t *h0_link = json_array_get(
        json_object_get(json_object_get(json_object_get(h0, "host"), "profile"), "links"),
        0);
    assert_string_equal(json_string_value(json_object_get(h0_link, "peer")), "b");
    assert_string_equal(json_string_value(json_object_get(h0_link, "link")), "l1");
    assert_string_equal(json_string_value(json_object_get(sima, "name")), "sima");
    /* each link names the process's peer, from the spec */
    assert_string_equal(
        json_string_value(json_object_get(link_named(sima, "l0"), "peer")), "b");
    assert_int_equal(u(sima, "busy_ns") + u(sima, "wait_ns"), u(sima, "wall_ns"));
    cli_result_free(&r);

    /* the directory gives the same processes without the database */
    snprintf(args, sizeof args, "profile '%s' --json", dir);
    r = run_program(dir, "mortar", args);
    assert_int_equal(r.status, 0);
    json_t *k = json_loads(r.out, 0, NULL);
    assert_true(json_equal(json_object_get(k, "processes"), procs));
    json_decref(k);
    json_decref(j);
    cli_result_free(&r);

    /* a run that is not there fails; a missing RUN is a usage error */
    snprintf(args, sizeof args, "profile %lld --db '%s'", (long long)id + 1, db);
    r = run_program(dir, "mortar", args);
    assert_int_equal(r.status, 1);
    cli_result_free(&r);
    r = run_program(dir, "mortar", "profile --json");
    assert_int_equal(r.status, 2);
    cli_result_free(&r);
    remove_tree(dir);
}

static void test_a_malformed_profile_is_refused(void **state)
{
    (void)state;
    char err[256];
    const char *bad[] = {
        "{}",
        "[1]",
        "[{\"name\":\"s\",\"kind\":\"other\"}]",
        "[{\"name\":\"h\",\"kind\":\"host\",\"host\":3}]",
        "[{\"name\":\"h\",\"kind\":\"host\",\"host\":{\"profile\":[]}}]",
        "[{\"name\":\"h\",\"kind\":\"host\",\"host\":{\"profile\":{\"wall_ns\":1,"
        "\"vcpu_ns\":1,\"hub_ns\":0,\"wait_ns\":0,\"links\":[{\"link\":\"l\","
        "\"wait_ns\":-3}]}}}]",
        "[{\"name\":\"s\",\"kind\":\"sim\",\"wall_ns\":-1}]",
        "[{\"name\":\"s\",\"kind\":\"sim\",\"wall_ns\":1,\"busy_ns\":1,\"wait_ns\":0,"
        "\"wait_any_ns\":0,\"waits_any\":0,\"sim_time_ps\":1,\"events\":1,"
        "\"links\":[{\"link\":\"l\"}],\"components\":[]}]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_t *j = json_loads(bad[i], 0, NULL);
        assert_non_null(j);
        assert_int_equal(profile_check(j, err, sizeof err), -1);
        json_decref(j);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_idle_side_waits_on_the_link_and_the_slow_side_is_busy),
        cmocka_unit_test(test_profiling_off_measures_no_time_and_changes_no_count),
        cmocka_unit_test(
            test_mortar_sim_results_are_the_same_with_and_without_the_profile),
        cmocka_unit_test(test_mortar_profile_shows_a_recorded_run_by_id_and_by_directory),
        cmocka_unit_test(test_a_malformed_profile_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
