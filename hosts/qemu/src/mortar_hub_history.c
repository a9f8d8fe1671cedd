/*
 * mortar_hub_history.c - the hub's last steps in time (see
 * mortar_hub_history.h).
 */
#include "mortar_hub_history.h"

#include <inttypes.h>

static const char *const step_names[] = {
    [MORTAR_STEP_ARM] = "arm",         [MORTAR_STEP_BOUND] = "bound",
    [MORTAR_STEP_STOP] = "stop",       [MORTAR_STEP_IDLE_JUMP] = "idle-jump",
    [MORTAR_STEP_EXTEND] = "extend",   [MORTAR_STEP_SKIP] = "skip",
    [MORTAR_STEP_STALL] = "stall",     [MORTAR_STEP_SEND] = "send",
    [MORTAR_STEP_HANDLE] = "handle",
};

static const char *link_name(const char *const *names, unsigned n, unsigned link)
{
    return link < n && names[link] ? names[link] : "?";
}

static void write_step(const mortar_step *s, FILE *f, const char *prefix,
                       const char *const *names, unsigned n)
{
    const char *kind = s->kind < sizeof step_names / sizeof *step_names && step_names[s->kind]
                           ? step_names[s->kind]
                           : "?";
    fprintf(f, "%s%" PRIu64 " %s", prefix, s->at_ps, kind);
    switch (s->kind) {
    case MORTAR_STEP_BOUND:
        fprintf(f, " %s: let %" PRIu64 ", input bound %" PRIu64 ", first unseen %" PRIu64 "%s",
                link_name(names, n, s->link), s->a, s->b, s->c,
                s->type ? ", a message waits" : "");
        break;
    case MORTAR_STEP_SEND:
    case MORTAR_STEP_HANDLE:
        fprintf(f, " %s type 0x%x: stamp %" PRIu64, link_name(names, n, s->link), s->type,
                s->a);
        if (s->kind == MORTAR_STEP_SEND) {
            fprintf(f, ", %" PRIu64 " sent", s->b);
        }
        break;
    case MORTAR_STEP_ARM:
        fprintf(f, ": horizon %" PRIu64 " ns, committed %" PRIu64 " ns", s->a, s->b);
        break;
    case MORTAR_STEP_STOP:
        fprintf(f, ": horizon %" PRIu64 " ns", s->a);
        break;
    case MORTAR_STEP_EXTEND:
        fprintf(f, ": want %" PRIu64 ", clock after %" PRIu64, s->a, s->b);
        break;
    case MORTAR_STEP_STALL:
        fprintf(f, ": resume %" PRIu64 ", completion %" PRIu64, s->a, s->b);
        break;
    default:
        fprintf(f, ": to %" PRIu64, s->a);
        break;
    }
    fputc('\n', f);
}

void mortar_history_write(const mortar_history *h, FILE *f, const char *prefix,
                          const char *const *names, unsigned n)
{
    uint64_t first = h->count > MORTAR_HISTORY_LEN ? h->count - MORTAR_HISTORY_LEN : 0;
    for (uint64_t i = first; i < h->count; i++) {
        write_step(&h->steps[i % MORTAR_HISTORY_LEN], f, prefix, names, n);
    }
}
