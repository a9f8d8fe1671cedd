/*
 * test_losses.c - what a run lost (cli/run/losses.c, cli/db/db.c): the guest's
 * TCP retransmission line, the loss counters the models declare (e1000,
 * switch) and the hosts' retransmissions picked from a run's stats, their
 * record in the database, and how `mortar results` shows them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>

#include "db.h"
#include "losses.h"

static const char *const spec_text =
    "{\"hosts\": [{\"name\": \"client\"}, {\"name\": \"server\"}],"
    " \"components\": [{\"name\": \"nic_client\", \"kind\": \"e1000\"},"
    "                  {\"name\": \"nic_server\", \"kind\": \"e1000\"},"
    "                  {\"name\": \"switch\", \"kind\": \"switch\"}]}";

static const char *const stats_text =
    "{\"nic_client\": {\"rx_missed\": 0, \"tx_dropped\": 0, \"rx_filtered\": 9},"
    " \"nic_server\": {\"rx_missed\": 4, \"tx_dropped\": 1, \"rx_frames\": 100},"
    " \"switch\": {\"drops\": 2, \"port1.drops\": 2, \"filtered\": 5, \"too_big\": 0},"
    " \"host_client\": {\"tcp_retrans\": 7, \"mmio_reads\": 3},"
    " \"host_server\": {\"tcp_retrans\": 0}}";

static json_t *load(const char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    assert_non_null(j);
    return j;
}

static void assert_loss(json_t *l, const char *source, const char *counter, long long n)
{
    assert_string_equal(json_string_value(json_object_get(l, "source")), source);
    assert_string_equal(json_string_value(json_object_get(l, "counter")), counter);
    assert_int_equal(json_integer_value(json_object_get(l, "count")), n);
}

static void test_tcp_retrans_line_is_parsed_and_checked(void **state)
{
    (void)state;
    assert_int_equal(losses_parse_tcp_retrans("MORTAR-TCP-RETRANS 12\n"), 12);
    assert_int_equal(losses_parse_tcp_retrans("MORTAR-TCP-RETRANS 0\r\n"), 0);
    assert_int_equal(losses_parse_tcp_retrans("MORTAR-TCP-RETRANS -3\n"), -1);
    assert_int_equal(losses_parse_tcp_retrans("MORTAR-TCP-RETRANS 12abc\n"), -1);
    assert_int_equal(losses_parse_tcp_retrans("MORTAR-TCP-RETRANS \n"), -1);
    assert_int_equal(
        losses_parse_tcp_retrans("MORTAR-TCP-RETRANS 99999999999999999999\n"), -1);
    assert_int_equal(losses_parse_tcp_retrans("req=1 latency_ns=5\n"), -1);
}

static void test_losses_are_the_declared_counters_that_are_not_zero(void **state)
{
    (void)state;
    json_t *spec = load(spec_text), *stats = load(stats_text);
    json_t *l = losses_of_run(spec, stats);
    /* e1000: rx_missed, tx_dropped; switch: the totals only; hosts: tcp_retrans */
    assert_int_equal(json_array_size(l), 4);
    assert_loss(json_array_get(l, 0), "nic_server", "rx_missed", 4);
    assert_loss(json_array_get(l, 1), "nic_server", "tx_dropped", 1);
    assert_loss(json_array_get(l, 2), "switch", "drops", 2);
    assert_loss(json_array_get(l, 3), "client", "tcp_retrans", 7);
    assert_int_equal(losses_total(l), 14);
    char text[256];
    assert_string_equal(
        losses_text(l, text, sizeof text),
        "nic_server.rx_missed 4, nic_server.tx_dropped 1, switch.drops 2, "
        "client.tcp_retrans 7");
    json_decref(l);
    json_decref(spec);
    json_decref(stats);
}

static void test_models_declare_their_loss_counters(void **state)
{
    (void)state;
    /* the rule reads what each model names: a counter it does not name is
     * not a loss, whatever its value */
    json_t *spec = load(spec_text);
    json_t *stats = load("{\"switch\": {\"filtered\": 5, \"malformed\": 1},"
                         " \"nic_client\": {\"rx_filtered\": 3}}");
    json_t *l = losses_of_run(spec, stats);
    assert_int_equal(json_array_size(l), 1);
    assert_loss(json_array_get(l, 0), "switch", "malformed", 1);
    json_decref(l);
    json_decref(stats);
    json_decref(spec);
}

typedef struct test_db {
    char path[64];
    sqlite3 *db;
} test_db;

static void open_db(test_db *t)
{
    snprintf(t->path, sizeof t->path, "/tmp/test_losses_XXXXXX");
    int fd = mkstemp(t->path);
    assert_true(fd >= 0);
    close(fd);
    char err[256];
    if (db_open(&t->db, t->path, err, sizeof err))
        fail_msg("db_open: %s", err);
}

static void close_db(test_db *t)
{
    sqlite3_close(t->db);
    char side[80];
    unlink(t->path);
    snprintf(side, sizeof side, "%s-wal", t->path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", t->path);
    unlink(side);
}

static int64_t add_run(sqlite3 *db)
{
    json_t *spec = json_object();
    db_run_info info = {.name = "t", .run_dir = "/tmp", .spec = spec};
    int64_t id = db_begin_run(db, &info);
    json_decref(spec);
    assert_true(id > 0);
    db_summary s = {0};
    assert_int_equal(db_finish_run(db, id, "ok", NULL, 1.0, NULL, NULL, NULL, 0, &s), 0);
    return id;
}

static void test_results_show_the_losses_of_each_run(void **state)
{
    (void)state;
    test_db t;
    open_db(&t);
    int64_t before = add_run(t.db); /* as recorded before losses were */
    int64_t clean = add_run(t.db);
    int64_t lossy = add_run(t.db);
    json_t *none = json_array();
    assert_int_equal(db_record_losses(t.db, clean, none), 0);
    json_decref(none);
    json_t *spec = load(spec_text), *stats = load(stats_text);
    json_t *l = losses_of_run(spec, stats);
    assert_int_equal(db_record_losses(t.db, lossy, l), 0);
    json_decref(l);
    json_decref(spec);
    json_decref(stats);

    json_t *all = db_runs_json(t.db), *runs = json_object_get(all, "runs");
    char cell[32];
    json_t *r0 = json_array_get(runs, 0), *r1 = json_array_get(runs, 1),
           *r2 = json_array_get(runs, 2);
    assert_int_equal(json_integer_value(json_object_get(r0, "id")), before);
    assert_true(json_is_null(json_object_get(r0, "lost")));
    assert_string_equal(losses_cell(r0, cell, sizeof cell), "-");
    assert_int_equal(json_integer_value(json_object_get(r1, "lost")), 0);
    assert_string_equal(losses_cell(r1, cell, sizeof cell), "0");
    assert_int_equal(json_integer_value(json_object_get(r2, "lost")), 14);
    assert_string_equal(losses_cell(r2, cell, sizeof cell), "14!");
    json_t *rl = json_object_get(r2, "losses");
    assert_int_equal(json_array_size(rl), 4);
    assert_loss(json_array_get(rl, 0), "nic_server", "rx_missed", 4);
    assert_loss(json_array_get(rl, 3), "client", "tcp_retrans", 7);
    assert_int_equal(json_array_size(json_object_get(r0, "losses")), 0);
    json_decref(all);
    close_db(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tcp_retrans_line_is_parsed_and_checked),
        cmocka_unit_test(test_losses_are_the_declared_counters_that_are_not_zero),
        cmocka_unit_test(test_models_declare_their_loss_counters),
        cmocka_unit_test(test_results_show_the_losses_of_each_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
