/*
 * trace_cmd.h - `mortar trace RUN --format perfetto|otlp|timeline`: export one
 * request of a run, joined end to end (trace_export.h, docs/traces.md).
 */
#ifndef MORTAR_CLI_TRACE_CMD_H
#define MORTAR_CLI_TRACE_CMD_H

int mortar_trace_main(int argc, char **argv);

#endif
