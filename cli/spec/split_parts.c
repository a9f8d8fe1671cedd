/*
 * split_parts.c - a study's parts of the time split, read from its study
 * file (see split_parts.h).
 */
#include "split_parts.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "errbuf.h"

static const char *const activity_keys[SPLIT_NACTIVITIES] = {
    "client_software", "network", "server_software", "host_interface", "pcie_wire",
    "compute"};

const char *split_activity_key(split_activity a)
{
    return (unsigned)a < SPLIT_NACTIVITIES ? activity_keys[a] : NULL;
}

void split_parts_default(split_parts *out)
{
    *out = (split_parts){.nparts = SPLIT_NACTIVITIES};
    for (size_t a = 0; a < SPLIT_NACTIVITIES; a++) {
        split_part *p = &out->part[a];
        snprintf(p->name, sizeof p->name, "%s", activity_keys[a]);
        snprintf(p->label, sizeof p->label, "%s", activity_keys[a]);
        snprintf(p->short_label, sizeof p->short_label, "%s", activity_keys[a]);
        p->takes = 1u << a;
    }
}

/* A lower-case identifier of 1 to SPLIT_NAME_MAX characters. */
static bool is_name(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n <= SPLIT_NAME_MAX && s[0] >= 'a' && s[0] <= 'z' &&
           strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

/* Member `key` of part `i` as a text of 1 to `max` characters into `out`;
 * `fallback` when absent. */
static int read_text(json_t *jp, size_t i, const char *key, size_t max, const char *fallback,
                     char *out, char *err, size_t size)
{
    json_t *v = json_object_get(jp, key);
    const char *s = v ? json_string_value(v) : fallback;
    if (!s || !*s || strlen(s) > max)
        return errbuf_fail(err, size, "[%zu].%s: expected a text of 1 to %zu characters", i,
                           key, max);
    snprintf(out, max + 1, "%s", s);
    return 0;
}

static int activity_of(const char *key, split_activity *out)
{
    for (size_t a = 0; a < SPLIT_NACTIVITIES; a++)
        if (key && !strcmp(key, activity_keys[a])) {
            *out = (split_activity)a;
            return 0;
        }
    return -1;
}

/* Part i's "takes", each activity not yet taken by an earlier part. */
static int read_takes(json_t *jp, size_t i, const split_parts *out, unsigned *takes,
                      char *err, size_t size)
{
    json_t *jt = json_object_get(jp, "takes"), *v;
    size_t k;
    if (!json_is_array(jt) || !json_array_size(jt))
        return errbuf_fail(err, size, "[%zu].takes: expected a list of activities (%s, %s,"
                           " %s, %s, %s, %s)", i, activity_keys[0], activity_keys[1],
                           activity_keys[2], activity_keys[3], activity_keys[4],
                           activity_keys[5]);
    *takes = 0;
    json_array_foreach(jt, k, v) {
        split_activity a;
        if (activity_of(json_string_value(v), &a))
            return errbuf_fail(err, size, "[%zu].takes[%zu]: not an activity of the trace",
                               i, k);
        for (size_t p = 0; p < i; p++)
            if (out->part[p].takes & (1u << a))
                return errbuf_fail(err, size, "[%zu].takes: '%s' is taken by part %zu too",
                                   i, activity_keys[a], p);
        if (*takes & (1u << a))
            return errbuf_fail(err, size, "[%zu].takes: '%s' twice", i, activity_keys[a]);
        *takes |= 1u << a;
    }
    return 0;
}

static int read_part(json_t *jp, size_t i, split_parts *out, char *err, size_t size)
{
    const char *key;
    json_t *v;
    if (!json_is_object(jp))
        return errbuf_fail(err, size, "[%zu]: expected an object", i);
    json_object_foreach(jp, key, v) {
        if (strcmp(key, "name") && strcmp(key, "label") && strcmp(key, "short") &&
            strcmp(key, "takes"))
            return errbuf_fail(err, size, "[%zu]: unknown key '%s'", i, key);
    }
    split_part *p = &out->part[i];
    const char *name = json_string_value(json_object_get(jp, "name"));
    if (!name || !is_name(name))
        return errbuf_fail(err, size, "[%zu].name: expected a lower-case identifier of 1 to"
                           " %d characters", i, SPLIT_NAME_MAX);
    for (size_t q = 0; q < i; q++)
        if (!strcmp(out->part[q].name, name))
            return errbuf_fail(err, size, "[%zu].name: '%s' names part %zu too", i, name, q);
    snprintf(p->name, sizeof p->name, "%s", name);
    return read_text(jp, i, "label", SPLIT_LABEL_MAX, name, p->label, err, size) ||
                   read_text(jp, i, "short", SPLIT_NAME_MAX, name, p->short_label, err,
                             size) ||
                   read_takes(jp, i, out, &p->takes, err, size)
               ? -1
               : 0;
}

int split_parts_read(json_t *js, split_parts *out, char *err, size_t err_size)
{
    *out = (split_parts){0};
    size_t n = json_array_size(js);
    if (!json_is_array(js) || n == 0 || n > SPLIT_NACTIVITIES)
        return errbuf_fail(err, err_size, "expected a list of 1 to %d parts",
                           SPLIT_NACTIVITIES);
    for (size_t i = 0; i < n; i++, out->nparts++)
        if (read_part(json_array_get(js, i), i, out, err, err_size))
            return -1;
    unsigned taken = 0;
    for (size_t i = 0; i < n; i++)
        taken |= out->part[i].takes;
    for (size_t a = 0; a < SPLIT_NACTIVITIES; a++)
        if (!(taken & (1u << a)))
            return errbuf_fail(err, err_size, "no part takes '%s': the parts would not sum"
                               " to the latency", activity_keys[a]);
    return 0;
}
