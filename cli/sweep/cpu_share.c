/*
 * cpu_share.c - splitting the sweep's CPUs between its job slots
 * (cpu_share.h).
 */
#include "cpu_share.h"

bool cpu_share_of_slot(size_t slot, size_t slots, cpu_set_t *out)
{
    cpu_set_t allowed;
    if (slots < 2 || slot >= slots || sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return false;
    size_t count = (size_t)CPU_COUNT(&allowed);
    if (count < slots)
        return false;
    size_t first = slot * count / slots, end = (slot + 1) * count / slots;
    CPU_ZERO(out);
    for (size_t cpu = 0, seen = 0; cpu < CPU_SETSIZE && seen < end; cpu++) {
        if (!CPU_ISSET(cpu, &allowed))
            continue;
        if (seen >= first)
            CPU_SET(cpu, out);
        seen++;
    }
    return true;
}
