/*
 * sweep_plan.c - a sweep's points: parsing the grids and the sweep file,
 * the cross product, resolving and validating every point, merging
 * duplicates, and matching points to finished runs. See sweep_plan.h.
 */
#include "errbuf.h"
#include "sweep_plan.h"

#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec.h"
#include "study.h"
#include "xalloc.h"

#define MAX_PATH_TEXT 512

/* A list of owned strings. */
typedef struct strvec {
    char **v;
    size_t n;
} strvec;

/* One knob and the values it takes. */
typedef struct axis {
    char *path;
    strvec values;
} axis;

/* Specs crossed with axes, with fixed overrides ("path=value"). */
typedef struct part {
    strvec specs;
    axis *axes;
    size_t naxes;
    strvec sets;
} part;


/* ---- small helpers ---------------------------------------------------------- */

static void strvec_push(strvec *sv, const char *s)
{
    sv->v = xrealloc(sv->v, (sv->n + 1) * sizeof *sv->v);
    sv->v[sv->n++] = xstrdup(s);
}

static void strvec_free(strvec *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    *sv = (strvec){0};
}

static void part_free(part *p)
{
    strvec_free(&p->specs);
    for (size_t i = 0; i < p->naxes; i++) {
        free(p->axes[i].path);
        strvec_free(&p->axes[i].values);
    }
    free(p->axes);
    strvec_free(&p->sets);
}

/* The path of "path=value" (or of an axis) into buf. */
static const char *path_of(const char *assignment, char *buf, size_t size)
{
    snprintf(buf, size, "%.*s", (int)strcspn(assignment, "="), assignment);
    return buf;
}

/* "dir/small.json" -> "small" */
static void spec_short_name(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    snprintf(buf, size, "%s", slash ? slash + 1 : path);
    size_t n = strlen(buf);
    if (n > 5 && !strcmp(buf + n - 5, ".json"))
        buf[n - 5] = '\0';
}

/* ---- the grids and overrides ------------------------------------------------ */

static axis *part_add_axis(part *p, const char *path)
{
    p->axes = xrealloc(p->axes, (p->naxes + 1) * sizeof *p->axes);
    axis *a = &p->axes[p->naxes++];
    *a = (axis){.path = xstrdup(path)};
    return a;
}

/* "--grid path=v1,v2,...": a path and at least one value, none empty. */
static int part_add_grid_arg(part *p, const char *arg, char *err, size_t size)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return errbuf_fail(err, size, "--grid %s: expected path=value1,value2,...", arg);
    char path[MAX_PATH_TEXT];
    snprintf(path, sizeof path, "%.*s", (int)(eq - arg), arg);
    axis *a = part_add_axis(p, path);
    for (const char *v = eq + 1;;) {
        size_t n = strcspn(v, ",");
        if (n == 0)
            return errbuf_fail(err, size, "--grid %s: an empty value", arg);
        char value[MAX_PATH_TEXT];
        snprintf(value, sizeof value, "%.*s", (int)n, v);
        strvec_push(&a->values, value);
        if (!v[n])
            return 0;
        v += n + 1;
    }
}

static int part_add_set_arg(part *p, const char *arg, char *err, size_t size)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return errbuf_fail(err, size, "--set %s: expected path=value", arg);
    strvec_push(&p->sets, arg);
    return 0;
}

static int part_add_args(part *p, char *const grids[], size_t ngrids, char *const sets[],
                         size_t nsets, char *err, size_t size)
{
    for (size_t i = 0; i < nsets; i++)
        if (part_add_set_arg(p, sets[i], err, size))
            return -1;
    for (size_t i = 0; i < ngrids; i++)
        if (part_add_grid_arg(p, grids[i], err, size))
            return -1;
    return 0;
}

/* A path given twice (two axes, or an axis and a fixed value) is a mistake:
 * only the last would count. */
static int part_check_paths_unique(const part *p, const char *where, char *err,
                                   size_t size)
{
    size_t n = p->sets.n + p->naxes;
    for (size_t i = 0; i < n; i++) {
        char a[MAX_PATH_TEXT], b[MAX_PATH_TEXT];
        const char *pa = i < p->sets.n ? path_of(p->sets.v[i], a, sizeof a)
                                       : p->axes[i - p->sets.n].path;
        for (size_t k = i + 1; k < n; k++) {
            const char *pb = k < p->sets.n ? path_of(p->sets.v[k], b, sizeof b)
                                           : p->axes[k - p->sets.n].path;
            if (!strcmp(pa, pb))
                return errbuf_fail(err, size, "%s: '%s' is given twice (grid or fixed value)",
                            where, pa);
        }
    }
    return 0;
}

/* ---- the sweep file --------------------------------------------------------- */

static bool key_allowed(const char *key, const char *const allowed[])
{
    for (size_t i = 0; allowed[i]; i++)
        if (!strcmp(key, allowed[i]))
            return true;
    return false;
}

static int check_keys(json_t *obj, const char *const allowed[], const char *where,
                      char *err, size_t size)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        if (!key_allowed(key, allowed))
            return errbuf_fail(err, size, "%s: unknown key '%s'", where, key);
    }
    return 0;
}

/* "specs": spec paths relative to the sweep file's directory. */
static int part_read_specs(part *p, json_t *specs, const char *dir, const char *where,
                           char *err, size_t size)
{
    if (!json_is_array(specs) || json_array_size(specs) == 0)
        return errbuf_fail(err, size, "%s.specs: expected a non-empty array of spec files",
                    where);
    size_t i;
    json_t *s;
    json_array_foreach(specs, i, s) {
        if (!json_is_string(s))
            return errbuf_fail(err, size, "%s.specs[%zu]: expected a file name", where, i);
        const char *name = json_string_value(s);
        char path[2 * MAX_PATH_TEXT];
        if (name[0] == '/')
            snprintf(path, sizeof path, "%s", name);
        else
            snprintf(path, sizeof path, "%s/%s", dir, name);
        strvec_push(&p->specs, path);
    }
    return 0;
}

/* "grid": {"path": [values...], ...} */
static int part_read_grid(part *p, json_t *grid, const char *where, char *err,
                          size_t size)
{
    if (!grid)
        return 0;
    if (!json_is_object(grid))
        return errbuf_fail(err, size, "%s.grid: expected an object of path: [values]", where);
    const char *path;
    json_t *values;
    json_object_foreach(grid, path, values) {
        if (!json_is_array(values) || json_array_size(values) == 0)
            return errbuf_fail(err, size, "%s.grid.%s: expected a non-empty array of values",
                        where, path);
        axis *a = part_add_axis(p, path);
        size_t i;
        json_t *v;
        json_array_foreach(values, i, v) {
            char text[MAX_PATH_TEXT];
            if (spec_value_text(v, text, sizeof text))
                return errbuf_fail(err, size,
                            "%s.grid.%s[%zu]: expected a string, number or boolean",
                            where, path, i);
            strvec_push(&a->values, text);
        }
    }
    return 0;
}

/* "set": {"path": value, ...} */
static int part_read_sets(part *p, json_t *sets, const char *where, char *err,
                          size_t size)
{
    if (!sets)
        return 0;
    if (!json_is_object(sets))
        return errbuf_fail(err, size, "%s.set: expected an object of path: value", where);
    const char *path;
    json_t *v;
    json_object_foreach(sets, path, v) {
        char text[MAX_PATH_TEXT], assignment[2 * MAX_PATH_TEXT + 2];
        if (spec_value_text(v, text, sizeof text))
            return errbuf_fail(err, size, "%s.set.%s: expected a string, number or boolean",
                        where, path);
        snprintf(assignment, sizeof assignment, "%s=%s", path, text);
        strvec_push(&p->sets, assignment);
    }
    return 0;
}

static int part_read(part *p, json_t *jp, const char *dir, const char *where, char *err,
                     size_t size)
{
    static const char *const keys[] = {"specs", "grid", "set", "description", NULL};
    if (!json_is_object(jp))
        return errbuf_fail(err, size, "%s: expected an object with \"specs\"", where);
    if (check_keys(jp, keys, where, err, size) ||
        part_read_specs(p, json_object_get(jp, "specs"), dir, where, err, size) ||
        part_read_sets(p, json_object_get(jp, "set"), where, err, size) ||
        part_read_grid(p, json_object_get(jp, "grid"), where, err, size))
        return -1;
    return 0;
}

/* Reads the parts of a sweep file; `*parts` is owned by the caller (also
 * after an error: *nparts counts what must be freed). */
static int read_sweep_file(json_t *root, const char *path, sweep_plan *plan, part **parts,
                           size_t *nparts, char *err, size_t size)
{
    static const char *const keys[] = {"name", "description", "parts", NULL};
    if (check_keys(root, keys, path, err, size))
        return -1;
    json_t *jparts = json_object_get(root, "parts");
    if (!json_is_array(jparts) || json_array_size(jparts) == 0)
        return errbuf_fail(err, size, "%s: parts: expected a non-empty array", path);
    json_t *name = json_object_get(root, "name");
    if (name && !json_is_string(name))
        return errbuf_fail(err, size, "%s: name: expected a string", path);
    if (name)
        plan->name = xstrdup(json_string_value(name));
    char dirbuf[2 * MAX_PATH_TEXT];
    snprintf(dirbuf, sizeof dirbuf, "%s", path);
    const char *dir = dirname(dirbuf);
    *parts = xcalloc(json_array_size(jparts), sizeof **parts);
    size_t i;
    json_t *jp;
    json_array_foreach(jparts, i, jp) {
        char where[2 * MAX_PATH_TEXT + 32];
        snprintf(where, sizeof where, "%s: parts[%zu]", path, i);
        (*nparts)++;
        if (part_read(&(*parts)[i], jp, dir, where, err, size))
            return -1;
    }
    return 0;
}

/* ---- checking the paths ----------------------------------------------------- */

static int check_path(json_t *spec, const char *spec_path, const char *path,
                      const char *value, char *err, size_t size)
{
    char why[1024];
    if (spec_check_set(spec, path, why, sizeof why) == 0)
        return 0;
    return errbuf_fail(err, size, "%s: %s=%s: %s", spec_path, path, value, why);
}

/* Every override of the part names something in each of its specs. */
static int part_check_paths(const part *p, char *err, size_t size)
{
    for (size_t s = 0; s < p->specs.n; s++) {
        if (access(p->specs.v[s], R_OK) != 0)
            return errbuf_fail(err, size, "%s: %s", p->specs.v[s], strerror(errno));
        char why[1024];
        json_t *spec = spec_load(p->specs.v[s], NULL, 0, why, sizeof why);
        if (!spec)
            return errbuf_fail(err, size, "%s", why);
        int rc = 0;
        for (size_t i = 0; !rc && i < p->sets.n; i++) {
            char path[MAX_PATH_TEXT];
            path_of(p->sets.v[i], path, sizeof path);
            rc = check_path(spec, p->specs.v[s], path, strchr(p->sets.v[i], '=') + 1, err,
                            size);
        }
        for (size_t i = 0; !rc && i < p->naxes; i++)
            rc = check_path(spec, p->specs.v[s], p->axes[i].path, p->axes[i].values.v[0],
                            err, size);
        json_decref(spec);
        if (rc)
            return -1;
    }
    return 0;
}

/* ---- the points ------------------------------------------------------------- */

static void point_free(sweep_point *pt)
{
    free(pt->spec_path);
    for (size_t i = 0; i < pt->nsets; i++)
        free(pt->sets[i]);
    free(pt->sets);
    free(pt->label);
    free(pt->canonical);
}

/* The point of `spec` at the odometer position `pos` (one index per axis). */
static sweep_point make_point(const part *p, const char *spec, const size_t *pos)
{
    sweep_point pt = {.spec_path = xstrdup(spec)};
    pt.sets = xcalloc(p->sets.n + p->naxes + 1, sizeof *pt.sets);
    char label[2048];
    spec_short_name(spec, label, sizeof label);
    for (size_t i = 0; i < p->sets.n; i++)
        pt.sets[pt.nsets++] = xstrdup(p->sets.v[i]);
    for (size_t i = 0; i < p->naxes; i++) {
        const char *value = p->axes[i].values.v[pos[i]];
        char assignment[2 * MAX_PATH_TEXT + 2];
        snprintf(assignment, sizeof assignment, "%s=%s", p->axes[i].path, value);
        pt.sets[pt.nsets++] = xstrdup(assignment);
        size_t len = strlen(label);
        snprintf(label + len, sizeof label - len, " %s", assignment);
    }
    pt.label = xstrdup(label);
    return pt;
}

/* Resolves and validates the point as `mortar run` will, keeping its
 * resolved spec in the form runs.spec holds. */
static int resolve_point(sweep_point *pt, char *err, size_t size)
{
    char why[1024];
    json_t *spec = spec_load(pt->spec_path, pt->sets, pt->nsets, why, sizeof why);
    if (!spec || spec_validate(spec, why, sizeof why)) {
        char sets[1024] = "";
        for (size_t i = 0, len = 0; i < pt->nsets && len < sizeof sets; i++)
            len += (size_t)snprintf(sets + len, sizeof sets - len, " %s", pt->sets[i]);
        json_decref(spec);
        if (!spec) /* its message names the file */
            return errbuf_fail(err, size, "%s (with%s)", why, sets);
        return errbuf_fail(err, size, "%s with%s: %s", pt->spec_path, sets, why);
    }
    pt->canonical = json_dumps(spec, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(spec);
    return pt->canonical ? 0
                         : errbuf_fail(err, size, "%s: cannot encode the spec", pt->spec_path);
}

/* The index of the point with this resolved spec, or plan->npoints. */
static size_t plan_index(const sweep_plan *plan, const char *canonical)
{
    for (size_t i = 0; i < plan->npoints; i++)
        if (!strcmp(plan->points[i].canonical, canonical))
            return i;
    return plan->npoints;
}

/* Resolves the point and appends it, unless an identical one is there;
 * its index in *index (NULL: not wanted). */
static int plan_add_point(sweep_plan *plan, sweep_point pt, size_t *index, char *err,
                          size_t size)
{
    if (resolve_point(&pt, err, size)) {
        point_free(&pt);
        return -1;
    }
    size_t i = plan_index(plan, pt.canonical);
    if (index)
        *index = i;
    if (i < plan->npoints) {
        plan->nduplicates++;
        point_free(&pt);
        return 0;
    }
    plan->points = xrealloc(plan->points, (plan->npoints + 1) * sizeof *plan->points);
    plan->points[plan->npoints++] = pt;
    return 0;
}

int sweep_plan_add(sweep_plan *plan, const char *spec_path, char *const sets[],
                   size_t nsets, const char *label, size_t *index, char *err,
                   size_t err_size)
{
    sweep_point pt = {.spec_path = xstrdup(spec_path), .label = xstrdup(label)};
    pt.sets = xcalloc(nsets + 1, sizeof *pt.sets);
    for (size_t i = 0; i < nsets; i++)
        pt.sets[pt.nsets++] = xstrdup(sets[i]);
    size_t before = plan->nduplicates;
    int rc = plan_add_point(plan, pt, index, err, err_size);
    plan->nduplicates = before; /* a point asked for again is no duplicate of the grid */
    return rc;
}

/* Advances the odometer (last axis fastest); false when it wrapped. */
static bool next_position(const part *p, size_t *pos)
{
    for (size_t i = p->naxes; i-- > 0;) {
        if (++pos[i] < p->axes[i].values.n)
            return true;
        pos[i] = 0;
    }
    return false;
}

static int plan_add_part(sweep_plan *plan, const part *p, char *err, size_t size)
{
    size_t *pos = xcalloc(p->naxes + 1, sizeof *pos);
    int rc = 0;
    for (size_t s = 0; !rc && s < p->specs.n; s++) {
        memset(pos, 0, (p->naxes + 1) * sizeof *pos);
        do
            rc = plan_add_point(plan, make_point(p, p->specs.v[s], pos), NULL, err, size);
        while (!rc && next_position(p, pos));
    }
    free(pos);
    return rc;
}

/* ---- loading ---------------------------------------------------------------- */

/* A sweep file is a JSON object with "parts"; anything else is a spec.
 * Returns the sweep file's JSON (owned by the caller) or NULL. */
static json_t *load_if_sweep_file(const char *path)
{
    json_t *root = json_load_file(path, 0, NULL);
    if (json_is_object(root) && json_object_get(root, "parts"))
        return root;
    json_decref(root);
    return NULL;
}

/* A study's parts: each variant's spec crossed with the part's grid. */
static int read_study_parts(const study *st, sweep_plan *plan, part **parts,
                            size_t *nparts, char *err, size_t size)
{
    plan->name = xstrdup(st->name);
    *parts = xcalloc(st->nparts, sizeof **parts);
    for (size_t i = 0; i < st->nparts; i++) {
        const study_part *sp = &st->parts[i];
        part *p = &(*parts)[i];
        char where[2 * MAX_PATH_TEXT + 32];
        snprintf(where, sizeof where, "%s: parts[%zu]", st->path, i);
        (*nparts)++;
        for (size_t v = 0; v < sp->nvariants; v++)
            strvec_push(&p->specs, study_variant_named(st, sp->variants[v])->spec_path);
        if (part_read_sets(p, sp->set, where, err, size) ||
            part_read_grid(p, sp->grid, where, err, size))
            return -1;
    }
    return 0;
}

/* The variant axis is the study's parts' business: `--set AXIS=V` on a
 * study's sweep would run variant V's variable on every variant's spec. */
static int check_args_leave_axis(const study *st, char *const grids[], size_t ngrids,
                                 char *const sets[], size_t nsets, char *err, size_t size)
{
    char path[MAX_PATH_TEXT];
    for (size_t i = 0; i < ngrids + nsets; i++) {
        const char *arg = i < ngrids ? grids[i] : sets[i - ngrids];
        if (!strcmp(path_of(arg, path, sizeof path), st->axis))
            return errbuf_fail(err, size,
                               "%s: %s %s: the study's parts choose its variants "
                               "(%s); run one with mortar run %s --set %s=VARIANT",
                               st->path, i < ngrids ? "--grid" : "--set", arg, st->axis,
                               st->path, st->axis);
    }
    return 0;
}

static int build_study_parts(sweep_plan *plan, const char *path, char *const grids[],
                             size_t ngrids, char *const sets[], size_t nsets,
                             part **parts, size_t *nparts, char *err, size_t size)
{
    study st;
    int rc = study_load(&st, path, err, size);
    if (!rc)
        rc = check_args_leave_axis(&st, grids, ngrids, sets, nsets, err, size);
    if (!rc)
        rc = read_study_parts(&st, plan, parts, nparts, err, size);
    study_free(&st);
    return rc;
}

static int build_parts(sweep_plan *plan, const char *path, char *const grids[],
                       size_t ngrids, char *const sets[], size_t nsets, part **parts,
                       size_t *nparts, char *err, size_t size)
{
    if (access(path, R_OK) != 0)
        return errbuf_fail(err, size, "%s: %s", path, strerror(errno));
    if (study_is_study_file(path))
        return build_study_parts(plan, path, grids, ngrids, sets, nsets, parts, nparts,
                                 err, size);
    json_t *root = load_if_sweep_file(path);
    if (root) {
        int rc = read_sweep_file(root, path, plan, parts, nparts, err, size);
        json_decref(root);
        return rc;
    }
    *parts = xcalloc(1, sizeof **parts);
    *nparts = 1;
    strvec_push(&(*parts)[0].specs, path);
    return 0;
}

bool sweep_plan_is_sweep_file(const char *path)
{
    json_t *root = load_if_sweep_file(path);
    json_decref(root);
    return root != NULL;
}

static void set_default_name(sweep_plan *plan, const char *path)
{
    if (plan->name)
        return;
    char name[256];
    spec_short_name(path, name, sizeof name);
    plan->name = xstrdup(name);
}

int sweep_plan_load(sweep_plan *plan, const char *path, char *const grids[],
                    size_t ngrids, char *const sets[], size_t nsets, char *err,
                    size_t err_size)
{
    *plan = (sweep_plan){0};
    part *parts = NULL;
    size_t nparts = 0;
    int rc = build_parts(plan, path, grids, ngrids, sets, nsets, &parts, &nparts, err,
                         err_size);
    set_default_name(plan, path);
    for (size_t i = 0; !rc && i < nparts; i++) {
        char where[2 * MAX_PATH_TEXT];
        if (nparts > 1)
            snprintf(where, sizeof where, "%s: parts[%zu]", path, i);
        else
            snprintf(where, sizeof where, "%s", path);
        rc = part_add_args(&parts[i], grids, ngrids, sets, nsets, err, err_size);
        if (!rc)
            rc = part_check_paths_unique(&parts[i], where, err, err_size);
        if (!rc)
            rc = part_check_paths(&parts[i], err, err_size);
    }
    for (size_t i = 0; !rc && i < nparts; i++)
        rc = plan_add_part(plan, &parts[i], err, err_size);
    for (size_t i = 0; i < nparts; i++)
        part_free(&parts[i]);
    free(parts);
    return rc;
}

void sweep_plan_free(sweep_plan *plan)
{
    for (size_t i = 0; i < plan->npoints; i++)
        point_free(&plan->points[i]);
    free(plan->points);
    free(plan->name);
    *plan = (sweep_plan){0};
}

/* ---- the database ----------------------------------------------------------- */

int sweep_plan_match_done(sweep_plan *plan, db_conn *db, char *err, size_t err_size)
{
    int done = 0;
    for (size_t i = 0; i < plan->npoints; i++) {
        sweep_point *pt = &plan->points[i];
        if (db_first_ok_run_of_spec(db, pt->canonical, &pt->done_run_id, err, err_size))
            return -1;
        done += pt->done_run_id > 0;
    }
    return done;
}

int64_t sweep_max_run_id(db_conn *db)
{
    return db_max_run_id(db);
}

int sweep_find_run(db_conn *db, const char *canonical, int64_t after_id,
                   sweep_run_result *out)
{
    return db_newest_run_of_spec(db, canonical, after_id, out);
}

/* The resolved spec's name ("name"); NULL when its text cannot be read. */
static char *canonical_name(const char *canonical)
{
    json_t *spec = json_loads(canonical, 0, NULL);
    const char *name = json_string_value(json_object_get(spec, "name"));
    char *out = name ? strdup(name) : NULL;
    json_decref(spec);
    return out;
}

double sweep_plan_expected_wall_s(const sweep_plan *plan, db_conn *db)
{
    double sum = 0;
    size_t known = 0;
    for (size_t i = 0; i < plan->npoints; i++) {
        if (plan->points[i].done_run_id > 0 || !plan->points[i].canonical)
            continue;
        char *name = canonical_name(plan->points[i].canonical);
        double mean;
        if (name && db_mean_wall_s(db, name, &mean) > 0) {
            sum += mean;
            known++;
        }
        free(name);
    }
    return known ? sum / (double)known : 0;
}
