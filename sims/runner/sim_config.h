/*
 * sim_config.h - building an event loop from a mortar-sim JSON description
 * (format in sim_config.c and docs/mortar-sim.md).
 */
#ifndef MORTAR_SIM_CONFIG_H
#define MORTAR_SIM_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "mortar/runtime.h"

typedef struct sim_config {
    mortar_loop *loop; /* owned by the caller after a successful build */
    uint64_t until_ps;
    char trace_path[512];
    char stats_path[512];
    char profile_path[512];  /* "" when not asked for (mortar/profile.h) */
    char progress_path[512]; /* "" when not asked for */
} sim_config;

/* Parses `text`, creates the components and sets up every link (waiting for
 * peers to connect). On error returns MORTAR_EINVAL (or the link's code) with
 * a message naming the JSON path in `err`. */
int sim_config_build(const char *text, sim_config *cfg, char *err, size_t err_size);

/* sim_config_build without reaching outside the process: the description
 * is parsed and checked, the components created and the in-process links
 * made, but no trace file is opened and no external link set up (they
 * are checked only). For checking a description, and for fuzzing it. */
int sim_config_parse(const char *text, sim_config *cfg, char *err, size_t err_size);

#endif
