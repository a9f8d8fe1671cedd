/*
 * mac_table.c - the switch's address table (see mac_table.h).
 */
#include "sims/switch/mac_table.h"

#include <string.h>

/* FNV-1a over the six address bytes. */
static uint32_t mac_hash(const uint8_t mac[6])
{
    uint32_t h = 2166136261u;
    for (int i = 0; i < 6; i++)
        h = (h ^ mac[i]) * 16777619u;
    return h;
}

/* The slot holding `mac`, or the empty slot where it would go. The table is
 * never more than half full, so the probe always ends. */
static mac_entry *find_slot(const mac_table *t, const uint8_t mac[6])
{
    uint32_t i = mac_hash(mac) & (MAC_TABLE_SLOTS - 1);
    while (t->slots[i].used && memcmp(t->slots[i].mac, mac, 6) != 0)
        i = (i + 1) & (MAC_TABLE_SLOTS - 1);
    return (mac_entry *)&t->slots[i];
}

mac_learn_result mac_table_learn(mac_table *t, const uint8_t mac[6], unsigned port)
{
    mac_entry *e = find_slot(t, mac);
    if (e->used) {
        if (e->port == port)
            return MAC_LEARN_SAME;
        e->port = (uint8_t)port;
        return MAC_LEARN_MOVED;
    }
    if (t->count >= MAC_TABLE_ENTRIES)
        return MAC_LEARN_FULL;
    memcpy(e->mac, mac, 6);
    e->port = (uint8_t)port;
    e->used = 1;
    t->count++;
    return MAC_LEARN_NEW;
}

int mac_table_lookup(const mac_table *t, const uint8_t mac[6])
{
    const mac_entry *e = find_slot(t, mac);
    return e->used ? e->port : -1;
}
