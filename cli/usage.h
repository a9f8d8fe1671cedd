/*
 * usage.h - every subcommand's usage, in one place, and the option parser
 * that reads it.
 *
 * A command (cli_command, commands.c) names its operands, a summary, more
 * text and the options it takes. An option's long name and the kind of its
 * value come from one table of flags (cli_flag, commands.c), so a flag
 * means the same in every command that takes it (`--out` is always a
 * directory, `--output`/`-o` always a file, `-` for stdout). The same
 * tables give `mortar CMD --help`, `mortar help CMD`, the man page (built
 * from `mortar help --all` by help2man) and the bash completion (`mortar
 * completion bash`).
 *
 * Parsing is getopt_long over the command's options plus `-h`/`--help` and
 * `--version`: `--opt value` and `--opt=value` alike, options and operands
 * in any order, `--` ends the options. Exit statuses follow one rule:
 * CLI_EXIT_OK, CLI_EXIT_FAILURE (the command could not do its work),
 * CLI_EXIT_USAGE (a bad command line; nothing was done).
 *
 *   cli_parser p;
 *   cli_parser_init(&p, &mortar_cmd_results, argc, argv);
 *   for (int key; (key = cli_next(&p)) != CLI_DONE;) {
 *       switch (key) {
 *       case CLI_KEY_DB: db = p.value; break;
 *       default: return cli_stop_status(key); // help shown, or a usage error
 *       }
 *   }
 *   // operands: argv[p.first_operand .. argc)
 */
#ifndef MORTAR_CLI_USAGE_H
#define MORTAR_CLI_USAGE_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#define CLI_EXIT_OK      0
#define CLI_EXIT_FAILURE 1
#define CLI_EXIT_USAGE   2
/* What a command's own parse function returns when the command goes on
 * (anything else is the exit status: --help, --version, a usage error). */
#define CLI_PARSED (-1)

/* What an option stands for. A short option's key is its letter. */
typedef enum cli_key {
    CLI_KEY_HELP = 'h',
    CLI_KEY_OUTPUT = 'o',
    CLI_KEY_VERSION = 256,
    CLI_KEY_DB,
    CLI_KEY_OUT,
    CLI_KEY_SET,
    CLI_KEY_TRACE,
    CLI_KEY_NO_TRACE,
    CLI_KEY_STALL_TIMEOUT,
    CLI_KEY_TIMEOUT,
    CLI_KEY_JSON,
    CLI_KEY_GRID,
    CLI_KEY_JOBS,
    CLI_KEY_DRY_RUN,
    CLI_KEY_FORMAT,
    CLI_KEY_REQUEST,
    CLI_KEY_PORT,
    CLI_KEY_ALL,
    CLI_KEY_CSV,
    CLI_KEY_REQUESTS,
    CLI_KEY_COLD_BOOT,
    CLI_KEY_STUDY,
    CLI_KEY_REFINE,
    CLI_KEY_NO_REFINE,
    CLI_KEY_RESOLUTION,
    CLI_KEY_ALLOW_HOST,
    CLI_KEY_VIDEO,
} cli_key;

/* A flag: its long name (without "--") and the name of its value (NULL
 * for a flag without one). A value of "FILE" or "DIR" is completed as a
 * file or a directory; one like "a|b|c" lists its choices. */
typedef struct cli_flag {
    int key;
    const char *name;
    const char *value;
} cli_flag;

/* One option of a command: its key and what it does there. */
typedef struct cli_option {
    int key;
    const char *help;
} cli_option;

#define CLI_MAX_OPTIONS 16

typedef struct cli_command {
    const char *name;                    /* "run" */
    const char *operands;                /* "SPEC", "[COMMAND]", or "" */
    const char *summary;                 /* one line, no period */
    const char *details;                 /* paragraphs after the options, or NULL */
    cli_option options[CLI_MAX_OPTIONS]; /* ends at key 0 */
    int (*run)(int argc, char **argv);   /* argv[0] is the command's name */
} cli_command;

/* The commands, in the order `mortar --help` lists them; NULL-terminated. */
extern const cli_command *const cli_commands[];
/* Every flag any command takes; ends at key 0. */
extern const cli_flag cli_flags[];
/* The program's own usage: summary and details of `mortar --help`. */
extern const char cli_program_summary[], cli_program_details[];

extern const cli_command mortar_cmd_alone, mortar_cmd_run, mortar_cmd_results,
    mortar_cmd_import, mortar_cmd_sweep, mortar_cmd_verdict, mortar_cmd_trace,
    mortar_cmd_report, mortar_cmd_serve, mortar_cmd_spec, mortar_cmd_version,
    mortar_cmd_help, mortar_cmd_completion, mortar_cmd_profile, mortar_cmd_dissector;

/* The program's own commands (main.c). */
int mortar_version_main(int argc, char **argv);
int mortar_help_main(int argc, char **argv);
int mortar_completion_main(int argc, char **argv);

/* The command named `name`, or NULL. */
const cli_command *cli_command_find(const char *name);
/* The flag of `key`, or NULL. */
const cli_flag *cli_flag_of(int key);

/* ---- text ---------------------------------------------------------------------- */

/* "mortar 1.0.0 (commit abc1234)" and a newline. */
void cli_print_version(FILE *out);
/* The command's whole help: usage line, summary, options, details. */
void cli_print_help(FILE *out, const cli_command *cmd);
/* The command's help indented, for `mortar help --all` (which help2man reads:
 * a line ending in ':' followed by indented text is a section). */
void cli_print_command_section(FILE *out, const cli_command *cmd);
/* `mortar --help`: the commands and how to get a command's help. */
void cli_print_program_help(FILE *out);
/* Prints "mortar CMD: <message>", the usage line and where to find more on
 * stderr; returns CLI_EXIT_USAGE. */
int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- parsing ------------------------------------------------------------------- */

enum {
    CLI_DONE = 0,        /* no more options: the operands follow */
    CLI_STOP_OK = -1,    /* --help or --version was printed: exit 0 */
    CLI_STOP_USAGE = -2, /* a usage error was printed: exit 2 */
};

typedef struct cli_parser {
    const cli_command *cmd;
    int argc;
    char **argv;
    const char *value; /* after cli_next: the option's value, or NULL */
    int first_operand; /* after CLI_DONE: argv[first_operand..argc) */
    struct option longopts[CLI_MAX_OPTIONS + 3];
    char shortopts[2 * CLI_MAX_OPTIONS + 8];
} cli_parser;

/* Prepares parsing argv (argv[0] is the command's name; getopt_long
 * reorders argv so that the operands come last). */
void cli_parser_init(cli_parser *p, const cli_command *cmd, int argc, char **argv);
/* The next option's key (its value in p->value), CLI_DONE, or a CLI_STOP_*
 * after printing the help, the version or the usage error. */
int cli_next(cli_parser *p);
/* The exit status for a key that stopped parsing: 0 for CLI_STOP_OK,
 * CLI_EXIT_USAGE for anything else. */
int cli_stop_status(int key);

/* ---- the bash completion --------------------------------------------------------- */

/* Writes the bash completion script for `mortar` (`mortar completion bash`). */
void cli_write_bash_completion(FILE *out);

#endif
