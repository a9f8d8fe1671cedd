/*
 * test_cli.c - the conventions of every command line of mortar: `--help`
 * on stdout with exit 0, usage errors on stderr with exit 2, failures exit
 * 1, `--opt=value` as `--opt value`, `--version` everywhere (mortar, each
 * subcommand, mortar-sim, the bench programs), `mortar help CMD`, one
 * meaning per flag, and the man page and bash completion the build
 * generates from the same usage text. Nothing here reaches QEMU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <time.h>

#include "cli_util.h"

/* Every subcommand; `mortar --help` must list exactly these. */
static const char *const commands[] = {
    "run",  "sweep",  "results", "verdict", "trace", "profile",   "report", "dissector",
    "serve", "spec",  "alone",   "import",  "version", "help",  "completion"};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static const char *const bench_programs[] = {"bench-link", "bench-run", "bench-net",
                                             "bench-boot", "bench-rtl", "bench-pcie"};
#define N_BENCH (sizeof bench_programs / sizeof bench_programs[0])

static cli_result mortar(const char *dir, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static cli_result mortar(const char *dir, const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return run_program(dir, "mortar", args);
}

static void expect(const cli_result *r, int status, const char *what)
{
    if (r->status != status)
        fail_msg("%s: status %d (expected %d)\nstdout: %s\nstderr: %s", what, r->status,
                 status, r->out, r->err);
}

static void test_mortar_help_lists_every_command(void **state)
{
    const char *dir = *state;
    cli_result r = mortar(dir, "--help");
    expect(&r, 0, "mortar --help");
    const char *list = strstr(r.out, "\nCommands:\n");
    assert_non_null(list);
    size_t listed = 0;
    char name[64];
    for (const char *line = list + 11;
         sscanf(line, "  %63s", name) == 1 && line[0] == ' ';
         line = strchr(line, '\n') + 1) {
        bool known = false;
        for (size_t i = 0; i < N_COMMANDS; i++)
            known |= !strcmp(name, commands[i]);
        if (!known)
            fail_msg("mortar --help lists '%s', which this test does not know", name);
        listed++;
    }
    assert_int_equal(listed, N_COMMANDS);
    cli_result_free(&r);
}

static void test_every_command_prints_its_help_on_stdout(void **state)
{
    const char *dir = *state;
    for (size_t i = 0; i < N_COMMANDS; i++) {
        char usage[64];
        snprintf(usage, sizeof usage, "Usage: mortar %s ", commands[i]);
        for (int form = 0; form < 2; form++) {
            cli_result r = mortar(dir, "%s %s", commands[i], form ? "-h" : "--help");
            expect(&r, 0, commands[i]);
            if (!strstr(r.out, usage) || !strstr(r.out, "--version") || r.err[0])
                fail_msg("mortar %s --help: stdout: %s\nstderr: %s", commands[i], r.out,
                         r.err);
            cli_result_free(&r);
        }
    }
}

static void test_unknown_option_is_a_usage_error_on_stderr(void **state)
{
    const char *dir = *state;
    for (size_t i = 0; i < N_COMMANDS; i++) {
        cli_result r = mortar(dir, "%s --bogus-option", commands[i]);
        expect(&r, 2, commands[i]);
        if (!strstr(r.err, "unrecognized option '--bogus-option'") ||
            !strstr(r.err, "Usage: mortar ") || r.out[0])
            fail_msg("mortar %s --bogus-option: stdout: %s\nstderr: %s", commands[i],
                     r.out, r.err);
        cli_result_free(&r);
    }
    cli_result r = mortar(dir, "no-such-command");
    expect(&r, 2, "an unknown command");
    assert_non_null(strstr(r.err, "unknown command 'no-such-command'"));
    cli_result_free(&r);
    r = mortar(dir, "%s", "");
    expect(&r, 2, "no command");
    assert_string_equal(r.out, "");
    cli_result_free(&r);
}

static void test_missing_value_is_a_usage_error(void **state)
{
    cli_result r = mortar(*state, "results --db");
    expect(&r, 2, "results --db");
    assert_non_null(strstr(r.err, "option '--db' requires an argument"));
    cli_result_free(&r);
}

/* "--db=" once recorded a run in SQLite's temporary database, lost on
 * close: an empty value is refused for every option, before anything runs. */
static void test_empty_value_is_a_usage_error(void **state)
{
    const char *lines[] = {"run experiments/examples/pcitest.json --db=",
                           "results --db ''", "sweep x.json --out=", "trace 1 -o ''",
                           "run x.json --set ''"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        cli_result r = mortar(*state, "%s", lines[i]);
        expect(&r, 2, lines[i]);
        if (!strstr(r.err, "wants a value; it is empty"))
            fail_msg("%s: %s", lines[i], r.err);
        cli_result_free(&r);
    }
}

static void test_abbreviated_option_is_refused(void **state)
{
    /* getopt_long would take --out for --output: a file where --out is a
     * directory in every other command */
    cli_result r = mortar(*state, "trace 1 --format split --out x.json");
    expect(&r, 2, "trace --out");
    assert_non_null(strstr(r.err, "unrecognized option '--out'"));
    assert_non_null(strstr(r.err, "--output"));
    cli_result_free(&r);
}

static void test_option_value_after_equals_works_like_separate(void **state)
{
    const char *dir = *state, *src = source_dir();
    cli_result a =
        mortar(dir, "spec '%s/experiments/examples/pcitest.json' --set name=eq1", src);
    cli_result b =
        mortar(dir, "spec '%s/experiments/examples/pcitest.json' --set=name=eq1", src);
    cli_result c =
        mortar(dir, "spec --set=name=eq1 '%s/experiments/examples/pcitest.json'", src);
    expect(&a, 0, "spec --set v");
    expect(&b, 0, "spec --set=v");
    expect(&c, 0, "spec --set=v SPEC");
    assert_non_null(strstr(a.out, "\"eq1\""));
    assert_string_equal(a.out, b.out);
    assert_string_equal(a.out, c.out);
    cli_result_free(&a);
    cli_result_free(&b);
    cli_result_free(&c);
    a = mortar(dir, "run '%s/experiments/examples/pcitest.json' --timeout 5x", src);
    b = mortar(dir, "run '%s/experiments/examples/pcitest.json' --timeout=5x", src);
    expect(&a, 2, "run --timeout 5x");
    expect(&b, 2, "run --timeout=5x");
    assert_string_equal(a.err, b.err);
    cli_result_free(&a);
    cli_result_free(&b);
}

static void test_failure_exits_1_and_usage_error_2(void **state)
{
    const char *dir = *state;
    cli_result r = mortar(dir, "results --db '%s/missing.db'", dir);
    expect(&r, 1, "results on a missing database");
    cli_result_free(&r);
    r = mortar(dir, "results extra-operand");
    expect(&r, 2, "results with an operand");
    assert_non_null(strstr(r.err, "unexpected 'extra-operand'"));
    cli_result_free(&r);
    r = mortar(dir, "spec");
    expect(&r, 2, "spec without SPEC");
    cli_result_free(&r);
    r = mortar(dir, "spec '%s/no-such-spec.json'", dir);
    expect(&r, 1, "spec of a missing file");
    cli_result_free(&r);
}

/* A --set that is not KEY=VALUE is a malformed value: exit 2 with the
 * usage, in every command that takes --set, before anything is read. */
static void test_malformed_set_is_a_usage_error(void **state)
{
    const char *lines[] = {"run x.json --set foo", "run x.json --set =3", "spec x.json --set foo",
                           "sweep x.json --set foo", "alone --set foo"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        cli_result r = mortar(*state, "%s", lines[i]);
        expect(&r, 2, lines[i]);
        if (!strstr(r.err, "expected KEY=VALUE") || !strstr(r.err, "Try 'mortar help"))
            fail_msg("%s: %s", lines[i], r.err);
        cli_result_free(&r);
    }
}

/* --out is a folder of files (the report's page and traces, run
 * directories): `--out -` (stdout for a one-file output) is refused rather
 * than made a folder named '-'. */
static void test_out_dash_is_a_usage_error(void **state)
{
    const char *dir = *state;
    const char *lines[] = {"report --out - --db missing.db", "run x.json --out -",
                           "sweep x.json --out -"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        cli_result r = mortar(dir, "%s", lines[i]);
        expect(&r, 2, lines[i]);
        if (!strstr(r.err, "--out -: the output is a folder"))
            fail_msg("%s: %s", lines[i], r.err);
        cli_result_free(&r);
    }
    char dash[128];
    snprintf(dash, sizeof dash, "%s/-", dir);
    assert_int_not_equal(access(dash, F_OK), 0);
}

static void test_version_everywhere(void **state)
{
    const char *dir = *state;
    cli_result top = mortar(dir, "--version");
    expect(&top, 0, "mortar --version");
    assert_true(!strncmp(top.out, "mortar ", 7));
    for (size_t i = 0; i < N_COMMANDS; i++) {
        cli_result r = mortar(dir, "%s --version", commands[i]);
        expect(&r, 0, commands[i]);
        assert_string_equal(r.out, top.out);
        cli_result_free(&r);
    }
    cli_result_free(&top);
    cli_result r = run_program(dir, "mortar-sim", "--version");
    expect(&r, 0, "mortar-sim --version");
    assert_true(!strncmp(r.out, "mortar-sim ", 11));
    cli_result_free(&r);
    for (size_t i = 0; i < N_BENCH; i++) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "%s (mortar) ", bench_programs[i]);
        r = run_program(dir, bench_programs[i], "--version");
        expect(&r, 0, bench_programs[i]);
        if (strncmp(r.out, prefix, strlen(prefix)))
            fail_msg("%s --version: %s", bench_programs[i], r.out);
        cli_result_free(&r);
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_bench_help_prints_usage_without_running(void **state)
{
    const char *dir = *state;
    for (size_t i = 0; i < N_BENCH; i++) {
        char cmd[1024], usage[64];
        /* the limit keeps a benchmark that starts anyway from running long */
        snprintf(cmd, sizeof cmd, "timeout 30 '%s/%s' --help", bin_dir(),
                 bench_programs[i]);
        double start = now_s();
        cli_result r = run_command(dir, cmd);
        double took = now_s() - start;
        expect(&r, 0, bench_programs[i]);
        snprintf(usage, sizeof usage, "Usage: %s", bench_programs[i]);
        /* a figure is a line "name=value" */
        if (!strstr(r.out, usage) || strstr(r.out, "\npingpong_rtt_ns=") || took > 5)
            fail_msg("%s --help (%.1f s): %s", bench_programs[i], took, r.out);
        cli_result_free(&r);
        r = run_program(dir, bench_programs[i], "--bogus");
        expect(&r, 2, bench_programs[i]);
        assert_string_equal(r.out, "");
        cli_result_free(&r);
    }
}

static void test_help_command_prints_a_command_usage(void **state)
{
    const char *dir = *state;
    cli_result help = mortar(dir, "help run"), direct = mortar(dir, "run --help");
    expect(&help, 0, "mortar help run");
    assert_non_null(strstr(help.out, "Usage: mortar run [OPTION]... SPEC"));
    assert_non_null(strstr(help.out, "--stall-timeout SECONDS"));
    assert_string_equal(help.out, direct.out);
    cli_result_free(&help);
    cli_result_free(&direct);
    help = mortar(dir, "help no-such-command");
    expect(&help, 2, "mortar help no-such-command");
    cli_result_free(&help);
}

/* Reads the option of a help line ("  -o, --output FILE    write ...") into
 * name and value (the word one space after the name; "" for a flag, whose
 * help is further away). False for other lines. */
static bool option_of_line(const char *line, char *name, char *value)
{
    if (strncmp(line, "  -", 3) && strncmp(line, "      --", 8))
        return false;
    const char *opt = strstr(line, "--");
    size_t len = strcspn(opt, " \n");
    snprintf(name, 64, "%.*s", (int)len, opt);
    value[0] = '\0';
    if (opt[len] == ' ' && opt[len + 1] != ' ' && opt[len + 1] != '\n')
        snprintf(value, 64, "%.*s", (int)strcspn(opt + len + 1, " \n"), opt + len + 1);
    return true;
}

static void test_each_flag_means_one_thing(void **state)
{
    const char *dir = *state;
    char seen[64][64], values[64][64], name[64], value[64];
    const char *where[64];
    size_t nseen = 0;
    for (size_t i = 0; i < N_COMMANDS; i++) {
        cli_result r = mortar(dir, "%s --help", commands[i]);
        expect(&r, 0, commands[i]);
        for (const char *line = r.out; *line;
             line += strcspn(line, "\n") + (*line != 0)) {
            if (*line == '\n' || !option_of_line(line, name, value))
                continue;
            size_t k = 0;
            while (k < nseen && strcmp(seen[k], name))
                k++;
            if (k == nseen) {
                assert_true(nseen < 64);
                snprintf(seen[nseen], 64, "%s", name);
                snprintf(values[nseen], 64, "%s", value);
                where[nseen++] = commands[i];
            } else if (strcmp(values[k], value))
                fail_msg("%s takes '%s' in mortar %s but '%s' in mortar %s", name, value,
                         commands[i], values[k], where[k]);
        }
        cli_result_free(&r);
    }
    bool out_seen = false;
    for (size_t k = 0; k < nseen; k++)
        if (!strcmp(seen[k], "--out")) {
            assert_string_equal(values[k], "DIR");
            out_seen = true;
        }
    assert_true(out_seen);
    cli_result r = mortar(dir, "trace --help");
    assert_non_null(strstr(r.out, "-o, --output FILE"));
    assert_null(strstr(r.out, "--out "));
    cli_result_free(&r);
}

static void test_mortar_sim_follows_the_conventions(void **state)
{
    const char *dir = *state;
    cli_result r = run_program(dir, "mortar-sim", "--help");
    expect(&r, 0, "mortar-sim --help");
    assert_non_null(strstr(r.out, "Usage: mortar-sim"));
    cli_result_free(&r);
    r = run_program(dir, "mortar-sim", "--bogus");
    expect(&r, 2, "mortar-sim --bogus");
    assert_string_equal(r.out, "");
    cli_result_free(&r);
    r = run_program(dir, "mortar-sim", "no-such-description.json");
    expect(&r, 1, "mortar-sim with a missing description");
    cli_result_free(&r);
    r = run_program(dir, "mortar-sim", "--list");
    expect(&r, 0, "mortar-sim --list");
    assert_non_null(strstr(r.out, "switch"));
    cli_result_free(&r);
}

static char *read_generated(const char *relative)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/../%s", bin_dir(), relative);
    char *text = read_text(path);
    if (!text)
        fail_msg("the build did not generate %s", path);
    return text;
}

static void test_man_page_and_completion_cover_every_command(void **state)
{
    (void)state;
    char *man = read_generated("share/man/man1/mortar.1");
    char *sim_man = read_generated("share/man/man1/mortar-sim.1");
    char *completion = read_generated("share/bash-completion/completions/mortar");
    assert_non_null(strstr(man, ".TH MORTAR"));
    assert_non_null(strstr(sim_man, ".TH MORTAR-SIM"));
    assert_non_null(strstr(completion, "complete -F _mortar mortar"));
    for (size_t i = 0; i < N_COMMANDS; i++) {
        char section[64], usage[64], branch[64];
        snprintf(section, sizeof section, ".SS \"mortar %s:\"", commands[i]);
        snprintf(usage, sizeof usage, "Usage: mortar %s ", commands[i]);
        snprintf(branch, sizeof branch, "\n    %s)\n", commands[i]);
        if (!strstr(man, section) || !strstr(man, usage))
            fail_msg("the man page has no section for %s", commands[i]);
        if (!strstr(completion, branch))
            fail_msg("the completion does not know %s", commands[i]);
    }
    assert_non_null(strstr(man, "\\-\\-stall\\-timeout"));
    assert_non_null(strstr(completion, "--stall-timeout"));
    free(man);
    free(sim_man);
    free(completion);
}

static void test_install_puts_man_pages_and_completion_under_the_prefix(void **state)
{
    const char *dir = *state;
    char cmd[1024], path[512];
    snprintf(cmd, sizeof cmd, "cmake --install '%s/..' --prefix '%s/prefix'", bin_dir(), dir);
    cli_result r = run_command(dir, cmd);
    expect(&r, 0, "cmake --install");
    cli_result_free(&r);
    const char *files[] = {"share/man/man1/mortar.1", "share/man/man1/mortar-sim.1",
                           "share/bash-completion/completions/mortar"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/prefix/%s", dir, files[i]);
        if (access(path, R_OK) != 0)
            fail_msg("cmake --install did not install %s", files[i]);
    }
}

static void test_completion_completes_commands_options_and_values(void **state)
{
    const char *dir = *state;
    char path[512], script[2048], cmd[1024];
    snprintf(path, sizeof path, "%s/complete.sh", dir);
    snprintf(script, sizeof script,
             "source '%s/../share/bash-completion/completions/mortar'\n"
             "t() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); _mortar;"
             " echo \"${COMPREPLY[*]}\"; }\n"
             "t mortar tr\n"
             "t mortar trace --for\n"
             "t mortar trace --format ''\n"
             "t mortar trace --format = t\n",
             bin_dir());
    write_text(path, script);
    snprintf(cmd, sizeof cmd, "bash '%s'", path);
    cli_result r = run_command(dir, cmd);
    expect(&r, 0, "bash completion");
    assert_string_equal(r.out,
                        "trace\n--format\nperfetto otlp timeline split\ntimeline\n");
    cli_result_free(&r);
}

static int setup(void **state)
{
    *state = (void *)scratch_dir();
    return 0;
}

static int teardown(void **state)
{
    remove_tree(*state);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mortar_help_lists_every_command),
        cmocka_unit_test(test_every_command_prints_its_help_on_stdout),
        cmocka_unit_test(test_unknown_option_is_a_usage_error_on_stderr),
        cmocka_unit_test(test_missing_value_is_a_usage_error),
        cmocka_unit_test(test_empty_value_is_a_usage_error),
        cmocka_unit_test(test_abbreviated_option_is_refused),
        cmocka_unit_test(test_option_value_after_equals_works_like_separate),
        cmocka_unit_test(test_failure_exits_1_and_usage_error_2),
        cmocka_unit_test(test_malformed_set_is_a_usage_error),
        cmocka_unit_test(test_out_dash_is_a_usage_error),
        cmocka_unit_test(test_version_everywhere),
        cmocka_unit_test(test_bench_help_prints_usage_without_running),
        cmocka_unit_test(test_help_command_prints_a_command_usage),
        cmocka_unit_test(test_each_flag_means_one_thing),
        cmocka_unit_test(test_mortar_sim_follows_the_conventions),
        cmocka_unit_test(test_man_page_and_completion_cover_every_command),
        cmocka_unit_test(test_install_puts_man_pages_and_completion_under_the_prefix),
        cmocka_unit_test(test_completion_completes_commands_options_and_values),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
