/*
 * sweep_refine.c - a sweep's refinement runs: templates from the grid,
 * the next midpoints from refine_plan, each turned into a point of the
 * sweep (sweep_refine.h).
 */
#include "sweep_refine.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "spec.h"
#include "study_runs.h"
#include "verdict_axes.h"

/* ---- the templates: the sweep's unloaded grid points of the compared
 * variants, the first of each variant and series ---- */

static double var_number(const study_knob *k, json_t *vars)
{
    double x;
    return k && !study_knob_number(k, json_object_get(vars, k->name), &x) ? x : NAN;
}

/* Which compared variant the point runs (-1: neither), and its series,
 * when it is an unloaded point with an x value. */
static int point_role(const sweep_refine *r, const sweep_point *pt, double *series)
{
    const verdict_axes ax = verdict_axes_of(&r->st);
    json_t *spec = json_loads(pt->canonical, 0, NULL);
    json_t *vars = json_object_get(spec, "vars");
    char variant[256];
    int d = -1;
    double load = var_number(ax.load, vars);
    if (!spec_value_text(json_object_get(vars, r->st.axis), variant, sizeof variant) &&
        !isnan(var_number(ax.x, vars)) &&
        (isnan(load) || study_same_value(load, ax.load_at))) {
        for (int k = 0; k < 2 && d < 0; k++)
            if (!strcmp(variant, r->st.variants[r->st.compared[k]].name))
                d = k;
    }
    *series = var_number(ax.series, vars);
    json_decref(spec);
    return d;
}

static const refine_template *template_of(const sweep_refine *r, int d, double series)
{
    for (size_t i = 0; i < r->ntemplates; i++)
        if (r->templates[i].variant == d && study_same_value(r->templates[i].series, series))
            return &r->templates[i];
    return NULL;
}

static int find_templates(sweep_refine *r, const sweep_plan *plan)
{
    size_t room = plan->npoints + 1;
    r->templates = calloc(room, sizeof *r->templates);
    r->series = calloc(room, sizeof *r->series);
    r->status = calloc(room, sizeof *r->status);
    r->ready = calloc(room, sizeof *r->ready);
    r->roles = calloc(room, sizeof *r->roles);
    r->point_series = calloc(room, sizeof *r->point_series);
    if (!r->templates || !r->series || !r->status || !r->ready || !r->roles ||
        !r->point_series)
        return -1;
    r->ngrid = plan->npoints;
    for (size_t i = 0; i < plan->npoints; i++) {
        double series;
        int d = point_role(r, &plan->points[i], &series);
        r->roles[i] = d;
        r->point_series[i] = series;
        if (d >= 0 && !template_of(r, d, series))
            r->templates[r->ntemplates++] =
                (refine_template){.variant = d, .series = series, .point = i};
    }
    for (size_t i = 0; i < r->ntemplates; i++) {
        double s = r->templates[i].series;
        if (r->templates[i].variant == 0 && template_of(r, 1, s))
            r->series[r->nseries++] = s;
    }
    return 0;
}

/* ---- setting up ---- */

static int read_resolution(sweep_refine *r, const char *text, char *err, size_t size)
{
    const study_knob *x = &r->st.knobs[0];
    r->scale = knob_scale_of(x);
    if (!text) {
        r->resolution = r->st.refine.on ? r->st.refine.resolution
                                        : knob_scale_default_resolution(&r->scale);
        if (isnan(r->resolution))
            return errbuf_fail(err, size,
                               "%s: knob %s is not a time, so a refinement needs a "
                               "resolution (--resolution or refine.resolution)",
                               r->st.path, x->name);
        return 0;
    }
    char why[256];
    json_t *v = json_string(text);
    int rc = knob_scale_resolution(&r->scale, v, &r->resolution, why, sizeof why);
    json_decref(v);
    return rc ? errbuf_fail(err, size, "--resolution %s: %s (knob %s of %s)", text, why,
                            x->name, r->st.path)
              : 0;
}

int sweep_refine_init(sweep_refine *r, const sweep_plan *plan, const char *study_path,
                      const char *resolution, char *err, size_t size)
{
    *r = (sweep_refine){0};
    if (study_load_default(&r->st, study_path, err, size))
        return -1;
    if (r->st.nknobs == 0)
        return errbuf_fail(err, size, "%s: the study has no knob to refine along",
                           r->st.path);
    if (read_resolution(r, resolution, err, size))
        return -1;
    return find_templates(r, plan) ? errbuf_fail(err, size, "out of memory") : 0;
}

void sweep_refine_free(sweep_refine *r)
{
    study_free(&r->st);
    free(r->templates);
    free(r->series);
    free(r->status);
    free(r->ready);
    free(r->roles);
    free(r->point_series);
    *r = (sweep_refine){0};
}

/* ---- the next runs ---- */

/* The template's sets with the x knob's set to `x_text` (added when the
 * template has none), into sets (room for its nsets + 1; the strings are
 * the template's but the new one, *owned). */
static size_t midpoint_sets(const sweep_point *t, const char *xname, const char *x_text,
                            char **sets, char **owned)
{
    size_t n = 0, len = strlen(xname);
    bool replaced = false;
    if (asprintf(owned, "%s=%s", xname, x_text) < 0)
        *owned = NULL;
    for (size_t i = 0; i < t->nsets; i++) {
        bool is_x = !strncmp(t->sets[i], xname, len) && t->sets[i][len] == '=';
        sets[n++] = is_x ? *owned : t->sets[i];
        replaced |= is_x;
    }
    if (!replaced)
        sets[n++] = *owned;
    return n;
}

/* "refine <template label with x=<x_text>>". */
static void midpoint_label(const sweep_point *t, const char *xname, const char *x_text,
                           char *buf, size_t size)
{
    char token[256];
    snprintf(token, sizeof token, " %s=", xname);
    const char *at = strstr(t->label, token);
    if (!at) {
        snprintf(buf, size, "refine %s%s%s", t->label, token, x_text);
        return;
    }
    const char *rest = strchr(at + 1, ' ');
    snprintf(buf, size, "refine %.*s%s%s%s", (int)(at - t->label), t->label, token, x_text,
             rest ? rest : "");
}

static int add_need(const sweep_refine *r, sweep_plan *plan, const refine_need *n,
                    size_t *index, char *err, size_t size)
{
    const refine_template *t = template_of(r, n->variant, n->series);
    const sweep_point tp = plan->points[t->point];
    const char *xname = r->st.knobs[0].name;
    char **sets = calloc(tp.nsets + 1, sizeof *sets), *owned = NULL, label[2048];
    if (!sets)
        return errbuf_fail(err, size, "out of memory");
    size_t nsets = midpoint_sets(&tp, xname, n->x_text, sets, &owned);
    midpoint_label(&tp, xname, n->x_text, label, sizeof label);
    int rc = owned ? sweep_plan_add(plan, tp.spec_path, sets, nsets, label, index, err, size)
                   : errbuf_fail(err, size, "out of memory");
    free(owned);
    free(sets);
    return rc;
}

static int plan_series(sweep_refine *r, sweep_plan *plan, const study_runs *rs, size_t si,
                       size_t *points, size_t *npoints, char *err, size_t size)
{
    refine_need *needs = calloc(2 * rs->n + 2, sizeof *needs);
    if (!needs)
        return errbuf_fail(err, size, "out of memory");
    size_t n = refine_plan_series(rs, &r->scale, r->resolution, r->series[si], needs,
                                  &r->status[si]);
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++)
        rc = add_need(r, plan, &needs[i], &points[(*npoints)++], err, size);
    free(needs);
    return rc;
}

/* Whether every grid point of series `si`'s compared variants (unloaded)
 * has a result: done before this sweep, or its run ended. Until then the
 * series is not bisected, so that it starts from the runs it would after
 * the whole grid. */
static bool series_ready(const sweep_refine *r, const sweep_plan *plan, size_t si)
{
    for (size_t i = 0; i < r->ngrid; i++) {
        const sweep_point *pt = &plan->points[i];
        if (r->roles[i] >= 0 && study_same_value(r->point_series[i], r->series[si]) &&
            pt->done_run_id <= 0 && !pt->ended)
            return false;
    }
    return true;
}

int sweep_refine_next(sweep_refine *r, sweep_plan *plan, db_conn *db, bool ready_only,
                      size_t **points, size_t *npoints, size_t *runs_left, char *err,
                      size_t size)
{
    *points = NULL;
    *npoints = *runs_left = 0;
    for (size_t si = 0; si < r->nseries; si++) {
        r->status[si] = (refine_status){.widest = NAN};
        r->ready[si] = !ready_only || series_ready(r, plan, si);
    }
    if (!db)
        return 0;
    study_runs rs;
    int rc = study_runs_load(&rs, db, &r->st, err, size);
    if (!rc && !(*points = calloc(2 * rs.n * (r->nseries + 1) + 1, sizeof **points)))
        rc = errbuf_fail(err, size, "out of memory");
    for (size_t si = 0; !rc && si < r->nseries; si++) {
        if (!r->ready[si])
            continue;
        rc = plan_series(r, plan, &rs, si, *points, npoints, err, size);
        *runs_left += r->status[si].runs_left;
    }
    study_runs_free(&rs);
    return rc;
}

/* ---- where it stands ---- */

void sweep_refine_status_line(const sweep_refine *r, size_t i, char *buf, size_t size)
{
    const refine_status *s = &r->status[i];
    const study_knob *x = &r->st.knobs[0], *sk = r->st.nknobs > 1 ? &r->st.knobs[1] : NULL;
    char where[160] = "", unit[16];
    verdict_unit_words(x, unit, sizeof unit);
    if (sk)
        snprintf(where, sizeof where, "%s=%g: ", sk->name, r->series[i]);
    if (!r->ready[i])
        snprintf(buf, size, "%sits grid points have not all run", where);
    else if (s->points < 2)
        snprintf(buf, size, "%s%zu %s value(s) with runs of both variants: nothing to bisect",
                 where, s->points, x->name);
    else if (s->crossings == 0)
        snprintf(buf, size, "%sno change of the winner along %s", where, x->name);
    else if (s->open == 0)
        snprintf(buf, size, "%s%zu crossing(s), bracketed within %.10g%s (resolution %.10g%s)",
                 where, s->crossings, s->widest, unit, r->resolution, unit);
    else
        snprintf(buf, size, "%s%zu crossing(s), the widest bracket %.10g%s, at most %zu runs left",
                 where, s->crossings, s->widest, unit, s->runs_left);
}
