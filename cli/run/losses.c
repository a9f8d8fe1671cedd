/*
 * losses.c - which counters of a run are losses, and their text (see
 * losses.h for the rule).
 */
#include "losses.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_check.h"

int64_t losses_parse_tcp_retrans(const char *line)
{
    size_t n = strlen(LOSSES_TCP_RETRANS_MARK);
    if (strncmp(line, LOSSES_TCP_RETRANS_MARK, n) || line[n] < '0' || line[n] > '9')
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(line + n, &end, 10);
    if (errno || v < 0 || (*end && *end != '\n' && *end != '\r' && *end != ' '))
        return -1;
    return v;
}

static void add_loss(json_t *out, const char *source, const char *counter, json_t *value)
{
    if (!json_is_number(value) || json_number_value(value) < 1)
        return;
    json_array_append_new(out, json_pack("{s:s, s:s, s:I}", "source", source, "counter",
                                         counter, "count",
                                         (json_int_t)json_number_value(value)));
}

static void component_losses(json_t *out, json_t *spec, json_t *stats)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(spec, "components"), i, c) {
        const char *name = json_string_value(json_object_get(c, "name"));
        const char *kind = json_string_value(json_object_get(c, "kind"));
        char why[2048];
        const mortar_component_ops *ops = kind ? sim_check_kind(kind, "", why, sizeof why) : NULL;
        json_t *s = name ? json_object_get(stats, name) : NULL;
        if (!ops || !ops->lost_stats || !json_is_object(s))
            continue;
        for (const char *const *k = ops->lost_stats; *k; k++)
            add_loss(out, name, *k, json_object_get(s, *k));
    }
}

static void host_losses(json_t *out, json_t *spec, json_t *stats)
{
    size_t i;
    json_t *h;
    json_array_foreach(json_object_get(spec, "hosts"), i, h) {
        const char *name = json_string_value(json_object_get(h, "name"));
        char key[160];
        if (!name || snprintf(key, sizeof key, "host_%s", name) >= (int)sizeof key)
            continue;
        add_loss(out, name, LOSSES_TCP_RETRANS_STAT,
                 json_object_get(json_object_get(stats, key), LOSSES_TCP_RETRANS_STAT));
    }
}

json_t *losses_of_run(json_t *spec, json_t *stats)
{
    json_t *out = json_array();
    component_losses(out, spec, stats);
    host_losses(out, spec, stats);
    return out;
}

int64_t losses_total(json_t *losses)
{
    int64_t sum = 0;
    size_t i;
    json_t *l;
    json_array_foreach(losses, i, l)
        sum += json_integer_value(json_object_get(l, "count"));
    return sum;
}

const char *losses_text(json_t *losses, char *buf, size_t size)
{
    size_t used = 0, i;
    json_t *l;
    buf[0] = '\0';
    json_array_foreach(losses, i, l) {
        int n = snprintf(buf + used, size - used, "%s%s.%s %lld", i ? ", " : "",
                         json_string_value(json_object_get(l, "source")) ?: "?",
                         json_string_value(json_object_get(l, "counter")) ?: "?",
                         (long long)json_integer_value(json_object_get(l, "count")));
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
    return buf;
}

const char *losses_cell(json_t *run, char *buf, size_t size)
{
    json_t *lost = json_object_get(run, "lost");
    if (!json_is_integer(lost))
        snprintf(buf, size, "-");
    else if (json_integer_value(lost) == 0)
        snprintf(buf, size, "0");
    else
        snprintf(buf, size, "%lld!", (long long)json_integer_value(lost));
    return buf;
}
