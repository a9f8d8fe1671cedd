/*
 * alone_cmd.h - `mortar alone`: one alone run on request (alone.h).
 */
#ifndef MORTAR_CLI_ALONE_CMD_H
#define MORTAR_CLI_ALONE_CMD_H

/*
 * mortar alone [STUDY] --set AXIS=VARIANT [--set KNOB=VALUE ...] [--db FILE]
 *
 * Runs the variant's alone command at those knob values (STUDY: the
 * default study without one), prints its output and records the run in
 * the results database. Returns 0, 1 when the command failed or gave no
 * result or the run could not be recorded, 2 on a usage error.
 */
int mortar_alone_main(int argc, char **argv);

#endif
