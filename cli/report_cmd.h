/*
 * report_cmd.h - `mortar report` writes the explorer page, `mortar serve`
 * serves it on 127.0.0.1 (docs/explorer.md).
 */
#ifndef MORTAR_CLI_REPORT_CMD_H
#define MORTAR_CLI_REPORT_CMD_H

int mortar_report_main(int argc, char **argv);
int mortar_serve_main(int argc, char **argv);

#endif
