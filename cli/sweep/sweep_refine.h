/*
 * sweep_refine.h - the refinement of a sweep (`mortar sweep ... --refine`,
 * or a study with "refine"; docs/studies.md, "Refining the crossing"):
 * more runs of the two compared variants between the points where their
 * ranking changes, by bisection, until each crossing is bracketed within
 * the resolution, for every series of the sweep. A series is bisected once
 * its own grid points have run, while the rest of the grid may still run:
 * it starts from the same runs as after the whole grid.
 *
 * A refinement run is a grid point of the same variant and series (the
 * first in the sweep's order, unloaded: its template) with the x knob set
 * to the midpoint, so it keeps the point's other values; its label is the
 * template's with the new x, after "refine ". Which runs come next is
 * refine_plan.h's, read afresh from the database each time.
 */
#ifndef MORTAR_CLI_SWEEP_REFINE_H
#define MORTAR_CLI_SWEEP_REFINE_H

#include <stddef.h>

#include "db.h"
#include "knob_scale.h"
#include "refine_plan.h"
#include "study.h"
#include "sweep_plan.h"

/* The grid point a refinement run of a variant and series is made from. */
typedef struct refine_template {
    int variant;   /* 0 or 1: the compared variant */
    double series; /* NAN without a series knob */
    size_t point;  /* its index in the sweep's plan */
} refine_template;

typedef struct sweep_refine {
    study st; /* the study refined for: the compared variants, the knobs */
    knob_scale scale;
    double resolution; /* in the x knob's unit */
    refine_template *templates;
    size_t ntemplates;
    double *series; /* the series with a template of both variants */
    size_t nseries;
    refine_status *status; /* per series, as of the last sweep_refine_next */
    bool *ready;           /* per series: its grid points have all run */
    /* per grid point: the compared variant it runs (0, 1; -1 neither, or
     * loaded) and its series, for the readiness of a series */
    int *roles;
    double *point_series;
    size_t ngrid;
} sweep_refine;

/*
 * Prepares the refinement of `plan` for study `study_path` (NULL: the
 * default study, study_load_default) at `resolution` (--resolution text;
 * NULL: the study's, else the x knob's default). Returns 0, or -1 with why
 * in `err` naming the file or the option: the study cannot be read, it has
 * no knob, the resolution is not one of the x knob's kind (a duration for
 * a time knob) or there is none. `r` is the caller's to free
 * (sweep_refine_free), also after an error.
 */
int sweep_refine_init(sweep_refine *r, const sweep_plan *plan, const char *study_path,
                      const char *resolution, char *err, size_t size);

void sweep_refine_free(sweep_refine *r);

/*
 * The runs the refinement needs next, read from `db` (NULL: no runs yet):
 * each a point of `plan` (appended, resolved and validated, unless it is
 * there), their indexes into *points (allocated, the caller's to free),
 * *npoints of them; *runs_left the runs still to come, those included, at
 * most. With `ready_only`, only the series whose grid points are all done
 * (an ok run before this sweep) or ended in it are planned (a sweep);
 * without, all (a dry run: from the runs in the database now). Updates
 * each series' status. Returns 0, or -1 with why in `err`.
 */
int sweep_refine_next(sweep_refine *r, sweep_plan *plan, db_conn *db, bool ready_only,
                      size_t **points, size_t *npoints, size_t *runs_left, char *err,
                      size_t size);

/* Where series `i` stands, one line ("<series knob>=1: 1 crossing(s), bracketed within
 * 0.03125 µs (resolution 0.05 µs)", the unit as the verdict writes it:
 * verdict_unit_words; "...: its grid points have not all run" before it is
 * ready), as of the last sweep_refine_next. */
void sweep_refine_status_line(const sweep_refine *r, size_t i, char *buf, size_t size);

#endif
