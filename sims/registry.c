/*
 * registry.c - the table of built-in component models.
 */
#include "sims/registry.h"
#include "mortar/hoststub.h"
#include "mortar/rtl.h"

#include <string.h>

static const mortar_component_ops *const models[] = {
    &mortar_testgen_ops,
    &mortar_switch_ops,
    &mortar_hoststub_ops,
    &mortar_e1000_ops,
    &mortar_i40e_ops,
    &mortar_pcitest_ops,
    &mortar_rtl_ops,
    NULL,
};

const mortar_component_ops *mortar_registry_find(const char *kind)
{
    for (int i = 0; models[i]; i++)
        if (strcmp(models[i]->kind, kind) == 0)
            return models[i];
    return NULL;
}

const mortar_component_ops *const *mortar_registry_all(void)
{
    return models;
}
