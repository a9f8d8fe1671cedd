/*
 * verdict_cmd.h - `mortar verdict`: who wins where, from the runs (verdict.h).
 */
#ifndef MORTAR_CLI_VERDICT_CMD_H
#define MORTAR_CLI_VERDICT_CMD_H

int mortar_verdict_main(int argc, char **argv);

#endif
