/*
 * bench.c - the matmul test bench and the alone benchmark (see bench.h).
 * Tests use the bench with a link latency of their choosing; `mortar alone`
 * uses matmul_alone_run(). The device is the behavioural model (designs a,
 * b, regcopy) or, for rtl-b, design B in RTL on the Verilator adapter
 * (studies/matmul/docs/rtl-matmul.md), driven by the same driver.
 */
#include "model/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mortar/error.h"
#include "mortar/pcie.h"
#include "model/drivers_hoststub.h"
#include "model/matmul.h"
#include "model/reference.h"
#include "model/result.h"
#include "mortar/rtl.h"

#define ALONE_LATENCY_PS  1
#define ALONE_POLL_GAP_PS MORTAR_NS(100)

static int add_host(matmul_bench *b, uint64_t host_mem, char *err, size_t err_size)
{
    char json[96];
    snprintf(json, sizeof json, "{\"mem_size\": %llu}", (unsigned long long)host_mem);
    mortar_params *p = host_mem ? mortar_params_parse(json, "host", err, err_size) : NULL;
    if (host_mem && !p)
        return MORTAR_EINVAL;
    int rc = mortar_loop_add(b->loop, &mortar_hoststub_ops, "host", p, &b->host);
    mortar_params_free(p);
    if (rc)
        snprintf(err, err_size, "%s", mortar_loop_errmsg(b->loop));
    return rc;
}

static int add_device(matmul_bench *b, const mortar_component_ops *dev_ops,
                      const char *dev_params, char *err, size_t err_size)
{
    mortar_params *p = mortar_params_parse(dev_params, "matmul.params", err, err_size);
    if (!p)
        return MORTAR_EINVAL;
    int rc = mortar_loop_add(b->loop, dev_ops, "matmul", p, &b->dev);
    mortar_params_free(p);
    if (rc)
        snprintf(err, err_size, "%s", mortar_loop_errmsg(b->loop));
    return rc;
}

static int join(matmul_bench *b, uint64_t latency_ps, char *err, size_t err_size)
{
    mortar_link_params lp;
    mortar_link_params_init(&lp);
    lp.name = "pcie";
    lp.protocol = MORTAR_PROTO_PCIE;
    lp.slot_size = MORTAR_PCIE_SLOT_SIZE;
    lp.latency_ps = latency_ps;
    int rc = mortar_loop_connect(b->loop, b->host, 0, b->dev, 0, &lp);
    if (rc)
        snprintf(err, err_size, "%s", mortar_loop_errmsg(b->loop));
    return rc;
}

int matmul_bench_open(matmul_bench *b, const char *dev_params, uint64_t latency_ps,
                      uint64_t host_mem, const char *trace_path, char *err,
                      size_t err_size)
{
    return matmul_bench_open_device(b, &mortar_matmul_ops, dev_params, latency_ps,
                                    host_mem, trace_path, err, err_size);
}

int matmul_bench_open_device(matmul_bench *b, const mortar_component_ops *dev_ops,
                             const char *dev_params, uint64_t latency_ps,
                             uint64_t host_mem, const char *trace_path, char *err,
                             size_t err_size)
{
    memset(b, 0, sizeof *b);
    int rc = mortar_loop_create(&b->loop);
    if (rc) {
        snprintf(err, err_size, "out of memory");
        return rc;
    }
    if (trace_path && (rc = mortar_loop_trace_to(b->loop, trace_path)) != 0)
        snprintf(err, err_size, "%s", mortar_loop_errmsg(b->loop));
    if (!rc)
        rc = add_host(b, host_mem, err, err_size);
    if (!rc)
        rc = add_device(b, dev_ops, dev_params, err, err_size);
    if (!rc)
        rc = join(b, latency_ps, err, err_size);
    if (!rc && (rc = mortar_loop_start(b->loop)) != 0)
        snprintf(err, err_size, "%s", mortar_loop_errmsg(b->loop));
    if (rc) {
        matmul_bench_close(b);
        return rc;
    }
    b->h = mortar_hoststub_get(b->host, b->loop);
    return MORTAR_OK;
}

void matmul_bench_close(matmul_bench *b)
{
    mortar_loop_destroy(b->loop);
    memset(b, 0, sizeof *b);
}

/* ---- checked requests and the alone benchmark ----------------------------------------
 */

typedef struct operands {
    int8_t *a, *b;
    void *c;      /* the device's product, in the driver's format */
    int32_t *ref; /* the reference product (int32) */
    int8_t *ref8; /* ... requantized */
} operands;

static void free_operands(operands *o)
{
    free(o->a);
    free(o->b);
    free(o->c);
    free(o->ref);
    free(o->ref8);
}

static int make_operands(operands *o, uint32_t n, uint64_t seed)
{
    size_t nn = (size_t)n * n;
    o->a = malloc(nn);
    o->b = malloc(nn);
    o->c = calloc(nn, sizeof(int32_t));
    o->ref = malloc(nn * sizeof *o->ref);
    o->ref8 = malloc(nn);
    if (!o->a || !o->b || !o->c || !o->ref || !o->ref8)
        return MORTAR_ENOMEM;
    matmul_ref_fill(o->a, nn, seed);
    matmul_ref_fill(o->b, nn, seed + 1);
    return MORTAR_OK;
}

int matmul_bench_check(matmul_drv *d, uint32_t n, uint64_t seed, matmul_drv_result *r,
                       bool *ok)
{
    operands o = {0};
    size_t nn = (size_t)n * n;
    *ok = false;
    int rc = make_operands(&o, n, seed);
    if (!rc)
        rc = matmul_drv_run(d, o.a, o.b, o.c, n, r);
    if (!rc) {
        matmul_ref_multiply(n, o.a, o.b, o.ref);
        matmul_requantize_all(o.ref, o.ref8, nn);
        const void *want =
            d->o.result == MATMUL_RESULT_I32 ? (const void *)o.ref : o.ref8;
        *ok = matmul_ref_compare(o.c, want, nn, matmul_result_bytes(d->o.result)) < 0;
    }
    free_operands(&o);
    return rc;
}

/* Runs the request on an open bench and fills `out`. */
static int alone_request(matmul_bench *b, uint32_t n, uint64_t seed, matmul_result result,
                         matmul_alone_result *out, char *err, size_t err_size)
{
    matmul_drv d;
    matmul_drv_opts opts = {
        .poll_gap_ps = ALONE_POLL_GAP_PS, .ring_entries = 2, .result = result};
    matmul_drv_result r;
    int rc = matmul_drv_open(&d, b->h, n, &opts);
    if (!rc)
        rc = matmul_bench_check(&d, n, seed, &r, &out->product_ok);
    if (rc) {
        snprintf(err, err_size, "driver: %s", matmul_drv_errmsg(&d));
        return rc;
    }
    out->steps = r.steps;
    out->compute_ps = r.dev_compute_ps;
    out->span_ps = r.dev_last_ps - r.dev_first_ps;
    out->service_ps = r.done_ps - r.submit_ps;
    out->step_ps = r.steps ? r.dev_compute_ps / r.steps : 0;
    return MORTAR_OK;
}

/* The device for `design`: the behavioural model's params, or rtl-b's. The
 * RTL has no speed knob (it computes at 1x), so it refuses other speeds
 * rather than report a time that is not the speed asked for. */
static int alone_device(const char *design, double speed, uint32_t n,
                        const mortar_component_ops **ops, char *params,
                        size_t params_size, char *err, size_t err_size)
{
    if (!strcmp(design, MATMUL_ALONE_RTL_B)) {
        if (speed != 1.0) {
            snprintf(err, err_size, "%s computes at speed 1 only (asked %g)", design,
                     speed);
            return MORTAR_EINVAL;
        }
        *ops = &mortar_rtl_ops;
        snprintf(params, params_size, "{\"design\": \"matmul_b\"}");
        return MORTAR_OK;
    }
    *ops = &mortar_matmul_ops;
    snprintf(params, params_size,
             "{\"design\": \"%s\", \"speed\": %.17g, \"n\": %u}", design, speed, n);
    return MORTAR_OK;
}

int matmul_alone_run(const char *design, double speed, uint32_t n, uint64_t seed,
                     matmul_result result, matmul_alone_result *out, char *err,
                     size_t err_size)
{
    char params[160];
    const mortar_component_ops *ops;
    memset(out, 0, sizeof *out);
    int rc = alone_device(design, speed, n, &ops, params, sizeof params, err, err_size);
    if (rc)
        return rc;
    uint64_t nn = (uint64_t)n * n;
    uint64_t host_mem = ((2 * 6 * nn + (8u << 20)) + 0xfffff) & ~0xfffffull;
    matmul_bench b;
    rc = matmul_bench_open_device(&b, ops, params, ALONE_LATENCY_PS, host_mem, NULL, err,
                                  err_size);
    if (rc)
        return rc;
    rc = alone_request(&b, n, seed, result, out, err, err_size);
    matmul_bench_close(&b);
    return rc;
}
