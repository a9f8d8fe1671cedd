/*
 * mortar_hub_profile.c - the host's wall-clock profile (see
 * mortar_hub_profile.h).
 */
#include "qemu/osdep.h"
#include "qemu/timer.h"

#include "mortar_hub_json.h"
#include "mortar_hub_profile.h"

#define MAX_LINKS 16

static struct {
    bool on;
    int64_t start_ns, end_ns; /* synchronized phase; 0 before it */
    int64_t hub_ns;           /* servicing the links, waits included */
    int64_t entered_ns;
    unsigned depth;
    int64_t left_ns;    /* the vCPU runs since: the hub left */
    bool left_spinning; /* ... while it waited in a pure wait loop */
    int64_t spin_ns;    /* the vCPU's time in pure wait loops */
    int64_t wait_ns[MAX_LINKS];
    uint64_t waits[MAX_LINKS];
} prof;

void mortar_hub_profile_init(void)
{
    memset(&prof, 0, sizeof prof);
    const char *v = getenv("MORTAR_PROFILE");
    prof.on = !(v && !strcmp(v, "0"));
}

int64_t mortar_hub_profile_clock(void)
{
    return prof.on && prof.start_ns ? get_clock() : 0;
}

void mortar_hub_profile_start(void)
{
    if (prof.on && !prof.start_ns) {
        prof.start_ns = get_clock();
    }
}

void mortar_hub_profile_end(void)
{
    if (prof.start_ns && !prof.end_ns) {
        prof.end_ns = get_clock();
    }
}

void mortar_hub_profile_enter(void)
{
    if (prof.depth++ == 0) {
        prof.entered_ns = mortar_hub_profile_clock();
        if (prof.left_spinning && prof.left_ns && prof.entered_ns && !prof.end_ns) {
            prof.spin_ns += prof.entered_ns - prof.left_ns;
        }
    }
}

void mortar_hub_profile_spinning(bool spinning)
{
    prof.left_spinning = spinning;
}

void mortar_hub_profile_leave(void)
{
    if (prof.depth == 0 || --prof.depth > 0) {
        return;
    }
    /* Synchronization may have started inside (entered_ns 0): count from
     * its start. */
    int64_t from = prof.entered_ns ? prof.entered_ns : prof.start_ns;
    prof.left_ns = mortar_hub_profile_clock();
    if (from && !prof.end_ns) {
        prof.hub_ns += prof.left_ns - from;
    }
}

void mortar_hub_profile_wait(unsigned index, int64_t since)
{
    if (since && index < MAX_LINKS && !prof.end_ns) {
        prof.wait_ns[index] += get_clock() - since;
        prof.waits[index]++;
    }
}

static void write_link(FILE *f, mortar_link *l, unsigned i)
{
    mortar_link_counters c;
    mortar_link_get_counters(l, &c);
    fprintf(f, "%s{\"link\": ", i ? ", " : "");
    mortar_json_string(f, mortar_link_name(l));
    fprintf(f,
            ", \"wait_ns\": %" PRId64 ", \"waits\": %" PRIu64
            ", \"msgs_sent\": %" PRIu64 ", \"msgs_received\": %" PRIu64
            ", \"syncs_sent\": %" PRIu64 ", \"syncs_received\": %" PRIu64
            ", \"waits_blocked\": %" PRIu64 ", \"wakes_sent\": %" PRIu64
            ", \"full_stalls\": %" PRIu64 "}",
            i < MAX_LINKS ? prof.wait_ns[i] : 0,
            i < MAX_LINKS ? prof.waits[i] : 0, c.msgs_sent, c.msgs_received,
            c.syncs_sent, c.syncs_received, c.waits_blocked, c.wakes_sent,
            c.full_stalls);
}

void mortar_hub_profile_write(FILE *f, mortar_link *const *links, unsigned n)
{
    int64_t end = prof.end_ns ? prof.end_ns : get_clock();
    int64_t wall = prof.start_ns ? end - prof.start_ns : 0, wait = 0;
    for (unsigned i = 0; i < n && i < MAX_LINKS; i++) {
        wait += prof.wait_ns[i];
    }
    fprintf(f,
            ", \"profile\": {\"enabled\": %s, \"wall_ns\": %" PRId64
            ", \"vcpu_ns\": %" PRId64 ", \"spin_ns\": %" PRId64 ", \"hub_ns\": %" PRId64
            ", \"wait_ns\": %" PRId64 ", \"links\": [",
            prof.on ? "true" : "false", wall, MAX(wall - prof.hub_ns, 0), prof.spin_ns,
            MAX(prof.hub_ns - wait, 0), wait);
    for (unsigned i = 0; i < n; i++) {
        write_link(f, links[i], i);
    }
    fprintf(f, "]}");
}
