/*
 * verdict_cmd.h - `mortar verdict` (being written).
 */
#ifndef MORTAR_CLI_VERDICT_CMD_H
#define MORTAR_CLI_VERDICT_CMD_H

int mortar_verdict_main(int argc, char **argv);

#endif
