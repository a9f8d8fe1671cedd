/*
 * spec_cmd.h - `mortar spec`: check and print a resolved experiment spec.
 */
#ifndef MORTAR_CLI_SPEC_CMD_H
#define MORTAR_CLI_SPEC_CMD_H

int mortar_spec_main(int argc, char **argv);

#endif
