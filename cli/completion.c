/*
 * completion.c - writes the bash completion script of `mortar` from the
 * commands' tables (commands.c), so that it offers exactly the commands and
 * options that `--help` shows: `mortar completion bash`, and the build's
 * share/bash-completion/completions/mortar.
 *
 * What a word completes to follows from the usage text: an option whose
 * value is FILE completes file names, DIR directories, "a|b|c" its choices,
 * anything else nothing; a command's operands complete file names when they
 * name a file (SPEC, FILE, a .json path), command names for [COMMAND], and
 * the literal words of a lower-case operand ("bash").
 */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "usage.h"

/* Prints `text` with every '|' as a space: "a|b|c" -> "a b c". */
static void print_choices(FILE *out, const char *text)
{
    for (const char *c = text; *c; c++)
        fputc(*c == '|' ? ' ' : *c, out);
}

/* Lower-case words joined by '|' ("a|b|rtl-b") are choices; a metavariable
 * ("SECONDS") is not. */
static bool is_choice_list(const char *value)
{
    for (const char *c = value; *c; c++)
        if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) && *c != '|' &&
            *c != '-')
            return false;
    return true;
}

static bool names_a_file(const char *operands)
{
    return strstr(operands, "SPEC") || strstr(operands, "FILE") ||
           strstr(operands, ".json");
}

static void write_option_values(FILE *out, const cli_command *cmd)
{
    fputs("        case \"$prev\" in\n", out);
    for (size_t i = 0; i < CLI_MAX_OPTIONS && cmd->options[i].key; i++) {
        const cli_flag *f = cli_flag_of(cmd->options[i].key);
        if (!f || !f->value)
            continue;
        fprintf(out, "        --%s", f->name);
        if (f->key < 256)
            fprintf(out, "|-%c", f->key);
        if (!strcmp(f->value, "FILE"))
            fputs(") _mortar_files; return ;;\n", out);
        else if (!strcmp(f->value, "DIR"))
            fputs(") _mortar_dirs; return ;;\n", out);
        else if (is_choice_list(f->value)) {
            fputs(") _mortar_words \"", out);
            print_choices(out, f->value);
            fputs("\"; return ;;\n", out);
        } else
            fputs(") return ;;\n", out);
    }
    fputs("        esac\n", out);
}

static void write_command(FILE *out, const cli_command *cmd)
{
    fprintf(out, "    %s)\n", cmd->name);
    write_option_values(out, cmd);
    fputs("        options=\"", out);
    for (size_t i = 0; i < CLI_MAX_OPTIONS && cmd->options[i].key; i++) {
        const cli_flag *f = cli_flag_of(cmd->options[i].key);
        if (f)
            fprintf(out, "--%s ", f->name);
    }
    fputs("--help --version\"\n", out);
    if (names_a_file(cmd->operands))
        fputs("        operands=files\n", out);
    else if (strstr(cmd->operands, "COMMAND"))
        fputs("        operands=\"$commands\"\n", out);
    else if (cmd->operands[0] && is_choice_list(cmd->operands)) {
        fputs("        operands=\"", out);
        print_choices(out, cmd->operands);
        fputs("\"\n", out);
    }
    fputs("        ;;\n", out);
}

void cli_write_bash_completion(FILE *out)
{
    fputs("# bash completion for mortar: written by `mortar completion bash` from the\n"
          "# commands' usage (cli/commands.c). Load it with\n"
          "#   source <(mortar completion bash)\n"
          "_mortar_words() { COMPREPLY=($(compgen -W \"$1\" -- \"$cur\")); }\n"
          "_mortar_files() { compopt -o filenames 2>/dev/null; "
          "COMPREPLY=($(compgen -f -- \"$cur\")); }\n"
          "_mortar_dirs() { compopt -o filenames 2>/dev/null; "
          "COMPREPLY=($(compgen -d -- \"$cur\")); }\n"
          "_mortar()\n{\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    local commands=\"",
          out);
    for (size_t i = 0; cli_commands[i]; i++)
        fprintf(out, "%s%s", i ? " " : "", cli_commands[i]->name);
    fputs("\"\n"
          "    local options=\"\" operands=\"\"\n"
          "    COMPREPLY=()\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        _mortar_words \"$commands --help --version\"\n"
          "        return\n"
          "    fi\n"
          "    # --opt=value: bash splits the word at '='\n"
          "    if [ \"$prev\" = \"=\" ] && [ \"$COMP_CWORD\" -ge 3 ]; then\n"
          "        prev=${COMP_WORDS[COMP_CWORD-2]}\n"
          "    elif [ \"$cur\" = \"=\" ]; then\n"
          "        cur=\"\"\n"
          "    fi\n"
          "    case \"${COMP_WORDS[1]}\" in\n",
          out);
    for (size_t i = 0; cli_commands[i]; i++)
        write_command(out, cli_commands[i]);
    fputs("    *) return ;;\n"
          "    esac\n"
          "    if [[ \"$cur\" == -* ]]; then\n"
          "        _mortar_words \"$options\"\n"
          "    elif [ \"$operands\" = files ]; then\n"
          "        _mortar_files\n"
          "    elif [ -n \"$operands\" ]; then\n"
          "        _mortar_words \"$operands\"\n"
          "    fi\n"
          "}\n"
          "complete -F _mortar mortar\n",
          out);
}
