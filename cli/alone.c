/*
 * alone.c - `mortar alone`: the component benchmark of the matmul
 * accelerator. It parses the options, runs matmul_alone_run() (the design's
 * driver against the device on a zero-latency bench, sims/matmul/bench.h)
 * and prints the result as key=value lines, `alone_us` last: the device's
 * compute time for one request, 1920.00 (A, register copy) and 2560.00 (B)
 * at speed 1, scaling with 1/speed; rtl-b (design B in RTL, speed 1 only)
 * reports what its cycles give, 2621.92.
 */
#include "alone.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"
#include "sims/matmul/bench.h"
#include "usage.h"

typedef struct alone_opts {
    const char *design;
    double speed;
    uint32_t n;
    uint64_t seed;
    matmul_result result;
} alone_opts;

static bool parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return errno == 0 && end != s && *end == '\0';
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    *out = v;
    return errno == 0 && end != s && *end == '\0' && s[0] != '-';
}

/* Returns CLI_PARSED, or the exit status after --help, --version or a usage
 * error. */
static int parse_args(int argc, char **argv, alone_opts *o)
{
    *o = (alone_opts){.speed = 1.0,
                      .n = ALONE_DEFAULT_N,
                      .seed = ALONE_DEFAULT_SEED,
                      .result = ALONE_DEFAULT_RESULT};
    const cli_command *cmd = &mortar_cmd_alone;
    bool have_speed = false;
    cli_parser p;
    cli_parser_init(&p, cmd, argc, argv);
    for (int key; (key = cli_next(&p)) != CLI_DONE;) {
        const char *val = p.value;
        uint64_t u;
        if (key == CLI_KEY_DESIGN)
            o->design = val;
        else if (key == CLI_KEY_SPEED) {
            if (!parse_double(val, &o->speed) || !(o->speed > 0))
                return cli_usage_error(cmd, "--speed %s: expected a number > 0", val);
            have_speed = true;
        } else if (key == CLI_KEY_N) {
            if (!parse_u64(val, &u) || u == 0 || u > 4096 || u % 128 != 0)
                return cli_usage_error(cmd, "--n %s: expected a multiple of 128 up to 4096",
                                       val);
            o->n = (uint32_t)u;
        } else if (key == CLI_KEY_SEED) {
            if (!parse_u64(val, &u))
                return cli_usage_error(cmd, "--seed %s: expected a whole number", val);
            o->seed = u;
        } else if (key == CLI_KEY_RESULT) {
            if (!matmul_result_parse(val, &o->result))
                return cli_usage_error(cmd, "--result %s: expected int8 or int32", val);
        } else
            return cli_stop_status(key);
    }
    if (p.first_operand < argc)
        return cli_usage_error(cmd, "unexpected '%s'", argv[p.first_operand]);
    if (!o->design || (strcmp(o->design, "a") && strcmp(o->design, "b") &&
                       strcmp(o->design, "regcopy") && strcmp(o->design, MATMUL_ALONE_RTL_B)))
        return cli_usage_error(cmd, "--design must be a, b, regcopy or rtl-b");
    if (!have_speed)
        return cli_usage_error(cmd, "--speed is required");
    return CLI_PARSED;
}

/* Picoseconds as microseconds with two decimals, rounded, without floats. */
static void print_us(const char *key, uint64_t ps)
{
    uint64_t hundredths = (ps + 5000) / 10000;
    printf("%s=%" PRIu64 ".%02" PRIu64 "\n", key, hundredths / 100, hundredths % 100);
}

int mortar_alone_main(int argc, char **argv)
{
    alone_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc != CLI_PARSED)
        return rc;
    matmul_alone_result r;
    char err[512];
    rc = matmul_alone_run(o.design, o.speed, o.n, o.seed, o.result, &r, err, sizeof err);
    if (rc) {
        fprintf(stderr, "mortar alone: %s\n", err);
        return 1;
    }
    printf("design=%s\nspeed=%g\nn=%" PRIu32 "\nseed=%" PRIu64
           "\nresult=%s\nsteps=%" PRIu32 "\n",
           o.design, o.speed, o.n, o.seed, matmul_result_name(o.result), r.steps);
    printf("step_ps=%" PRIu64 "\n", r.step_ps);
    print_us("span_us", r.span_ps);
    print_us("service_us", r.service_ps);
    printf("product=%s\n", r.product_ok ? "ok" : "WRONG");
    if (!r.product_ok) {
        fprintf(stderr,
                "mortar alone: the product differs from the reference multiply\n");
        return 1;
    }
    print_us("alone_us", r.compute_ps);
    return 0;
}
