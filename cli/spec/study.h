/*
 * study.h - a study file: what a study compares and over what, as data
 * (docs/studies.md). The variants (one axis, each value an experiment spec),
 * the ones compared and the baselines, the knobs (spec variables with
 * their grid), the load axis, the metric and the line format the measuring
 * host reports it in, each variant's alone benchmark, and the parts of the
 * study's grid that `mortar sweep STUDY` runs.
 *
 * study_load() checks every value where it enters and names the file and
 * the field of the first problem ("study.json: variants.values.a.spec:
 * design-x.json: No such file or directory"). A study is told apart from a
 * spec or a sweep file by its "variants" key (study_is_study_file).
 */
#ifndef MORTAR_CLI_STUDY_H
#define MORTAR_CLI_STUDY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "split_parts.h"

/* How a variant's alone time is measured: `command` (with $knob
 * references) prints key=value lines, `result` names the one in us. */
typedef struct study_alone {
    char *command;
    char *result;
} study_alone;

/* One value of the variant axis. */
typedef struct study_variant {
    char *name;        /* the axis' value, as runs are recorded ("i40e") */
    char *label;       /* how reports name it ("A"; default: the name) */
    char *phrase;      /* how sentences name it ("the XL710"; default: the label) */
    char *spec_path;   /* its experiment spec, relative to the cwd */
    study_alone alone; /* command NULL: the variant has no alone benchmark */
} study_variant;

/* A spec variable and the values the study gives it. */
typedef struct study_knob {
    char *name;    /* the spec variable ("pcie.latency") */
    char *label;   /* how reports name it ("L"; default: the name) */
    char *unit;    /* how reports show its values ("us"; "" when none) */
    char *phrase;  /* how sentences name it ("latency"; default: the label) */
    char *title;   /* how headings name it ("PCIe latency"; default: the phrase) */
    char **values; /* as `--set` text ("0.5us", "0.25") */
    size_t nvalues;
} study_knob;

/* A named extra figure of a request: the key of its `<key>=<ns>` field. */
typedef struct study_metric_part {
    char *name;        /* "service" */
    char *field;       /* "service_ns" */
    char *short_label; /* a table column's head ("svc"; default: the name) */
    char *label;       /* how reports name it ("Effective service time"; default:
                          the name) */
    char *description; /* what it measures, one line ("" when none) */
} study_metric_part;

/* A share the load table shows per run: the sum of the device counter
 * `of` over the sum of counter `per` (stats, of the components with `per`
 * > 0), e.g. how often a device's queue already held the next request. */
typedef struct study_load_share {
    char *label;       /* its column ("next queued"); NULL: the study has none */
    char *of, *per;    /* the counters ("queued_on_finish", "requests") */
    char *description; /* what it is, for the table's heading */
    char *phrase;      /* what it is, in a sentence ("the next request was ...") */
} study_load_share;

/* The metric and the per-request line that reports it (docs/studies.md,
 * "The per-request contract"). */
typedef struct study_metric {
    char *name; /* "latency" */
    char *unit; /* of the value field: "ns" */
    bool lower_is_better;
    char *id_field;       /* "req" */
    char *value_field;    /* "latency_ns" */
    char *start_field;    /* "start_ns" */
    char *verified_field; /* "verified" */
    study_metric_part *parts;
    size_t nparts;
    split_parts split; /* a request's time split (split_parts.h; its default
                          when the file has no "split") */
} study_metric;

/* A part of the grid: variants crossed with a grid, with fixed values.
 * `grid` and `set` are the file's objects (owned), already checked. */
typedef struct study_part {
    char **variants; /* names, nvariants of them */
    size_t nvariants;
    json_t *grid; /* {"knob": [values]} or NULL */
    json_t *set;  /* {"path": value} or NULL */
} study_part;

/* How `mortar sweep STUDY` refines the crossings along the x knob
 * (docs/studies.md, "Refining the crossing"): on when the file has
 * "refine"; the resolution is in the x knob's unit. */
typedef struct study_refine {
    bool on;
    double resolution; /* the bracket a crossing is narrowed to */
} study_refine;

typedef struct study {
    char *path; /* the study file as given */
    char *name;
    char *axis; /* the variant axis: a spec variable ("design") */
    study_variant *variants;
    size_t nvariants;
    size_t compared[2]; /* indexes into variants: the two the verdict compares */
    size_t *baselines;  /* indexes into variants */
    size_t nbaselines;
    study_knob *knobs;
    size_t nknobs;
    study_knob load; /* the load axis; name NULL when the study has none */
    study_load_share load_share; /* label NULL when the load has none */
    study_metric metric;
    study_part *parts;
    size_t nparts;
    study_refine refine; /* off when the file has no "refine" */
    struct study_wire *wire; /* its protocol (study_wire.h); NULL: no "wire" */
} study;

/* Whether `path` holds a study file (a JSON object with "variants"). */
bool study_is_study_file(const char *path);

/* Loads and checks the study file `path`. Returns 0, or -1 with the first
 * problem in `err` naming the file and the field; `st` is always owned by
 * the caller afterwards (study_free). */
int study_load(study *st, const char *path, char *err, size_t err_size);

void study_free(study *st);

/* study_load of `path`, or when it is NULL of the default study, the one
 * `verdict`, `report`, `serve`, `results`, `alone` and `dissector` read
 * without a study named, found at run time (study_default.c,
 * docs/studies.md): $MORTAR_STUDY, else the study that the file
 * STUDY_DEFAULT_FILE in mortar's data directory names (a path relative to
 * the data directory or to the source tree, paths.h). -1 with `err` saying
 * where it looked when there is none. `st` is the caller's to free
 * afterwards. */
#define STUDY_DEFAULT_FILE "default-study"
int study_load_default(study *st, const char *path, char *err, size_t err_size);

/* The variant called `name`, or NULL. */
const study_variant *study_variant_named(const study *st, const char *name);

/* The knob called `name` (the load axis too), or NULL. */
const study_knob *study_knob_named(const study *st, const char *name);

/* A value of knob `k` (a run's variable: --set text or a JSON number) as a
 * number in the knob's unit: with a time unit ("ps", "ns", "us", "ms",
 * "s") a duration ("0.5us", "500ns": mortar_time_parse) in that unit, else
 * the number itself ("9000", 0.25; true is 1). 0 with *out, -1 when the
 * value is none of these. */
int study_knob_number(const study_knob *k, json_t *value, double *out);

/*
 * What `mortar run STUDY --set AXIS=VALUE ...` runs: the spec of the
 * variant VALUE names, with the other overrides. The variant's spec sets
 * the axis variable itself, so the AXIS override is taken out: the run is
 * exactly `mortar run SPEC --set ...` with the variant's spec. Fills
 * *spec_path (owned by `st`) and kept[] (the other overrides, pointers
 * into `sets`; room for nsets) and *nkept. Returns 0, or -1 with `err`
 * naming the file: no --set AXIS=..., an unknown variant (the known ones
 * listed), the axis given twice.
 */
int study_pick_variant(const study *st, char *const sets[], size_t nsets,
                       const char **spec_path, char **kept, size_t *nkept, char *err,
                       size_t err_size);

/*
 * For `mortar run` and `mortar spec`: when `path` is a study, loads it and
 * picks the variant (study_pick_variant) into *spec_path, kept[], *nkept,
 * returning 1 (`st` then owns the strings; study_free it after use); when
 * it is not a study, *spec_path = path and kept[] = sets, returning 0; -1
 * with `err` on a problem.
 */
int study_resolve_spec(study *st, const char *path, char *const sets[], size_t nsets,
                       const char **spec_path, char **kept, size_t *nkept, char *err,
                       size_t err_size);

#endif
