/*
 * profile.c - reading a loop's wall-clock profile (mortar/profile.h): the
 * figures event_loop.c gathers around each wait, the links' counters, and
 * their JSON for mortar-sim's <name>.profile.json.
 */
#include "mortar/profile.h"

#include <jansson.h>

#include "loop_internal.h"
#include "mortar/error.h"
#include "wall_ticks.h"

int mortar_loop_set_profiling(mortar_loop *loop, bool on)
{
    if (loop->started)
        return loop_set_error(loop, MORTAR_ESTATE,
                              "profiling is switched before the run");
    loop->profile_off = !on;
    return MORTAR_OK;
}

/* The run's span so far, in nanoseconds and in ticks. */
typedef struct span {
    uint64_t ns, ticks;
} span;

static span run_span(const mortar_loop *loop)
{
    if (loop->profile_off || !loop->started)
        return (span){0, 0};
    if (loop->wall_end_ns)
        return (span){loop->wall_end_ns - loop->wall_start_ns,
                      loop->wall_end_ticks - loop->wall_start_ticks};
    return (span){loop_wall_ns() - loop->wall_start_ns, wall_ticks() - loop->wall_start_ticks};
}

static uint64_t ticks_ns(span s, uint64_t ticks)
{
    return wall_ticks_to_ns(ticks, s.ticks, s.ns);
}

void mortar_loop_get_profile(const mortar_loop *loop, mortar_loop_profile *out)
{
    span s = run_span(loop);
    *out = (mortar_loop_profile){.enabled = !loop->profile_off,
                                 .wait_any_ns = ticks_ns(s, loop->wait_any_ticks),
                                 .waits_any = loop->waits_any,
                                 .sim_time_ps = loop->now,
                                 .events = loop->events};
    if (loop->profile_off || !loop->started)
        return;
    out->wall_ns = s.ns;
    /* the sum of the parts as they are reported, so that they add up */
    out->wait_ns = out->wait_any_ns;
    for (uint32_t i = 0; i < loop->nexts; i++)
        out->wait_ns += ticks_ns(s, loop->exts[i].wait_ticks);
    /* waits are inside the run, so wait <= wall; the guard is for a clock
     * read mid-run only */
    out->busy_ns = out->wall_ns > out->wait_ns ? out->wall_ns - out->wait_ns : 0;
}

uint32_t mortar_loop_link_count(const mortar_loop *loop)
{
    return loop->nexts;
}

int mortar_loop_get_link_profile(const mortar_loop *loop, uint32_t i,
                                 mortar_link_profile *out)
{
    if (i >= loop->nexts)
        return MORTAR_EINVAL;
    const ext_link *x = &loop->exts[i];
    *out = (mortar_link_profile){.link = mortar_link_name(x->link),
                                 .component = x->comp->name,
                                 .port = x->port,
                                 .wait_ns = ticks_ns(run_span(loop), x->wait_ticks),
                                 .waits = x->waits};
    mortar_link_get_counters(x->link, &out->counters);
    return MORTAR_OK;
}

uint64_t mortar_component_events(const mortar_component *c)
{
    return c->events;
}

static json_t *u64(uint64_t v)
{
    return json_integer((json_int_t)v);
}

static json_t *link_json(const mortar_link_profile *lp)
{
    const mortar_link_counters *k = &lp->counters;
    return json_pack(
        "{s:s, s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "link", lp->link,
        "component", lp->component, "port", (int)lp->port, "wait_ns", u64(lp->wait_ns),
        "waits", u64(lp->waits), "msgs_sent", u64(k->msgs_sent), "msgs_received",
        u64(k->msgs_received), "syncs_sent", u64(k->syncs_sent), "syncs_received",
        u64(k->syncs_received), "waits_blocked", u64(k->waits_blocked), "wakes_sent",
        u64(k->wakes_sent), "full_stalls", u64(k->full_stalls));
}

/* A component's figures: its events, and the sums over its external
 * links (a loop has few links: one pass per component is fine). */
static json_t *component_json(const mortar_loop *loop, const mortar_component *c)
{
    uint64_t wait = 0, ms = 0, mr = 0, ss = 0, sr = 0;
    for (uint32_t i = 0; i < loop->nexts; i++) {
        mortar_link_profile lp;
        mortar_loop_get_link_profile(loop, i, &lp);
        if (loop->exts[i].comp != c)
            continue;
        wait += lp.wait_ns;
        ms += lp.counters.msgs_sent;
        mr += lp.counters.msgs_received;
        ss += lp.counters.syncs_sent;
        sr += lp.counters.syncs_received;
    }
    return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "name", c->name, "events",
                     u64(c->events), "wait_ns", u64(wait), "msgs_sent", u64(ms),
                     "msgs_received", u64(mr), "syncs_sent", u64(ss), "syncs_received",
                     u64(sr));
}

int mortar_loop_write_profile(const mortar_loop *loop, FILE *f)
{
    mortar_loop_profile p;
    mortar_loop_get_profile(loop, &p);
    json_t *links = json_array(), *comps = json_array();
    for (uint32_t i = 0; i < loop->nexts; i++) {
        mortar_link_profile lp;
        mortar_loop_get_link_profile(loop, i, &lp);
        json_array_append_new(links, link_json(&lp));
    }
    for (uint32_t i = 0; i < loop->ncomps; i++)
        json_array_append_new(comps, component_json(loop, loop->comps[i]));
    json_t *all = json_pack(
        "{s:i, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "profile_version", 1,
        "enabled", p.enabled, "wall_ns", u64(p.wall_ns), "busy_ns", u64(p.busy_ns),
        "wait_ns", u64(p.wait_ns), "wait_any_ns", u64(p.wait_any_ns), "waits_any",
        u64(p.waits_any), "sim_time_ps", u64(p.sim_time_ps), "events", u64(p.events),
        "links", links, "components", comps);
    int rc = all && json_dumpf(all, f, JSON_INDENT(1)) == 0 ? MORTAR_OK : MORTAR_EIO;
    fputc('\n', f);
    json_decref(all);
    return rc;
}
