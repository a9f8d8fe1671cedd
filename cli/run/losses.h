/*
 * losses.h - what a run lost: frames dropped by any model and the guests'
 * TCP retransmissions, and how they are shown.
 *
 * The rule (docs/device-models.md, "Losses"): a component's loss counters
 * are the stats its model names in `lost_stats` (mortar/component.h); a
 * host's is "tcp_retrans", the RetransSegs its guest's init prints as
 * "MORTAR-TCP-RETRANS <n>" when the experiment's command has ended. Every
 * one that is non-zero is a loss of the run: {"source": component or host,
 * "counter": stat name, "count": n}.
 */
#ifndef MORTAR_CLI_LOSSES_H
#define MORTAR_CLI_LOSSES_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The console line a guest prints with its TCP retransmissions. */
#define LOSSES_TCP_RETRANS_MARK "MORTAR-TCP-RETRANS "

/* The host stat that holds them (under "host_<name>" in a run's stats). */
#define LOSSES_TCP_RETRANS_STAT "tcp_retrans"

/* The count on a "MORTAR-TCP-RETRANS <n>" line; -1 when `line` is not one
 * or its number is not a count. */
int64_t losses_parse_tcp_retrans(const char *line);

/* The non-zero loss counters of a run, as a new array of {"source",
 * "counter", "count"}: `stats` is the run's stats ({"component": {"key":
 * number}}, hosts under "host_<name>"), `spec` the resolved spec that says
 * each component's kind. Components in the same order as in the spec, then
 * hosts. */
json_t *losses_of_run(json_t *spec, json_t *stats);

/* The sum of the counts in `losses`. */
int64_t losses_total(json_t *losses);

/* "nic1.rx_missed 3, client.tcp_retrans 2" into `buf`. */
const char *losses_text(json_t *losses, char *buf, size_t size);

/* The `lost` cell of `mortar results` for a run of db_runs_json(): "-" when
 * the run recorded no losses (recorded before losses were, or still
 * running), "0", or the total followed by "!". */
const char *losses_cell(json_t *run, char *buf, size_t size);

#endif
