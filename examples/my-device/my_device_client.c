/*
 * my_device_client.c - my-device's guest driver and workload: a program
 * that runs inside a mortar host (QEMU, the Debian kernel), finds the
 * device on the simulated PCIe bus, and has it checksum buffers, checking
 * every answer against the checksum it computes itself.
 *
 * It is a user-space driver on mortar's guest library (mortar_guest.h,
 * installed with the SDK: `pkg-config --static mortar-guest`), linked
 * statically because the guest image has no libc. The sequence is the
 * one my_device_host.c runs without QEMU: per request fill the buffer
 * with xorshift64 bytes from the seed, write SRC_ADDR, LEN, DST_ADDR and
 * CTRL = START | IRQ_EN, wait for MSI vector 0, read STATUS and RESULT,
 * and compare RESULT and the result the device wrote into memory with
 * adler32 of the buffer.
 *
 *   my-device-client [--bytes N] [--requests N] [--seed N]
 *
 * Prints one line per request, "req=K latency_ns=T verified=0|1
 * start_ns=S" (START written to the interrupt seen, in the guest's clock:
 * simulated time; S from the first request's start: docs/studies.md),
 * then a summary. Each request is marked (request_start, request_end) in
 * the host's trace, so `mortar trace` finds it in a traced run. Exit status 0 when every checksum was right, 1 when one
 * was wrong or the device failed, 2 for a bad command line.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adler32.h"
#include "guest_cli.h"
#include "mortar_guest.h"
#include "my_device_regs.h"

#define RESULT_OFFSET   MY_DEVICE_MAX_LEN /* the result's 4 bytes follow the buffer */
#define IRQ_TIMEOUT_NS  1000000000ull     /* 1 s of guest time */
#define MAX_REQUESTS    100000

typedef struct options {
    uint64_t bytes, requests, seed;
} options;

typedef struct client {
    mortar_guest_dev *dev;
    const mortar_guest_bar *regs;
    mortar_guest_dma *mem;
    uint64_t rng;
} client;

static uint8_t next_byte(client *c)
{
    c->rng ^= c->rng << 13;
    c->rng ^= c->rng >> 7;
    c->rng ^= c->rng << 17;
    return (uint8_t)(c->rng >> 24);
}

static void usage_exit(void)
{
    fprintf(stderr, "usage: my-device-client [--bytes N] [--requests N] [--seed N]\n");
    exit(2);
}

static options parse(int argc, char **argv)
{
    options o = {.bytes = 4096, .requests = 1, .seed = 1};
    static const struct option longs[] = {{"bytes", required_argument, NULL, 'b'},
                                          {"requests", required_argument, NULL, 'r'},
                                          {"seed", required_argument, NULL, 's'},
                                          {NULL, 0, NULL, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        if (ch == 'b')
            o.bytes = cli_parse_u64("--bytes", optarg, 1, MY_DEVICE_MAX_LEN);
        else if (ch == 'r')
            o.requests = cli_parse_u64("--requests", optarg, 1, MAX_REQUESTS);
        else if (ch == 's')
            o.seed = cli_parse_u64("--seed", optarg, 1, UINT64_MAX);
        else
            usage_exit();
    }
    if (optind != argc)
        usage_exit();
    return o;
}

static void open_device(client *c)
{
    char err[320];
    if (mortar_guest_open(&c->dev, MY_DEVICE_VENDOR_ID, MY_DEVICE_DEVICE_ID, 0, err,
                          sizeof err) != 0)
        cli_die("%s", err);
    if (mortar_guest_bar_map(c->dev, 0, &c->regs) != 0 ||
        mortar_guest_irq_setup(c->dev, MORTAR_GUEST_IRQ_MSI, 1) != 0 ||
        mortar_guest_bus_master(c->dev, true) != 0)
        cli_die("%s", mortar_guest_errmsg(c->dev));
    uint32_t id = mortar_guest_read32(c->regs, MY_DEVICE_REG_ID);
    if (id != MY_DEVICE_ID_VALUE)
        cli_die("ID reads 0x%08x, not 0x%08x: not my-device", id, MY_DEVICE_ID_VALUE);
    if (mortar_guest_dma_alloc(&c->mem, RESULT_OFFSET + 4, 0, err, sizeof err) != 0)
        cli_die("%s", err);
    if (!mortar_guest_dma_contiguous(c->mem, 0, RESULT_OFFSET + 4))
        cli_die("the DMA buffer is not physically contiguous");
}

/* One request; its latency in *latency_ns. True when the device's checksum,
 * in RESULT and in memory, is the one computed here. */
static bool checksum_once(client *c, uint64_t req, uint64_t bytes, uint64_t *start_ns,
                          uint64_t *latency_ns)
{
    uint8_t *buf = mortar_guest_dma_virt(c->mem);
    for (uint64_t i = 0; i < bytes; i++)
        buf[i] = next_byte(c);
    memset(buf + RESULT_OFFSET, 0, 4);
    uint32_t want = adler32_update(ADLER32_START, buf, bytes);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the buffer in memory before START */
    mortar_guest_write64(c->regs, MY_DEVICE_REG_SRC_ADDR, mortar_guest_dma_phys(c->mem, 0));
    mortar_guest_write32(c->regs, MY_DEVICE_REG_LEN, (uint32_t)bytes);
    mortar_guest_write64(c->regs, MY_DEVICE_REG_DST_ADDR,
                         mortar_guest_dma_phys(c->mem, RESULT_OFFSET));
    mortar_guest_mark(MORTAR_MARK_REQUEST_START, req); /* for `mortar trace` */
    uint64_t start = *start_ns = mortar_guest_now_ns();
    mortar_guest_write32(c->regs, MY_DEVICE_REG_CTRL,
                         MY_DEVICE_CTRL_START | MY_DEVICE_CTRL_IRQ_EN);
    if (mortar_guest_irq_wait(c->dev, 0, IRQ_TIMEOUT_NS) != 0)
        cli_die("no interrupt: %s", mortar_guest_errmsg(c->dev));
    *latency_ns = mortar_guest_now_ns() - start;
    mortar_guest_mark(MORTAR_MARK_REQUEST_END, req);
    uint32_t status = mortar_guest_read32(c->regs, MY_DEVICE_REG_STATUS);
    uint32_t result = mortar_guest_read32(c->regs, MY_DEVICE_REG_RESULT);
    uint32_t in_memory;
    memcpy(&in_memory, buf + RESULT_OFFSET, 4);
    bool right = status == MY_DEVICE_STATUS_DONE && result == want && in_memory == want;
    if (!right)
        cli_warn("adler32 0x%08x, device 0x%08x (in memory 0x%08x, status 0x%x)", want,
                 result, in_memory, status);
    return right;
}

int main(int argc, char **argv)
{
    cli_set_prog("my-device-client");
    options o = parse(argc, argv);
    client c = {.rng = o.seed};
    open_device(&c);
    uint64_t wrong = 0, total_ns = 0, first_ns = 0;
    for (uint64_t r = 0; r < o.requests; r++) {
        uint64_t start_ns, latency_ns;
        bool right = checksum_once(&c, r, o.bytes, &start_ns, &latency_ns);
        if (r == 0)
            first_ns = start_ns;
        wrong += !right;
        total_ns += latency_ns;
        printf("req=%" PRIu64 " latency_ns=%" PRIu64 " verified=%d start_ns=%" PRIu64 "\n", r,
               latency_ns, right, start_ns - first_ns);
    }
    printf("%" PRIu64 " of %" PRIu64 " checksums over %" PRIu64 " bytes checked, %" PRIu64
           " wrong; mean latency %" PRIu64 " ns\n",
           o.requests - wrong, o.requests, o.bytes, wrong, total_ns / o.requests);
    mortar_guest_dma_free(c.mem);
    mortar_guest_close(c.dev);
    return wrong ? 1 : 0;
}
