/*
 * test_matmul_verdict.c - the verdict from a synthetic results database: winners
 * and margins per cell, the crossover latency by interpolation, no crossing
 * where one design wins everywhere, movement across the latency range,
 * request medians, alone times from the real device model, baselines, load
 * runs; failed runs ignored and the newest run of a cell used; the null
 * cases, an empty database and a broken one; a warning for every loss
 * counter of a run the verdict uses, and none for runs it does not use;
 * the labels and baselines taken from the study file, and the verdict's
 * text and JSON and `results --json` of the grid byte for byte those of
 * the code before the study file (studies/matmul/tests/golden/).
 *
 * The grid at 1x: A's median is 1000 + 800 L us and B's 1500 + 200 L, so
 * they cross at L = 5/6 us, which interpolation between the measured points
 * 0.5 and 1.0 finds exactly. At 2x A wins everywhere.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>

#include "db.h"
#include "mortar/trace.h"
#include "scratch_files.h"
#include "study.h"
#include "verdict.h"
#include "verdict_answer.h"

/* The case study's study file: the variants compared (a, b) and the
 * baselines (software, regcopy), as verdict_compute takes them. */
static study case_study;

/* ---- building the database ---- */

typedef struct test_db {
    char path[64];
    sqlite3 *db;
} test_db;

static void open_db(test_db *t)
{
    snprintf(t->path, sizeof t->path, "/tmp/test_verdict_XXXXXX");
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

typedef struct run_args {
    const char *design, *status;
    double latency_us, speed, median_us;
    int64_t in_flight;
    const db_request *reqs; /* NULL: one request, service and compute unknown */
    size_t nreqs;
    const char *stats;   /* the components' counters as JSON, or NULL */
    const char *run_dir; /* NULL: an empty directory */
} run_args;

/* A spec whose variables are the run's: they land in run_vars, where the
 * verdict reads them (the latency as --set text, "0.5us"). */
static json_t *run_spec(const char *design, double latency_us, double speed,
                        int64_t in_flight)
{
    json_t *vars = json_pack("{s:s, s:o, s:f, s:I}", "design", design, "pcie.latency",
                             json_sprintf("%gus", latency_us), "speed", speed, "inflight",
                             (json_int_t)in_flight);
    return json_pack("{s:o}", "vars", vars);
}

static int64_t add_run(sqlite3 *db, run_args a)
{
    int64_t in_flight = a.in_flight ? a.in_flight : 1;
    json_t *spec = run_spec(a.design, a.latency_us, a.speed, in_flight);
    db_run_info info = {.name = "t",
                        .run_dir = a.run_dir ? a.run_dir : "/tmp/mortar-verdict-no-trace",
                        .spec = spec};
    int64_t id = db_begin_run(db, &info);
    json_decref(spec);
    assert_true(id > 0);
    db_request one = {.latency_ns = (int64_t)(a.median_us * 1000), .verified = 1};
    const db_request *reqs = a.reqs ? a.reqs : &one;
    size_t n = a.reqs ? a.nreqs : 1;
    db_summary s = {.requests = (int64_t)n,
                    .verified = (int64_t)n,
                    .median_us = a.median_us,
                    .p99_us = a.median_us * 1.1,
                    .mean_us = a.median_us,
                    .min_us = a.median_us * 0.9,
                    .max_us = a.median_us * 1.2,
                    .throughput_rps = 1e6 / a.median_us * (double)in_flight};
    json_t *stats = a.stats ? json_loads(a.stats, 0, NULL) : NULL;
    assert_true(!a.stats || stats);
    assert_int_equal(db_finish_run(db, id, a.status ? a.status : "ok", NULL, 1.0, NULL,
                                   stats, reqs, n, &s),
                     0);
    json_decref(stats);
    return id;
}

/* A run with one request whose service and compute times are unknown. */
static int64_t add(sqlite3 *db, const char *design, const char *status, double latency_us,
                   double speed, double median_us)
{
    return add_run(db, (run_args){.design = design,
                                  .status = status,
                                  .latency_us = latency_us,
                                  .speed = speed,
                                  .median_us = median_us});
}

static double median_a(double l, double speed)
{
    return speed == 1 ? 1000 + 800 * l : 500 + 100 * l;
}

static double median_b(double l, double speed)
{
    return speed == 1 ? 1500 + 200 * l : 900 + 100 * l;
}

/* service 1000..3000 ns known for three requests (median 2 us); compute known
 * for two, 5000 and 7000 ns (median 6 us). */
static const int64_t a_parts_ns[4][2] = {{-1, 5000}, {3000, 7000}, {1000, -1}, {2000, -1}};
static db_request a_requests[4];

/* a_requests with their fields (service_ns, device_compute_ns; -1:
 * unknown, so absent); free_a_requests undoes it. */
static void make_a_requests(void)
{
    for (int i = 0; i < 4; i++) {
        json_t *fields = json_object();
        if (a_parts_ns[i][0] >= 0)
            json_object_set_new(fields, "service_ns", json_integer(a_parts_ns[i][0]));
        if (a_parts_ns[i][1] >= 0)
            json_object_set_new(fields, "device_compute_ns", json_integer(a_parts_ns[i][1]));
        a_requests[i] = (db_request){
            .idx = i, .latency_ns = 1400000, .verified = 1, .fields = fields};
    }
}

static void free_a_requests(void)
{
    for (int i = 0; i < 4; i++)
        json_decref(a_requests[i].fields);
}

static void fill_grid(sqlite3 *db, int64_t *newest_b)
{
    /* An older run of a cell that a newer one replaces. */
    add(db, "b", "ok", 1.5, 1, 100);
    const double lats[] = {0.5, 1.0, 1.5}, speeds[] = {1, 2};
    make_a_requests();
    for (int s = 0; s < 2; s++)
        for (int l = 0; l < 3; l++) {
            double L = lats[l], S = speeds[s];
            bool requests = L == 0.5 && S == 1;
            add_run(db, (run_args){.design = "a",
                                   .latency_us = L,
                                   .speed = S,
                                   .median_us = median_a(L, S),
                                   .reqs = requests ? a_requests : NULL,
                                   .nreqs = requests ? 4 : 0});
            int64_t id = add(db, "b", "ok", L, S, median_b(L, S));
            if (L == 1.5 && S == 1)
                *newest_b = id;
        }
    free_a_requests();
    /* Runs that did not finish, newer than the finished ones of their cells. */
    add(db, "a", "failed", 1.0, 1, 99999);
    add(db, "a", "running", 1.5, 1, 99999);
    /* A alone at 2 us: a cell with B null, and the end of A's movement at 1x. */
    add(db, "a", "ok", 2.0, 1, median_a(2.0, 1));
    add(db, "software", "ok", 0.5, 1, 90000);
    add(db, "software", "ok", 1.0, 1, 90100);
    add(db, "regcopy", "ok", 0.5, 1, 20000);
    /* Load: four in flight; B's at a latency outside the grid, two and four. */
    add_run(db, (run_args){.design = "a",
                           .latency_us = 0.5,
                           .speed = 1,
                           .median_us = 5000,
                           .in_flight = 4});
    add_run(db, (run_args){
                    .design = "b",
                    .latency_us = 3.0,
                    .speed = 1,
                    .median_us = 2000,
                    .in_flight = 2,
                    .stats = "{\"accel\": {\"requests\": 64, \"queued_on_finish\": 0}}"});
    add_run(db, (run_args){.design = "b",
                           .latency_us = 3.0,
                           .speed = 1,
                           .median_us = 3000,
                           .in_flight = 4,
                           .stats =
                               "{\"accel\": {\"requests\": 64, \"queued_on_finish\": 16},"
                               " \"nic\": {\"requests\": 5}}"});
}

/* ---- reading the verdict ---- */

typedef struct fixture {
    test_db t;
    json_t *v;
    int64_t newest_b;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    open_db(&f->t);
    fill_grid(f->t.db, &f->newest_b);
    char err[512] = "";
    f->v = verdict_compute(f->t.db, &case_study, err, sizeof err);
    if (!f->v)
        fprintf(stderr, "verdict_compute: %s\n", err);
    *state = f;
    return f->v ? 0 : -1;
}

static int teardown(void **state)
{
    fixture *f = *state;
    json_decref(f->v);
    close_db(&f->t);
    free(f);
    return 0;
}

static void assert_near(double got, double want, double eps)
{
    if (!(fabs(got - want) <= eps))
        fail_msg("got %.9f, want %.9f (+- %g)", got, want, eps);
}

static double num(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_number(v))
        fail_msg("\"%s\" is not a number", key);
    return json_number_value(v);
}

static void assert_json_null(json_t *obj, const char *key)
{
    if (!json_is_null(json_object_get(obj, key)))
        fail_msg("\"%s\" should be null", key);
}

static const char *str(json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    if (!s)
        fail_msg("\"%s\" is not a string", key);
    return s;
}

static json_t *section(void **state, const char *name)
{
    fixture *f = *state;
    json_t *s = json_object_get(f->v, name);
    assert_true(json_is_array(s));
    return s;
}

/* The entry of `arr` whose numbers under k1 and k2 are v1 and v2. */
static json_t *find(json_t *arr, const char *k1, double v1, const char *k2, double v2)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        if (num(e, k1) == v1 && (!k2 || num(e, k2) == v2))
            return e;
    }
    fail_msg("no entry with %s=%g %s=%g", k1, v1, k2 ? k2 : "", v2);
    return NULL;
}

static json_t *cell(void **state, double l, double speed)
{
    return find(section(state, "cells"), "x", l, "series", speed);
}

/* ---- the tests ---- */

static void test_axes_are_the_sorted_grid_values(void **state)
{
    json_t *lats = section(state, "x_values"), *speeds = section(state, "series_values");
    const double want[] = {0.5, 1.0, 1.5, 2.0}; /* not 3.0: only a load run has it */
    assert_int_equal(json_array_size(lats), 4);
    for (size_t i = 0; i < 4; i++)
        assert_near(json_number_value(json_array_get(lats, i)), want[i], 0);
    assert_int_equal(json_array_size(speeds), 2);
    assert_near(json_number_value(json_array_get(speeds, 1)), 2, 0);
    /* Both speeds have every latency of A and B except (2.0, 2x): 7 cells. */
    assert_int_equal(json_array_size(section(state, "cells")), 7);
}

static void test_each_cell_has_its_winner_and_margin(void **state)
{
    json_t *c = cell(state, 0.5, 1);
    assert_string_equal(str(c, "winner"), "a");
    assert_near(num(c, "margin_us"), 200, 1e-9);
    assert_near(num(c, "margin_pct"), 100.0 * 200 / 1400, 1e-9);
    c = cell(state, 1.0, 1);
    assert_string_equal(str(c, "winner"), "b");
    assert_near(num(c, "margin_us"), 100, 1e-9);
    assert_near(num(c, "margin_pct"), 100.0 * 100 / 1700, 1e-9);
    assert_near(num(json_object_get(c, "a"), "median_us"), 1800, 1e-9);
    c = cell(state, 1.0, 2);
    assert_string_equal(str(c, "winner"), "a");
    assert_near(num(c, "margin_us"), 400, 1e-9);
}

static void test_failed_runs_are_ignored_and_the_newest_run_wins(void **state)
{
    fixture *f = *state;
    json_t *c = cell(state, 1.5, 1);
    json_t *b = json_object_get(c, "b");
    assert_int_equal(num(b, "run_id"), f->newest_b);
    assert_near(num(b, "median_us"), 1800, 1e-9);
    assert_near(num(json_object_get(c, "a"), "median_us"), 2200, 1e-9);
    assert_near(num(json_object_get(cell(state, 1.0, 1), "a"), "median_us"), 1800, 1e-9);
    assert_string_equal(str(c, "winner"), "b");
    assert_near(num(c, "margin_us"), 400, 1e-9);
}

static void test_a_cell_with_one_design_has_no_winner(void **state)
{
    json_t *c = cell(state, 2.0, 1);
    assert_true(json_is_object(json_object_get(c, "a")));
    assert_json_null(c, "b");
    assert_json_null(c, "winner");
    assert_json_null(c, "margin_us");
    assert_json_null(c, "margin_pct");
}

static void test_request_medians_use_only_known_values(void **state)
{
    json_t *a = json_object_get(cell(state, 0.5, 1), "a");
    assert_near(num(a, "service_us"), 2.0, 1e-9); /* odd count: the middle one */
    assert_near(num(a, "compute_us"), 6.0, 1e-9); /* even count: mean of the two */
    json_t *b = json_object_get(cell(state, 0.5, 1), "b");
    assert_json_null(b, "service_us");
    assert_json_null(b, "compute_us");
}

static void test_crossover_is_interpolated_between_measured_points(void **state)
{
    json_t *x = find(section(state, "crossovers"), "series", 1, NULL, 0);
    assert_near(num(x, "x"), 5.0 / 6.0, 1e-6);
    assert_string_equal(str(x, "below"), "a");
    assert_string_equal(str(x, "above"), "b");
    assert_string_equal(str(x, "text"), "At 1×, A wins below 0.83 µs and B above (estimated on a straight line between the runs at 0.5 and 1 µs).");
}

static void test_no_crossing_when_one_design_wins_everywhere(void **state)
{
    json_t *x = find(section(state, "crossovers"), "series", 2, NULL, 0);
    assert_json_null(x, "x");
    assert_string_equal(str(x, "below"), "a");
    assert_string_equal(str(x, "above"), "a");
    assert_non_null(strstr(str(x, "text"), "no crossing in range"));
}

static void test_movement_spans_each_designs_latency_range(void **state)
{
    json_t *mv = section(state, "movement");
    assert_int_equal(json_array_size(mv), 4);
    json_t *m = json_array_get(mv, 0); /* A at 1x: 0.5 to 2.0 us */
    assert_string_equal(str(m, "variant"), "a");
    assert_near(num(m, "from_x"), 0.5, 0);
    assert_near(num(m, "to_x"), 2.0, 0);
    assert_near(num(m, "delta_us"), 1200, 1e-9);
    assert_near(num(m, "delta_pct"), 100.0 * 1200 / 1400, 1e-9);
    m = json_array_get(mv, 1); /* B at 1x: 0.5 to 1.5 us */
    assert_string_equal(str(m, "variant"), "b");
    assert_near(num(m, "to_x"), 1.5, 0);
    assert_near(num(m, "delta_us"), 200, 1e-9);
    m = json_array_get(mv, 2); /* A at 2x */
    assert_near(num(m, "series"), 2, 0);
    assert_near(num(m, "delta_pct"), 100.0 * 100 / 550, 1e-9);
}

static void test_alone_times_come_from_the_device_model(void **state)
{
    json_t *a = find(section(state, "alone"), "series", 1, NULL, 0);
    char text[32];
    snprintf(text, sizeof text, "%.2f", num(a, "a_us"));
    assert_string_equal(text, "1920.00");
    snprintf(text, sizeof text, "%.2f", num(a, "b_us"));
    assert_string_equal(text, "2560.00");
    assert_string_equal(str(a, "winner"), "a");
    a = find(section(state, "alone"), "series", 2, NULL, 0);
    assert_near(num(a, "a_us") * 2, 1920, 1e-6);
    json_t *c = json_object_get(cell(state, 1.0, 1), "b");
    assert_near(num(c, "alone_us"), 2560, 1e-6);
}

static void test_ranking_flips_where_the_system_winner_differs(void **state)
{
    json_t *r = find(section(state, "ranking"), "series", 1, NULL, 0);
    assert_string_equal(str(r, "alone_winner"), "a");
    assert_true(json_is_true(json_object_get(r, "flips")));
    json_t *w = json_object_get(r, "system_winners");
    assert_int_equal(json_object_size(w), 3);
    assert_string_equal(str(w, "0.5"), "a");
    assert_string_equal(str(w, "1"), "b");
    assert_string_equal(str(w, "1.5"), "b");
    r = find(section(state, "ranking"), "series", 2, NULL, 0);
    assert_true(json_is_false(json_object_get(r, "flips")));
}

/* The answer at 1x: A is faster alone (1920 against 2560 us); at the far
 * end where both ran (1.5 us: at 2.0 only A did) B is faster, 2200 against
 * 1800 us; they cross at 5/6 us. */
static void test_the_answer_is_alone_the_far_end_and_the_flip(void **state)
{
    json_t *ans = verdict_answer(((fixture *)*state)->v, "a", "b");
    assert_non_null(ans);
    assert_near(num(ans, "series"), 1, 0);
    json_t *alone = json_object_get(ans, "alone");
    assert_string_equal(str(alone, "winner"), "a");
    assert_near(num(alone, "a_us"), 1920, 1e-6);
    assert_near(num(alone, "times"), 2560.0 / 1920.0, 1e-9);
    json_t *sys = json_object_get(ans, "system");
    assert_near(num(sys, "x"), 1.5, 0);
    assert_string_equal(str(sys, "winner"), "b");
    assert_near(num(sys, "a_us"), 2200, 1e-9);
    assert_near(num(sys, "b_us"), 1800, 1e-9);
    assert_near(num(sys, "margin_us"), 400, 1e-9);
    assert_near(num(sys, "times"), 2200.0 / 1800.0, 1e-9);
    json_t *flip = json_object_get(ans, "flip");
    assert_near(num(flip, "x"), 5.0 / 6.0, 1e-6);
    assert_string_equal(str(flip, "below"), "a");
    assert_string_equal(str(flip, "above"), "b");
    assert_true(json_is_false(json_object_get(flip, "measured")));
    assert_int_equal(num(flip, "crossings"), 1);
    json_decref(ans);
}

/* Without a crossing, alone times or a cell where both ran, those figures
 * are null; what is not a verdict has no answer. */
static void test_an_answer_without_a_crossing_has_no_flip(void **state)
{
    json_t *v = json_deep_copy(((fixture *)*state)->v);
    json_object_set_new(json_object_get(v, "axes"), "series_at", json_real(2));
    json_t *ans = verdict_answer(v, "a", "b");
    assert_json_null(ans, "flip");
    assert_string_equal(str(json_object_get(ans, "system"), "winner"), "a");
    assert_near(num(json_object_get(ans, "system"), "x"), 1.5, 0);
    json_decref(ans);
    json_object_set_new(v, "alone", json_array());
    json_object_set_new(v, "cells", json_array());
    ans = verdict_answer(v, "a", "b");
    assert_json_null(ans, "alone");
    assert_json_null(ans, "system");
    json_decref(ans);
    json_decref(v);
    assert_null(verdict_answer(NULL, "a", "b"));
}

/* The answer in one sentence, worded once for the page and mortar serve,
 * with the study's names and the explorer's units. */
static void test_the_answer_is_worded_from_its_figures(void **state)
{
    json_t *v = json_deep_copy(((fixture *)*state)->v);
    json_t *ans = verdict_answer_of_study(v, &case_study);
    assert_string_equal(str(ans, "text"),
                        "At compute speed 1\u00d7, Design A is 1.33\u00d7 faster alone, but"
                        " 1.22\u00d7 slower in the whole system at L = 1.5 \u00b5s: the ranking"
                        " flips at L \u2248 0.83 \u00b5s.");
    json_decref(ans);
    json_object_set_new(v, "alone", json_array());
    ans = verdict_answer_of_study(v, &case_study);
    assert_string_equal(str(ans, "text"),
                        "At compute speed 1\u00d7, in the whole system Design B is 1.22\u00d7"
                        " faster at L = 1.5 \u00b5s: the ranking flips at L \u2248 0.83 \u00b5s.");
    json_decref(ans);
    json_object_set_new(v, "cells", json_array());
    ans = verdict_answer_of_study(v, &case_study);
    assert_json_null(ans, "text");
    json_decref(ans);
    json_decref(v);
}

/* The figures under the sentence, worded once beside it for the page to
 * show as given: title, value, what the value says and its detail. */
static void assert_figure(json_t *figures, size_t i, const char *name, const char *title,
                          const char *value, const char *what, const char *detail)
{
    json_t *f = json_array_get(figures, i);
    assert_non_null(f);
    assert_string_equal(str(f, "figure"), name);
    assert_string_equal(str(f, "title"), title);
    assert_string_equal(str(f, "value"), value);
    assert_string_equal(str(f, "what"), what);
    assert_string_equal(str(f, "detail"), detail);
}

static void test_the_answer_words_its_figures_for_the_page(void **state)
{
    json_t *v = json_deep_copy(((fixture *)*state)->v);
    json_t *ans = verdict_answer_of_study(v, &case_study);
    json_t *figs = json_object_get(ans, "figures");
    assert_int_equal(json_array_size(figs), 3);
    assert_figure(figs, 0, "alone", "Alone", "1.33\u00d7", "Design A faster",
                  "1,920.0 \u00b5s (A) against 2,560.0 \u00b5s (B)");
    assert_figure(figs, 1, "system", "In the whole system at L = 1.5 \u00b5s", "1.22\u00d7",
                  "Design A slower",
                  "2,200.0 \u00b5s (A) against 1,800.0 \u00b5s (B): 400.0 \u00b5s apart");
    assert_figure(figs, 2, "flip", "Where the ranking flips", "L \u2248 0.83 \u00b5s",
                  "Design A faster below, Design B above",
                  "estimated on a straight line between the runs at 0.5 and 1 \u00b5s");
    json_decref(ans);

    /* without an alone figure, the system's winner is named; without a
     * crossing, the flip figure says so */
    json_object_set_new(v, "alone", json_array());
    json_object_set_new(json_object_get(v, "axes"), "series_at", json_real(2));
    ans = verdict_answer_of_study(v, &case_study);
    figs = json_object_get(ans, "figures");
    assert_int_equal(json_array_size(figs), 2);
    assert_string_equal(str(json_array_get(figs, 0), "what"), "Design A faster");
    assert_figure(figs, 1, "flip", "Where the ranking flips", "nowhere", "in the measured range",
                  "\u2014");
    json_decref(ans);

    /* no sentence, no figures */
    json_object_set_new(v, "cells", json_array());
    ans = verdict_answer_of_study(v, &case_study);
    assert_int_equal(json_array_size(json_object_get(ans, "figures")), 0);
    json_decref(ans);
    json_decref(v);
}

static void test_baselines_list_every_latency_with_nulls(void **state)
{
    json_t *bl = section(state, "baselines");
    assert_int_equal(json_array_size(bl), 4);
    json_t *r = find(bl, "x", 0.5, NULL, 0);
    assert_near(num(r, "software_median_us"), 90000, 1e-9);
    assert_near(num(r, "regcopy_median_us"), 20000, 1e-9);
    assert_near(num(r, "a_median_us"), 1400, 1e-9);
    assert_near(num(r, "b_median_us"), 1600, 1e-9);
    r = find(bl, "x", 1.0, NULL, 0);
    assert_near(num(r, "software_median_us"), 90100, 1e-9);
    assert_json_null(r, "regcopy_median_us");
    r = find(bl, "x", 2.0, NULL, 0);
    assert_json_null(r, "software_median_us");
    assert_json_null(r, "b_median_us");
}

static void test_load_lists_speed_1_runs_by_design_latency_in_flight(void **state)
{
    json_t *load = section(state, "load");
    assert_int_equal(json_array_size(load), 10); /* A: 4 + 1, B: 3 + 2 */
    json_t *r = json_array_get(load, 1);
    assert_string_equal(str(r, "variant"), "a");
    assert_int_equal(num(r, "load"), 4);
    assert_near(num(r, "median_us"), 5000, 1e-9);
    assert_near(num(r, "throughput_rps"), 800, 1e-9);
    r = json_array_get(load, 5);
    assert_string_equal(str(r, "variant"), "b");
    assert_int_equal(num(r, "load"), 1);
    assert_json_null(r, "share"); /* no device counter */
    assert_near(num(json_array_get(load, 8), "share"), 0, 0);
    r = json_array_get(load, 9);
    assert_near(num(r, "x"), 3.0, 0);
    assert_int_equal(num(r, "load"), 4);
    /* The device's own counters: 16 of its 64 requests found the next queued;
     * another component's "requests" does not count. */
    assert_near(num(r, "share"), 0.25, 1e-12);
    /* The in-flight-4 runs stay out of the grid. */
    assert_near(num(json_object_get(cell(state, 0.5, 1), "a"), "median_us"), 1400, 1e-9);
}

static bool summary_has(void **state, const char *text)
{
    size_t i;
    json_t *s;
    json_array_foreach(section(state, "summary"), i, s) {
        if (strstr(json_string_value(s), text))
            return true;
    }
    return false;
}

/* Whether a sentence of verdict `v`'s summary holds `text`. */
static bool summary_has_in(json_t *v, const char *text)
{
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(v, "summary"), i, s) {
        if (strstr(json_string_value(s), text))
            return true;
    }
    return false;
}

static void test_summary_states_the_conclusions_with_numbers(void **state)
{
    assert_true(summary_has(state, "At 1×, A wins below 0.83 µs and B above (estimated on a straight line between the runs at 0.5 and 1 µs)."));
    assert_true(summary_has(state, "A wins 4 and B 2 of the 6 cells where both ran"));
    assert_true(summary_has(state, "Alone, A is faster at every speed (A 1920.00 µs, B "
                                   "2560.00 µs at 1×); in the system the ranking flips "
                                   "at 1×."));
    assert_true(summary_has(state, "A's median moves by +1200.0 µs (+85.7%)"));
    assert_true(summary_has(state, "software 90000.0 to 90100.0 µs"));
    assert_true(summary_has(state, "as requests in flight go from 1 to 4."));
    assert_true(summary_has(state,
                            "as requests in flight go from 2 to 4; the next request "
                            "was already queued in the device when one finished "
                            "for 0% of requests, then 25%."));
}

/* The case study's study file with `n` text replacements (from, to, ...),
 * its specs made absolute, loaded into `st`. */
static void load_edited_study(study *st, const char *const *edits, size_t n)
{
    char path[1024], err[1024], dir[] = "/tmp/mortar-test-verdict-XXXXXX";
    snprintf(path, sizeof path, "%s", case_study.path);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[65536], out[65536];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    char spec_dir[1024];
    snprintf(spec_dir, sizeof spec_dir, "\"spec\": \"%.*s/",
             (int)(strrchr(path, '/') - path), path);
    const char *all[32] = {"\"spec\": \"", spec_dir};
    size_t nall = 2;
    for (size_t i = 0; i < n && nall < 32; i++)
        all[nall++] = edits[i];
    for (size_t i = 0; i + 1 < nall; i += 2) {
        out[0] = '\0';
        for (char *from = text, *at; (at = strstr(from, all[i]));
             from = at + strlen(all[i])) {
            strncat(out, from, (size_t)(at - from));
            strcat(out, all[i + 1]);
            if (!strstr(at + strlen(all[i]), all[i]))
                strcat(out, at + strlen(all[i]));
        }
        assert_true(out[0]); /* the text to replace was there */
        strcpy(text, out);
    }
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/study.json", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    if (study_load(st, path, err, sizeof err))
        fail_msg("%s", err);
    unlink(path);
    rmdir(dir);
}

/* The variants' labels, phrases and the baselines are the study's: the same
 * runs read with other labels and one baseline say so. */
static void test_labels_and_baselines_come_from_the_study(void **state)
{
    fixture *f = *state;
    const char *const edits[] = {"\"label\": \"A\"",
                                 "\"label\": \"Alpha\"",
                                 "\"label\": \"B\"",
                                 "\"label\": \"Beta\"",
                                 "\"baselines\": [\"software\", \"regcopy\", \"a-x8\", \"b-x8\"]",
                                 "\"baselines\": [\"software\"]"};
    study st;
    load_edited_study(&st, edits, 6);
    char err[512];
    json_t *v = verdict_compute(f->t.db, &st, err, sizeof err);
    assert_non_null(v);
    json_t *summary = json_object_get(v, "summary"), *s;
    size_t i;
    bool wins = false, cross = false;
    json_array_foreach(summary, i, s) {
        wins |= strstr(json_string_value(s), "Alpha wins 4 and Beta 2 of the 6 cells") !=
                NULL;
        cross |= !strcmp(json_string_value(s),
                         "At 1×, Alpha wins below 0.83 µs and Beta above (estimated on a straight line between the runs at 0.5 and 1 µs).");
        assert_null(strstr(json_string_value(s), "register copy"));
    }
    assert_true(wins);
    assert_true(cross);
    json_t *row = json_array_get(json_object_get(v, "baselines"), 0);
    assert_non_null(json_object_get(row, "software_median_us"));
    assert_null(json_object_get(row, "regcopy_median_us"));
    assert_non_null(json_object_get(row, "a_median_us"));
    json_decref(v);
    study_free(&st);
}

/* ---- the same verdict as before the study file ---- */


/* A file's whole text (the caller frees it), or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static const size_t max = 1 << 20;
    char *text = calloc(1, max + 1);
    size_t n = text ? fread(text, 1, max, f) : 0;
    fclose(f);
    if (text)
        text[n] = '\0';
    return text;
}

/* The knobs' labels, phrases and units come from the study: the latency
 * read in ns ("0.5us" is 500 ns), the series knob named "rate" in GHz. */
static void test_knob_labels_and_units_come_from_the_study(void **state)
{
    fixture *f = *state;
    const char *const edits[] = {"\"label\": \"L\", \"unit\": \"us\", \"phrase\": \"latency\"",
                                 "\"label\": \"D\", \"unit\": \"ns\", \"phrase\": \"delay\"",
                                 "\"label\": \"speed\", \"unit\": \"x\"",
                                 "\"label\": \"rate\", \"unit\": \"GHz\""};
    study st;
    load_edited_study(&st, edits, 4);
    char err[512];
    json_t *v = verdict_compute(f->t.db, &st, err, sizeof err);
    assert_non_null(v);
    assert_near(json_number_value(json_array_get(json_object_get(v, "x_values"), 0)), 500, 1e-9);
    assert_true(summary_has_in(v, "At 1 GHz, A wins below 833.33 ns and B above (estimated on a straight line between the runs at 500 and 1000 ns)."));
    assert_true(summary_has_in(v, "At 2 GHz, A wins at every delay from 500.00 to 1500.00 ns"));
    assert_true(summary_has_in(v, "Alone, A is faster at every rate (A 1920.00 µs, B 2560.00 µs "
                                  "at 1 GHz)"));
    assert_true(summary_has_in(v, "At 500.00 ns and 1 GHz, A goes from"));
    json_decref(v);
    study_free(&st);
}

/* A study with one knob and no load axis: one series, sentences without a
 * series value, no alone times for variants without an alone benchmark. */
static void test_a_study_with_one_knob_has_one_series(void **state)
{
    (void)state;
    test_db t;
    open_db(&t);
    for (int i = 0; i < 3; i++) {
        double l = 0.5 * (i + 1);
        add(t.db, "a", "ok", l, 1, median_a(l, 1));
        add(t.db, "b", "ok", l, 1, 1500 + 200 * l);
    }
    const char *src = getenv("MORTAR_SOURCE");
    char dir[] = "/tmp/mortar-test-verdict-XXXXXX", path[1200], err[1024];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/study.json", dir);
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fprintf(out,
            "{\"name\": \"one\", \"variants\": {\"axis\": \"design\", \"values\": {"
            "\"a\": {\"spec\": \"%s/studies/matmul/experiments/design-a.json\", \"label\": \"A\"},"
            "\"b\": {\"spec\": \"%s/studies/matmul/experiments/design-b.json\", \"label\": \"B\"}},"
            "\"compare\": [\"a\", \"b\"]},"
            "\"knobs\": {\"pcie.latency\": {\"label\": \"L\", \"unit\": \"us\","
            " \"values\": [\"0.5us\", \"1us\", \"1.5us\"]}},"
            "\"metric\": {\"name\": \"latency\", \"unit\": \"ns\", \"better\": \"lower\","
            " \"report\": {\"id\": \"req\", \"value\": \"latency_ns\", \"start\": \"start_ns\","
            " \"verified\": \"verified\"}},"
            "\"parts\": [{\"variants\": [\"a\", \"b\"], \"grid\": {\"pcie.latency\": [\"0.5us\"]}}]}\n",
            src ? src : ".", src ? src : ".");
    fclose(out);
    study st;
    if (study_load(&st, path, err, sizeof err))
        fail_msg("%s", err);
    json_t *v = verdict_compute(t.db, &st, err, sizeof err);
    assert_non_null(v);
    assert_int_equal(json_array_size(json_object_get(v, "x_values")), 3);
    assert_int_equal(json_array_size(json_object_get(v, "series_values")), 1);
    assert_int_equal(json_array_size(json_object_get(v, "cells")), 3);
    assert_json_null(json_array_get(json_object_get(v, "cells"), 0), "series");
    assert_true(summary_has_in(v, "A wins below 0.83 µs and B above (estimated on a straight line between the runs at 0.5 and 1 µs)."));
    assert_true(summary_has_in(v, "From 0.50 to 1.50 µs A's median moves by +800.0 µs"));
    assert_json_null(json_array_get(json_object_get(v, "alone"), 0), "a_us");
    assert_int_equal(json_array_size(json_object_get(v, "load")), 0);
    json_decref(v);
    /* and its text */
    char cmd[4096], text_path[] = "/tmp/mortar-test-verdict-out-XXXXXX";
    int fd = mkstemp(text_path);
    assert_true(fd >= 0);
    close(fd);
    const char *bin = getenv("MORTAR_BIN");
    snprintf(cmd, sizeof cmd, "'%s/mortar' verdict --study '%s' --db '%s' > '%s'",
             bin ? bin : "build/bin", path, t.path, text_path);
    assert_int_equal(system(cmd), 0);
    char *text = slurp(text_path);
    assert_non_null(text);
    assert_non_null(strstr(text, "  A wins below 0.83 µs and B above (estimated on a straight line between the runs at 0.5 and 1 µs).\n"));
    assert_null(strstr(text, "Load"));
    free(text);
    unlink(text_path);
    unlink(path);
    rmdir(dir);
    study_free(&st);
    close_db(&t);
}

/* golden(NAME), scratch_files.h: what the mortar of commit f3902ee (before
 * the study file; the names in code) printed for the fixture's database. */

/* Runs `mortar ARGS --db <the fixture's database>` into a new file; its text. */
static char *mortar_output(const fixture *f, const char *args)
{
    const char *bin = getenv("MORTAR_BIN");
    char out[] = "/tmp/mortar-test-verdict-out-XXXXXX", cmd[2048];
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    snprintf(cmd, sizeof cmd, "'%s/mortar' %s --db '%s' > '%s'", bin ? bin : "build/bin",
             args, f->t.path, out);
    assert_int_equal(system(cmd), 0);
    char *text = slurp(out);
    unlink(out);
    assert_non_null(text);
    return text;
}

/* The verdict's text and JSON and `results --json` (but for each run's
 * started_at, the wall clock) are byte for byte what they were when the
 * variants' names were in the code, but for what issue 32 added: how each
 * crossing was found (its sentence's parentheses and the crossovers' new
 * keys) and the extra cells (none here), and what issue 36 changed: the
 * sentences write µs and × as the explorer does (regenerated with the
 * real command; only the sentences differ, no key or number), and so do
 * the tables' heads, each symbol padded as the one column it shows; and
 * each crossing's "how", its sentence's parentheses as a key of its own
 * for the explorer (regenerated from verdict_compute_with_splits). */
static void test_verdict_and_results_are_as_before_the_study_file(void **state)
{
    fixture *f = *state;
    char *text = mortar_output(f, "verdict"), *want = slurp(golden("verdict-grid.txt"));
    assert_non_null(want);
    assert_string_equal(text, want);
    free(text);
    free(want);

    char err[512];
    json_t *v = verdict_compute_with_splits(f->t.db, &case_study, err, sizeof err);
    assert_non_null(v);
    char *json = json_dumps(v, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
    want = slurp(golden("verdict-grid.json"));
    assert_non_null(json);
    assert_non_null(want);
    assert_true(strlen(want) == strlen(json) + 1 && want[strlen(json)] == '\n');
    assert_memory_equal(json, want, strlen(json));
    free(json);
    free(want);
    json_decref(v);

    text = mortar_output(f, "results --json");
    json_t *got = json_loads(text, 0, NULL),
           *before = json_load_file(golden("results-grid.json"), 0, NULL);
    assert_non_null(got);
    assert_non_null(before);
    json_t *runs[2] = {json_object_get(got, "runs"), json_object_get(before, "runs")}, *r;
    for (int k = 0; k < 2; k++) {
        size_t i;
        json_array_foreach(runs[k], i, r)
            json_object_del(r, "started_at");
    }
    assert_true(json_array_size(runs[0]) > 0);
    assert_true(json_equal(got, before));
    json_decref(got);
    json_decref(before);
    free(text);
}

/* ---- separate databases ---- */

static void test_a_tie_between_the_signs_is_the_crossing(void **state)
{
    test_db t;
    open_db(&t);
    /* A - B: -100 at 1, 0 at 2, +100 at 3 (0.5x: the alone runs are cheap). */
    const double a[] = {900, 1000, 1100}, b[] = {1000, 1000, 1000};
    for (int i = 0; i < 3; i++) {
        add(t.db, "a", "ok", i + 1.0, 0.5, a[i]);
        add(t.db, "b", "ok", i + 1.0, 0.5, b[i]);
    }
    char err[512];
    json_t *v = verdict_compute(t.db, &case_study, err, sizeof err);
    assert_non_null(v);
    json_t *x = json_array_get(json_object_get(v, "crossovers"), 0);
    assert_near(num(x, "x"), 2.0, 0);
    assert_string_equal(str(x, "below"), "a");
    assert_string_equal(str(x, "above"), "b");
    json_t *c = json_array_get(json_object_get(v, "cells"), 1);
    assert_string_equal(str(c, "winner"), "tie");
    assert_near(num(c, "margin_us"), 0, 0);
    json_decref(v);
    close_db(&t);
}

/* A new database with A and B at 0.5x (the alone runs are cheap) at each
 * x of `xs` (grid values 1, 1.5 and 2 us and extra ones between), their
 * medians `a` and B's `b_us` everywhere, and the verdict on it. */
static json_t *verdict_of_pairs(test_db *t, const double *xs, const double *a, double b_us,
                                size_t n)
{
    open_db(t);
    for (size_t i = 0; i < n; i++) {
        add(t->db, "a", "ok", xs[i], 0.5, a[i]);
        add(t->db, "b", "ok", xs[i], 0.5, b_us);
    }
    char err[512];
    json_t *v = verdict_compute(t->db, &case_study, err, sizeof err);
    if (!v)
        fail_msg("%s", err);
    return v;
}

static void test_a_crossing_bracketed_by_extra_runs_is_measured(void **state)
{
    (void)state;
    test_db t;
    const double xs[] = {1.0, 1.5, 2.0, 1.125, 1.25}, a[] = {1000, 1300, 1400, 1040, 1120};
    json_t *v = verdict_of_pairs(&t, xs, a, 1100, 5);
    /* the grid is the declared values; the extra runs are cells of their own */
    assert_int_equal(json_array_size(json_object_get(v, "x_values")), 3);
    assert_int_equal(json_array_size(json_object_get(v, "cells")), 3);
    json_t *extra = json_object_get(v, "extra_cells");
    assert_int_equal(json_array_size(extra), 2);
    assert_near(num(json_array_get(extra, 0), "x"), 1.125, 0);
    assert_string_equal(str(json_array_get(extra, 1), "winner"), "b");
    assert_near(num(json_object_get(json_array_get(extra, 1), "a"), "median_us"), 1120, 0);
    json_t *x = json_array_get(json_object_get(v, "crossovers"), 0);
    assert_true(json_is_true(json_object_get(x, "measured")));
    assert_near(num(x, "from_x"), 1.125, 0);
    assert_near(num(x, "to_x"), 1.25, 0);
    assert_near(num(x, "x"), 1.125 + 60.0 / 80.0 * 0.125, 1e-9);
    assert_int_equal(json_array_size(json_object_get(x, "crossings")), 1);
    assert_int_equal(json_array_size(json_object_get(x, "non_monotonic")), 0);
    assert_string_equal(str(x, "text"), "At 0.5×, A wins below 1.22 µs and B above (measured "
                                        "between runs at 1.125 and 1.25 µs).");
    assert_true(summary_has_in(v, "(measured between runs at 1.125 and 1.25 µs)"));
    /* the extra runs are not grid rows anywhere */
    assert_int_equal(json_object_size(json_object_get(
                         json_array_get(json_object_get(v, "ranking"), 0), "system_winners")),
                     3);
    json_decref(v);
    fixture f = {.t = t};
    char *text = mortar_output(&f, "verdict");
    assert_non_null(strstr(text, "Runs between the grid's L(\u00b5s) values"));
    assert_non_null(strstr(text, "   0.5      1.125    1040.0    1100.0      A\n"));
    free(text);
    close_db(&t);
}

static void test_every_flip_and_a_curve_that_turns_are_reported(void **state)
{
    (void)state;
    test_db t;
    /* winners A, B, A, B, B from 1 to 1.5 us; A rises, falls, rises and
     * falls between them */
    const double xs[] = {1.0, 1.5, 1.25, 1.375, 1.4375}, a[] = {1000, 1300, 1150, 1080, 1350};
    json_t *v = verdict_of_pairs(&t, xs, a, 1100, 5);
    json_t *x = json_array_get(json_object_get(v, "crossovers"), 0);
    json_t *list = json_object_get(x, "crossings");
    assert_int_equal(json_array_size(list), 3);
    assert_string_equal(str(json_array_get(list, 1), "below"), "b");
    assert_string_equal(str(json_array_get(list, 1), "above"), "a");
    assert_string_equal(str(x, "below"), "a");
    assert_string_equal(str(x, "above"), "b");
    assert_non_null(strstr(str(x, "text"), "At 0.5×, A wins below 1.17 µs, B up to 1.34 µs, "
                                           "A up to 1.38 µs and B above (measured"));
    json_t *out = json_object_get(x, "non_monotonic");
    assert_int_equal(json_array_size(out), 1); /* A; B is flat */
    assert_string_equal(str(json_array_get(out, 0), "variant"), "a");
    assert_near(num(json_array_get(out, 0), "from_x"), 1.0, 0);
    assert_near(num(json_array_get(out, 0), "to_x"), 1.5, 0);
    assert_int_equal(json_array_size(json_object_get(json_array_get(out, 0), "points")), 5);
    assert_true(summary_has_in(v, "At 0.5×, the ranking flips 3 times between 1 and 1.5 µs: "
                                  "the curves are not monotonic there."));
    assert_true(summary_has_in(v, "At 0.5×, A is not monotonic between 1 and 1.5 µs: its "
                                  "median is 1000.0 µs at 1, 1150.0 at 1.25, 1080.0 at "
                                  "1.375, 1350.0 at 1.4375 and 1300.0 at 1.5 µs."));
    json_decref(v);
    close_db(&t);
}

/* Records `n` losses for run `id` as `mortar run` does. */
static void add_losses(sqlite3 *db, int64_t id, const char *losses_json)
{
    json_t *losses = json_loads(losses_json, 0, NULL);
    assert_non_null(losses);
    assert_int_equal(db_record_losses(db, id, losses), 0);
    json_decref(losses);
}

static void test_every_loss_of_a_used_run_is_a_warning(void **state)
{
    (void)state;
    test_db t;
    open_db(&t);
    const char *lossy = "[{\"source\": \"nic_server\", \"counter\": \"rx_missed\", "
                        "\"count\": 3}, {\"source\": \"client\", \"counter\": "
                        "\"tcp_retrans\", \"count\": 2}]";
    add_losses(t.db, add(t.db, "a", "ok", 0.5, 1, 1400), lossy); /* replaced below */
    int64_t a = add(t.db, "a", "ok", 0.5, 1, 1400);
    add_losses(t.db, a, lossy);
    add_losses(t.db, add(t.db, "b", "ok", 0.5, 1, 1600), "[]");
    add_losses(t.db, add(t.db, "b", "failed", 0.5, 1, 1600), lossy);
    /* not used: B at 2x with two in flight */
    add_losses(t.db, add_run(t.db, (run_args){.design = "b", .latency_us = 0.5, .speed = 2,
                                              .median_us = 900, .in_flight = 2}),
               lossy);
    char err[256];
    json_t *v = verdict_compute(t.db, &case_study, err, sizeof err);
    assert_non_null(v);
    json_t *w = json_object_get(v, "warnings");
    assert_int_equal(json_array_size(w), 2);
    json_t *first = json_array_get(w, 0), *second = json_array_get(w, 1);
    assert_int_equal(num(first, "run_id"), a);
    assert_string_equal(str(first, "source"), "nic_server");
    assert_string_equal(str(first, "counter"), "rx_missed");
    assert_int_equal(num(first, "count"), 3);
    assert_string_equal(str(second, "counter"), "tcp_retrans");
    char want[128];
    snprintf(want, sizeof want, "run %lld (A, L 0.5 µs, 1×, 1 in flight): nic_server.rx_missed 3",
             (long long)a);
    assert_string_equal(str(first, "text"), want);
    json_decref(v);
    close_db(&t);
}

static void test_runs_without_losses_give_no_warning(void **state)
{
    (void)state;
    test_db t;
    open_db(&t);
    add_losses(t.db, add(t.db, "a", "ok", 0.5, 1, 1400), "[]");
    add(t.db, "b", "ok", 0.5, 1, 1600); /* recorded before losses were */
    char err[256];
    json_t *v = verdict_compute(t.db, &case_study, err, sizeof err);
    assert_non_null(v);
    assert_true(json_is_array(json_object_get(v, "warnings")));
    assert_int_equal(json_array_size(json_object_get(v, "warnings")), 0);
    json_decref(v);
    close_db(&t);
}

static void test_an_empty_database_has_no_finished_runs(void **state)
{
    test_db t;
    open_db(&t);
    add(t.db, "a", "failed", 1.0, 1, 1000);
    char err[256];
    assert_int_equal(verdict_finished_runs(t.db, err, sizeof err), 0);
    json_t *v = verdict_compute(t.db, &case_study, err, sizeof err);
    assert_non_null(v);
    assert_int_equal(json_array_size(json_object_get(v, "cells")), 0);
    assert_int_equal(json_array_size(json_object_get(v, "crossovers")), 0);
    assert_int_equal(json_array_size(json_object_get(v, "summary")), 0);
    json_decref(v);
    close_db(&t);
}

static void test_a_database_error_is_reported(void **state)
{
    test_db t;
    open_db(&t);
    assert_int_equal(sqlite3_exec(t.db, "DROP TABLE runs", NULL, NULL, NULL), SQLITE_OK);
    char err[256] = "";
    assert_null(verdict_compute(t.db, &case_study, err, sizeof err));
    assert_non_null(strstr(err, "reading the runs"));
    assert_int_equal(verdict_finished_runs(t.db, err, sizeof err), -1);
    assert_non_null(strstr(err, "no such table"));
    close_db(&t);
}

/* A run directory with one traced request: 100 us end to end, the server
 * holding it from 10 to 90 us and its device computing from 20 to 80. */
static void write_one_traced_request(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/sim0.trace", dir);
    mortar_trace_writer *w;
    assert_int_equal(mortar_trace_writer_open(&w, path), 0);
    uint16_t client = mortar_trace_writer_component(w, "client"),
             server = mortar_trace_writer_component(w, "server"),
             view = mortar_trace_writer_component(w, "server.dev"),
             dev = mortar_trace_writer_component(w, "dev");
    const struct {
        uint16_t comp;
        const char *kind;
        uint64_t us, arg0;
    } evs[] = {{client, "request_start", 0, 1},  {server, "request_received", 10, 3},
               {view, "mmio_write", 19, 0},       {dev, "compute_start", 20, 0},
               {dev, "compute_end", 80, 0},       {server, "reply_sent", 90, 6},
               {client, "request_end", 100, 2}};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) {
        mortar_trace_event e = {.time_ps = evs[i].us * 1000000,
                                .component = evs[i].comp,
                                .kind = mortar_trace_writer_kind(w, evs[i].kind),
                                .req_id = 0,
                                .arg0 = evs[i].arg0};
        mortar_trace_writer_event(w, &e);
    }
    assert_int_equal(mortar_trace_writer_close(w), 0);
}

/* Baselines only (no alone benchmark to run): the traced one is split. */
static void test_a_traced_run_gets_its_median_requests_split(void **state)
{
    (void)state;
    test_db t;
    open_db(&t);
    char dir[] = "/tmp/test_verdict_trace_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_one_traced_request(dir);
    int64_t traced = add_run(t.db, (run_args){.design = "software", .latency_us = 1,
                                              .speed = 1, .median_us = 100, .run_dir = dir});
    add(t.db, "regcopy", "ok", 1, 1, 90); /* not traced */
    char err[256];
    json_t *v = verdict_compute_with_splits(t.db, &case_study, err, sizeof err);
    if (!v)
        fail_msg("verdict: %s", err);
    json_t *splits = json_object_get(v, "splits");
    assert_int_equal(json_array_size(splits), 1);
    json_t *split = json_array_get(splits, 0);
    assert_int_equal(json_integer_value(json_object_get(split, "run_id")), traced);
    assert_string_equal(json_string_value(json_object_get(split, "variant")), "software");
    assert_int_equal(json_integer_value(json_object_get(split, "latency_ps")), 100000000);
    json_t *parts = json_object_get(split, "parts");
    assert_int_equal(json_array_size(parts), 6);
    /* no network in this trace: [0, 10] goes to the host that acts next,
       the server (its request_received mark), as do [10, 20] and [80, 90]
       inside its marks; compute [20, 80]; the client [90, 100]; nothing
       on a PCIe wire */
    const json_int_t want_us[] = {10, 0, 30, 0, 0, 60};
    for (size_t p = 0; p < 6; p++)
        assert_int_equal(json_integer_value(json_object_get(json_array_get(parts, p), "ps")),
                         want_us[p] * 1000000);
    json_decref(v);
    v = verdict_compute(t.db, &case_study, err,
                        sizeof err); /* without splits: none joined */
    assert_non_null(v);
    assert_null(json_object_get(v, "splits"));
    json_decref(v);
    close_db(&t);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Loads the case study's study file into case_study. */
static void load_case_study(void)
{
    const char *src = getenv("MORTAR_SOURCE");
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/studies/matmul/experiments/study.json", src ? src : ".");
    if (study_load(&case_study, path, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
}

int main(void)
{
    load_case_study();
    const struct CMUnitTest grid[] = {
        cmocka_unit_test(test_axes_are_the_sorted_grid_values),
        cmocka_unit_test(test_each_cell_has_its_winner_and_margin),
        cmocka_unit_test(test_failed_runs_are_ignored_and_the_newest_run_wins),
        cmocka_unit_test(test_a_cell_with_one_design_has_no_winner),
        cmocka_unit_test(test_request_medians_use_only_known_values),
        cmocka_unit_test(test_crossover_is_interpolated_between_measured_points),
        cmocka_unit_test(test_no_crossing_when_one_design_wins_everywhere),
        cmocka_unit_test(test_movement_spans_each_designs_latency_range),
        cmocka_unit_test(test_alone_times_come_from_the_device_model),
        cmocka_unit_test(test_ranking_flips_where_the_system_winner_differs),
        cmocka_unit_test(test_the_answer_is_alone_the_far_end_and_the_flip),
        cmocka_unit_test(test_an_answer_without_a_crossing_has_no_flip),
        cmocka_unit_test(test_the_answer_is_worded_from_its_figures),
        cmocka_unit_test(test_the_answer_words_its_figures_for_the_page),
        cmocka_unit_test(test_baselines_list_every_latency_with_nulls),
        cmocka_unit_test(test_load_lists_speed_1_runs_by_design_latency_in_flight),
        cmocka_unit_test(test_summary_states_the_conclusions_with_numbers),
        cmocka_unit_test(test_labels_and_baselines_come_from_the_study),
        cmocka_unit_test(test_knob_labels_and_units_come_from_the_study),
        cmocka_unit_test(test_verdict_and_results_are_as_before_the_study_file),
    };
    const struct CMUnitTest alone_dbs[] = {
        cmocka_unit_test(test_a_tie_between_the_signs_is_the_crossing),
        cmocka_unit_test(test_a_crossing_bracketed_by_extra_runs_is_measured),
        cmocka_unit_test(test_every_flip_and_a_curve_that_turns_are_reported),
        cmocka_unit_test(test_every_loss_of_a_used_run_is_a_warning),
        cmocka_unit_test(test_runs_without_losses_give_no_warning),
        cmocka_unit_test(test_an_empty_database_has_no_finished_runs),
        cmocka_unit_test(test_a_database_error_is_reported),
        cmocka_unit_test(test_a_traced_run_gets_its_median_requests_split),
        cmocka_unit_test(test_a_study_with_one_knob_has_one_series),
    };
    int failed = cmocka_run_group_tests_name("grid", grid, setup, teardown);
    failed += cmocka_run_group_tests_name("separate", alone_dbs, NULL, NULL);
    study_free(&case_study);
    return failed;
}
