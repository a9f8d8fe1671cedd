/*
 * study.c - loading and checking a study file, and picking a variant's
 * spec for `mortar run STUDY --set AXIS=VALUE`. See study.h and
 * docs/studies.md.
 */
#include "study.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errbuf.h"
#include "knob_scale.h"
#include "spec.h"
#include "mortar/name.h"
#include "mortar/time.h"
#include "paths.h"
#include "request_line.h"
#include "study_wire.h"
#include "xalloc.h"

#define TEXT_MAX 512

/* ---- checking values -------------------------------------------------------- */

/* Where a problem is: "<file>: <field>". */
typedef struct where {
    const char *file;
    char *err;
    size_t size;
} where;

static int fail(const where *w, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(const where *w, const char *field, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return errbuf_fail(w->err, w->size, "%s: %s: %s", w->file, field, msg);
}

static int check_keys(const where *w, json_t *obj, const char *field,
                      const char *const allowed[])
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        bool known = false;
        for (size_t i = 0; allowed[i] && !known; i++)
            known = !strcmp(key, allowed[i]);
        if (!known)
            return fail(w, field, "unknown key '%s'", key);
    }
    return 0;
}

static json_t *want_object(const where *w, json_t *parent, const char *key,
                           const char *field, bool required, int *rc)
{
    json_t *v = json_object_get(parent, key);
    if (!v && !required)
        return NULL;
    if (!json_is_object(v))
        *rc = fail(w, field, v ? "expected an object" : "missing");
    return json_is_object(v) ? v : NULL;
}

/* A required (or optional: NULL when absent) non-empty string of at most
 * TEXT_MAX - 1 bytes, copied. */
static int want_text(const where *w, json_t *parent, const char *key, const char *field,
                     bool required, char **out)
{
    json_t *v = json_object_get(parent, key);
    if (!v && !required)
        return 0;
    if (!json_is_string(v))
        return fail(w, field, v ? "expected a string" : "missing");
    const char *s = json_string_value(v);
    if (!s[0] || strlen(s) >= TEXT_MAX)
        return fail(w, field, "expected 1 to %d characters", TEXT_MAX - 1);
    *out = xstrdup(s);
    return 0;
}

/* A key of a per-request line ("latency_ns"): lower-case letters, digits
 * and '_', starting with a letter. */
static int want_field_name(const where *w, json_t *parent, const char *key,
                           const char *field, char **out)
{
    if (want_text(w, parent, key, field, true, out))
        return -1;
    for (const char *p = *out; *p; p++)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_'))
            return fail(w, field, "'%s': expected lower-case letters, digits and '_'",
                        *out);
    if (!islower((unsigned char)(*out)[0]))
        return fail(w, field, "'%s': expected to start with a letter", *out);
    return 0;
}

/* ---- the variants ----------------------------------------------------------- */

static int read_alone(const where *w, json_t *jv, const char *field, study_alone *alone)
{
    static const char *const keys[] = {"command", "result", NULL};
    int rc = 0;
    json_t *ja = want_object(w, jv, "alone", field, false, &rc);
    if (rc || !ja)
        return rc;
    char f[TEXT_MAX + 64];
    snprintf(f, sizeof f, "%s.alone", field);
    if (check_keys(w, ja, f, keys))
        return -1;
    snprintf(f, sizeof f, "%s.alone.command", field);
    if (want_text(w, ja, "command", f, true, &alone->command))
        return -1;
    snprintf(f, sizeof f, "%s.alone.result", field);
    return want_field_name(w, ja, "result", f, &alone->result);
}

/* "spec": a readable file, relative to the study's directory. */
static int read_variant_spec(const where *w, json_t *jv, const char *field,
                             const char *dir, char **out)
{
    char f[TEXT_MAX + 64], *name = NULL;
    snprintf(f, sizeof f, "%s.spec", field);
    if (want_text(w, jv, "spec", f, true, &name))
        return -1;
    char path[2 * TEXT_MAX + 2];
    if (name[0] == '/')
        snprintf(path, sizeof path, "%s", name);
    else
        snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = 0;
    if (access(path, R_OK) != 0)
        rc = fail(w, f, "%s: %s", path, strerror(errno));
    free(name);
    if (!rc)
        *out = xstrdup(path);
    return rc;
}

static int read_variant(const where *w, const char *name, json_t *jv, const char *dir,
                        study_variant *v)
{
    static const char *const keys[] = {"spec", "label", "phrase", "alone", NULL};
    char field[TEXT_MAX + 32], why[256];
    snprintf(field, sizeof field, "variants.values.%s", name);
    v->name = xstrdup(name);
    if (mortar_name_check(name, why, sizeof why))
        return fail(w, field, "%s", why);
    if (!json_is_object(jv))
        return fail(w, field, "expected an object with \"spec\"");
    char f[TEXT_MAX + 64];
    snprintf(f, sizeof f, "%s.label", field);
    char fp[TEXT_MAX + 64];
    snprintf(fp, sizeof fp, "%s.phrase", field);
    if (check_keys(w, jv, field, keys) ||
        read_variant_spec(w, jv, field, dir, &v->spec_path) ||
        want_text(w, jv, "label", f, false, &v->label) ||
        want_text(w, jv, "phrase", fp, false, &v->phrase) ||
        read_alone(w, jv, field, &v->alone))
        return -1;
    if (!v->label)
        v->label = xstrdup(name);
    if (!v->phrase)
        v->phrase = xstrdup(v->label);
    return 0;
}

static int variant_index(const study *st, const char *name, size_t *out)
{
    for (size_t i = 0; i < st->nvariants; i++)
        if (!strcmp(st->variants[i].name, name)) {
            *out = i;
            return 0;
        }
    return -1;
}

/* An array of distinct variant names into indexes (room for nvariants: a
 * name given twice is refused before it is stored). */
static int read_variant_list(const where *w, const study *st, json_t *arr,
                             const char *field, size_t *idx, size_t *n)
{
    if (!json_is_array(arr))
        return fail(w, field, arr ? "expected an array of variant names" : "missing");
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) {
        char f[TEXT_MAX + 32];
        snprintf(f, sizeof f, "%s[%zu]", field, i);
        if (!json_is_string(v))
            return fail(w, f, "expected a variant name");
        size_t index;
        if (variant_index(st, json_string_value(v), &index))
            return fail(w, f, "'%s' is not one of variants.values", json_string_value(v));
        for (size_t k = 0; k < i; k++)
            if (idx[k] == index)
                return fail(w, f, "'%s' is named twice", json_string_value(v));
        idx[i] = index; /* distinct, so i < nvariants: idx has room */
    }
    *n = json_array_size(arr);
    return 0;
}

static int read_compared_and_baselines(const where *w, study *st, json_t *jvars)
{
    size_t *idx = xcalloc(st->nvariants, sizeof *idx), n = 0;
    json_t *compare = json_object_get(jvars, "compare");
    if (read_variant_list(w, st, compare, "variants.compare", idx, &n)) {
        free(idx);
        return -1;
    }
    if (n != 2) {
        free(idx);
        return fail(w, "variants.compare",
                    "expected two variant names (the verdict "
                    "compares two), got %zu",
                    n);
    }
    st->compared[0] = idx[0];
    st->compared[1] = idx[1];
    st->baselines = idx;
    json_t *base = json_object_get(jvars, "baselines");
    if (!base)
        return 0;
    if (read_variant_list(w, st, base, "variants.baselines", st->baselines,
                          &st->nbaselines))
        return -1;
    for (size_t i = 0; i < st->nbaselines; i++)
        if (st->baselines[i] == st->compared[0] || st->baselines[i] == st->compared[1])
            return fail(w, "variants.baselines", "'%s' is compared, not a baseline",
                        st->variants[st->baselines[i]].name);
    return 0;
}

static int read_variants(const where *w, study *st, json_t *root, const char *dir)
{
    static const char *const keys[] = {"axis", "values", "compare", "baselines", NULL};
    int rc = 0;
    json_t *jvars = want_object(w, root, "variants", "variants", true, &rc);
    if (rc || check_keys(w, jvars, "variants", keys) ||
        want_text(w, jvars, "axis", "variants.axis", true, &st->axis))
        return -1;
    json_t *values = want_object(w, jvars, "values", "variants.values", true, &rc);
    if (rc)
        return -1;
    if (json_object_size(values) == 0)
        return fail(w, "variants.values", "expected at least one variant");
    st->variants = xcalloc(json_object_size(values), sizeof *st->variants);
    const char *name;
    json_t *jv;
    json_object_foreach(values, name, jv) {
        if (read_variant(w, name, jv, dir, &st->variants[st->nvariants++]))
            return -1;
    }
    return read_compared_and_baselines(w, st, jvars);
}

/* ---- the knobs and the load axis -------------------------------------------- */

static int read_knob_values(const where *w, json_t *values, const char *field,
                            study_knob *k)
{
    if (!json_is_array(values) || json_array_size(values) == 0)
        return fail(w, field,
                    values ? "expected a non-empty array of values" : "missing");
    k->values = xcalloc(json_array_size(values), sizeof *k->values);
    size_t i;
    json_t *v;
    json_array_foreach(values, i, v) {
        char text[TEXT_MAX], f[TEXT_MAX + 32];
        snprintf(f, sizeof f, "%s[%zu]", field, i);
        if (spec_value_text(v, text, sizeof text))
            return fail(w, f, "expected a string, number or boolean");
        for (size_t n = 0; n < k->nvalues; n++)
            if (!strcmp(k->values[n], text))
                return fail(w, f, "'%s' is given twice", text);
        k->values[k->nvalues++] = xstrdup(text);
    }
    return 0;
}

/* A knob's optional "phrase" and "title" (defaults: the label, the phrase). */
static int read_knob_names(const where *w, json_t *jk, const char *field, study_knob *k)
{
    char f[TEXT_MAX + 32];
    snprintf(f, sizeof f, "%s.phrase", field);
    if (want_text(w, jk, "phrase", f, false, &k->phrase))
        return -1;
    snprintf(f, sizeof f, "%s.title", field);
    if (want_text(w, jk, "title", f, false, &k->title))
        return -1;
    if (!k->phrase)
        k->phrase = xstrdup(k->label);
    if (!k->title)
        k->title = xstrdup(k->phrase);
    return 0;
}

static int read_knob(const where *w, const char *name, json_t *jk, study_knob *k)
{
    static const char *const keys[] = {"label", "unit", "phrase", "title", "values", NULL};
    char field[TEXT_MAX + 16], f[TEXT_MAX + 32];
    snprintf(field, sizeof field, "knobs.%s", name);
    k->name = xstrdup(name);
    if (!name[0])
        return fail(w, "knobs", "a knob without a name");
    if (!json_is_object(jk))
        return fail(w, field, "expected an object with \"values\"");
    if (check_keys(w, jk, field, keys))
        return -1;
    snprintf(f, sizeof f, "%s.label", field);
    if (want_text(w, jk, "label", f, false, &k->label))
        return -1;
    snprintf(f, sizeof f, "%s.unit", field);
    if (want_text(w, jk, "unit", f, false, &k->unit))
        return -1;
    snprintf(f, sizeof f, "%s.values", field);
    if (read_knob_values(w, json_object_get(jk, "values"), f, k))
        return -1;
    if (!k->label)
        k->label = xstrdup(name);
    if (!k->unit)
        k->unit = xstrdup("");
    return read_knob_names(w, jk, field, k);
}

static int read_knobs(const where *w, study *st, json_t *root)
{
    int rc = 0;
    json_t *jknobs = want_object(w, root, "knobs", "knobs", true, &rc);
    if (rc)
        return -1;
    st->knobs = xcalloc(json_object_size(jknobs), sizeof *st->knobs);
    const char *name;
    json_t *jk;
    json_object_foreach(jknobs, name, jk) {
        if (read_knob(w, name, jk, &st->knobs[st->nknobs++]))
            return -1;
        if (!strcmp(name, st->axis))
            return fail(w, "knobs", "'%s' is the variant axis, not a knob", name);
    }
    return 0;
}

/* "load.share": {"label": ..., "of": counter, "per": counter, "description": ...,
 * "phrase": ...}, all required. */
static int read_load_share(const where *w, study *st, json_t *jl)
{
    static const char *const keys[] = {"label", "of", "per", "description", "phrase", NULL};
    int rc = 0;
    json_t *js = want_object(w, jl, "share", "load.share", false, &rc);
    study_load_share *s = &st->load_share;
    if (rc || !js)
        return rc;
    if (check_keys(w, js, "load.share", keys) ||
        want_text(w, js, "label", "load.share.label", true, &s->label) ||
        want_field_name(w, js, "of", "load.share.of", &s->of) ||
        want_field_name(w, js, "per", "load.share.per", &s->per) ||
        want_text(w, js, "description", "load.share.description", true, &s->description) ||
        want_text(w, js, "phrase", "load.share.phrase", true, &s->phrase))
        return -1;
    return 0;
}

/* "load": {"knob": NAME, "label": ..., "phrase": ..., "values": [...],
 * "share": {...}} */
static int read_load(const where *w, study *st, json_t *root)
{
    static const char *const keys[] = {"knob", "label", "phrase", "title", "values", "share",
                                       NULL};
    int rc = 0;
    json_t *jl = want_object(w, root, "load", "load", false, &rc);
    if (rc || !jl)
        return rc;
    study_knob *k = &st->load;
    if (check_keys(w, jl, "load", keys) ||
        want_text(w, jl, "knob", "load.knob", true, &k->name) ||
        want_text(w, jl, "label", "load.label", false, &k->label) ||
        read_knob_values(w, json_object_get(jl, "values"), "load.values", k))
        return -1;
    if (!strcmp(k->name, st->axis))
        return fail(w, "load.knob", "'%s' is the variant axis", k->name);
    for (size_t i = 0; i < st->nknobs; i++)
        if (!strcmp(st->knobs[i].name, k->name))
            return fail(w, "load.knob", "'%s' is a knob already", k->name);
    if (!k->label)
        k->label = xstrdup(k->name);
    k->unit = xstrdup("");
    return read_knob_names(w, jl, "load", k) || read_load_share(w, st, jl) ? -1 : 0;
}

/* Every $name or ${name} in a variant's alone command is a knob: the
 * command is run at the knobs' values of a grid cell. */
static int check_alone_refs(const where *w, const study *st, const study_variant *v)
{
    for (const char *p = v->alone.command ? strchr(v->alone.command, '$') : NULL; p;
         p = strchr(p + 1, '$')) {
        char name[TEXT_MAX];
        bool braced = p[1] == '{';
        const char *start = p + 1 + braced;
        size_t n = braced ? strcspn(start, "}")
                          : strspn(start, "abcdefghijklmnopqrstuvwxyz"
                                          "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_.");
        snprintf(name, sizeof name, "%.*s", (int)n, start);
        if ((braced && !start[n]) || !study_knob_named(st, name)) {
            char f[TEXT_MAX + 64];
            snprintf(f, sizeof f, "variants.values.%s.alone.command", v->name);
            return fail(w, f, "'$%s%s' is not a knob of the study", braced ? "{" : "",
                        name);
        }
    }
    return 0;
}

static int check_alone_commands(const where *w, const study *st)
{
    for (size_t i = 0; i < st->nvariants; i++)
        if (check_alone_refs(w, st, &st->variants[i]))
            return -1;
    return 0;
}

/* ---- the metric ------------------------------------------------------------- */

/* A part given as {"field": ..., "short": ..., "label": ..., "description": ...}. */
static int read_metric_part(const where *w, json_t *jv, const char *field,
                            study_metric_part *p)
{
    static const char *const keys[] = {"field", "short", "label", "description", NULL};
    char f[4][TEXT_MAX + 64];
    const char *names[] = {"field", "short", "label", "description"};
    for (int i = 0; i < 4; i++)
        snprintf(f[i], sizeof f[i], "%s.%s", field, names[i]);
    return check_keys(w, jv, field, keys) || want_field_name(w, jv, "field", f[0], &p->field) ||
                   want_text(w, jv, "short", f[1], false, &p->short_label) ||
                   want_text(w, jv, "label", f[2], false, &p->label) ||
                   want_text(w, jv, "description", f[3], false, &p->description)
               ? -1
               : 0;
}

static int read_metric_parts(const where *w, study_metric *m, json_t *jr)
{
    int rc = 0;
    json_t *jp = want_object(w, jr, "parts", "metric.report.parts", false, &rc);
    if (rc || !jp)
        return rc;
    m->parts = xcalloc(json_object_size(jp), sizeof *m->parts);
    const char *name;
    json_t *v;
    json_object_foreach(jp, name, v) {
        char f[TEXT_MAX + 32];
        snprintf(f, sizeof f, "metric.report.parts.%s", name);
        study_metric_part *p = &m->parts[m->nparts++];
        p->name = xstrdup(name);
        if (!name[0])
            return fail(w, "metric.report.parts", "a part without a name");
        if (json_is_object(v) ? read_metric_part(w, v, f, p)
                              : want_field_name(w, jp, name, f, &p->field))
            return -1;
        if (!p->short_label)
            p->short_label = xstrdup(name);
        if (!p->label)
            p->label = xstrdup(name);
        if (!p->description)
            p->description = xstrdup("");
    }
    return 0;
}

/* `mortar run` does not know the study it runs for, so the contract's own
 * keys are fixed (request_line.h); a study must name them as they are. */
static int want_contract_key(const where *w, const char *field, const char *key,
                             const char *contract)
{
    if (!strcmp(key, contract))
        return 0;
    return fail(w, field, "'%s': mortar run reads the per-request contract's key '%s'", key,
                contract);
}

/* The parts of a request's time split (split_parts.h): the file's, or one
 * per activity of the trace when it names none. */
static int read_split(const where *w, study_metric *m, json_t *jm)
{
    json_t *js = json_object_get(jm, "split");
    char why[512];
    if (!js) {
        split_parts_default(&m->split);
        return 0;
    }
    if (split_parts_read(js, &m->split, why, sizeof why))
        return fail(w, "metric.split", "%s", why);
    return 0;
}

static int read_metric(const where *w, study *st, json_t *root)
{
    static const char *const keys[] = {"name", "unit", "better", "report", "split", NULL};
    static const char *const report_keys[] = {"id",       "value", "start",
                                              "verified", "parts", NULL};
    study_metric *m = &st->metric;
    int rc = 0;
    json_t *jm = want_object(w, root, "metric", "metric", true, &rc);
    if (rc || check_keys(w, jm, "metric", keys) ||
        want_text(w, jm, "name", "metric.name", true, &m->name) ||
        want_text(w, jm, "unit", "metric.unit", true, &m->unit))
        return -1;
    if (strcmp(m->unit, "ns"))
        return fail(w, "metric.unit", "'%s': the per-request contract reports ns",
                    m->unit);
    json_t *better = json_object_get(jm, "better");
    const char *b = json_string_value(better);
    if (!b || (strcmp(b, "lower") && strcmp(b, "higher")))
        return fail(w, "metric.better", "expected \"lower\" or \"higher\"");
    m->lower_is_better = !strcmp(b, "lower");
    json_t *jr = want_object(w, jm, "report", "metric.report", true, &rc);
    if (rc || check_keys(w, jr, "metric.report", report_keys) ||
        want_field_name(w, jr, "id", "metric.report.id", &m->id_field) ||
        want_field_name(w, jr, "value", "metric.report.value", &m->value_field) ||
        want_field_name(w, jr, "start", "metric.report.start", &m->start_field) ||
        want_field_name(w, jr, "verified", "metric.report.verified", &m->verified_field) ||
        want_contract_key(w, "metric.report.id", m->id_field, REQUEST_KEY_ID) ||
        want_contract_key(w, "metric.report.value", m->value_field, REQUEST_KEY_VALUE) ||
        want_contract_key(w, "metric.report.start", m->start_field, REQUEST_KEY_START) ||
        want_contract_key(w, "metric.report.verified", m->verified_field, REQUEST_KEY_VERIFIED))
        return -1;
    return read_metric_parts(w, m, jr) || read_split(w, m, jm);
}

/* ---- the parts of the grid -------------------------------------------------- */

/* Whether `text` is one of the knob's values. */
static bool knob_has(const study_knob *k, const char *text)
{
    for (size_t i = 0; i < k->nvalues; i++)
        if (!strcmp(k->values[i], text))
            return true;
    return false;
}

/* A knob's value must be one the study declares; other spec variables are
 * the spec's business (sweep_plan checks them against every spec). */
static int check_knob_value(const where *w, const study *st, const char *path, json_t *v,
                            const char *field)
{
    char text[TEXT_MAX];
    if (spec_value_text(v, text, sizeof text))
        return fail(w, field, "expected a string, number or boolean");
    const study_knob *k = study_knob_named(st, path);
    if (k && !knob_has(k, text))
        return fail(w, field, "'%s' is not one of the values knob %s declares", text,
                    path);
    return 0;
}

static int read_part_grid(const where *w, const study *st, json_t *grid,
                          const char *field)
{
    if (!json_is_object(grid) || json_object_size(grid) == 0)
        return fail(w, field, "expected an object of knob: [values]");
    const char *path;
    json_t *values;
    json_object_foreach(grid, path, values) {
        char f[TEXT_MAX + 64];
        snprintf(f, sizeof f, "%s.%s", field, path);
        if (!study_knob_named(st, path))
            return fail(w, f, "not a knob of the study (knobs or load.knob)");
        if (!json_is_array(values) || json_array_size(values) == 0)
            return fail(w, f, "expected a non-empty array of values");
        size_t i;
        json_t *v;
        json_array_foreach(values, i, v) {
            char fi[TEXT_MAX + 96];
            snprintf(fi, sizeof fi, "%s[%zu]", f, i);
            if (check_knob_value(w, st, path, v, fi))
                return -1;
        }
    }
    return 0;
}

static int read_part_set(const where *w, const study *st, json_t *set, const char *field)
{
    if (!json_is_object(set))
        return fail(w, field, "expected an object of path: value");
    const char *path;
    json_t *v;
    json_object_foreach(set, path, v) {
        char f[TEXT_MAX + 64];
        snprintf(f, sizeof f, "%s.%s", field, path);
        if (!path[0] || !strcmp(path, st->axis))
            return fail(w, f, "the variants of a part are its \"variants\"");
        if (check_knob_value(w, st, path, v, f))
            return -1;
    }
    return 0;
}

/* A path is either varied or fixed in a part, not both. */
static int check_grid_set_apart(const where *w, json_t *grid, json_t *set,
                                const char *field)
{
    const char *path;
    json_t *v;
    json_object_foreach(set, path, v) {
        if (json_object_get(grid, path))
            return fail(w, field, "'%s' is both in the grid and fixed", path);
    }
    return 0;
}

static int read_part(const where *w, study *st, json_t *jp, size_t index, study_part *p)
{
    static const char *const keys[] = {"description", "variants", "grid", "set", NULL};
    char field[64], f[96];
    snprintf(field, sizeof field, "parts[%zu]", index);
    if (!json_is_object(jp))
        return fail(w, field, "expected an object with \"variants\"");
    if (check_keys(w, jp, field, keys))
        return -1;
    json_t *vars = json_object_get(jp, "variants");
    snprintf(f, sizeof f, "%s.variants", field);
    size_t *idx = xcalloc(st->nvariants, sizeof *idx), n = 0;
    int rc = read_variant_list(w, st, vars, f, idx, &n);
    if (!rc && n == 0)
        rc = fail(w, f, "expected at least one variant");
    p->variants = xcalloc(n, sizeof *p->variants);
    for (size_t i = 0; !rc && i < n; i++)
        p->variants[p->nvariants++] = xstrdup(st->variants[idx[i]].name);
    free(idx);
    if (rc)
        return -1;
    json_t *grid = json_object_get(jp, "grid"), *set = json_object_get(jp, "set");
    snprintf(f, sizeof f, "%s.grid", field);
    if (grid && read_part_grid(w, st, grid, f))
        return -1;
    snprintf(f, sizeof f, "%s.set", field);
    if (set && read_part_set(w, st, set, f))
        return -1;
    if (grid && set && check_grid_set_apart(w, grid, set, f))
        return -1;
    p->grid = json_incref(grid);
    p->set = json_incref(set);
    return 0;
}

static int read_parts(const where *w, study *st, json_t *root)
{
    json_t *jparts = json_object_get(root, "parts");
    if (!json_is_array(jparts) || json_array_size(jparts) == 0)
        return fail(w, "parts", "expected a non-empty array");
    st->parts = xcalloc(json_array_size(jparts), sizeof *st->parts);
    size_t i;
    json_t *jp;
    json_array_foreach(jparts, i, jp) {
        if (read_part(w, st, jp, i, &st->parts[st->nparts++]))
            return -1;
    }
    return 0;
}

/* ---- refining ---------------------------------------------------------------- */

/* "refine": {"resolution": ...}: the x knob (the first) is what a
 * refinement bisects, so the resolution is one of its values' kind: a
 * duration for a time knob (default 0.05us), a number for another (no
 * default). */
static int read_refine(const where *w, study *st, json_t *root)
{
    static const char *const keys[] = {"resolution", NULL};
    int rc = 0;
    json_t *jr = want_object(w, root, "refine", "refine", false, &rc);
    if (rc || !jr)
        return rc;
    if (check_keys(w, jr, "refine", keys))
        return -1;
    if (st->nknobs == 0)
        return fail(w, "refine", "the study has no knob to refine along");
    const study_knob *x = &st->knobs[0];
    knob_scale scale = knob_scale_of(x);
    json_t *res = json_object_get(jr, "resolution");
    char why[256];
    st->refine = (study_refine){.on = true,
                                .resolution = knob_scale_default_resolution(&scale)};
    if (!res && isnan(st->refine.resolution))
        return fail(w, "refine.resolution",
                    "missing: knob %s is not a time, so there is no default", x->name);
    if (res && knob_scale_resolution(&scale, res, &st->refine.resolution, why, sizeof why))
        return fail(w, "refine.resolution", "%s: %s", x->name, why);
    return 0;
}

/* ---- its protocol -------------------------------------------------------------- */

static int read_wire(const where *w, study *st, json_t *root)
{
    json_t *jw = json_object_get(root, "wire");
    if (!jw)
        return 0;
    st->wire = xcalloc(1, sizeof *st->wire);
    char why[512];
    if (study_wire_read(jw, st->wire, why, sizeof why))
        return fail(w, "wire", "%s", why);
    return 0;
}

/* ---- loading ---------------------------------------------------------------- */

static json_t *load_json(const char *path)
{
    return json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
}

bool study_is_study_file(const char *path)
{
    json_t *root = load_json(path);
    bool is = json_is_object(root) && json_object_get(root, "variants");
    json_decref(root);
    return is;
}

static int read_name(const where *w, study *st, json_t *root)
{
    char why[256];
    if (want_text(w, root, "name", "name", true, &st->name))
        return -1;
    if (mortar_name_check(st->name, why, sizeof why))
        return fail(w, "name", "%s", why);
    json_t *d = json_object_get(root, "description");
    if (d && !json_is_string(d))
        return fail(w, "description", "expected a string");
    return 0;
}

int study_load(study *st, const char *path, char *err, size_t err_size)
{
    static const char *const keys[] = {"name",  "description", "variants", "knobs", "load",
                                       "metric", "parts",      "refine",   "wire",  NULL};
    *st = (study){.path = xstrdup(path)};
    where w = {.file = path, .err = err, .size = err_size};
    json_error_t jerr;
    errno = 0;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!root && jerr.line < 1)
        return errbuf_fail(err, err_size, "%s: %s", path,
                           errno ? strerror(errno) : jerr.text);
    if (!root)
        return errbuf_fail(err, err_size, "%s: %s (line %d)", path, jerr.text, jerr.line);
    char dirbuf[2 * TEXT_MAX];
    snprintf(dirbuf, sizeof dirbuf, "%s", path);
    const char *dir = dirname(dirbuf);
    int rc = -1;
    if (!json_is_object(root))
        errbuf_fail(err, err_size, "%s: expected a JSON object", path);
    else if (!check_keys(&w, root, "study", keys) && !read_name(&w, st, root) &&
             !read_variants(&w, st, root, dir) && !read_knobs(&w, st, root) &&
             !read_load(&w, st, root) && !check_alone_commands(&w, st) &&
             !read_metric(&w, st, root) && !read_parts(&w, st, root) &&
             !read_refine(&w, st, root) && !read_wire(&w, st, root))
        rc = 0;
    json_decref(root);
    return rc;
}

static void knob_free(study_knob *k)
{
    free(k->name);
    free(k->label);
    free(k->unit);
    free(k->phrase);
    free(k->title);
    for (size_t i = 0; i < k->nvalues; i++)
        free(k->values[i]);
    free(k->values);
}

void study_free(study *st)
{
    for (size_t i = 0; i < st->nvariants; i++) {
        study_variant *v = &st->variants[i];
        free(v->name);
        free(v->label);
        free(v->phrase);
        free(v->spec_path);
        free(v->alone.command);
        free(v->alone.result);
    }
    free(st->variants);
    free(st->baselines);
    free(st->wire);
    for (size_t i = 0; i < st->nknobs; i++)
        knob_free(&st->knobs[i]);
    free(st->knobs);
    knob_free(&st->load);
    study_metric *m = &st->metric;
    free(m->name);
    free(m->unit);
    free(m->id_field);
    free(m->value_field);
    free(m->start_field);
    free(m->verified_field);
    for (size_t i = 0; i < m->nparts; i++) {
        free(m->parts[i].name);
        free(m->parts[i].field);
        free(m->parts[i].short_label);
        free(m->parts[i].label);
        free(m->parts[i].description);
    }
    free(st->load_share.label);
    free(st->load_share.of);
    free(st->load_share.per);
    free(st->load_share.description);
    free(st->load_share.phrase);
    free(m->parts);
    for (size_t i = 0; i < st->nparts; i++) {
        for (size_t k = 0; k < st->parts[i].nvariants; k++)
            free(st->parts[i].variants[k]);
        free(st->parts[i].variants);
        json_decref(st->parts[i].grid);
        json_decref(st->parts[i].set);
    }
    free(st->parts);
    free(st->path);
    free(st->name);
    free(st->axis);
    *st = (study){0};
}

const study_variant *study_variant_named(const study *st, const char *name)
{
    size_t i;
    return variant_index(st, name, &i) ? NULL : &st->variants[i];
}

const study_knob *study_knob_named(const study *st, const char *name)
{
    for (size_t i = 0; i < st->nknobs; i++)
        if (!strcmp(st->knobs[i].name, name))
            return &st->knobs[i];
    return st->load.name && !strcmp(st->load.name, name) ? &st->load : NULL;
}

/* ---- picking a variant ------------------------------------------------------ */

/* The variant names, "v1, v2, v3", for an error. */
static void variant_names(const study *st, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0, len = 0; i < st->nvariants && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
                                st->variants[i].name);
}

int study_pick_variant(const study *st, char *const sets[], size_t nsets,
                       const char **spec_path, char **kept, size_t *nkept, char *err,
                       size_t err_size)
{
    size_t axis_len = strlen(st->axis);
    const char *value = NULL;
    *nkept = 0;
    for (size_t i = 0; i < nsets; i++) {
        if (strncmp(sets[i], st->axis, axis_len) || sets[i][axis_len] != '=') {
            kept[(*nkept)++] = sets[i];
            continue;
        }
        if (value)
            return errbuf_fail(err, err_size, "%s: --set %s= is given twice", st->path,
                               st->axis);
        value = sets[i] + axis_len + 1;
    }
    char names[1024];
    variant_names(st, names, sizeof names);
    if (!value)
        return errbuf_fail(err, err_size,
                           "%s: a study runs one of its variants: --set "
                           "%s=VARIANT (one of %s)",
                           st->path, st->axis, names);
    const study_variant *v = study_variant_named(st, value);
    if (!v)
        return errbuf_fail(err, err_size,
                           "%s: --set %s=%s: not a variant of the study "
                           "(its variants: %s)",
                           st->path, st->axis, value, names);
    *spec_path = v->spec_path;
    return 0;
}

int study_resolve_spec(study *st, const char *path, char *const sets[], size_t nsets,
                       const char **spec_path, char **kept, size_t *nkept, char *err,
                       size_t err_size)
{
    *st = (study){0};
    if (!study_is_study_file(path)) {
        *spec_path = path;
        for (size_t i = 0; i < nsets; i++)
            kept[i] = sets[i];
        *nkept = nsets;
        return 0;
    }
    if (study_load(st, path, err, err_size) ||
        study_pick_variant(st, sets, nsets, spec_path, kept, nkept, err, err_size))
        return -1;
    return 1;
}

int study_knob_number(const study_knob *k, json_t *value, double *out)
{
    if (json_is_number(value)) {
        *out = json_number_value(value);
        return 0;
    }
    if (json_is_boolean(value)) {
        *out = json_is_true(value);
        return 0;
    }
    const char *text = json_string_value(value);
    if (!text || !text[0])
        return -1;
    double unit_ps = knob_time_unit_ps(k->unit);
    uint64_t ps;
    if (unit_ps > 0 && mortar_time_parse(text, &ps) == 0) {
        *out = (double)ps / unit_ps;
        return 0;
    }
    char *end;
    errno = 0;
    double x = strtod(text, &end);
    if (*end || errno || end == text || !isfinite(x))
        return -1;
    *out = x;
    return 0;
}
