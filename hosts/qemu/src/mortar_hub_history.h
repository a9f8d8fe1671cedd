/*
 * mortar_hub_history.h - the hub's last steps in time, for the log of a
 * fault.
 *
 * A late message or a broken bound (docs/hosts.md, "Time") is rare, and
 * what led to it is gone by the time it is seen: the vCPU had been let run,
 * the clock had jumped, a wait had been skipped, some steps before. The hub
 * notes each such step here, in a ring of the last MORTAR_HISTORY_LEN, and
 * writes them out with the first fault of a run (QEMU's log). A note is a
 * few stores: cheap enough to keep on at every step.
 *
 * Plain C: tests/test_hub_history.c compiles it in.
 */
#ifndef MORTAR_HUB_HISTORY_H
#define MORTAR_HUB_HISTORY_H

#include <stdint.h>
#include <stdio.h>

#define MORTAR_HISTORY_LEN 48

/* What a step was; a, b and c are its figures (ps unless said). */
typedef enum {
    MORTAR_STEP_ARM,       /* the horizon set: a horizon, b committed (ns) */
    MORTAR_STEP_BOUND,     /* a link's bound read: a what it let, b input bound,
                              c first unseen stamp; type: 1 if a message waited */
    MORTAR_STEP_STOP,      /* the vCPU at its horizon: a the horizon (ns) */
    MORTAR_STEP_IDLE_JUMP, /* an idle host's clock moved: a to */
    MORTAR_STEP_EXTEND,    /* a block's end asked for: a want, b the clock after */
    MORTAR_STEP_SKIP,      /* a wait skipped: a the clock after */
    MORTAR_STEP_STALL,     /* an MMIO read ended: a resume, b the completion's stamp */
    MORTAR_STEP_SEND,      /* a message sent: a its stamp, b messages sent */
    MORTAR_STEP_HANDLE,    /* a message handled: a its stamp */
} mortar_step_kind;

typedef struct mortar_step {
    uint8_t kind; /* mortar_step_kind */
    uint8_t link; /* the link's index, where it has one */
    uint8_t type; /* the message's type, where it has one */
    uint64_t at_ps; /* the host's clock */
    uint64_t a, b, c;
} mortar_step;

typedef struct mortar_history {
    mortar_step steps[MORTAR_HISTORY_LEN];
    uint64_t count; /* steps noted in all */
} mortar_history;

static inline void mortar_history_note(mortar_history *h, mortar_step_kind kind,
                                       unsigned link, unsigned type, uint64_t at_ps,
                                       uint64_t a, uint64_t b, uint64_t c)
{
    mortar_step *s = &h->steps[h->count++ % MORTAR_HISTORY_LEN];
    *s = (mortar_step){.kind = (uint8_t)kind, .link = (uint8_t)link, .type = (uint8_t)type,
                       .at_ps = at_ps, .a = a, .b = b, .c = c};
}

/* Writes the kept steps, oldest first, one line each, every line starting
 * with `prefix`; `names[link]` names the links (n of them). */
void mortar_history_write(const mortar_history *h, FILE *f, const char *prefix,
                          const char *const *names, unsigned n);

#endif
