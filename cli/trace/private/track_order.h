/*
 * track_order.h - the order in which a joined request's tracks are shown:
 * along the run's own topology, from the host where the request starts.
 *
 * The run directory's spec.json names the hosts, the components and the
 * links between them. Walking the links breadth first from the request's
 * host (each node's links in the spec's order) gives the request's path,
 * e.g. client, its NIC, the switch, the other NIC, the server, its device.
 * A node's track takes the node's place on the path; a host's view of one
 * of its devices ("<host>.<device>") goes between the host and the device.
 * Tracks of nothing on the path, and every track of a run without a spec,
 * come after it, by name. No name is known here: the order is the run's.
 */
#ifndef MORTAR_CLI_TRACK_ORDER_H
#define MORTAR_CLI_TRACK_ORDER_H

#include <stddef.h>

typedef struct track_order {
    char **path; /* the nodes in path order */
    size_t n;
} track_order;

/* Reads the topology of the run in `run_dir` (its spec.json) and walks it
 * from `origin` (a host's name). A run without a readable spec gives an
 * empty path. Returns 0, or -1 when memory runs out. */
int track_order_read(track_order *o, const char *run_dir, const char *origin);

/* Where a track named `name` goes: a node's at 2 × its place on the path,
 * "<a>.<b>" of two nodes halfway between them, anything else after every
 * node (the caller breaks ties). */
size_t track_order_rank(const track_order *o, const char *name);

void track_order_free(track_order *o);

#endif
