/*
 * main.c - the `mortar` command: a dispatcher over subcommands.
 *
 *   mortar COMMAND [OPTION]... [ARGUMENT]...   run a command (commands.c lists them)
 *   mortar help [COMMAND]                      the commands, or one command's usage
 *   mortar --help | --version
 *
 * Each subcommand lives in its own file, has the signature of main() and
 * parses its options with the parser of usage.h, from its entry in
 * commands.c. The commands that belong to the program itself (version,
 * help, completion) are here.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "mortar/log.h"
#include "host_attach.h"
#include "usage.h"

int mortar_version_main(int argc, char **argv)
{
    cli_parser p;
    cli_parser_init(&p, &mortar_cmd_version, argc, argv);
    int key = cli_next(&p); /* it takes no option but --help and --version */
    if (key != CLI_DONE)
        return cli_stop_status(key);
    if (p.first_operand < argc)
        return cli_usage_error(&mortar_cmd_version, "unexpected '%s'",
                               argv[p.first_operand]);
    cli_print_version(stdout);
    return CLI_EXIT_OK;
}

int mortar_help_main(int argc, char **argv)
{
    cli_parser p;
    bool all = false;
    int key;
    cli_parser_init(&p, &mortar_cmd_help, argc, argv);
    while ((key = cli_next(&p)) != CLI_DONE) {
        if (key != CLI_KEY_ALL)
            return cli_stop_status(key);
        all = true;
    }
    int operands = argc - p.first_operand;
    if (operands > 1)
        return cli_usage_error(&mortar_cmd_help, "one COMMAND at most");
    if (operands == 1) {
        const cli_command *cmd = cli_command_find(argv[p.first_operand]);
        if (!cmd)
            return cli_usage_error(&mortar_cmd_help, "no command '%s'",
                                   argv[p.first_operand]);
        cli_print_help(stdout, cmd);
        return CLI_EXIT_OK;
    }
    cli_print_program_help(stdout);
    /* one section per command: the form help2man makes a man page section of */
    for (size_t i = 0; all && cli_commands[i]; i++) {
        printf("\nmortar %s:\n", cli_commands[i]->name);
        cli_print_command_section(stdout, cli_commands[i]);
    }
    return CLI_EXIT_OK;
}

int mortar_completion_main(int argc, char **argv)
{
    cli_parser p;
    cli_parser_init(&p, &mortar_cmd_completion, argc, argv);
    int key = cli_next(&p); /* it takes no option but --help and --version */
    if (key != CLI_DONE)
        return cli_stop_status(key);
    if (argc - p.first_operand != 1 || strcmp(argv[p.first_operand], "bash"))
        return cli_usage_error(&mortar_cmd_completion, "the shell is 'bash'");
    cli_write_bash_completion(stdout);
    return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
    mortar_log_init_from_env();
    if (argc < 2) {
        cli_print_program_help(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
        cli_print_program_help(stdout);
        return CLI_EXIT_OK;
    }
    if (!strcmp(name, "--version")) {
        cli_print_version(stdout);
        return CLI_EXIT_OK;
    }
    if (!strcmp(name, "host-attach")) /* internal: a run's host on a kept QEMU */
        return mortar_host_attach_main(argc - 1, argv + 1);
    const cli_command *cmd = cli_command_find(name);
    if (!cmd) {
        fprintf(stderr,
                "mortar: unknown command '%s'\n"
                "Try 'mortar --help' for the commands.\n",
                name);
        return CLI_EXIT_USAGE;
    }
    return cmd->run(argc - 1, argv + 1);
}
