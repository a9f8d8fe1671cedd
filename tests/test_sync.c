/*
 * test_sync.c - conservative synchronization across two real processes.
 *
 * Two testgen components exchange random traffic over two links with random
 * latencies. Each logs every handled event. The checks: a message is handled
 * exactly at its stamp (never before it, and never late, which would mean
 * the clock passed what the inputs allowed); each log's times never go back;
 * two runs give identical logs; the same scenario co-located in one process
 * (in-process links) gives the same logs as over shared memory.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <sys/stat.h>

#include "proc_util.h"

/* Wall seconds a simulation may take before it counts as hung: generous,
 * because the sanitizer build on a loaded 2-core machine is slow. */
#define HANG_LIMIT_S 120

typedef struct scenario {
    unsigned seed;
    uint64_t lat0_ns, lat1_ns, gap_a_ns, gap_b_ns;
    char dir[128];
} scenario;

static void make_scenario(scenario *s, unsigned seed)
{
    srand(seed);
    s->seed = seed;
    s->lat0_ns = 50 + (uint64_t)(rand() % 3000);
    s->lat1_ns = 50 + (uint64_t)(rand() % 3000);
    s->gap_a_ns = 100 + (uint64_t)(rand() % 5000);
    s->gap_b_ns = 100 + (uint64_t)(rand() % 5000);
    snprintf(s->dir, sizeof s->dir, "/tmp/mortar-sync-%d-%u", (int)getpid(), seed);
    mkdir(s->dir, 0755);
}

static void component_json(char *buf, size_t size, const scenario *s, const char *name,
                           unsigned seed, uint64_t gap_ns, const char *tag)
{
    snprintf(buf, size,
             "{\"name\":\"%s\",\"kind\":\"testgen\",\"params\":{\"ports\":2,\"seed\":%u,"
             "\"messages\":300,\"max_gap\":\"%" PRIu64 "ns\",\"payload\":64,\"echo\":true,"
             "\"log\":\"%s/%s-%s.log\"}}",
             name, seed, gap_ns, s->dir, name, tag);
}

static void link_json(char *buf, size_t size, const char *name, const char *port,
                      const char *how, const char *target, uint64_t lat_ns)
{
    snprintf(buf, size,
             "{\"name\":\"%s\",\"port\":\"%s\",\"%s\":\"%s\",\"latency\":\"%" PRIu64 "ns\"}",
             name, port, how, target, lat_ns);
}

/* Waits for both simulators; each must exit 0 within the hang limit. */
static void wait_both(pid_t pa, const char *err_a, pid_t pb, const char *err_b)
{
    int sa = wait_exit(pa, HANG_LIMIT_S), sb = wait_exit(pb, HANG_LIMIT_S);
    if (sa != 0 || sb != 0) {
        char *ea = read_text(err_a), *eb = read_text(err_b);
        print_error("a: %d %s\nb: %d %s\n", sa, ea ? ea : "", sb, eb ? eb : "");
        free(ea);
        free(eb);
    }
    assert_int_equal(sa, 0);
    assert_int_equal(sb, 0);
}

/* Runs A and B as two processes over shared memory; logs tagged `tag`;
 * lookahead promises on or off. */
static void run_two_processes(const scenario *s, const char *tag, bool promises)
{
    char ca[512], cb[512], l0[256], l1[256], path[256], desc[2048], sock0[160], sock1[160];
    snprintf(sock0, sizeof sock0, "%s/l0.sock", s->dir);
    snprintf(sock1, sizeof sock1, "%s/l1.sock", s->dir);
    component_json(ca, sizeof ca, s, "a", s->seed * 2 + 1, s->gap_a_ns, tag);
    component_json(cb, sizeof cb, s, "b", s->seed * 2 + 2, s->gap_b_ns, tag);

    link_json(l0, sizeof l0, "l0", "a.0", "listen", sock0, s->lat0_ns);
    link_json(l1, sizeof l1, "l1", "a.1", "connect", sock1, s->lat1_ns);
    snprintf(desc, sizeof desc,
             "{\"until\":\"400us\",\"promises\":%s,\"components\":[%s],\"links\":[%s,%s]}",
             promises ? "true" : "false", ca, l0, l1);
    snprintf(path, sizeof path, "%s/a.json", s->dir);
    write_text(path, desc);
    char err_a[256];
    snprintf(err_a, sizeof err_a, "%s/a.err", s->dir);
    pid_t pa = spawn_sim(path, err_a);

    link_json(l0, sizeof l0, "l0", "b.0", "connect", sock0, s->lat0_ns);
    link_json(l1, sizeof l1, "l1", "b.1", "listen", sock1, s->lat1_ns);
    snprintf(desc, sizeof desc,
             "{\"until\":\"400us\",\"promises\":%s,\"components\":[%s],\"links\":[%s,%s]}",
             promises ? "true" : "false", cb, l0, l1);
    snprintf(path, sizeof path, "%s/b.json", s->dir);
    write_text(path, desc);
    char err_b[256];
    snprintf(err_b, sizeof err_b, "%s/b.err", s->dir);
    pid_t pb = spawn_sim(path, err_b);

    wait_both(pa, err_a, pb, err_b);
}

static void run_one_process(const scenario *s, const char *tag)
{
    char ca[512], cb[512], l0[256], l1[256], path[256], desc[2048], err[256];
    component_json(ca, sizeof ca, s, "a", s->seed * 2 + 1, s->gap_a_ns, tag);
    component_json(cb, sizeof cb, s, "b", s->seed * 2 + 2, s->gap_b_ns, tag);
    link_json(l0, sizeof l0, "l0", "a.0", "peer", "b.0", s->lat0_ns);
    link_json(l1, sizeof l1, "l1", "a.1", "peer", "b.1", s->lat1_ns);
    snprintf(desc, sizeof desc, "{\"until\":\"400us\",\"components\":[%s,%s],\"links\":[%s,%s]}",
             ca, cb, l0, l1);
    snprintf(path, sizeof path, "%s/ab.json", s->dir);
    write_text(path, desc);
    snprintf(err, sizeof err, "%s/ab.err", s->dir);
    assert_int_equal(wait_exit(spawn_sim(path, err), HANG_LIMIT_S), 0);
}

static char *log_of(const scenario *s, const char *name, const char *tag)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s-%s.log", s->dir, name, tag);
    char *text = read_text(path);
    assert_non_null(text);
    return text;
}

/* Every rx is handled at its stamp; times never decrease. */
static void check_log_timing(const char *text, unsigned *rx_count)
{
    uint64_t last = 0;
    const char *line = text;
    *rx_count = 0;
    while (*line) {
        uint64_t now, stamp, a, b;
        unsigned port;
        if (sscanf(line, "%" SCNu64 " rx %u %" SCNu64 " %" SCNu64 " %" SCNu64, &now, &port,
                   &stamp, &a, &b) == 5) {
            assert_int_equal(now, stamp);
            (*rx_count)++;
        } else {
            assert_int_equal(sscanf(line, "%" SCNu64, &now), 1);
        }
        assert_true(now >= last);
        last = now;
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : line + strlen(line);
    }
}

static void test_sync_handles_each_message_at_its_stamp_and_repeats_exactly(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 3; seed++) {
        scenario s;
        make_scenario(&s, seed);
        run_two_processes(&s, "shm1", true);
        run_two_processes(&s, "shm2", true);
        run_one_process(&s, "inproc");
        const char *names[] = {"a", "b"};
        for (int i = 0; i < 2; i++) {
            char *one = log_of(&s, names[i], "shm1");
            char *two = log_of(&s, names[i], "shm2");
            char *inproc = log_of(&s, names[i], "inproc");
            unsigned rx;
            check_log_timing(one, &rx);
            assert_true(rx > 100); /* the scenario really exchanged traffic */
            assert_string_equal(one, two);
            assert_string_equal(one, inproc);
            free(one);
            free(two);
            free(inproc);
        }
        char cmd[256];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", s.dir);
        assert_int_equal(system(cmd), 0);
    }
}

/*
 * The chain: process A holds components a and c joined in-process (latency
 * lat0/2), a on l0 and c on l1 to process B's one component b. A's promise on
 * l0 then rests on c's events and l1's bound through the in-process link.
 */
static void run_chain(const scenario *s, const char *tag, bool promises)
{
    char ca[512], cc[512], cb[512], l0[256], l1[256], lac[256], path[256], desc[3072];
    char sock0[160], sock1[160], err_a[256], err_b[256];
    const char *on = promises ? "true" : "false";
    snprintf(sock0, sizeof sock0, "%s/c0.sock", s->dir);
    snprintf(sock1, sizeof sock1, "%s/c1.sock", s->dir);
    component_json(ca, sizeof ca, s, "a", s->seed * 2 + 1, s->gap_a_ns, tag);
    component_json(cc, sizeof cc, s, "c", s->seed * 2 + 3, s->gap_a_ns, tag);
    component_json(cb, sizeof cb, s, "b", s->seed * 2 + 2, s->gap_b_ns, tag);

    link_json(l0, sizeof l0, "l0", "a.0", "listen", sock0, s->lat0_ns);
    link_json(l1, sizeof l1, "l1", "c.1", "listen", sock1, s->lat1_ns);
    link_json(lac, sizeof lac, "lac", "a.1", "peer", "c.0", s->lat0_ns / 2 + 1);
    snprintf(desc, sizeof desc,
             "{\"until\":\"400us\",\"promises\":%s,\"components\":[%s,%s],"
             "\"links\":[%s,%s,%s]}",
             on, ca, cc, l0, l1, lac);
    snprintf(path, sizeof path, "%s/chain-a.json", s->dir);
    write_text(path, desc);
    snprintf(err_a, sizeof err_a, "%s/chain-a.err", s->dir);
    pid_t pa = spawn_sim(path, err_a);

    link_json(l0, sizeof l0, "l0", "b.0", "connect", sock0, s->lat0_ns);
    link_json(l1, sizeof l1, "l1", "b.1", "connect", sock1, s->lat1_ns);
    snprintf(desc, sizeof desc,
             "{\"until\":\"400us\",\"promises\":%s,\"components\":[%s],"
             "\"links\":[%s,%s]}",
             on, cb, l0, l1);
    snprintf(path, sizeof path, "%s/chain-b.json", s->dir);
    write_text(path, desc);
    snprintf(err_b, sizeof err_b, "%s/chain-b.err", s->dir);
    pid_t pb = spawn_sim(path, err_b);
    wait_both(pa, err_a, pb, err_b);
}

static void test_sync_promises_change_no_handled_event(void **state)
{
    (void)state;
    for (unsigned seed = 11; seed <= 12; seed++) {
        scenario s;
        make_scenario(&s, seed);
        run_two_processes(&s, "on", true);
        run_two_processes(&s, "off", false);
        run_chain(&s, "chain-on", true);
        run_chain(&s, "chain-off", false);
        const char *names[] = {"a", "b"};
        for (int i = 0; i < 2; i++) {
            char *on = log_of(&s, names[i], "on"), *off = log_of(&s, names[i], "off");
            unsigned rx;
            check_log_timing(on, &rx);
            assert_true(rx > 100);
            assert_string_equal(on, off);
            free(on);
            free(off);
        }
        const char *chain[] = {"a", "b", "c"};
        for (int i = 0; i < 3; i++) {
            char *on = log_of(&s, chain[i], "chain-on");
            char *off = log_of(&s, chain[i], "chain-off");
            unsigned rx;
            check_log_timing(on, &rx);
            assert_true(rx > 50);
            assert_string_equal(on, off);
            free(on);
            free(off);
        }
        char cmd[256];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", s.dir);
        assert_int_equal(system(cmd), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sync_handles_each_message_at_its_stamp_and_repeats_exactly),
        cmocka_unit_test(test_sync_promises_change_no_handled_event),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
