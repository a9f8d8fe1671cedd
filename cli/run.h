/*
 * run.h - `mortar run`: one experiment end to end, recorded in SQLite.
 */
#ifndef MORTAR_CLI_RUN_H
#define MORTAR_CLI_RUN_H

int mortar_run_main(int argc, char **argv);

#endif
