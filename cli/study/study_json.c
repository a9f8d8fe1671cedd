/*
 * study_json.c - the study and a run's place in it as JSON, for the
 * explorer (study_json.h).
 */
#include "study_json.h"

#include <math.h>

#include "spec.h"
#include "verdict_axes.h"

static json_t *text_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *variants_json(const study *st)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < st->nvariants; i++) {
        const study_variant *v = &st->variants[i];
        json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:b}", "name", v->name,
                                             "label", v->label, "phrase", v->phrase,
                                             "alone", v->alone.command != NULL));
    }
    return arr;
}

static json_t *names_json(const study *st, const size_t *idx, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, json_string(st->variants[idx[i]].name));
    return arr;
}

static json_t *knob_json(const study_knob *k)
{
    json_t *values = json_array();
    for (size_t i = 0; i < k->nvalues; i++) {
        json_t *text = json_string(k->values[i]);
        double x;
        json_array_append_new(values, study_knob_number(k, text, &x) ? json_null()
                                                                     : json_real(x));
        json_decref(text);
    }
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "name", k->name, "label", k->label,
                     "unit", k->unit ? k->unit : "", "phrase", k->phrase, "title",
                     k->title, "values", values);
}

static json_t *load_json(const study *st)
{
    if (!st->load.name)
        return json_null();
    json_t *load = knob_json(&st->load);
    const study_load_share *s = &st->load_share;
    json_object_set_new(load, "share",
                        s->label ? json_pack("{s:s, s:s, s:s}", "label", s->label,
                                             "description", s->description, "phrase",
                                             s->phrase)
                                 : json_null());
    return load;
}

static json_t *metric_json(const study_metric *m)
{
    json_t *parts = json_array();
    for (size_t i = 0; i < m->nparts; i++) {
        const study_metric_part *p = &m->parts[i];
        json_array_append_new(parts, json_pack("{s:s, s:s, s:s, s:s, s:s}", "name",
                                               p->name, "field", p->field, "short",
                                               p->short_label, "label", p->label,
                                               "description", p->description));
    }
    return json_pack("{s:s, s:s, s:s, s:o}", "name", m->name, "unit", m->unit, "better",
                     m->lower_is_better ? "lower" : "higher", "parts", parts);
}

json_t *study_json(const study *st)
{
    verdict_axes ax = verdict_axes_of(st);
    json_t *knobs = json_array();
    for (size_t i = 0; i < st->nknobs; i++)
        json_array_append_new(knobs, knob_json(&st->knobs[i]));
    return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                     "name", st->name, "axis", st->axis, "variants", variants_json(st),
                     "compare", names_json(st, st->compared, 2), "baselines",
                     names_json(st, st->baselines, st->nbaselines), "knobs", knobs, "x",
                     text_or_null(ax.x ? ax.x->name : NULL), "series",
                     text_or_null(ax.series ? ax.series->name : NULL), "series_at",
                     isnan(ax.series_at) ? json_null() : json_real(ax.series_at),
                     "load_at", isnan(ax.load_at) ? json_null() : json_real(ax.load_at),
                     "load", load_json(st), "metric", metric_json(&st->metric));
}

static json_t *knob_value_json(const study_knob *k, json_t *vars)
{
    double x;
    return k && !study_knob_number(k, json_object_get(vars, k->name), &x) ? json_real(x)
                                                                          : json_null();
}

void study_json_annotate_run(const study *st, json_t *run)
{
    json_t *vars = json_object_get(run, "vars");
    verdict_axes ax = verdict_axes_of(st);
    char variant[256];
    json_object_set_new(
        run, "variant",
        spec_value_text(json_object_get(vars, st->axis), variant, sizeof variant)
            ? json_null()
            : json_string(variant));
    json_object_set_new(run, "x", knob_value_json(ax.x, vars));
    json_object_set_new(run, "series", knob_value_json(ax.series, vars));
    json_object_set_new(run, "load", knob_value_json(ax.load, vars));
}
