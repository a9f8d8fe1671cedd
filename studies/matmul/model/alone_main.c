/*
 * alone_main.c - mortar-matmul-alone: the component benchmark of the
 * matmul accelerator, the alone benchmark of the matmul study's variants
 * (studies/matmul/experiments/study.json calls it; `mortar alone` runs it).
 *
 *   mortar-matmul-alone --design a|b|regcopy|rtl-b --speed S [--n 512]
 *                       [--seed N] [--result int8|int32]
 *
 * It runs matmul_alone_run() (the design's driver against the device on a
 * zero-latency bench, bench.h) and prints the result as key=value lines,
 * `alone_us` last: the device's compute time for one request, 1920.00 (A,
 * register copy) and 2560.00 (B) at speed 1, scaling with 1/speed; rtl-b
 * (design B in RTL, speed 1 only) reports what its cycles give, 2621.92.
 * Exit status: 0, 1 when the product is wrong or the run failed, 2 on a
 * usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/bench.h"

#define PROGRAM "mortar-matmul-alone"

static const char usage_text[] =
    "Usage: " PROGRAM " --design a|b|regcopy|rtl-b --speed S [--n N] [--seed N]\n"
    "                           [--result int8|int32]\n"
    "One request through the matmul device alone (host stub, 1 ps link, no\n"
    "bandwidth limit; rtl-b: design B in RTL, speed 1 only, n up to 512), the\n"
    "driver asking for the product in --result's format. Checks the product\n"
    "against the reference multiply and prints key=value lines, alone_us (the\n"
    "device's compute time in us, 2 decimals) last.\n"
    "\n"
    "  --design D   the design (required)\n"
    "  --speed S    compute speed, > 0 (required)\n"
    "  --n N        matrix size, a multiple of 128 up to 4096 (default 512)\n"
    "  --seed N     the inputs' seed (default 1)\n"
    "  --result R   the product's element type (default int8)\n"
    "  -h, --help   this text\n";

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

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, PROGRAM ": ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '" PROGRAM " --help'.\n");
    return 2;
}

static bool known_design(const char *d)
{
    return !strcmp(d, "a") || !strcmp(d, "b") || !strcmp(d, "regcopy") ||
           !strcmp(d, MATMUL_ALONE_RTL_B);
}

/* Returns -1 to go on, or the exit status (after --help or a usage error). */
static int parse_args(int argc, char **argv, alone_opts *o)
{
    static const struct option longs[] = {{"design", required_argument, NULL, 'd'},
                                          {"speed", required_argument, NULL, 's'},
                                          {"n", required_argument, NULL, 'n'},
                                          {"seed", required_argument, NULL, 'e'},
                                          {"result", required_argument, NULL, 'r'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    *o = (alone_opts){.speed = 1.0, .n = 512, .seed = 1, .result = MATMUL_RESULT_I8};
    bool have_speed = false;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, "h", longs, NULL)) != -1;) {
        uint64_t u;
        switch (c) {
        case 'd':
            o->design = optarg;
            break;
        case 's':
            if (!parse_double(optarg, &o->speed) || !(o->speed > 0))
                return usage_error("--speed %s: expected a number > 0", optarg);
            have_speed = true;
            break;
        case 'n':
            if (!parse_u64(optarg, &u) || u == 0 || u > 4096 || u % 128 != 0)
                return usage_error("--n %s: expected a multiple of 128 up to 4096",
                                   optarg);
            o->n = (uint32_t)u;
            break;
        case 'e':
            if (!parse_u64(optarg, &u))
                return usage_error("--seed %s: expected a whole number", optarg);
            o->seed = u;
            break;
        case 'r':
            if (!matmul_result_parse(optarg, &o->result))
                return usage_error("--result %s: expected int8 or int32", optarg);
            break;
        case 'h':
            fputs(usage_text, stdout);
            return 0;
        default:
            return usage_error("unknown option or missing value: %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("unexpected '%s'", argv[optind]);
    if (!o->design || !known_design(o->design))
        return usage_error("%s", "--design must be a, b, regcopy or rtl-b");
    if (!have_speed)
        return usage_error("%s", "--speed is required");
    return -1;
}

/* Picoseconds as microseconds with two decimals, rounded, without floats. */
static void print_us(const char *key, uint64_t ps)
{
    uint64_t hundredths = (ps + 5000) / 10000;
    printf("%s=%" PRIu64 ".%02" PRIu64 "\n", key, hundredths / 100, hundredths % 100);
}

int main(int argc, char **argv)
{
    alone_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    matmul_alone_result r;
    char err[512];
    if (matmul_alone_run(o.design, o.speed, o.n, o.seed, o.result, &r, err, sizeof err)) {
        fprintf(stderr, PROGRAM ": %s\n", err);
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
        fprintf(stderr, PROGRAM ": the product differs from the reference multiply\n");
        return 1;
    }
    print_us("alone_us", r.compute_ps);
    return fflush(stdout) ? 1 : 0;
}
