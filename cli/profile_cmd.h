/*
 * profile_cmd.h - `mortar profile`: who waits for whom in a finished run
 * (profile_data.h).
 */
#ifndef MORTAR_CLI_PROFILE_CMD_H
#define MORTAR_CLI_PROFILE_CMD_H

int mortar_profile_main(int argc, char **argv);

#endif
