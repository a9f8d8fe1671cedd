/*
 * crossing_text.c - sentences about a series' crossings (crossing_text.h):
 *
 *   At 1x, A wins below 1.24 us and B above (measured between runs at
 *   1.21875 and 1.25 us).
 *   At 2x, A wins below 0.83 us and B above (estimated on a straight line
 *   between the runs at 0.5 and 1 us).
 *   At 1x, A wins below 1.24 us, B up to 1.37 us and A above (...; ...).
 *   At 1x, the ranking flips 3 times between 1 and 1.5 us: the curves are
 *   not monotonic there.
 *   At 1x, A is not monotonic between 1 and 1.5 us: its median is 2696.9
 *   us at 1, 2857.9 at 1.125, 2825.7 at 1.25 and 2956.7 at 1.5 us.
 *
 * Bracket ends are written exactly ("%.10g": 1.015625), estimates with
 * two decimals as before.
 */
#include "crossing_text.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "json_field.h"
#include "sentence.h"

typedef struct words {
    const study *st;
    const verdict_axes *ax;
    char xu[16], su[16]; /* what follows an x or series value */
    char pre[64];        /* "At 1x, " or "" */
} words;

static const char *label(const words *w, json_t *obj, const char *key)
{
    const char *name = json_string_value(json_object_get(obj, key));
    const study_variant *v = name ? study_variant_named(w->st, name) : NULL;
    return v ? v->label : name ? name : "-";
}

static const char *compared_label(const words *w, int d)
{
    return w->st->variants[w->st->compared[d]].label;
}

static const char *x_phrase(const words *w)
{
    return w->ax->x ? w->ax->x->phrase : "value";
}

/* How the crossing's place was found, in parentheses' words. */
static void add_how(sentence *b, const json_t *k, const char *x_unit)
{
    double lo = jnum(k, "from_x"), hi = jnum(k, "to_x");
    if (json_is_true(json_object_get(k, "tied")))
        sentence_add(b, "the runs tie at %.10g%s", jnum(k, "x"), x_unit);
    else if (json_is_true(json_object_get(k, "measured")))
        sentence_add(b, "measured between runs at %.10g and %.10g%s", lo, hi, x_unit);
    else
        sentence_add(b, "estimated on a straight line between the runs at %.10g and %.10g%s",
                     lo, hi, x_unit);
}

/* "A wins below 1.24 us, B up to 1.37 us and A above (how; how)." */
static void crossings_sentence(const words *w, sentence *b, json_t *list)
{
    size_t n = json_array_size(list), i;
    json_t *k;
    sentence_add(b, "%s%s wins below %.2f%s", w->pre, label(w, json_array_get(list, 0), "below"),
                 jnum(json_array_get(list, 0), "x"), w->xu);
    for (i = 1; i < n; i++)
        sentence_add(b, ", %s up to %.2f%s", label(w, json_array_get(list, i), "below"),
                     jnum(json_array_get(list, i), "x"), w->xu);
    sentence_add(b, " and %s above (", label(w, json_array_get(list, n - 1), "above"));
    json_array_foreach(list, i, k) {
        if (i)
            sentence_add(b, "; ");
        add_how(b, k, w->xu);
    }
    sentence_add(b, ").");
}

/* No change of the winner: one wins (or ties) everywhere, or nothing to
 * compare. */
static void no_crossing_sentence(const words *w, sentence *b, json_t *x)
{
    const char *a = compared_label(w, 0), *bl = compared_label(w, 1);
    if (!json_is_number(json_object_get(x, "first_x")))
        sentence_add(b, "%s%s %s has runs of both %s and %s.", w->pre, w->pre[0] ? "no" : "No",
                     x_phrase(w), a, bl);
    else if (json_is_null(json_object_get(x, "below")))
        sentence_add(b, "%s%s and %s tie at every %s measured.", w->pre, a, bl, x_phrase(w));
    else
        sentence_add(b, "%s%s wins%s at every %s from %.2f to %.2f%s: no crossing in range.",
                     w->pre, label(w, x, "below"),
                     json_is_true(json_object_get(x, "with_ties")) ? " or ties" : "",
                     x_phrase(w), jnum(x, "first_x"), jnum(x, "last_x"), w->xu);
}

/* "At 1x, the ranking flips 3 times between 1 and 1.5 us: ..." for each
 * grid interval with more than one crossing. */
static void flip_notes(const words *w, json_t *list, json_t *notes)
{
    size_t n = json_array_size(list);
    for (size_t i = 0; i < n;) {
        json_t *k = json_array_get(list, i);
        size_t j = i + 1;
        while (j < n && jnum(json_array_get(list, j), "grid_from_x") == jnum(k, "grid_from_x"))
            j++;
        if (j - i > 1) {
            sentence b = {.n = 0};
            sentence_add(&b,
                         "%s%s ranking flips %zu times between %.10g and %.10g%s: the "
                         "curves are not monotonic there.",
                         w->pre, w->pre[0] ? "the" : "The", j - i, jnum(k, "grid_from_x"),
                         jnum(k, "grid_to_x"), w->xu);
            sentence_append_to(notes, &b);
        }
        i = j;
    }
}

/* "At 1x, A is not monotonic between 1 and 1.5 us: its median is 2696.9 us
 * at 1, 2857.9 at 1.125, 2825.7 at 1.25 and 2956.7 at 1.5 us." for each
 * stretch of a curve that rises and falls between two grid points. */
static void turn_notes(const words *w, json_t *turns, json_t *notes)
{
    size_t i, k;
    json_t *t, *p;
    json_array_foreach(turns, i, t) {
        json_t *points = json_object_get(t, "points");
        size_t n = json_array_size(points);
        sentence b = {.n = 0};
        sentence_add(&b, "%s%s is not monotonic between %.10g and %.10g%s: its median is ",
                     w->pre, label(w, t, "variant"), jnum(t, "from_x"), jnum(t, "to_x"), w->xu);
        json_array_foreach(points, k, p)
            sentence_add(&b, "%s%.1f%s at %.10g", k == 0 ? "" : k + 1 == n ? " and " : ", ",
                         jnum(p, "median_us"), k == 0 ? " " VERDICT_US : "", jnum(p, "x"));
        sentence_add(&b, "%s.", w->xu);
        sentence_append_to(notes, &b);
    }
}

void crossing_text_set(const study *st, const verdict_axes *ax, json_t *crossover)
{
    words w = {.st = st, .ax = ax};
    verdict_unit_words(ax->x, w.xu, sizeof w.xu);
    verdict_unit_words(ax->series, w.su, sizeof w.su);
    if (ax->series)
        snprintf(w.pre, sizeof w.pre, "At %g%s, ", jnum(crossover, "series"), w.su);
    json_t *list = json_object_get(crossover, "crossings"), *notes = json_array();
    sentence b = {.n = 0};
    if (json_array_size(list))
        crossings_sentence(&w, &b, list);
    else
        no_crossing_sentence(&w, &b, crossover);
    json_object_set_new(crossover, "text", json_string(b.s));
    size_t i;
    json_t *k;
    json_array_foreach(list, i, k) {
        sentence how = {.n = 0};
        add_how(&how, k, w.xu);
        json_object_set_new(k, "how", json_string(how.s));
    }
    flip_notes(&w, list, notes);
    turn_notes(&w, json_object_get(crossover, "non_monotonic"), notes);
    json_object_set_new(crossover, "notes", notes);
}
