/*
 * walkthrough_script.c - the walkthrough's narration from the verdict (see
 * walkthrough_script.h).
 */
#include "walkthrough_script.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "json_field.h"
#include "verdict_answer.h"
#include "verdict_axes.h"

static const char *label(const study *st, size_t compared)
{
    return st->variants[st->compared[compared]].label;
}

static const char *phrase(const study *st, const char *variant)
{
    const study_variant *v = study_variant_named(st, variant);
    return v ? v->phrase : variant;
}

/* A knob's value as the verdict's sentences write it ("2.50 µs", "1×"). */
static void knob_value(const study_knob *k, double v, char *buf, size_t size)
{
    char unit[32];
    verdict_unit_words(k, unit, sizeof unit);
    snprintf(buf, size, "%g%s", v, unit);
}

static walkthrough_scene *scene(walkthrough_script *s, const char *id, const char *selector,
                                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static walkthrough_scene *scene(walkthrough_script *s, const char *id, const char *selector,
                                const char *fmt, ...)
{
    if (s->n == WALKTHROUGH_MAX_SCENES)
        return NULL;
    walkthrough_scene *sc = &s->scenes[s->n++];
    snprintf(sc->id, sizeof sc->id, "%s", id);
    snprintf(sc->selector, sizeof sc->selector, "%s", selector);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sc->text, sizeof sc->text, fmt, ap);
    va_end(ap);
    return sc;
}

/* The entry of `list` whose "series" is `series`, or NULL. */
static json_t *at_series(const json_t *list, double series)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e) {
        if (jnum(e, "series") == series || (isnan(series) && isnan(jnum(e, "series"))))
            return e;
    }
    return NULL;
}

/* The alone figure as the page's answer words it (verdict_answer.h), at
 * the series knob's reference value (`where`: "At a clock of 1×, "). */
static void alone_scene(walkthrough_script *s, const study *st, const json_t *v,
                        const char *where)
{
    json_t *answer = verdict_answer_of_study(v, st);
    char words[WALKTHROUGH_TEXT_MAX];
    verdict_answer_alone_words(st, answer, words, sizeof words);
    json_decref(answer);
    if (words[0])
        scene(s, "alone", "#answer", "%s%s.", where, words);
}

static void movement_scene(walkthrough_script *s, const study *st, const json_t *v)
{
    double series = verdict_axes_of(st).series_at;
    const json_t *moves[2] = {NULL, NULL};
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(v, "movement"), i, m) {
        const char *variant = jstr(m, "variant");
        for (int d = 0; d < 2; d++)
            if (variant && !strcmp(variant, st->variants[st->compared[d]].name) &&
                (jnum(m, "series") == series || isnan(series)))
                moves[d] = m;
    }
    if (!moves[0] || !moves[1] || !st->nknobs)
        return;
    char from[48], to[48];
    knob_value(&st->knobs[0], jnum(moves[0], "from_x"), from, sizeof from);
    knob_value(&st->knobs[0], jnum(moves[0], "to_x"), to, sizeof to);
    scene(s, "system", "#latency-panel",
          "In the system, as the %s goes from %s to %s, %s goes from %.0f to %.0f " VERDICT_US
          ", %s from %.0f to %.0f " VERDICT_US ".",
          st->knobs[0].phrase, from, to, label(st, 0), jnum(moves[0], "from_median_us"),
          jnum(moves[0], "to_median_us"), label(st, 1), jnum(moves[1], "from_median_us"),
          jnum(moves[1], "to_median_us"));
}

/* The verdict's own sentence of the crossing at the series' value (or of
 * none: that it does not flip there), without its note in parentheses. */
static void flip_scene(walkthrough_script *s, const study *st, const json_t *v)
{
    json_t *c = at_series(json_object_get(v, "crossovers"), verdict_axes_of(st).series_at);
    const char *text = jstr(c, "text");
    if (!text)
        return;
    const char *note = strstr(text, " (");
    int len = note ? (int)(note - text) : (int)strlen(text);
    scene(s, "flip", "#crossover-text", "%.*s%s", len, text, note ? "." : "");
}

/* How many of the grid's cells each compared variant wins. */
static void map_scene(walkthrough_script *s, const study *st, const json_t *v)
{
    size_t wins[2] = {0, 0}, cells = json_array_size(json_object_get(v, "cells")), i;
    json_t *cell;
    json_array_foreach(json_object_get(v, "cells"), i, cell) {
        const char *w = jstr(cell, "winner");
        for (int d = 0; d < 2 && w; d++)
            wins[d] += !strcmp(w, st->variants[st->compared[d]].name);
    }
    scene(s, "map", "#map", "Over the whole grid, %s wins %zu and %s %zu of %zu settings.",
          label(st, 0), wins[0], label(st, 1), wins[1], cells);
}

/* The largest part of a traced request's split. */
static const json_t *largest_part(const json_t *split)
{
    const json_t *best = NULL;
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(split, "parts"), i, p) {
        if (!best || jnum(p, "ps") > jnum(best, "ps"))
            best = p;
    }
    return best;
}

/* Where a traced request's time goes, for each compared variant at the
 * far end of the first knob. */
static void split_scenes(walkthrough_script *s, const study *st, const json_t *v)
{
    double series = verdict_axes_of(st).series_at, far = -INFINITY;
    size_t i;
    json_t *sp;
    json_array_foreach(json_object_get(v, "splits"), i, sp) {
        if (jnum(sp, "series") == series || isnan(series))
            far = fmax(far, jnum(sp, "x"));
    }
    for (int d = 0; d < 2; d++)
        json_array_foreach(json_object_get(v, "splits"), i, sp) {
            const char *variant = jstr(sp, "variant");
            const json_t *part = largest_part(sp);
            if (!variant || strcmp(variant, st->variants[st->compared[d]].name) ||
                jnum(sp, "x") != far || !part || !st->nknobs)
                continue;
            char x[48];
            knob_value(&st->knobs[0], far, x, sizeof x);
            scene(s, d ? "trace-second" : "trace-first", "#timeline-panel",
                  "In a traced request of %s at %s, %s takes %.0f of %.0f " VERDICT_US ".",
                  phrase(st, variant), x, jstr(part, "label"),
                  jnum(part, "us"), jnum(sp, "latency_us"));
            break;
        }
}

int walkthrough_script_build(const study *st, const json_t *verdict, walkthrough_script *out,
                             char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    if (!json_array_size(json_object_get(verdict, "cells"))) {
        snprintf(err, err_size, "the verdict has no cell where both %s and %s ran",
                 label(st, 0), label(st, 1));
        return -1;
    }
    const verdict_axes ax = verdict_axes_of(st);
    char where[96] = "";
    if (ax.series) {
        char v[48];
        knob_value(ax.series, ax.series_at, v, sizeof v);
        snprintf(where, sizeof where, "At a %s of %s, ", ax.series->phrase, v);
    }
    scene(out, "question", "#verdict",
          "Which wins, %s or %s, once every request crosses the whole system?",
          phrase(st, st->variants[st->compared[0]].name),
          phrase(st, st->variants[st->compared[1]].name));
    alone_scene(out, st, verdict, where);
    movement_scene(out, st, verdict);
    flip_scene(out, st, verdict);
    map_scene(out, st, verdict);
    split_scenes(out, st, verdict);
    return 0;
}

void walkthrough_speech(const char *text, char *out, size_t size)
{
    static const struct {
        const char *from, *to;
    } words[] = {{" " VERDICT_US, " microseconds"}, {VERDICT_US, " microseconds"},
                 {"\u00d7", " times"},               {"%", " percent"}};
    size_t n = 0;
    while (*text && n + 1 < size) {
        size_t k = 0;
        while (k < sizeof words / sizeof words[0] &&
               strncmp(text, words[k].from, strlen(words[k].from)))
            k++;
        if (k < sizeof words / sizeof words[0]) {
            n += (size_t)snprintf(out + n, size - n, "%s", words[k].to);
            text += strlen(words[k].from);
        } else {
            out[n++] = *text++;
        }
        if (n >= size)
            n = size - 1;
    }
    out[n] = '\0';
}

json_t *walkthrough_script_json(const walkthrough_script *s)
{
    json_t *list = json_array();
    for (size_t i = 0; i < s->n; i++) {
        char speech[2 * WALKTHROUGH_TEXT_MAX];
        walkthrough_speech(s->scenes[i].text, speech, sizeof speech);
        json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s}", "id", s->scenes[i].id,
                                              "selector", s->scenes[i].selector, "text",
                                              s->scenes[i].text, "speech", speech));
    }
    return list;
}
