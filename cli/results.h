/*
 * results.h - `mortar results`: list the runs in the results database.
 */
#ifndef MORTAR_CLI_RESULTS_H
#define MORTAR_CLI_RESULTS_H

int mortar_results_main(int argc, char **argv);

#endif
