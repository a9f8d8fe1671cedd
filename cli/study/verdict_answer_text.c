/*
 * verdict_answer_text.c - the study's answer in one sentence, worded from
 * its three figures (verdict_answer.h) with the study's names and units:
 * "At clock 1×, Engine P is 1.33× faster alone, but 1.23× slower in the
 * whole system at L = 2 µs: the ranking flips at L ≈ 1.01 µs." The
 * page shows it as it is (docs/explorer.md, "The answer"); nothing else
 * words these figures.
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

static bool is_compared(const study *st, const char *name)
{
    return name && (!strcmp(name, st->variants[st->compared[0]].name) ||
                    !strcmp(name, st->variants[st->compared[1]].name));
}

/* The system figure's clause: how the variant that wins alone (`fast`,
 * NULL without an alone figure) fares in the whole system at `at`. */
static void system_clause(sentence *b, const study *st, const json_t *sys, const char *fast,
                          const char *at)
{
    const char *winner = jstr(sys, "winner");
    char t[64], name[160];
    times_text(jnum(sys, "times"), t, sizeof t);
    if (!strcmp(winner, "tie"))
        sentence_add(b, "in the whole system they tie at %s", at);
    else if (fast)
        sentence_add(b, "%s %s %s in the whole system at %s",
                     !strcmp(winner, fast) ? "and still" : "but", t,
                     !strcmp(winner, fast) ? "faster" : "slower", at);
    else
        sentence_add(b, "in the whole system %s is %s faster at %s",
                     variant_text(st, winner, name, sizeof name), t, at);
}

/* The sentence of `answer` into `b`; empty when it has neither an alone
 * nor a system figure. */
static void answer_sentence(sentence *b, const study *st, const json_t *answer)
{
    verdict_axes ax = verdict_axes_of(st);
    const json_t *alone = json_object_get(answer, "alone");
    const json_t *sys = json_object_get(answer, "system");
    const json_t *flip = json_object_get(answer, "flip");
    const char *fast = is_compared(st, jstr(alone, "winner")) ? jstr(alone, "winner") : NULL;
    const char *sys_winner = jstr(sys, "winner");
    if (!is_compared(st, sys_winner) && !(sys_winner && !strcmp(sys_winner, "tie")))
        sys = NULL;
    if (!fast && !sys)
        return;
    char at[160] = "", x[96], name[160], t[64];
    if (sys)
        snprintf(at, sizeof at, "%s = %s", ax.x ? ax.x->label : "x",
                 knob_text(ax.x, jnum(sys, "x"), x, sizeof x));
    double series = jnum(answer, "series");
    if (ax.series && !isnan(series))
        sentence_add(b, "At %s %s, ", ax.series->title,
                     knob_text(ax.series, series, x, sizeof x));
    if (fast) {
        sentence_add(b, "%s is %s faster alone", variant_text(st, fast, name, sizeof name),
                     times_text(jnum(alone, "times"), t, sizeof t));
        if (sys)
            sentence_add(b, ", ");
    }
    if (sys)
        system_clause(b, st, sys, fast, at);
    b->s[0] = (char)toupper((unsigned char)b->s[0]);
    double flip_x = jnum(flip, "x");
    if (isnan(flip_x)) {
        sentence_add(b, ": the ranking does not flip in the measured range.");
        return;
    }
    char unit[32];
    sentence_add(b, ": the ranking flips at %s \u2248 %s%s.", ax.x ? ax.x->label : "x",
                 grouped(flip_x, 2, x, sizeof x), verdict_unit_words(ax.x, unit, sizeof unit));
}

json_t *verdict_answer_of_study(const json_t *v, const study *st)
{
    json_t *answer = verdict_answer(v, st->variants[st->compared[0]].name,
                                    st->variants[st->compared[1]].name);
    if (!answer)
        return NULL;
    sentence b = {.n = 0};
    b.s[0] = '\0';
    answer_sentence(&b, st, answer);
    json_object_set_new(answer, "text", b.n ? json_string(b.s) : json_null());
    return answer;
}
