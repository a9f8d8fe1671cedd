/*
 * host_faults.h - faults a QEMU host reports in its statistics that make a
 * run's results not the model's (docs/hosts.md, "Time").
 *
 * A host that handled a message after its vCPU had passed it
 * (`late_messages` in <host>.host.json) may have shown its guest a state
 * it should not have. `mortar run` then records the run as failed, naming
 * the host, rather than ok with results nobody can trust.
 */
#ifndef MORTAR_CLI_HOST_FAULTS_H
#define MORTAR_CLI_HOST_FAULTS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* True when no host in a run's `stats` ("host_<name>" objects, as
 * `mortar run` collects them) reports a fault; else false, with the first
 * one in `err`. */
bool host_faults_none(const json_t *stats, char *err, size_t err_size);

#endif
