/*
 * import_cmd.h - `mortar import FILE [--db FILE]`: writes a run's result
 * that its final database write could not (run_record.h) into the database.
 */
#ifndef MORTAR_CLI_IMPORT_CMD_H
#define MORTAR_CLI_IMPORT_CMD_H

int mortar_import_main(int argc, char **argv);

#endif
