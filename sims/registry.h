/*
 * sims/registry.h - the component models built into mortar-sim, by kind.
 *
 * A new model adds its ops table here and in registry.c.
 */
#ifndef MORTAR_SIMS_REGISTRY_H
#define MORTAR_SIMS_REGISTRY_H

#include "mortar/component.h"

extern const mortar_component_ops mortar_testgen_ops;
extern const mortar_component_ops mortar_e1000_ops;
extern const mortar_component_ops mortar_i40e_ops;
extern const mortar_component_ops mortar_switch_ops;
extern const mortar_component_ops mortar_pcitest_ops;

/* The model of `kind`, or NULL. */
const mortar_component_ops *mortar_registry_find(const char *kind);

/* The NULL-terminated list of all models. */
const mortar_component_ops *const *mortar_registry_all(void);

#endif
