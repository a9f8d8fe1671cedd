/*
 * test_peer_crash.c - a peer that is killed in the middle of a synchronized
 * run is detected within a second of wall time, with an error naming the
 * link, and the surviving process exits instead of hanging.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>

#include "proc_util.h"

static void write_desc(const char *path, const char *name, const char *role,
                       const char *sock, const char *wait)
{
    char desc[1024];
    snprintf(desc, sizeof desc,
             "{\"until\":\"1000s\",\"components\":[{\"name\":\"%s\",\"kind\":\"testgen\","
             "\"params\":{\"messages\":100000000,\"max_gap\":\"2us\",\"echo\":false}}],"
             "\"links\":[{\"name\":\"crashlink\",\"port\":\"%s.0\",\"%s\":\"%s\","
             "\"latency\":\"500ns\",\"wait\":\"%s\"}]}",
             name, name, role, sock, wait);
    write_text(path, desc);
}

static void crash_peer_with_policy(const char *wait)
{
    char dir[128], a[192], b[192], sock[192], err_a[192], err_b[192];
    snprintf(dir, sizeof dir, "/tmp/mortar-crash-%d-%s", (int)getpid(), wait);
    mkdir(dir, 0755);
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    snprintf(sock, sizeof sock, "%s/l.sock", dir);
    snprintf(err_a, sizeof err_a, "%s/a.err", dir);
    snprintf(err_b, sizeof err_b, "%s/b.err", dir);
    write_desc(a, "a", "listen", sock, wait);
    write_desc(b, "b", "connect", sock, wait);
    pid_t pa = spawn_sim(a, err_a);
    pid_t pb = spawn_sim(b, err_b);
    usleep(400000); /* both are running synchronized now */
    assert_int_equal(waitpid(pa, NULL, WNOHANG), 0);
    kill(pb, SIGKILL);
    double killed_at = wall_s();
    int status = wait_exit(pa, 5.0);
    double detect_s = wall_s() - killed_at;
    waitpid(pb, NULL, 0);
    char *err = read_text(err_a);
    print_message("policy %s: detected in %.3f s: %s", wait, detect_s, err ? err : "");
    assert_int_equal(status, 1); /* a failed run; 2 is a usage error */
    assert_true(detect_s < 1.0);
    assert_non_null(err);
    assert_non_null(strstr(err, "crashlink"));
    assert_non_null(strstr(err, "peer died"));
    free(err);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_killed_peer_is_detected_within_a_second_when_blocking(void **state)
{
    (void)state;
    crash_peer_with_policy("block");
}

static void test_killed_peer_is_detected_within_a_second_when_spinning(void **state)
{
    (void)state;
    crash_peer_with_policy("spin");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_killed_peer_is_detected_within_a_second_when_blocking),
        cmocka_unit_test(test_killed_peer_is_detected_within_a_second_when_spinning),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
