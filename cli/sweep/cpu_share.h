/*
 * cpu_share.h - which CPUs each concurrent run of a sweep may use.
 *
 * A run's processes (two QEMU hosts and a simulator) take turns in lockstep:
 * most of the time one computes while the others wait for it. Two runs left
 * to the scheduler on two cores keep six such processes moving between the
 * cores, and their waits (spinning, yielding) take CPU from the one that
 * computes. Kept on a core of its own, a run's waiting process gives the
 * core straight to its partner. Measured on this 2-core machine: two
 * design runs side by side in 19-20 s instead of 28-30 s, the same results
 * (docs/experiments.md). The placement changes no simulated figure.
 */
#ifndef MORTAR_CLI_CPU_SHARE_H
#define MORTAR_CLI_CPU_SHARE_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

/* The share of job slot `slot` of `slots`: the CPUs this process may use
 * (its affinity), split into `slots` contiguous parts as even as they can
 * be. False (and *out untouched) when there is nothing to split: one slot,
 * fewer CPUs than slots, or the affinity cannot be read. */
bool cpu_share_of_slot(size_t slot, size_t slots, cpu_set_t *out);

#endif
