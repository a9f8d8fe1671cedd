/*
 * dissector_cmd.h - `mortar dissector`: the study's protocol as a Wireshark
 * dissector in Lua (study_wire.h).
 */
#ifndef MORTAR_CLI_DISSECTOR_CMD_H
#define MORTAR_CLI_DISSECTOR_CMD_H

int mortar_dissector_main(int argc, char **argv);

#endif
