/*
 * sims/switch/mac_table.h - the switch's address table: source MAC -> port.
 *
 * A fixed-size open-addressing hash table (linear probing, no deletion: the
 * switch does not age entries). It holds at most MAC_TABLE_ENTRIES addresses
 * so that a flood of random source addresses cannot grow memory; once full,
 * new addresses are not learned and frames to them are flooded. The hash is
 * fixed, so a run is deterministic.
 */
#ifndef MORTAR_SIMS_MAC_TABLE_H
#define MORTAR_SIMS_MAC_TABLE_H

#include <stdint.h>

#define MAC_TABLE_ENTRIES 8192u
#define MAC_TABLE_SLOTS   (2u * MAC_TABLE_ENTRIES) /* load factor <= 0.5 */

typedef struct mac_entry {
    uint8_t mac[6];
    uint8_t port;
    uint8_t used;
} mac_entry;

/* Embed it in a zeroed state struct: all-zero is an empty table. */
typedef struct mac_table {
    mac_entry slots[MAC_TABLE_SLOTS];
    uint32_t count;
} mac_table;

typedef enum {
    MAC_LEARN_NEW,   /* a new address was added */
    MAC_LEARN_SAME,  /* known, on the same port */
    MAC_LEARN_MOVED, /* known, now on another port (the entry is updated) */
    MAC_LEARN_FULL,  /* unknown and the table is full: not learned */
} mac_learn_result;

/* Records that `mac` was seen as a source on `port`. */
mac_learn_result mac_table_learn(mac_table *t, const uint8_t mac[6], unsigned port);

/* The port `mac` was last seen on, or -1 when it is unknown. */
int mac_table_lookup(const mac_table *t, const uint8_t mac[6]);

#endif
