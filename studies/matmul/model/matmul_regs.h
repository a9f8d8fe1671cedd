/*
 * matmul_regs.h - the programming model of the matmul accelerator: PCI ids,
 * BARs, registers and their bits, and design B's descriptor and completion
 * record. It is everything a driver needs to know (with result.h, the
 * result formats and the requantize rule); studies/matmul/docs/matmul.md says the
 * same in prose. The device model (matmul.c, iface_*.c) and the
 * drivers' cores (driver_core*.c, run by the host stub's and the guest's
 * drivers) both include it.
 *
 * All registers are 32 bits, little-endian, at 4-byte aligned offsets of
 * BAR0. A 64-bit register is a LO/HI pair and may also be accessed with one
 * 8-byte access at the LO offset.
 */
#ifndef MORTAR_MATMUL_REGS_H
#define MORTAR_MATMUL_REGS_H

#include <stdbool.h>
#include <stdint.h>

/* ---- identity ------------------------------------------------------------ */

#define MATMUL_VENDOR_ID      0x1de5
#define MATMUL_DEVICE_A       0x0a0a
#define MATMUL_DEVICE_B       0x0a0b
#define MATMUL_DEVICE_REGCOPY 0x0a0c
#define MATMUL_CLASS          0x12 /* processing accelerator */
#define MATMUL_REVISION       1

/* REG_ID reads MATMUL_ID(code): "MM", the design letter, the version. */
#define MATMUL_ID(code)     ((0x4d4du << 16) | ((uint32_t)(code) << 8) | MATMUL_REVISION)
#define MATMUL_CODE_A       'A'
#define MATMUL_CODE_B       'B'
#define MATMUL_CODE_REGCOPY 'R'

/* ---- geometry ------------------------------------------------------------ */

#define MATMUL_TILE     128u                             /* tile edge */
#define MATMUL_TILE_I8  (MATMUL_TILE * MATMUL_TILE)      /* 16 KiB operand tile */
#define MATMUL_TILE_I32 (MATMUL_TILE * MATMUL_TILE * 4u) /* 64 KiB int32 result tile */

/* A result tile is int8 (16 KiB, the default: requantized, see
 * studies/matmul/model/result.h) or int32 (64 KiB, the raw accumulators), as the
 * driver chooses per request: STEP_CTRL.RESULT_I32 (design A), the
 * descriptor's MATMUL_DESC_RESULT_I32 flag (B), CONTROL.RESULT_I32
 * (register copy). */
static inline uint32_t matmul_result_tile_bytes(bool i32)
{
    return i32 ? MATMUL_TILE_I32 : MATMUL_TILE_I8;
}

#define MATMUL_BAR_REGS   0
#define MATMUL_BAR_WINDOW 2      /* register-copy variant only */
#define MATMUL_REGS_SIZE  0x1000 /* BAR0: 4 KiB */

/*
 * Memory layout of operands and results for designs A and B ("tiled"): a
 * matrix of n x n elements is stored as (n/128)^2 tiles, tile (r, c) at
 * byte offset (r * n/128 + c) * tile_bytes, each tile 128 rows of 128
 * elements, row-major inside the tile. The register-copy windows are plain
 * row-major instead.
 */
static inline uint64_t matmul_tile_offset(uint32_t n, uint32_t r, uint32_t c,
                                          uint32_t tile_bytes)
{
    return ((uint64_t)r * (n / MATMUL_TILE) + c) * tile_bytes;
}

/* ---- registers common to all designs -------------------------------------- */

#define MATMUL_REG_ID   0x000 /* RO: MATMUL_ID(code) */
#define MATMUL_REG_TILE 0x004 /* RO: 128 */
#define MATMUL_REG_N    0x008 /* RO: the `n` parameter */

/* ---- design A: one tile step per doorbell --------------------------------- */

#define MATMUL_A_A_ADDR     0x010 /* RW 64-bit: operand A tile (16 KiB, contiguous) */
#define MATMUL_A_B_ADDR     0x018 /* RW 64-bit: operand B tile */
#define MATMUL_A_C_ADDR     0x020 /* RW 64-bit: result tile (16 KiB int8 / 64 KiB int32) */
#define MATMUL_A_STEP_CTRL  0x028 /* RW: MATMUL_STEP_* */
#define MATMUL_A_REQ_ID     0x02c /* RW: request id, recorded in the trace */
#define MATMUL_A_DOORBELL   0x030 /* WO: any value starts the step */
#define MATMUL_A_STATUS     0x034 /* RO + W1C: MATMUL_STATUS_* */
#define MATMUL_A_STEP_COUNT 0x038 /* RO: steps finished since reset */
#define MATMUL_A_ERR_CODE   0x03c /* RO: MATMUL_ERR_* of the last error */
#define MATMUL_A_T_FIRST                                                                 \
    0x040 /* RO 64-bit: ps, compute start of the request's first step */
#define MATMUL_A_T_LAST  0x048 /* RO 64-bit: ps, compute end of its latest step */
#define MATMUL_A_COMPUTE 0x050 /* RO 64-bit: ps of compute in the request so far */

#define MATMUL_STEP_FIRST 0x1 /* clear the accumulator before this step */
#define MATMUL_STEP_LAST  0x2 /* write the result tile to C after this step */
#define MATMUL_STEP_REQ_BEGIN                                                            \
    0x4                         /* first step of a request: timing registers restart     \
                                 */
#define MATMUL_STEP_REQ_END 0x8 /* last step of a request: traced as a completion */
#define MATMUL_STEP_RESULT_I32                                                           \
    0x10 /* LAST steps: write the int32 accumulators, not the requantized int8 tile */

/* STATUS of designs A and register-copy. DONE and ERROR are cleared by
 * writing 1s to them, and DONE also by the next doorbell. */
#define MATMUL_STATUS_BUSY     0x1
#define MATMUL_STATUS_DONE     0x2
#define MATMUL_STATUS_ERROR    0x4
#define MATMUL_STATUS_STEPS(s) ((s) >> 16) /* steps done in the current request */

/* ---- register-copy variant: A's unit behind BAR2 windows ------------------ */

#define MATMUL_R_WIN_A      0x010 /* RO: BAR2 offset of the A window (n*n int8) */
#define MATMUL_R_WIN_B      0x014 /* RO: BAR2 offset of the B window (n*n int8) */
#define MATMUL_R_WIN_C      0x018 /* RO: BAR2 offset of the C window (n*n int8 or int32) */
#define MATMUL_R_CONTROL    0x028 /* RW: MATMUL_R_CTRL_*, latched by START */
#define MATMUL_R_REQ_ID     0x02c /* same meaning as design A's */
#define MATMUL_R_START      0x030 /* WO: any value runs the whole product */
#define MATMUL_R_STATUS     0x034
#define MATMUL_R_STEP_COUNT 0x038
#define MATMUL_R_ERR_CODE   0x03c
#define MATMUL_R_T_FIRST    0x040
#define MATMUL_R_T_LAST     0x048
#define MATMUL_R_COMPUTE    0x050

#define MATMUL_R_CTRL_RESULT_I32 0x1 /* C holds int32 accumulators, not int8 */

/* Windows, row-major: A at 0, B at n*n, C at 2*n*n (room for n*n int32;
 * an int8 product uses its first n*n bytes); BAR2 is the next power of two
 * above 6*n*n bytes (2 MiB for n = 512). */
static inline uint64_t matmul_window_a(uint32_t n)
{
    return 0;
}
static inline uint64_t matmul_window_b(uint32_t n)
{
    return (uint64_t)n * n;
}
static inline uint64_t matmul_window_c(uint32_t n)
{
    return 2ull * n * n;
}
static inline uint64_t matmul_window_bar_size(uint32_t n)
{
    uint64_t need = 6ull * n * n, size = 4096;
    while (size < need)
        size <<= 1;
    return size;
}

/* ---- design B: descriptor ring in host memory ----------------------------- */

#define MATMUL_B_RING_BASE 0x010 /* RW 64-bit: ring address (64-byte entries) */
#define MATMUL_B_RING_SIZE 0x018 /* RW: entries, 1..MATMUL_B_RING_MAX */
#define MATMUL_B_RING_HEAD 0x01c /* RO: index of the descriptor being served/next */
#define MATMUL_B_RING_TAIL                                                               \
    0x020                        /* RW: one past the last descriptor the driver queued   \
                                  */
#define MATMUL_B_CONTROL   0x024 /* RW: MATMUL_B_CTRL_* */
#define MATMUL_B_STATUS    0x028 /* RO + W1C error bits: MATMUL_B_ST_* */
#define MATMUL_B_COMPLETED 0x02c /* RO: descriptors finished since reset */

#define MATMUL_B_RING_MAX 4096

#define MATMUL_B_CTRL_ENABLE 0x1 /* 0->1 resets HEAD and TAIL to 0 */
#define MATMUL_B_CTRL_IRQ    0x2 /* MSI-X vector 0 after each completion record */

#define MATMUL_B_ST_BUSY     0x01 /* serving a descriptor */
#define MATMUL_B_ST_ERR_RING 0x10 /* a bad TAIL/ring setting was ignored */
#define MATMUL_B_ST_ERR_DMA  0x20 /* a DMA failed (master abort) */
#define MATMUL_B_ST_ERR_DESC 0x40 /* a descriptor was rejected */

/* MSI-X: one vector; the host emulates table and PBA in BAR0. */
#define MATMUL_MSIX_TABLE 0x800
#define MATMUL_MSIX_PBA   0xc00

/* Error codes: ERR_CODE register (A) and the completion record (B). */
#define MATMUL_ERR_NONE     0
#define MATMUL_ERR_BAD_N    1 /* n not a multiple of 128 in 128..max */
#define MATMUL_ERR_BAD_ADDR 2 /* an address that wraps around or is 0 */
#define MATMUL_ERR_DMA      3 /* the host refused a DMA */

/* One ring entry, 64 bytes, little-endian. */
typedef struct matmul_desc {
    uint64_t req_id;          /* 0x00 echoed in the completion record */
    uint64_t a_addr;          /* 0x08 operand A, tiled int8 */
    uint64_t b_addr;          /* 0x10 operand B, tiled int8 */
    uint64_t c_addr;          /* 0x18 result C, tiled int8 (or int32, see flags) */
    uint64_t completion_addr; /* 0x20 where the completion record goes */
    uint32_t n;               /* 0x28 matrix size, a multiple of 128 */
    uint32_t flags;           /* 0x2c MATMUL_DESC_*; other bits reserved (0) */
    uint64_t reserved[2];     /* 0x30 */
} matmul_desc;

#define MATMUL_DESC_RESULT_I32 0x1 /* flags: C gets int32 accumulators, not int8 */

#define MATMUL_CPL_DONE  0x1 /* status: the record is valid */
#define MATMUL_CPL_ERROR 0x2 /* status: the request failed; see `error` */

/* The completion record, 64 bytes, written by one DMA write. */
typedef struct matmul_completion {
    uint64_t req_id;      /* 0x00 from the descriptor */
    uint32_t status;      /* 0x08 MATMUL_CPL_* */
    uint32_t error;       /* 0x0c MATMUL_ERR_* */
    uint64_t t_accept_ps; /* 0x10 device began fetching the descriptor */
    uint64_t t_start_ps;  /* 0x18 compute start of the first step */
    uint64_t t_end_ps;    /* 0x20 compute end of the last step */
    uint64_t compute_ps;  /* 0x28 sum of the step compute times */
    uint64_t t_done_ps;   /* 0x30 this record was sent */
    uint32_t steps;       /* 0x38 steps computed */
    uint32_t reserved;    /* 0x3c */
} matmul_completion;

_Static_assert(sizeof(matmul_desc) == 64, "descriptor layout");
_Static_assert(sizeof(matmul_completion) == 64, "completion record layout");

#endif
