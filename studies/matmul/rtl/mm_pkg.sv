// mm_pkg.sv - constants of design B of the matmul block in RTL: the BAR0
// register map, the register bits, the error codes and the trace event
// codes. The same numbers as studies/matmul/model/matmul_regs.h (the programming
// model, studies/matmul/docs/matmul.md); the trace codes are this design's own
// (studies/matmul/docs/rtl-matmul.md names them).
package mm_pkg;

  // ---- identity: MATMUL_ID('B') --------------------------------------------
  localparam logic [31:0] ID_VALUE = 32'h4d4d_4201;

  // ---- BAR0 registers (byte offsets) -----------------------------------------
  localparam logic [31:0] REG_ID        = 32'h000;
  localparam logic [31:0] REG_TILE      = 32'h004;
  localparam logic [31:0] REG_N         = 32'h008;
  localparam logic [31:0] REG_RING_BASE = 32'h010;  // 64-bit, LO/HI
  localparam logic [31:0] REG_RING_SIZE = 32'h018;
  localparam logic [31:0] REG_RING_HEAD = 32'h01c;
  localparam logic [31:0] REG_RING_TAIL = 32'h020;
  localparam logic [31:0] REG_CONTROL   = 32'h024;
  localparam logic [31:0] REG_STATUS    = 32'h028;
  localparam logic [31:0] REG_COMPLETED = 32'h02c;

  localparam int RING_MAX = 4096;  // entries

  // CONTROL bits
  localparam int CTRL_ENABLE = 0;
  localparam int CTRL_IRQ    = 1;

  // STATUS bits (BUSY live, the error bits sticky, write 1 to clear)
  localparam int ST_BUSY     = 0;
  localparam int ST_ERR_RING = 4;
  localparam int ST_ERR_DMA  = 5;
  localparam int ST_ERR_DESC = 6;

  // ---- error codes (completion record) ---------------------------------------
  localparam logic [31:0] ERR_NONE     = 32'd0;
  localparam logic [31:0] ERR_BAD_N    = 32'd1;
  localparam logic [31:0] ERR_BAD_ADDR = 32'd2;
  localparam logic [31:0] ERR_DMA      = 32'd3;

  // completion record status bits
  localparam logic [31:0] CPL_DONE  = 32'h1;
  localparam logic [31:0] CPL_ERROR = 32'h2;

  // ---- DMA tags: bits 7:5 say what a read's data is for or what a write is --
  localparam logic [2:0] DEST_DESC   = 3'd0;  // the descriptor (one beat)
  localparam logic [2:0] DEST_S0A    = 3'd1;  // operand slot 0, tile A
  localparam logic [2:0] DEST_S0B    = 3'd2;
  localparam logic [2:0] DEST_S1A    = 3'd3;
  localparam logic [2:0] DEST_S1B    = 3'd4;
  localparam logic [2:0] DEST_RESULT = 3'd6;  // write: a result tile chunk
  localparam logic [2:0] DEST_RECORD = 3'd7;  // write: the completion record

  localparam int DMA_MAX_BYTES = 4096;  // largest DMA request

  // ---- trace event codes (trace_kind) ----------------------------------------
  localparam logic [7:0] TR_DOORBELL      = 8'd1;   // arg: new TAIL
  localparam logic [7:0] TR_DESC_FETCH    = 8'd2;   // arg: ring index
  localparam logic [7:0] TR_DMA_READ      = 8'd3;   // arg: address
  localparam logic [7:0] TR_DMA_READ_DONE = 8'd4;   // arg: address
  localparam logic [7:0] TR_DMA_WRITE     = 8'd5;   // arg: address
  localparam logic [7:0] TR_DMA_WRITE_DONE = 8'd6;  // arg: address
  localparam logic [7:0] TR_COMPUTE_START = 8'd7;   // arg: step index
  localparam logic [7:0] TR_COMPUTE_END   = 8'd8;   // arg: step index
  localparam logic [7:0] TR_COMPLETION    = 8'd9;   // arg: error code
  localparam logic [7:0] TR_INTERRUPT     = 8'd10;  // arg: vector
  localparam logic [7:0] TR_ERROR         = 8'd11;  // arg: error code or STATUS bit

  // True when [addr, addr + size) neither starts at 0 nor wraps around.
  function automatic logic addr_ok(input logic [63:0] addr, input logic [63:0] size);
    addr_ok = addr != 64'd0 && addr + size > addr;
  endfunction

endpackage
