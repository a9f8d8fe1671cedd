/*
 * test_host_faults.c - a run whose host handled a message after its vCPU
 * had passed it fails, naming the host (cli/run/host_faults.c); a run
 * whose hosts report none, or do not report the counter, does not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "host_faults.h"

/* host_faults_none on the stats `text`; its error in `err`. */
static bool none_in(const char *text, char *err, size_t err_size)
{
    json_t *stats = json_loads(text, 0, NULL);
    assert_non_null(stats);
    err[0] = '\0';
    bool none = host_faults_none(stats, err, err_size);
    json_decref(stats);
    return none;
}

static void hosts_on_time_are_no_fault(void **state)
{
    (void)state;
    char err[512];
    assert_true(none_in("{\"host_client\": {\"late_messages\": 0, \"mmio_reads\": 9},"
                        " \"host_server\": {\"late_messages\": 0},"
                        " \"nic_client\": {\"late_messages\": 7}}",
                        err, sizeof err));
    assert_string_equal(err, "");
}

static void a_host_without_the_counter_is_no_fault(void **state)
{
    (void)state;
    char err[512];
    assert_true(none_in("{\"host_client\": {\"tcp_retrans\": 3}, \"host_server\": 5}",
                        err, sizeof err));
}

static void a_late_message_is_a_fault_naming_its_host(void **state)
{
    (void)state;
    char err[512];
    assert_false(none_in("{\"host_client\": {\"late_messages\": 0},"
                         " \"host_server\": {\"late_messages\": 1}}",
                         err, sizeof err));
    assert_non_null(strstr(err, "host 'server' handled 1 message after"));
    assert_non_null(strstr(err, "late_messages"));
    assert_false(none_in("{\"host_client\": {\"late_messages\": 2}}", err, sizeof err));
    assert_non_null(strstr(err, "host 'client' handled 2 messages after"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hosts_on_time_are_no_fault),
        cmocka_unit_test(a_host_without_the_counter_is_no_fault),
        cmocka_unit_test(a_late_message_is_a_fault_naming_its_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
