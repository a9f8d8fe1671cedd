/*
 * sweep_cmd.h - `mortar sweep`: a grid of runs, resumable (docs/experiments.md).
 */
#ifndef MORTAR_CLI_SWEEP_CMD_H
#define MORTAR_CLI_SWEEP_CMD_H

int mortar_sweep_main(int argc, char **argv);

#endif
