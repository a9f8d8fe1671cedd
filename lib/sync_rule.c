/*
 * sync_rule.c - the conservative synchronization rule over a side's links
 * (what each function computes: sync_rule.h; the rule: docs/protocol.md §4).
 */
#include "sync_rule.h"

#include "mortar/error.h"
#include "mortar/time.h"

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > MORTAR_TIME_MAX - b ? MORTAR_TIME_MAX : a + b;
}

uint64_t sync_rule_safe_time(const sync_link *links, unsigned n, int *holder)
{
    uint64_t safe = MORTAR_TIME_MAX;
    *holder = -1;
    for (unsigned i = 0; i < n; i++) {
        if (!links[i].synchronized)
            continue;
        uint64_t h = mortar_link_in_bound(links[i].link);
        if (h < safe) {
            safe = h;
            *holder = (int)i;
        }
    }
    return safe;
}

int sync_rule_earliest(const sync_link *links, unsigned n, sync_input *out)
{
    out->index = -1;
    out->time = MORTAR_TIME_MAX;
    out->is_msg = false;
    for (unsigned i = 0; i < n; i++) {
        mortar_msg m;
        int r = mortar_link_peek(links[i].link, &m);
        if (r < 0) {
            out->index = (int)i;
            return r;
        }
        uint64_t t = r == 1 ? m.timestamp_ps : mortar_link_in_bound(links[i].link);
        if (t < out->time) {
            out->index = (int)i;
            out->time = t;
            out->is_msg = r == 1;
            if (r == 1)
                out->msg = m;
        }
    }
    return MORTAR_OK;
}

/* What link i brings next, as the promiser sees its inputs. */
static uint64_t next_input(const sync_link *l, uint64_t now, bool peek)
{
    if (!l->synchronized)
        return now; /* its messages happen when they arrive */
    if (!peek)
        return mortar_link_in_bound(l->link);
    mortar_msg m;
    int r = mortar_link_peek(l->link, &m);
    return r == 1   ? m.timestamp_ps
           : r == 0 ? mortar_link_in_bound(l->link)
                    : now; /* the error surfaces where messages are read */
}

uint64_t sync_rule_next_send(const sync_link *links, unsigned n, unsigned j, uint64_t now,
                             const sync_promiser *p)
{
    uint64_t next = p->own_next(p->ctx, j);
    for (unsigned i = 0; i < n; i++) {
        if (i == j)
            continue;
        uint64_t d = p->latency ? p->latency(p->ctx, i, j) : 0;
        if (d == MORTAR_TIME_MAX)
            continue;
        uint64_t t = add_sat(next_input(&links[i], now, p->peek), d);
        if (t < next)
            next = t;
    }
    return next < now ? now : next;
}

/* A null message at now on link j; a full ring leaves it due and asks
 * whether the peer died (a peer that promised never to send again is never
 * waited on, so a ring that stays full may be all there is to see). */
static int send_sync(sync_link *links, unsigned n, unsigned j, uint64_t now,
                     const sync_promiser *p)
{
    mortar_link *l = links[j].link;
    int rc = p ? mortar_link_send_promise(l, now, sync_rule_next_send(links, n, j, now, p))
               : mortar_link_send_sync(l, now);
    if (rc == MORTAR_EAGAIN)
        rc = mortar_link_check_peer(l);
    return rc;
}

int sync_rule_send_due(sync_link *links, unsigned n, uint64_t now, const sync_promiser *p,
                       sync_due *out)
{
    out->next_due = MORTAR_TIME_MAX;
    out->failed = -1;
    out->sent = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!links[i].synchronized)
            continue;
        mortar_link *l = links[i].link;
        if (mortar_link_sync_due(l) <= now) {
            int rc = send_sync(links, n, i, now, p);
            if (rc != 0) {
                out->failed = (int)i;
                return rc;
            }
            out->sent++;
        }
        if (mortar_link_sync_due(l) < out->next_due)
            out->next_due = mortar_link_sync_due(l);
    }
    return MORTAR_OK;
}

void sync_rule_start(sync_link *links, unsigned n, uint64_t now)
{
    for (unsigned i = 0; i < n; i++)
        if (links[i].synchronized)
            mortar_link_send_sync(links[i].link, now);
}
