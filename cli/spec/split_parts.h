/*
 * split_parts.h - the parts a study splits a request's time into
 * (docs/studies.md, "The time split"): what the trace tells apart is the
 * platform's (the activities of time_split.h: a host's software, the
 * network, the host interface, the PCIe wire, a device computing); which
 * parts a study shows, what it calls them and which activities each takes
 * are the study's ("metric": {"split": [...]}). The parts take every
 * activity exactly once, so they still sum to the latency.
 */
#ifndef MORTAR_CLI_SPLIT_PARTS_H
#define MORTAR_CLI_SPLIT_PARTS_H

#include <jansson.h>
#include <stddef.h>

/* What the trace tells apart, by role (time_split.h), in the order of a
 * request's path. */
typedef enum split_activity {
    SPLIT_CLIENT_SOFTWARE,
    SPLIT_NETWORK,
    SPLIT_SERVER_SOFTWARE,
    SPLIT_HOST_INTERFACE,
    SPLIT_PCIE_WIRE,
    SPLIT_COMPUTE,
    SPLIT_NACTIVITIES
} split_activity;

#define SPLIT_NAME_MAX  32 /* a part's name or short head, without its NUL */
#define SPLIT_LABEL_MAX 64 /* a part's label, without its NUL */

typedef struct split_part {
    char name[SPLIT_NAME_MAX + 1];        /* its key in JSON, a lower-case identifier */
    char label[SPLIT_LABEL_MAX + 1];      /* how reports name it (default: the name) */
    char short_label[SPLIT_NAME_MAX + 1]; /* a narrow column's head (default: the name) */
    unsigned takes;                       /* the activities it takes: 1 << split_activity */
} split_part;

/* A study's parts, in the order it shows them. */
typedef struct split_parts {
    split_part part[SPLIT_NACTIVITIES];
    size_t nparts;
} split_parts;

/* The activity's key, as a study file names it ("client_software",
 * "network", "server_software", "host_interface", "pcie_wire", "compute");
 * NULL for anything else. */
const char *split_activity_key(split_activity a);

/* The parts of a study that names none: one per activity, named and
 * labelled by its key. */
void split_parts_default(split_parts *out);

/* Reads a study file's "split" array `js` into `out`: each part an object
 * {"name", "label", "short", "takes": [activity keys]}, every activity
 * taken by exactly one part. 0, or -1 with `err` saying which member is
 * wrong and why ("[2].takes: 'network' is taken by part 1 too"). */
int split_parts_read(json_t *js, split_parts *out, char *err, size_t err_size);

#endif
