/*
 * plugin.c - the matmul device model as mortar-sim loads it: the plugin
 * mortar-model-matmul.so, for the kind "matmul" (mortar/plugin.h).
 */
#include "mortar/plugin.h"
#include "model/matmul.h"

MORTAR_PLUGIN(mortar_matmul_ops)
