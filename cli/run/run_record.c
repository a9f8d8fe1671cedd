/*
 * run_record.c - a run's final record, into the database or a file (see
 * run_record.h).
 */
#include "run_record.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errbuf.h"
#include "profile_data.h"

#define MAX_RECORD_REQUESTS 1000000

static json_t *or_null(json_t *v)
{
    return v ? json_incref(v) : json_null();
}

static json_t *requests_json(const db_request *reqs, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(
            a, json_pack("{s:I, s:I, s:I, s:b, s:o}", "idx", (json_int_t)reqs[i].idx,
                         "latency_ns", (json_int_t)reqs[i].latency_ns, "start_ns",
                         (json_int_t)reqs[i].start_ns, "verified", reqs[i].verified,
                         "fields", reqs[i].fields ? json_incref(reqs[i].fields)
                                                  : json_object()));
    return a;
}

json_t *run_record_json(const run_record *r)
{
    const db_summary *s = &r->summary;
    json_t *sum = json_pack("{s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f}", "requests",
                            (json_int_t)s->requests, "verified", (json_int_t)s->verified,
                            "median_us", s->median_us, "p99_us", s->p99_us, "mean_us",
                            s->mean_us, "min_us", s->min_us, "max_us", s->max_us,
                            "throughput_rps", s->throughput_rps);
    return json_pack("{s:s, s:I, s:s, s:o, s:f, s:o, s:o, s:o, s:o, s:o, s:o}", "mortar_record",
                     "run", "id", (json_int_t)r->id, "status", r->status, "error",
                     r->error ? json_string(r->error) : json_null(), "wall_s", r->wall_s,
                     "versions", or_null(r->versions), "stats", or_null(r->stats), "losses",
                     r->losses ? json_incref(r->losses) : json_array(), "summary", sum,
                     "requests", requests_json(r->reqs, r->nreqs), "profile",
                     r->profile ? json_incref(r->profile) : json_array());
}

/* One try; -1 with the database's error. */
static int write_once(db_conn *db, const run_record *r, char *err, size_t err_size)
{
    if (db_begin_write(db, err, err_size))
        return -1;
    json_t *none = json_array();
    int rc = db_finish_run(db, r->id, r->status, r->error, r->wall_s, r->versions, r->stats,
                           r->reqs, r->nreqs, &r->summary);
    if (!rc)
        rc = db_record_losses(db, r->id, r->losses ? r->losses : none);
    if (!rc)
        rc = db_record_profile(db, r->id, r->profile ? r->profile : none);
    json_decref(none);
    if (!rc && db_commit(db) == 0)
        return 0;
    db_error_into(err, err_size);
    db_rollback(db);
    return -1;
}

int run_record_write(db_conn *db, const run_record *r, int attempts, const char *fallback,
                     char *err, size_t err_size)
{
    for (int i = 0; i < attempts; i++) {
        if (write_once(db, r, err, err_size) == 0)
            return 0;
        if (i + 1 < attempts)
            sleep(1);
    }
    json_t *j = run_record_json(r);
    int rc = j && json_dump_file(j, fallback, JSON_INDENT(1)) == 0 ? 1 : -1;
    json_decref(j);
    return rc;
}

/* Appends `path` to `out` (at *n < size) in single quotes, each ' as
 * '\'' (the shell's only way to put one inside). */
static void put_quoted(char *out, size_t size, size_t *n, const char *path)
{
    if (*n + 1 < size)
        out[(*n)++] = '\'';
    for (const char *c = path; *c && *n + 5 < size; c++) {
        if (*c == '\'') {
            memcpy(out + *n, "'\\''", 4);
            *n += 4;
        } else {
            out[(*n)++] = *c;
        }
    }
    if (*n + 1 < size)
        out[(*n)++] = '\'';
    out[*n] = '\0';
}

const char *run_record_import_command(const char *file, const char *db_path, char *out,
                                      size_t size)
{
    char *abs_file = realpath(file, NULL), *abs_db = realpath(db_path, NULL);
    size_t n = (size_t)snprintf(out, size, "mortar import ");
    if (n < size) {
        put_quoted(out, size, &n, abs_file ? abs_file : file);
        n += (size_t)snprintf(out + n, size - n, " --db ");
    }
    if (n < size)
        put_quoted(out, size, &n, abs_db ? abs_db : db_path);
    free(abs_file);
    free(abs_db);
    return out;
}

/* ---- importing ------------------------------------------------------------------ */

static int get_int(json_t *o, const char *key, int64_t *v)
{
    json_t *x = json_object_get(o, key);
    if (!json_is_integer(x))
        return -1;
    *v = json_integer_value(x);
    return 0;
}

static int get_real(json_t *o, const char *key, double *v)
{
    json_t *x = json_object_get(o, key);
    if (!json_is_number(x))
        return -1;
    *v = json_number_value(x);
    return 0;
}

typedef struct request_at {
    int64_t idx;
    size_t pos; /* its place in the record */
} request_at;

static int by_idx_then_pos(const void *pa, const void *pb)
{
    const request_at *a = pa, *b = pb;
    if (a->idx != b->idx)
        return a->idx < b->idx ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* A request's id once in a record: the database holds each once, and a
 * record it refuses could never be imported. Sorted, n log n: a record
 * holds up to MAX_RECORD_REQUESTS. */
static int check_ids_unique(const db_request *reqs, size_t n, char *err, size_t size)
{
    request_at *at = malloc((n ? n : 1) * sizeof *at);
    if (!at)
        return errbuf_fail(err, size, "out of memory");
    for (size_t i = 0; i < n; i++)
        at[i] = (request_at){reqs[i].idx, i};
    qsort(at, n, sizeof *at, by_idx_then_pos);
    int rc = 0;
    for (size_t i = 1; i < n && !rc; i++)
        if (at[i].idx == at[i - 1].idx)
            rc =
                errbuf_fail(err, size, "request %zu: request %lld is in the record twice",
                            at[i].pos, (long long)at[i].idx);
    free(at);
    return rc;
}

static int parse_requests(json_t *a, db_request **out, size_t *n, char *err, size_t size)
{
    if (!json_is_array(a) || json_array_size(a) > MAX_RECORD_REQUESTS)
        return errbuf_fail(err, size, "\"requests\" is not an array of at most %d",
                           MAX_RECORD_REQUESTS);
    *n = json_array_size(a);
    *out = calloc(*n ? *n : 1, sizeof **out);
    if (!*out)
        return errbuf_fail(err, size, "out of memory");
    size_t i;
    json_t *q;
    json_array_foreach(a, i, q) {
        db_request *r = &(*out)[i];
        json_t *ver = json_object_get(q, "verified");
        if (get_int(q, "idx", &r->idx) || get_int(q, "latency_ns", &r->latency_ns) ||
            get_int(q, "start_ns", &r->start_ns) || !json_is_boolean(ver))
            return errbuf_fail(err, size, "request %zu: a field is missing or not a number", i);
        r->verified = json_is_true(ver);
        /* its other fields: an object of integers (borrowed from `a`) */
        json_t *fields = json_object_get(q, "fields"), *v;
        const char *key;
        if (fields && !json_is_object(fields))
            return errbuf_fail(err, size, "request %zu: \"fields\" is not an object", i);
        json_object_foreach(fields, key, v) {
            if (!json_is_integer(v) || !*key || strlen(key) > 63)
                return errbuf_fail(err, size, "request %zu: field '%.64s' is not a number", i,
                                   key);
        }
        r->fields = fields;
    }
    return check_ids_unique(*out, *n, err, size);
}

static int parse_summary(json_t *o, db_summary *s, char *err, size_t size)
{
    if (get_int(o, "requests", &s->requests) || get_int(o, "verified", &s->verified) ||
        get_real(o, "median_us", &s->median_us) || get_real(o, "p99_us", &s->p99_us) ||
        get_real(o, "mean_us", &s->mean_us) || get_real(o, "min_us", &s->min_us) ||
        get_real(o, "max_us", &s->max_us) || get_real(o, "throughput_rps", &s->throughput_rps))
        return errbuf_fail(err, size, "\"summary\": a field is missing or not a number");
    return 0;
}

static int check_losses(json_t *a, char *err, size_t size)
{
    size_t i;
    json_t *l;
    if (!json_is_array(a))
        return errbuf_fail(err, size, "\"losses\" is not an array");
    json_array_foreach(a, i, l) {
        if (!json_is_string(json_object_get(l, "source")) ||
            !json_is_string(json_object_get(l, "counter")) ||
            !json_is_integer(json_object_get(l, "count")))
            return errbuf_fail(err, size, "loss %zu: wants source, counter and count", i);
    }
    return 0;
}

static const char *const statuses[] = {"ok", "failed", "interrupted", NULL};

static bool known_status(const char *s)
{
    for (const char *const *k = statuses; s && *k; k++)
        if (!strcmp(s, *k))
            return true;
    return false;
}

int run_record_parse(json_t *j, run_record *r, db_request **reqs, char *err, size_t size)
{
    json_t *error = json_object_get(j, "error");
    json_t *versions = json_object_get(j, "versions"), *stats = json_object_get(j, "stats");
    *r = (run_record){.status = json_string_value(json_object_get(j, "status")),
                      .error = json_string_value(error)};
    if (!json_is_object(j) ||
        strcmp(json_string_value(json_object_get(j, "mortar_record")) ?: "", "run"))
        return errbuf_fail(err, size, "not a run record of mortar");
    if (get_int(j, "id", &r->id) || r->id <= 0)
        return errbuf_fail(err, size, "\"id\" is not a run id");
    if (!known_status(r->status))
        return errbuf_fail(err, size, "\"status\" is not ok, failed or interrupted");
    if (!json_is_string(error) && !json_is_null(error))
        return errbuf_fail(err, size, "\"error\" is not text or null");
    if (get_real(j, "wall_s", &r->wall_s))
        return errbuf_fail(err, size, "\"wall_s\" is not a number");
    if ((!json_is_object(versions) && !json_is_null(versions)) ||
        (!json_is_object(stats) && !json_is_null(stats)))
        return errbuf_fail(err, size, "\"versions\" and \"stats\" want objects or null");
    r->versions = json_is_object(versions) ? versions : NULL;
    r->stats = json_is_object(stats) ? stats : NULL;
    r->losses = json_object_get(j, "losses");
    /* a record made before the profile existed has none */
    json_t *profile = json_object_get(j, "profile");
    r->profile = json_is_null(profile) ? NULL : profile;
    if ((r->profile && profile_check(r->profile, err, size)) ||
        check_losses(r->losses, err, size) ||
        parse_summary(json_object_get(j, "summary"), &r->summary, err, size) ||
        parse_requests(json_object_get(j, "requests"), reqs, &r->nreqs, err, size))
        return -1;
    r->reqs = *reqs;
    return 0;
}

int run_record_import(db_conn *db, const char *path, int64_t *id, char *err,
                      size_t err_size)
{
    json_error_t jerr;
    json_t *j = json_load_file(path, 0, &jerr);
    if (!j)
        return errbuf_fail(err, err_size, "%s: %s", path, jerr.text);
    run_record r;
    db_request *reqs = NULL;
    char why[512];
    int rc = run_record_parse(j, &r, &reqs, why, sizeof why);
    int importable = rc ? -1 : db_run_importable(db, r.id, why, sizeof why);
    if (importable == 1)
        rc = errbuf_fail(err, err_size, "run %lld from %s %s %s; nothing was imported",
                         (long long)r.id, path, why, db_file_name(db));
    else if (rc || importable < 0 || write_once(db, &r, why, sizeof why))
        rc = errbuf_fail(err, err_size, "%s: %s", path, why);
    else
        *id = r.id;
    free(reqs);
    json_decref(j);
    return rc;
}
