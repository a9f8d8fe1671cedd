/*
 * verdict_answer_text.c - the study's answer in words, from its three
 * figures (verdict_answer.h) with the study's names and units: one sentence,
 * "At clock 1×, Engine P is 1.33× faster alone, but 1.23× slower in the
 * whole system at L = 2 µs: the ranking flips at L ≈ 1.01 µs.", and each
 * figure's title, value, what it says and detail ("Alone", "1.33×",
 * "Engine P faster", "2,641.8 µs (P) against 3,520.1 µs (Q)"). The page
 * shows them as they are (docs/explorer.md, "The answer") and the
 * walkthrough says the alone figure with them; nothing else words these
 * figures.
 */
#include "verdict_answer.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_field.h"
#include "sentence.h"
#include "verdict_axes.h"

/* `v` with `digits` decimals and a comma between thousands ("2,641.83"). */
static const char *grouped(double v, int digits, char *buf, size_t size)
{
    char plain[64];
    snprintf(plain, sizeof plain, "%.*f", digits, fabs(v));
    size_t whole = strcspn(plain, "."), n = 0;
    if (v < 0 && n + 1 < size)
        buf[n++] = '-';
    for (size_t i = 0; plain[i] && n + 2 < size; i++) {
        if (i > 0 && i < whole && (whole - i) % 3 == 0)
            buf[n++] = ',';
        buf[n++] = plain[i];
    }
    buf[n] = '\0';
    return buf;
}

/* A knob's value as the grid gives it (at most 4 decimals, no trailing
 * zeros: "2.5", "1") and its unit ("2.5 µs", "1×"). */
static const char *knob_text(const study_knob *k, double v, char *buf, size_t size)
{
    char num[64], unit[32];
    snprintf(num, sizeof num, "%.4f", v);
    char *end = num + strlen(num);
    while (end > num && end[-1] == '0')
        *--end = '\0';
    if (end > num && end[-1] == '.')
        *--end = '\0';
    if (!strcmp(num, "-0"))
        snprintf(num, sizeof num, "0");
    snprintf(buf, size, "%s%s", num, verdict_unit_words(k, unit, sizeof unit));
    return buf;
}

/* A ratio of two medians: "1.33×". */
static const char *times_text(double t, char *buf, size_t size)
{
    char num[64];
    snprintf(buf, size, "%s\u00d7", grouped(t, 2, num, sizeof num));
    return buf;
}

/* A compared variant as the page names it: the axis and its label
 * ("Engine P" for the axis "engine"); a tie as "tie". */
static const char *variant_text(const study *st, const char *name, char *buf, size_t size)
{
    const study_variant *v = name ? study_variant_named(st, name) : NULL;
    if (!v) {
        snprintf(buf, size, "%s", name ? name : "?");
        return buf;
    }
    snprintf(buf, size, "%s %s", st->axis, v->label);
    buf[0] = (char)toupper((unsigned char)buf[0]);
    return buf;
}

/* Microseconds as the page writes a median: one decimal, two below 10 µs,
 * thousands grouped ("2,641.8 µs"). */
static const char *us_text(double v, char *buf, size_t size)
{
    char num[64];
    snprintf(buf, size, "%s " VERDICT_US,
             grouped(v, fabs(v) < 10 ? 2 : 1, num, sizeof num));
    return buf;
}

static bool is_compared(const study *st, const char *name)
{
    return name && (!strcmp(name, st->variants[st->compared[0]].name) ||
                    !strcmp(name, st->variants[st->compared[1]].name));
}

/* What of an answer is worded: its figures, those the page shows (an alone
 * figure only when a compared variant wins alone, a system figure when one
 * wins or they tie), and the variant that wins alone. */
typedef struct answer_parts {
    const study *st;
    verdict_axes ax;
    const json_t *answer, *alone, *sys, *flip;
    const char *fast; /* NULL without an alone figure */
    char at[160];     /* where the system figure is: "L = 2 µs" */
} answer_parts;

static answer_parts parts_of(const study *st, const json_t *answer)
{
    answer_parts p = {.st = st, .ax = verdict_axes_of(st), .answer = answer};
    p.alone = json_object_get(answer, "alone");
    p.sys = json_object_get(answer, "system");
    p.flip = json_object_get(answer, "flip");
    if (isnan(jnum(p.flip, "x")))
        p.flip = NULL;
    p.fast = is_compared(st, jstr(p.alone, "winner")) ? jstr(p.alone, "winner") : NULL;
    if (!p.fast)
        p.alone = NULL;
    const char *sys_winner = jstr(p.sys, "winner");
    if (!is_compared(st, sys_winner) && !(sys_winner && !strcmp(sys_winner, "tie")))
        p.sys = NULL;
    if (p.sys) {
        char x[96];
        snprintf(p.at, sizeof p.at, "%s = %s", p.ax.x ? p.ax.x->label : "x",
                 knob_text(p.ax.x, jnum(p.sys, "x"), x, sizeof x));
    }
    return p;
}

/* The system figure's clause: how the variant that wins alone fares in the
 * whole system at the far end. */
static void system_clause(sentence *b, const answer_parts *p)
{
    const char *winner = jstr(p->sys, "winner");
    char t[64], name[160];
    times_text(jnum(p->sys, "times"), t, sizeof t);
    if (!strcmp(winner, "tie"))
        sentence_add(b, "in the whole system they tie at %s", p->at);
    else if (p->fast)
        sentence_add(b, "%s %s %s in the whole system at %s",
                     !strcmp(winner, p->fast) ? "and still" : "but", t,
                     !strcmp(winner, p->fast) ? "faster" : "slower", p->at);
    else
        sentence_add(b, "in the whole system %s is %s faster at %s",
                     variant_text(p->st, winner, name, sizeof name), t, p->at);
}

/* "Engine P is 1.33× faster alone". */
static void alone_clause(sentence *b, const answer_parts *p)
{
    char name[160], t[64];
    sentence_add(b, "%s is %s faster alone",
                 variant_text(p->st, p->fast, name, sizeof name),
                 times_text(jnum(p->alone, "times"), t, sizeof t));
}

/* Where the ranking flips: "L ≈ 1.01 µs". */
static void flip_place(sentence *b, const answer_parts *p)
{
    char x[96], unit[32];
    sentence_add(b, "%s \u2248 %s%s", p->ax.x ? p->ax.x->label : "x",
                 grouped(jnum(p->flip, "x"), 2, x, sizeof x),
                 verdict_unit_words(p->ax.x, unit, sizeof unit));
}

/* The sentence of the answer into `b`; empty when it has neither an alone
 * nor a system figure. */
static void answer_sentence(sentence *b, const answer_parts *p)
{
    if (!p->alone && !p->sys)
        return;
    char x[96];
    double series = jnum(p->answer, "series");
    if (p->ax.series && !isnan(series))
        sentence_add(b, "At %s %s, ", p->ax.series->title,
                     knob_text(p->ax.series, series, x, sizeof x));
    if (p->alone) {
        alone_clause(b, p);
        if (p->sys)
            sentence_add(b, ", ");
    }
    if (p->sys)
        system_clause(b, p);
    b->s[0] = (char)toupper((unsigned char)b->s[0]);
    if (!p->flip) {
        sentence_add(b, ": the ranking does not flip in the measured range.");
        return;
    }
    sentence_add(b, ": the ranking flips at ");
    flip_place(b, p);
    sentence_add(b, ".");
}

/* "2,200.0 µs (A) against 1,800.0 µs (B)": a figure's two medians. */
static void medians(sentence *b, const answer_parts *p, const json_t *fig)
{
    char u[2][64], key[2][160];
    for (int d = 0; d < 2; d++)
        snprintf(key[d], sizeof key[d], "%s_us",
                 p->st->variants[p->st->compared[d]].name);
    sentence_add(b, "%s (%s) against %s (%s)",
                 us_text(jnum(fig, key[0]), u[0], sizeof u[0]),
                 p->st->variants[p->st->compared[0]].label,
                 us_text(jnum(fig, key[1]), u[1], sizeof u[1]),
                 p->st->variants[p->st->compared[1]].label);
}

/* One figure as the page lays it out: its title, its value, what the value
 * says and the detail under it. */
static json_t *figure(const char *name, const char *title, const char *value,
                      const char *what, const char *detail)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s}", "figure", name, "title", title, "value",
                     value, "what", what, "detail", detail);
}

static json_t *alone_figure_words(const answer_parts *p)
{
    char t[64], name[160];
    sentence what = {.n = 0}, detail = {.n = 0};
    sentence_add(&what, "%s faster", variant_text(p->st, p->fast, name, sizeof name));
    medians(&detail, p, p->alone);
    return figure("alone", "Alone", times_text(jnum(p->alone, "times"), t, sizeof t),
                  what.s, detail.s);
}

static json_t *system_figure_words(const answer_parts *p)
{
    const char *winner = jstr(p->sys, "winner");
    char t[64], name[160], apart[64];
    sentence title = {.n = 0}, what = {.n = 0}, detail = {.n = 0};
    sentence_add(&title, "In the whole system at %s", p->at);
    if (!strcmp(winner, "tie"))
        sentence_add(&what, "tie");
    else if (p->fast)
        sentence_add(&what, "%s %s", variant_text(p->st, p->fast, name, sizeof name),
                     !strcmp(winner, p->fast) ? "faster" : "slower");
    else
        sentence_add(&what, "%s faster", variant_text(p->st, winner, name, sizeof name));
    medians(&detail, p, p->sys);
    sentence_add(&detail, ": %s apart",
                 us_text(fabs(jnum(p->sys, "margin_us")), apart, sizeof apart));
    return figure("system", title.s, times_text(jnum(p->sys, "times"), t, sizeof t),
                  what.s, detail.s);
}

static json_t *flip_figure_words(const answer_parts *p)
{
    if (!p->flip)
        return figure("flip", "Where the ranking flips", "nowhere",
                      "in the measured range", "\u2014");
    char below[160], above[160];
    sentence value = {.n = 0}, what = {.n = 0}, detail = {.n = 0};
    flip_place(&value, p);
    sentence_add(&what, "%s faster below, %s above",
                 variant_text(p->st, jstr(p->flip, "below"), below, sizeof below),
                 variant_text(p->st, jstr(p->flip, "above"), above, sizeof above));
    sentence_add(&detail, "%s", jstr(p->flip, "how") ? jstr(p->flip, "how") : "\u2014");
    double crossings = jnum(p->flip, "crossings");
    if (crossings > 1)
        sentence_add(&detail, "; %.0f crossings in all", crossings);
    return figure("flip", "Where the ranking flips", value.s, what.s, detail.s);
}

/* The figures the page shows under the sentence, in its order: none
 * without a sentence. */
static json_t *figures_words(const answer_parts *p)
{
    json_t *list = json_array();
    if (!p->alone && !p->sys)
        return list;
    if (p->alone)
        json_array_append_new(list, alone_figure_words(p));
    if (p->sys)
        json_array_append_new(list, system_figure_words(p));
    json_array_append_new(list, flip_figure_words(p));
    return list;
}

json_t *verdict_answer_of_study(const json_t *v, const study *st)
{
    json_t *answer = verdict_answer(v, st->variants[st->compared[0]].name,
                                    st->variants[st->compared[1]].name);
    if (!answer)
        return NULL;
    answer_parts p = parts_of(st, answer);
    sentence b = {.n = 0};
    b.s[0] = '\0';
    answer_sentence(&b, &p);
    json_object_set_new(answer, "text", b.n ? json_string(b.s) : json_null());
    json_object_set_new(answer, "figures", figures_words(&p));
    return answer;
}

const char *verdict_answer_alone_words(const study *st, const json_t *answer, char *buf,
                                       size_t size)
{
    answer_parts p = parts_of(st, answer);
    sentence b = {.n = 0};
    if (p.alone) {
        alone_clause(&b, &p);
        sentence_add(&b, ": ");
        medians(&b, &p, p.alone);
    }
    snprintf(buf, size, "%s", b.s);
    return buf;
}
