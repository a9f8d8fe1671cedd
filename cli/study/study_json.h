/*
 * study_json.h - a study as the explorer reads it: its name, variants
 * (names, labels, phrases), the compared pair and the baselines, the knobs
 * with labels, phrases, titles, units and values and their roles in the
 * verdict (verdict_axes.h), the load axis and its share, the metric and its
 * parts; and a run's place in the study: its variant and knob values
 * (docs/explorer.md, "The data").
 */
#ifndef MORTAR_CLI_STUDY_JSON_H
#define MORTAR_CLI_STUDY_JSON_H

#include <jansson.h>

#include "study.h"

/* The study's description; a new object. */
json_t *study_json(const study *st);

/* Adds to `run` (db_runs_json's object, with its "vars") "variant" (the
 * variant axis' value as text, or null) and "x", "series", "load": its
 * values of the knobs in those roles, numbers in the knobs' units
 * (study_knob_number), null when it has none. */
void study_json_annotate_run(const study *st, json_t *run);

#endif
