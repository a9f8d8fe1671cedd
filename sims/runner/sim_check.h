/*
 * sim_check.h - the one checker of component and link descriptions, used by
 * mortar-sim (sim_config.c, its description) and by `mortar spec` / `mortar
 * run` (cli/run/spec_check.c, the experiment spec), so both give the same
 * verdict, the same error text and the same defaults for the same component
 * or link.
 *
 * Every function writes the first problem into `err` with the JSON path
 * given in `where` ("components[2]", "links[0]") and returns MORTAR_EINVAL;
 * 0 when all is well. Nothing prints.
 */
#ifndef MORTAR_SIM_CHECK_H
#define MORTAR_SIM_CHECK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mortar/link.h"
#include "mortar/runtime.h"

/* The link options both formats may carry and sim_check_link_options reads
 * (NULL-terminated): latency, sync_interval, bandwidth, wait, spin,
 * slot_size, slot_count, pcie. mortar-sim also reads "sync", "timeout" and
 * "protocol" (the orchestrator sets those itself). */
extern const char *const sim_check_link_keys[];

/* obj[key] is a name by the one rule (mortar/name.h): "required" when it is
 * absent and `required`, "expected a string", or the rule's reason. */
int sim_check_name(json_t *obj, const char *key, bool required, const char *where,
                   char *err, size_t size);

/*
 * The model of `kind`: built in, else a plugin from MORTAR_PLUGIN_PATH, then
 * the installed plugin directory of this program (sims/plugins.h). NULL with
 * "<where>.kind: unknown component kind ..." (naming the directories
 * searched) or the reason a plugin is refused.
 */
const mortar_component_ops *sim_check_kind(const char *kind, const char *where, char *err,
                                           size_t size);

/*
 * Checks the component description `c` ({"name", "kind", "params"}; other
 * keys are the caller's) and adds it to `loop`: an object, a valid name, a
 * kind that resolves (sim_check_kind), "params" an object (absent: {}), and
 * parameters its model accepts (the model's create() decides; its error is
 * the loop's). The new component in *out (may be NULL).
 */
int sim_check_add_component(mortar_loop *loop, json_t *c, const char *where,
                            mortar_component **out, char *err, size_t size);

/* Splits a port reference "component.N" (or "component": port 0) into the
 * component's name (`size` bytes) and N (at most 4 digits). -1 if `ref` is
 * not of that form. */
int sim_check_port_ref(const char *ref, char *comp, size_t size, unsigned *port);

/* Resolves `ref` to a component of `loop` and one of its ports:
 * "'x' is not a port", "no component named 'c'", "component 'c' has no
 * port N". */
int sim_check_port(mortar_loop *loop, const char *ref, const char *where,
                   mortar_component **comp, unsigned *port, char *err, size_t size);

/* The defaults of a link on a port of `protocol`: mortar_link_params_init's
 * (latency 500 ns, sync interval = latency, no bandwidth, block after a
 * 2 us spin, 1024 slots, 30 s handshake), with slots of 9216 bytes for
 * PCIe, 9088 for Ethernet, 2048 otherwise; a PCIe link has the transaction
 * layer of a PCIe 3.0 x16 slot (mortar_pcie_wire_init). */
void sim_check_link_defaults(mortar_link_params *p, uint32_t protocol);

/*
 * Reads the link options of `l` present in it over the defaults already in
 * `p` (sim_check_link_defaults): sim_check_link_keys and also "sync",
 * "timeout" and "protocol". Durations need a unit; latency, sync_interval
 * and bandwidth, when given, are greater than 0; "pcie" (PCIe links only)
 * is false or an object of gen, lanes, mps, mrrs, rcb (integers) and
 * dma_read_host, mmio_read_host (durations), checked by
 * mortar_pcie_wire_check; then the link rule (mortar_link_params_check:
 * 0 < sync_interval <= latency, slot geometry).
 */
int sim_check_link_options(json_t *l, const char *where, mortar_link_params *p, char *err,
                           size_t size);

/*
 * The link of `p` trained with the device on one of its ends: `intro` and
 * `size` the upper intro of a port of the link (a PCIe device's intro, or
 * anything else, which leaves `p` as it is). mortar_pcie_wire_train.
 */
void sim_check_link_train(mortar_link_params *p, const void *intro, uint32_t size);

#endif
