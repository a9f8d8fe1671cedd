/*
 * usage.c - prints a command's usage from its table (commands.c) and parses
 * its options with getopt_long (see usage.h).
 *
 * getopt_long prints its own messages for an unknown option or a missing
 * value, prefixed with argv[0]; the parser sets argv[0] to "mortar CMD" so
 * that they name the command, then adds the usage line and where the help
 * is. Long options must be written in full: getopt_long would take a
 * unique prefix, so `trace --out` would quietly mean `--output` (a file,
 * where `--out` is a directory everywhere else) and a command line's
 * meaning would change when an option is added.
 */
#include "usage.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#define HELP_COLUMN 30
#define LINE_WIDTH  80

static const cli_option help_option = {CLI_KEY_HELP, "show this help and exit"};
static const cli_option version_option = {CLI_KEY_VERSION, "print the version and exit"};

void cli_print_version(FILE *out)
{
    fprintf(out, "mortar %s (commit %s)\n", MORTAR_VERSION, MORTAR_COMMIT);
}

static void print_usage_line(FILE *out, const cli_command *cmd)
{
    fprintf(out, "Usage: mortar %s [OPTION]...%s%s\n", cmd->name,
            cmd->operands[0] ? " " : "", cmd->operands);
}

static void print_try_help(const cli_command *cmd)
{
    print_usage_line(stderr, cmd);
    fprintf(stderr, "Try 'mortar help %s' for more information.\n", cmd->name);
}

/* "Sentence." from "sentence": the summary as help2man's NAME line wants. */
static void print_sentence(FILE *out, const char *text)
{
    fputc(toupper((unsigned char)text[0]), out);
    fprintf(out, "%s.\n", text + 1);
}

/* Writes `text` (lines ending in '\n') with `indent` before each line. */
static void print_indented(FILE *out, const char *indent, const char *text)
{
    while (*text) {
        size_t len = strcspn(text, "\n");
        fprintf(out, "%s%.*s\n", len ? indent : "", (int)len, text);
        text += len + (text[len] == '\n');
    }
}

/* "  -o, --output FILE     help", the help in a column, wrapped before
 * LINE_WIDTH. */
static void print_option(FILE *out, const char *indent, const cli_option *o)
{
    const cli_flag *f = cli_flag_of(o->key);
    if (!f)
        return;
    char shortname[8] = "    ", left[128];
    if (o->key < 256)
        snprintf(shortname, sizeof shortname, "-%c, ", o->key);
    int n = snprintf(left, sizeof left, "%s  %s--%s%s%s", indent, shortname, f->name,
                     f->value ? " " : "", f->value ? f->value : "");
    int column = HELP_COLUMN + (int)strlen(indent), width = LINE_WIDTH - column;
    if (n >= column - 1)
        fprintf(out, "%s\n%*s", left, column, "");
    else
        fprintf(out, "%-*s", column, left);
    int used = 0;
    for (const char *w = o->help; *w;) {
        int len = (int)strcspn(w, " ");
        if (used > 0 && used + 1 + len > width) {
            fprintf(out, "\n%*s", column, "");
            used = 0;
        }
        fprintf(out, "%s%.*s", used ? " " : "", len, w);
        used += (used ? 1 : 0) + len;
        w += len + (w[len] == ' ');
    }
    fputc('\n', out);
}

/* The help; as a man page section (help2man) indented, its paragraphs
 * apart and without the "Options:" heading. */
static void print_help(FILE *out, const cli_command *cmd, bool section)
{
    const char *indent = section ? "  " : "";
    fputs(indent, out);
    print_usage_line(out, cmd);
    fprintf(out, section ? "\n%s" : "%s", indent);
    print_sentence(out, cmd->summary);
    fprintf(out, "\n%s", section ? "" : "Options:\n");
    for (size_t i = 0; i < CLI_MAX_OPTIONS && cmd->options[i].key; i++)
        print_option(out, indent, &cmd->options[i]);
    print_option(out, indent, &help_option);
    print_option(out, indent, &version_option);
    if (cmd->details) {
        fputc('\n', out);
        print_indented(out, indent, cmd->details);
    }
}

void cli_print_help(FILE *out, const cli_command *cmd)
{
    print_help(out, cmd, false);
    fputs("\nExit status: 0 success, 1 failure, 2 usage error.\n", out);
}

void cli_print_command_section(FILE *out, const cli_command *cmd)
{
    print_help(out, cmd, true);
}

void cli_print_program_help(FILE *out)
{
    fputs("Usage: mortar COMMAND [OPTION]... [ARGUMENT]...\n", out);
    fprintf(out, "%s\n\nCommands:\n", cli_program_summary);
    for (size_t i = 0; cli_commands[i]; i++)
        fprintf(out, "  %-12s%s\n", cli_commands[i]->name, cli_commands[i]->summary);
    fputs("\nOptions:\n", out);
    print_option(out, "", &help_option);
    print_option(out, "", &version_option);
    fprintf(out, "\n%s", cli_program_details);
    fputs("\nExit status:\n"
          "  0  success\n"
          "  1  failure: the command could not do its work (the reason is on stderr)\n"
          "  2  usage error: a bad command line; nothing was done\n",
          out);
}

int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
    fprintf(stderr, "mortar %s: ", cmd->name);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    print_try_help(cmd);
    return CLI_EXIT_USAGE;
}

/* ---- parsing ------------------------------------------------------------------- */

static void add_option(cli_parser *p, size_t *nlong, size_t *nshort, int key)
{
    const cli_flag *f = cli_flag_of(key);
    if (!f)
        return;
    p->longopts[(*nlong)++] =
        (struct option){f->name, f->value ? required_argument : no_argument, NULL, key};
    if (key < 256) {
        p->shortopts[(*nshort)++] = (char)key;
        if (f->value)
            p->shortopts[(*nshort)++] = ':';
    }
}

void cli_parser_init(cli_parser *p, const cli_command *cmd, int argc, char **argv)
{
    static char prog[64];
    *p = (cli_parser){.cmd = cmd, .argc = argc, .argv = argv, .first_operand = argc};
    size_t nlong = 0, nshort = 0;
    for (size_t i = 0; i < CLI_MAX_OPTIONS && cmd->options[i].key; i++)
        add_option(p, &nlong, &nshort, cmd->options[i].key);
    add_option(p, &nlong, &nshort, CLI_KEY_HELP);
    add_option(p, &nlong, &nshort, CLI_KEY_VERSION);
    p->longopts[nlong] = (struct option){0};
    p->shortopts[nshort] = '\0';
    /* getopt_long's messages start with argv[0] */
    snprintf(prog, sizeof prog, "mortar %s", cmd->name);
    if (argc > 0)
        argv[0] = prog;
    optind = 0; /* 0, not 1: glibc starts over, permutation included */
    opterr = 1;
}

/* The option word just read ("--out" of "--out x" or "--out=x"), when
 * it abbreviates the long option `full`; else NULL. */
static const char *abbreviation(const cli_parser *p, const char *full)
{
    bool separate = optarg && optind >= 2 && optarg == p->argv[optind - 1];
    const char *word = p->argv[optind - (separate ? 2 : 1)];
    if (strncmp(word, "--", 2))
        return NULL;
    size_t len = strcspn(word + 2, "=");
    return len == strlen(full) ? NULL : word;
}

int cli_next(cli_parser *p)
{
    int longindex = -1;
    int c = getopt_long(p->argc, p->argv, p->shortopts, p->longopts, &longindex);
    p->value = optarg;
    const char *abbreviated = longindex >= 0 && c != '?' && c != ':'
                                  ? abbreviation(p, p->longopts[longindex].name)
                                  : NULL;
    if (abbreviated) {
        fprintf(stderr,
                "mortar %s: unrecognized option '%.*s' (options are written in full:"
                " --%s?)\n",
                p->cmd->name, (int)strcspn(abbreviated, "="), abbreviated,
                p->longopts[longindex].name);
        print_try_help(p->cmd);
        return CLI_STOP_USAGE;
    }
    if (optarg && !optarg[0] && c != '?' && c != ':') {
        /* an empty value names no file and sets nothing ("--db=" once put a
         * run's record in SQLite's temporary database) */
        if (longindex >= 0)
            fprintf(stderr, "mortar %s: option '--%s' wants a value; it is empty\n",
                    p->cmd->name, p->longopts[longindex].name);
        else
            fprintf(stderr, "mortar %s: option '-%c' wants a value; it is empty\n",
                    p->cmd->name, c);
        print_try_help(p->cmd);
        return CLI_STOP_USAGE;
    }
    if (c == CLI_KEY_SET && (!strchr(optarg, '=') || optarg[0] == '=')) {
        /* the shape of KEY=VALUE, for every command that takes --set */
        cli_usage_error(p->cmd, "--set %s: expected KEY=VALUE", optarg);
        return CLI_STOP_USAGE;
    }
    if (c == CLI_KEY_OUT && !strcmp(optarg, "-")) {
        /* --out is a folder of files (run directories, the report's page
         * and traces): no stream to send to stdout, and no folder named
         * '-' made by mistake */
        cli_usage_error(p->cmd, "--out -: the output is a folder, not one stream; name a"
                                " folder (--out ./- for one named '-')");
        return CLI_STOP_USAGE;
    }
    switch (c) {
    case -1:
        p->first_operand = optind;
        return CLI_DONE;
    case CLI_KEY_HELP:
        cli_print_help(stdout, p->cmd);
        return CLI_STOP_OK;
    case CLI_KEY_VERSION:
        cli_print_version(stdout);
        return CLI_STOP_OK;
    case '?':
    case ':':
        print_try_help(p->cmd);
        return CLI_STOP_USAGE;
    default:
        return c;
    }
}

int cli_stop_status(int key)
{
    return key == CLI_STOP_OK ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}
