/*
 * test_matmul_driver_core.c - the matmul driver cores (studies/matmul/model/
 * driver_core.h) against a recording ops table: every MMIO access, window
 * copy and host-memory access they make is logged with its value, and
 * compared with the sequences studies/matmul/docs/matmul.md gives for each design.
 * The expected addresses and bits are written out here from the document's
 * layout rules, not computed with the code under test. A scripted register
 * file answers the reads (STATUS after k polls, STEP_CTRL and CONTROL echo
 * what was written), and the clock moves one round trip per read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "mortar/error.h"
#include "model/driver_core.h"

#define RTT_PS    2000 /* the fake clock: each read takes this long */
#define MEM_BASE  0x20000000ull
#define MEM_BYTES 4096
#define LOG_MAX   256
#define TILE8     16384u /* 128 x 128 int8 */
#define TILE32    65536u /* 128 x 128 int32 */

/* ---- the recording ops ----------------------------------------------------------------
 */

typedef enum op {
    R32 = 1,
    R64,
    W32,
    W64,
    WIN_W, /* window_write: off, size, access */
    WIN_R, /* window_read */
    MEM_W, /* mem_write: addr, size */
    MEM_R,
    BARRIER,
    PAUSE,
} op;

typedef struct access {
    op kind;
    uint64_t where; /* register offset, window offset or host address */
    uint64_t value; /* value written / read; size for windows and memory */
    uint32_t access_bytes;
} access;

typedef struct fake {
    access log[LOG_MAX];
    int n;
    char design; /* 'A' and 'R': STATUS at 0x34, 0x28 echoes; 'B': STATUS at 0x28 */
    /* the register file's answers */
    uint32_t id, dev_n, win[3], err_code, control;
    uint32_t step_ctrl;   /* what STEP_CTRL reads: last written unless forced */
    bool force_step_ctrl; /* read back step_ctrl_forced instead */
    uint32_t step_ctrl_forced;
    uint32_t status_done_after; /* STATUS polls before it says status_final */
    uint32_t status_final;
    uint32_t status_polls;
    uint64_t timing[3]; /* COMPUTE, T_FIRST, T_LAST */
    uint64_t now_ps;
    int clock_reads;
    const char *io_error;
    uint8_t mem[MEM_BYTES];
} fake;

static void record(fake *f, op kind, uint64_t where, uint64_t value,
                   uint32_t access_bytes)
{
    if (f->n < LOG_MAX)
        f->log[f->n] = (access){kind, where, value, access_bytes};
    f->n++;
}

static uint32_t status_value(fake *f)
{
    return f->status_polls++ >= f->status_done_after ? f->status_final : 0;
}

static uint32_t reg_value(fake *f, uint64_t off)
{
    if (f->design == 'B')
        return off == MATMUL_B_STATUS    ? status_value(f)
               : off == MATMUL_B_CONTROL ? f->control
                                         : 0xdeadbeef;
    switch (off) {
    case MATMUL_REG_ID:
        return f->id;
    case MATMUL_REG_N:
        return f->dev_n;
    case MATMUL_R_WIN_A:
        return f->win[0];
    case MATMUL_R_WIN_B:
        return f->win[1];
    case MATMUL_R_WIN_C:
        return f->win[2];
    case MATMUL_A_STEP_CTRL: /* = MATMUL_R_CONTROL */
        return f->force_step_ctrl ? f->step_ctrl_forced : f->step_ctrl;
    case MATMUL_A_ERR_CODE:
        return f->err_code;
    case MATMUL_A_STATUS:
        return status_value(f);
    }
    return 0xdeadbeef;
}

static uint32_t op_read32(void *x, uint64_t off)
{
    fake *f = x;
    uint32_t v = reg_value(f, off);
    f->now_ps += RTT_PS;
    record(f, R32, off, v, 0);
    return v;
}

static uint64_t op_read64(void *x, uint64_t off)
{
    fake *f = x;
    uint64_t v = off == MATMUL_A_COMPUTE   ? f->timing[0]
                 : off == MATMUL_A_T_FIRST ? f->timing[1]
                 : off == MATMUL_A_T_LAST  ? f->timing[2]
                                           : 0xdeadbeef;
    f->now_ps += RTT_PS;
    record(f, R64, off, v, 0);
    return v;
}

static void op_write32(void *x, uint64_t off, uint32_t v)
{
    fake *f = x;
    if (f->design != 'B' && off == MATMUL_A_STEP_CTRL)
        f->step_ctrl = v;
    record(f, W32, off, v, 0);
}

static void op_write64(void *x, uint64_t off, uint64_t v)
{
    record(x, W64, off, v, 0);
}

static void op_window_write(void *x, uint64_t off, const void *src, uint64_t size,
                            uint32_t access_bytes)
{
    (void)src;
    record(x, WIN_W, off, size, access_bytes);
}

static void op_window_read(void *x, uint64_t off, void *dst, uint64_t size,
                           uint32_t access_bytes)
{
    memset(dst, 0x5a, size);
    record(x, WIN_R, off, size, access_bytes);
}

static uint8_t *host(fake *f, uint64_t addr, uint32_t size)
{
    assert_true(addr >= MEM_BASE && addr - MEM_BASE + size <= MEM_BYTES);
    return f->mem + (addr - MEM_BASE);
}

static void op_mem_write(void *x, uint64_t addr, const void *src, uint32_t size)
{
    fake *f = x;
    memcpy(host(f, addr, size), src, size);
    record(f, MEM_W, addr, size, 0);
}

static void op_mem_read(void *x, uint64_t addr, void *dst, uint32_t size)
{
    fake *f = x;
    memcpy(dst, host(f, addr, size), size);
    record(f, MEM_R, addr, size, 0);
}

static void op_mem_barrier(void *x)
{
    record(x, BARRIER, 0, 0, 0);
}

/* Matrix A's tiles at 0x1000_0000, B's at 0x2000_0000... of a fake space. */
static uint64_t op_tile_addr(void *x, matmul_core_matrix which, uint64_t offset)
{
    (void)x;
    return 0x10000000ull * (which + 1) + offset;
}

static uint64_t op_now_ps(void *x)
{
    fake *f = x;
    f->clock_reads++;
    return f->now_ps;
}

static void op_pause(void *x)
{
    fake *f = x;
    f->now_ps += 100000;
    record(f, PAUSE, 0, 0, 0);
}

static const char *op_io_failed(void *x)
{
    return ((fake *)x)->io_error;
}

static const matmul_core_ops recording_ops = {
    .read32 = op_read32,
    .read64 = op_read64,
    .write32 = op_write32,
    .write64 = op_write64,
    .window_write = op_window_write,
    .window_read = op_window_read,
    .mem_write = op_mem_write,
    .mem_read = op_mem_read,
    .mem_barrier = op_mem_barrier,
    .tile_addr = op_tile_addr,
    .now_ps = op_now_ps,
    .pause = op_pause,
    .io_failed = op_io_failed,
};

static void setup(matmul_core *c, fake *f, char design, matmul_result result)
{
    memset(f, 0, sizeof *f);
    f->design = design;
    f->status_final = MATMUL_STATUS_DONE;
    matmul_core_opts o = {.result = result, .timeout_ps = 1000000000, .copy_bytes = 8};
    matmul_core_init(c, &recording_ops, f, &o);
}

static const char *op_name(op k)
{
    static const char *names[] = {"?",     "R32",   "R64",   "W32",     "W64",  "WIN_W",
                                  "WIN_R", "MEM_W", "MEM_R", "BARRIER", "PAUSE"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

/* The log from entry `from` on is exactly `want`. */
static void expect_log(const fake *f, int from, const access *want, int count)
{
    for (int i = 0; i < count; i++) {
        if (from + i >= f->n)
            fail_msg("access %d: missing, expected %s 0x%llx", from + i,
                     op_name(want[i].kind), (unsigned long long)want[i].where);
        const access *got = &f->log[from + i];
        if (got->kind != want[i].kind || got->where != want[i].where ||
            got->value != want[i].value || got->access_bytes != want[i].access_bytes)
            fail_msg(
                "access %d: got %s 0x%llx = 0x%llx (%u), expected %s 0x%llx = 0x%llx "
                "(%u)",
                from + i, op_name(got->kind), (unsigned long long)got->where,
                (unsigned long long)got->value, got->access_bytes, op_name(want[i].kind),
                (unsigned long long)want[i].where, (unsigned long long)want[i].value,
                want[i].access_bytes);
    }
    assert_int_equal(f->n, from + count);
}

#define A_TILE(off) (0x10000000ull + (off))
#define B_TILE(off) (0x20000000ull + (off))
#define C_TILE(off) (0x30000000ull + (off))
#define DONE_ERROR  (MATMUL_STATUS_DONE | MATMUL_STATUS_ERROR)

/* ---- design A ------------------------------------------------------------------------
 */

static void test_a_open_and_begin_clear_status_and_set_the_request_id(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    setup(&c, &f, 'A', MATMUL_RESULT_I8);
    assert_int_equal(matmul_core_a_open(&c), 0);
    matmul_core_a_begin(&c, 0x100000007ull);
    const access want[] = {
        {W32, 0x34, DONE_ERROR, 0}, /* open: STATUS write-1-to-clear */
        {W32, 0x34, DONE_ERROR, 0}, /* request: STATUS */
        {W32, 0x2c, 7, 0},          /* REQ_ID: the low 32 bits */
    };
    expect_log(&f, 0, want, 3);
}

/*
 * n = 256: T = 2, 8 steps. Step s = (i*2 + j)*2 + k; A tile (i, k), B tile
 * (k, j), C tile (i, j), tile (r, c) at (r*2 + c) * tile bytes. Step 0:
 * i = j = k = 0, FIRST | REQ_BEGIN, no C_ADDR. Step 3: i = 0, j = 1, k = 1,
 * LAST. Step 7: i = j = k = 1, LAST | REQ_END.
 */
static void test_a_step_posts_addresses_reads_back_rings_and_polls(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    setup(&c, &f, 'A', MATMUL_RESULT_I8);
    f.status_done_after = 2;
    assert_int_equal(matmul_core_a_step(&c, 256, 0, NULL), 0);
    const access step0[] = {
        {W64, 0x10, A_TILE(0), 0}, {W64, 0x18, B_TILE(0), 0},
        {W32, 0x28, 0x1 | 0x4, 0}, /* FIRST | REQ_BEGIN */
        {R32, 0x28, 0x1 | 0x4, 0}, /* read back */
        {W32, 0x30, 1, 0},         /* DOORBELL */
        {R32, 0x34, 0, 0},         /* polls until DONE, pausing between */
        {PAUSE, 0, 0, 0},          {R32, 0x34, 0, 0},
        {PAUSE, 0, 0, 0},          {R32, 0x34, MATMUL_STATUS_DONE, 0},
    };
    expect_log(&f, 0, step0, 10);

    int at = f.n;
    f.status_polls = 0;
    f.status_done_after = 0;
    assert_int_equal(matmul_core_a_step(&c, 256, 3, NULL), 0);
    const access step3[] = {
        {W64, 0x10, A_TILE(1 * TILE8), 0}, /* A (0, 1) */
        {W64, 0x18, B_TILE(3 * TILE8), 0}, /* B (1, 1) */
        {W64, 0x20, C_TILE(1 * TILE8), 0}, /* C (0, 1), int8 tile */
        {W32, 0x28, 0x2, 0},               /* LAST */
        {R32, 0x28, 0x2, 0},
        {W32, 0x30, 1, 0},
        {R32, 0x34, MATMUL_STATUS_DONE, 0},
    };
    expect_log(&f, at, step3, 7);
}

static void test_a_int32_steps_carry_result_i32_and_address_int32_tiles(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    setup(&c, &f, 'A', MATMUL_RESULT_I32);
    assert_int_equal(matmul_core_a_step(&c, 256, 7, NULL), 0);
    const access want[] = {
        {W64, 0x10, A_TILE(3 * TILE8), 0},  {W64, 0x18, B_TILE(3 * TILE8), 0},
        {W64, 0x20, C_TILE(3 * TILE32), 0}, /* C (1, 1), int32 tile */
        {W32, 0x28, 0x2 | 0x8 | 0x10, 0},   /* LAST | REQ_END | RESULT_I32 */
        {R32, 0x28, 0x2 | 0x8 | 0x10, 0},   {W32, 0x30, 1, 0},
        {R32, 0x34, MATMUL_STATUS_DONE, 0},
    };
    expect_log(&f, 0, want, 7);
    assert_int_equal(matmul_core_a_step_ctrl(&c, 256, 0), 0x1 | 0x4 | 0x10);
}

static void test_a_request_of_n_512_is_64_steps_with_one_begin_and_one_end(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    setup(&c, &f, 'A', MATMUL_RESULT_I8);
    assert_int_equal(matmul_core_a_steps(512), 64);
    assert_int_equal(matmul_core_a_steps(128), 1);
    int begins = 0, ends = 0, firsts = 0, lasts = 0;
    for (uint32_t s = 0; s < 64; s++) {
        uint32_t ctrl = matmul_core_a_step_ctrl(&c, 512, s);
        begins += !!(ctrl & MATMUL_STEP_REQ_BEGIN);
        ends += !!(ctrl & MATMUL_STEP_REQ_END);
        firsts += !!(ctrl & MATMUL_STEP_FIRST);
        lasts += !!(ctrl & MATMUL_STEP_LAST);
    }
    assert_int_equal(begins, 1);
    assert_int_equal(ends, 1);
    assert_int_equal(firsts, 16); /* one per output tile */
    assert_int_equal(lasts, 16);
    assert_int_equal(matmul_core_a_step_ctrl(&c, 128, 0), 0x1 | 0x2 | 0x4 | 0x8);
}

static void test_a_step_error_fetches_the_code_and_clears_error(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    uint32_t code = 0;
    setup(&c, &f, 'A', MATMUL_RESULT_I8);
    f.status_final = MATMUL_STATUS_ERROR;
    f.err_code = MATMUL_ERR_DMA;
    assert_int_equal(matmul_core_a_step(&c, 128, 0, &code), MORTAR_EPROTO);
    assert_int_equal(code, MATMUL_ERR_DMA);
    assert_non_null(strstr(c.err, "error 3"));
    const access tail[] = {
        {R32, 0x34, MATMUL_STATUS_ERROR, 0},
        {R32, 0x3c, MATMUL_ERR_DMA, 0},      /* ERR_CODE */
        {W32, 0x34, MATMUL_STATUS_ERROR, 0}, /* write 1 to clear */
    };
    expect_log(&f, f.n - 3, tail, 3);
}

static void test_a_step_stops_before_the_doorbell_when_read_back_differs(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    setup(&c, &f, 'A', MATMUL_RESULT_I8);
    f.force_step_ctrl = true;
    f.step_ctrl_forced = 0;
    assert_int_equal(matmul_core_a_step(&c, 128, 0, NULL), MORTAR_EPROTO);
    assert_int_equal(f.log[f.n - 1].kind, R32);
    assert_int_equal(f.log[f.n - 1].where, MATMUL_A_STEP_CTRL);
    for (int i = 0; i < f.n; i++)
        assert_false(f.log[i].kind == W32 && f.log[i].where == MATMUL_A_DOORBELL);
}

/* ---- polling ---------------------------------------------------------------------- */

static void test_poll_pauses_between_reads_and_looks_at_the_clock_every_16(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    setup(&c, &f, 'A', MATMUL_RESULT_I8);
    f.status_done_after = 20;
    assert_int_equal(matmul_core_a_step(&c, 128, 0, NULL), 0);
    int polls = 0, pauses = 0;
    for (int i = 0; i < f.n; i++) {
        polls += f.log[i].kind == R32 && f.log[i].where == MATMUL_A_STATUS;
        pauses += f.log[i].kind == PAUSE;
        if (f.log[i].kind == PAUSE)
            assert_int_equal(f.log[i - 1].where, MATMUL_A_STATUS);
    }
    assert_int_equal(polls, 21);
    assert_int_equal(pauses, 20);
    assert_int_equal(f.clock_reads, 2); /* at the start, after 16 reads */
}

static void test_poll_gives_up_after_the_timeout(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    setup(&c, &f, 'A', MATMUL_RESULT_I8);
    f.status_done_after = UINT32_MAX;
    c.o.timeout_ps = 10 * 16 * (RTT_PS + 100000);
    assert_int_equal(matmul_core_a_step(&c, 128, 0, NULL), MORTAR_ETIMEDOUT);
    assert_true(f.status_polls >= 10 * 16 && f.status_polls <= 12 * 16);
    assert_non_null(strstr(c.err, "STATUS stayed 0x0"));
}

static void test_a_failed_read_is_an_io_error_with_its_reason(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    setup(&c, &f, 'A', MATMUL_RESULT_I8);
    f.io_error = "the read never completed";
    assert_int_equal(matmul_core_a_step(&c, 128, 0, NULL), MORTAR_EIO);
    assert_string_equal(c.err, "reading STEP_CTRL back: the read never completed");
}

/* ---- common ---------------------------------------------------------------------------
 */

static void test_identify_gives_the_design_letter_and_refuses_others(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    char code = 0;
    setup(&c, &f, 'A', MATMUL_RESULT_I8);
    f.id = 0x4d4d4201; /* "MM", 'B', revision 1 */
    assert_int_equal(matmul_core_identify(&c, &code), 0);
    assert_int_equal(code, 'B');
    const access want[] = {{R32, 0x0, 0x4d4d4201, 0}};
    expect_log(&f, 0, want, 1);
    f.id = 0x12344101;
    assert_int_equal(matmul_core_identify(&c, &code), MORTAR_EPROTO);
    f.id = 0x4d4d4102; /* a revision this driver does not know */
    assert_int_equal(matmul_core_identify(&c, &code), MORTAR_EPROTO);
}

static void test_timing_reads_compute_first_last_then_steps(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    matmul_core_timing t = {.accept_ps = 11, .done_ps = 12, .error = 13};
    setup(&c, &f, 'A', MATMUL_RESULT_I8);
    f.timing[0] = 1920000000;
    f.timing[1] = 5000;
    f.timing[2] = 1920040000;
    f.status_final = (64u << 16) | MATMUL_STATUS_DONE;
    assert_int_equal(matmul_core_read_timing(&c, &t), 0);
    const access want[] = {
        {R64, 0x50, 1920000000, 0}, /* COMPUTE */
        {R64, 0x40, 5000, 0},       /* T_FIRST */
        {R64, 0x48, 1920040000, 0}, /* T_LAST */
        {R32, 0x34, (64u << 16) | MATMUL_STATUS_DONE, 0},
    };
    expect_log(&f, 0, want, 4);
    assert_int_equal(t.compute_ps, 1920000000);
    assert_int_equal(t.start_ps, 5000);
    assert_int_equal(t.end_ps, 1920040000);
    assert_int_equal(t.steps, 64);
    assert_int_equal(t.accept_ps, 11); /* untouched */
    assert_int_equal(t.done_ps, 12);
    assert_int_equal(t.error, 13);
}

/* ---- design B ------------------------------------------------------------------------
 */

/* The ring of 5 entries at MEM_BASE programmed and enabled, CONTROL reading
 * `control` before. */
static void open_ring(fake *f, matmul_core_irq irq, uint32_t control)
{
    matmul_core c;
    setup(&c, f, 'B', MATMUL_RESULT_I8);
    f->control = control;
    f->status_final = 0;
    matmul_core_b_ring_program(&c, MEM_BASE, 5, irq);
    assert_int_equal(matmul_core_b_ring_enable(&c), 0);
}

static void test_b_ring_setup_disables_clears_programs_then_enables(void **state)
{
    (void)state;
    static fake f;
    open_ring(&f, MATMUL_CORE_IRQ_OFF, MATMUL_B_CTRL_IRQ);
    const access off[] = {
        {W32, 0x24, 0, 0},        /* CONTROL: disabled */
        {W32, 0x28, 0x70, 0},     /* STATUS: ERR_RING | ERR_DMA | ERR_DESC */
        {W64, 0x10, MEM_BASE, 0}, /* RING_BASE */
        {W32, 0x18, 5, 0},        /* RING_SIZE */
        {W32, 0x24, 0x1, 0},      /* ENABLE, IRQ off whatever CONTROL held */
        {R32, 0x28, 0, 0},        /* STATUS: no ERR_RING */
    };
    expect_log(&f, 0, off, 6);

    open_ring(&f, MATMUL_CORE_IRQ_ON, 0);
    assert_int_equal(f.n, 6);
    assert_int_equal(f.log[4].value, MATMUL_B_CTRL_ENABLE | MATMUL_B_CTRL_IRQ);

    /* KEEP: CONTROL read first, its IRQ bit kept */
    open_ring(&f, MATMUL_CORE_IRQ_KEEP, MATMUL_B_CTRL_IRQ);
    const access keep[] = {
        {R32, 0x24, MATMUL_B_CTRL_IRQ, 0},
        {W32, 0x24, 0, 0},
        {W32, 0x28, 0x70, 0},
        {W64, 0x10, MEM_BASE, 0},
        {W32, 0x18, 5, 0},
        {W32, 0x24, MATMUL_B_CTRL_ENABLE | MATMUL_B_CTRL_IRQ, 0},
        {R32, 0x28, 0, 0},
    };
    expect_log(&f, 0, keep, 7);
    open_ring(&f, MATMUL_CORE_IRQ_KEEP, 0);
    assert_int_equal(f.log[5].value, MATMUL_B_CTRL_ENABLE);
}

static void test_b_enable_fails_when_the_device_refuses_the_ring(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    setup(&c, &f, 'B', MATMUL_RESULT_I8);
    f.status_final = MATMUL_B_ST_ERR_RING;
    matmul_core_b_ring_program(&c, MEM_BASE, 5, MATMUL_CORE_IRQ_OFF);
    assert_int_equal(matmul_core_b_ring_enable(&c), MORTAR_EPROTO);
    assert_non_null(strstr(c.err, "refused the ring"));
    matmul_core_b_ring_disable(&c);
    assert_int_equal(f.log[f.n - 1].kind, W32);
    assert_int_equal(f.log[f.n - 1].where, MATMUL_B_CONTROL);
    assert_int_equal(f.log[f.n - 1].value, 0);
}

/* A little-endian field of `bytes` bytes. */
static uint64_t le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The descriptor's layout (docs: 0x00 id, 0x08 A, 0x10 B, 0x18 C, 0x20
 * record, 0x28 n, 0x2c flags) and the order: record cleared, descriptor at
 * TAIL, barrier, TAIL + 1 posted; TAIL wraps at the ring size. */
static void test_b_queue_clears_the_record_writes_the_descriptor_then_tail(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    setup(&c, &f, 'B', MATMUL_RESULT_I32);
    f.status_final = 0;
    const uint64_t ring = MEM_BASE, record = MEM_BASE + 2048;
    matmul_core_b_ring_program(&c, ring, 3, MATMUL_CORE_IRQ_OFF);
    assert_int_equal(matmul_core_b_ring_enable(&c), 0);
    memset(host(&f, record, 64), 0xff, 64);
    uint32_t tail = 2;
    matmul_desc d = matmul_core_b_desc(&c, 42, 0xa000, 0xb000, 0xc000, record, 256);
    int at = f.n;
    assert_int_equal(matmul_core_b_queue(&c, &tail, &d, record), 0);
    const access want[] = {
        {MEM_W, record, 64, 0},
        {MEM_W, ring + 2 * 64, 64, 0},
        {BARRIER, 0, 0, 0},
        {W32, 0x20, 0, 0}, /* RING_TAIL: 2 + 1 wraps to 0 */
    };
    expect_log(&f, at, want, 4);
    assert_int_equal(tail, 0);
    const uint8_t *p = host(&f, ring + 2 * 64, 64);
    assert_int_equal(le(p + 0x00, 8), 42);
    assert_int_equal(le(p + 0x08, 8), 0xa000);
    assert_int_equal(le(p + 0x10, 8), 0xb000);
    assert_int_equal(le(p + 0x18, 8), 0xc000);
    assert_int_equal(le(p + 0x20, 8), record);
    assert_int_equal(le(p + 0x28, 4), 256);
    assert_int_equal(le(p + 0x2c, 4), 1); /* RESULT_I32 */
    const uint8_t *r = host(&f, record, 64);
    for (int i = 0; i < 64; i++)
        assert_int_equal(r[i], 0);
    assert_false(matmul_core_b_record_done(&c, record));
}

static void put_record(fake *f, uint64_t addr, uint64_t id, uint32_t status,
                       uint32_t error)
{
    matmul_completion cpl = {.req_id = id,
                             .status = status,
                             .error = error,
                             .t_accept_ps = 1,
                             .t_start_ps = 2,
                             .t_end_ps = 3,
                             .compute_ps = 4,
                             .t_done_ps = 5,
                             .steps = 64};
    memcpy(host(f, addr, 64), &cpl, 64);
}

static void test_b_record_becomes_timing_or_an_error(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    matmul_core_timing t;
    const uint64_t record = MEM_BASE + 64;
    setup(&c, &f, 'B', MATMUL_RESULT_I8);
    put_record(&f, record, 9, MATMUL_CPL_DONE, 0);
    assert_true(matmul_core_b_record_done(&c, record));
    const access status_word[] = {{MEM_R, record + 8, 4, 0}};
    expect_log(&f, 0, status_word, 1);
    assert_int_equal(matmul_core_b_finish(&c, record, 9, &t), 0);
    assert_int_equal(t.accept_ps, 1);
    assert_int_equal(t.start_ps, 2);
    assert_int_equal(t.end_ps, 3);
    assert_int_equal(t.compute_ps, 4);
    assert_int_equal(t.done_ps, 5);
    assert_int_equal(t.steps, 64);
    assert_int_equal(t.error, 0);
    for (int i = 0; i < f.n; i++) /* waiting and reading the record: no link traffic */
        assert_true(f.log[i].kind == MEM_R);

    assert_int_equal(matmul_core_b_finish(&c, record, 10, &t), MORTAR_EPROTO);
    assert_non_null(strstr(c.err, "names request 9"));
    put_record(&f, record, 9, MATMUL_CPL_DONE | MATMUL_CPL_ERROR, MATMUL_ERR_BAD_N);
    assert_int_equal(matmul_core_b_finish(&c, record, 9, &t), MORTAR_EPROTO);
    assert_int_equal(t.error, MATMUL_ERR_BAD_N);
}

/* ---- register copy ---------------------------------------------------------------- */

static void test_regcopy_opens_by_reading_windows_and_setting_control(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    setup(&c, &f, 'R', MATMUL_RESULT_I32);
    f.dev_n = 512;
    f.win[0] = 0;
    f.win[1] = 512 * 512;
    f.win[2] = 2 * 512 * 512;
    assert_int_equal(matmul_core_regcopy_open(&c), 0);
    const access want[] = {
        {R32, 0x08, 512, 0},        /* N */
        {R32, 0x10, 0, 0},          /* WIN_A */
        {R32, 0x14, 262144, 0},     /* WIN_B */
        {R32, 0x18, 524288, 0},     /* WIN_C */
        {W32, 0x34, DONE_ERROR, 0}, /* STATUS */
        {W32, 0x28, 0x1, 0},        /* CONTROL: RESULT_I32 */
        {R32, 0x28, 0x1, 0},        /* read back */
    };
    expect_log(&f, 0, want, 7);
    assert_int_equal(c.dev_n, 512);
    assert_int_equal(c.win_c, 524288);

    setup(&c, &f, 'R', MATMUL_RESULT_I8);
    f.dev_n = 500;
    assert_int_equal(matmul_core_regcopy_open(&c), MORTAR_EPROTO);
    assert_int_equal(f.n, 4); /* nothing written for a device it cannot drive */
}

static void test_regcopy_request_copies_in_starts_polls_and_reads_back(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    static int8_t a[128 * 128], b[128 * 128];
    static int32_t out[128 * 128];
    const matmul_result formats[] = {MATMUL_RESULT_I8, MATMUL_RESULT_I32};
    for (int i = 0; i < 2; i++) {
        setup(&c, &f, 'R', formats[i]);
        c.o.copy_bytes = 4;
        f.dev_n = 128;
        f.win[1] = 16384;
        f.win[2] = 32768;
        assert_int_equal(matmul_core_regcopy_open(&c), 0);
        int at = f.n;
        f.status_done_after = 1;
        assert_int_equal(matmul_core_regcopy_run(&c, 3, a, b, out, NULL), 0);
        const access want[] = {
            {W32, 0x34, DONE_ERROR, 0},
            {W32, 0x2c, 3, 0},        /* REQ_ID */
            {WIN_W, 0, 16384, 4},     /* A, 4 bytes per write */
            {WIN_W, 16384, 16384, 4}, /* B */
            {W32, 0x30, 1, 0},        /* START */
            {R32, 0x34, 0, 0},
            {PAUSE, 0, 0, 0},
            {R32, 0x34, MATMUL_STATUS_DONE, 0},
            {WIN_R, 32768, i ? 65536u : 16384u, 4}, /* C: n*n int8 or int32 */
        };
        expect_log(&f, at, want, 9);
    }
}

static void test_regcopy_device_error_skips_the_read_back(void **state)
{
    (void)state;
    matmul_core c;
    fake f;
    static int8_t a[128 * 128], b[128 * 128], out[128 * 128];
    uint32_t code = 0;
    setup(&c, &f, 'R', MATMUL_RESULT_I8);
    f.dev_n = 128;
    assert_int_equal(matmul_core_regcopy_open(&c), 0);
    f.status_final = MATMUL_STATUS_ERROR;
    f.err_code = MATMUL_ERR_BAD_ADDR;
    assert_int_equal(matmul_core_regcopy_run(&c, 1, a, b, out, &code), MORTAR_EPROTO);
    assert_int_equal(code, MATMUL_ERR_BAD_ADDR);
    for (int i = 0; i < f.n; i++)
        assert_true(f.log[i].kind != WIN_R);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_open_and_begin_clear_status_and_set_the_request_id),
        cmocka_unit_test(test_a_step_posts_addresses_reads_back_rings_and_polls),
        cmocka_unit_test(test_a_int32_steps_carry_result_i32_and_address_int32_tiles),
        cmocka_unit_test(test_a_request_of_n_512_is_64_steps_with_one_begin_and_one_end),
        cmocka_unit_test(test_a_step_error_fetches_the_code_and_clears_error),
        cmocka_unit_test(test_a_step_stops_before_the_doorbell_when_read_back_differs),
        cmocka_unit_test(test_poll_pauses_between_reads_and_looks_at_the_clock_every_16),
        cmocka_unit_test(test_poll_gives_up_after_the_timeout),
        cmocka_unit_test(test_a_failed_read_is_an_io_error_with_its_reason),
        cmocka_unit_test(test_identify_gives_the_design_letter_and_refuses_others),
        cmocka_unit_test(test_timing_reads_compute_first_last_then_steps),
        cmocka_unit_test(test_b_ring_setup_disables_clears_programs_then_enables),
        cmocka_unit_test(test_b_enable_fails_when_the_device_refuses_the_ring),
        cmocka_unit_test(test_b_queue_clears_the_record_writes_the_descriptor_then_tail),
        cmocka_unit_test(test_b_record_becomes_timing_or_an_error),
        cmocka_unit_test(test_regcopy_opens_by_reading_windows_and_setting_control),
        cmocka_unit_test(test_regcopy_request_copies_in_starts_polls_and_reads_back),
        cmocka_unit_test(test_regcopy_device_error_skips_the_read_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
