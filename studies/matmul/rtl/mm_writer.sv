// mm_writer.sv - the result writer: writes a finished output tile from the
// accumulator to host memory by DMA, in the format the descriptor asks for
// (int8: each int32 requantized by the rule of studies/matmul/model/result.h,
// TILE x TILE bytes; int32: the raw accumulators, 4 x TILE x TILE bytes),
// row-major, in posted write requests of at most 4096 bytes each followed
// by its beats. It also sends the 64-byte completion record (one request,
// one beat), so every write leaves in the order it was asked for.
//
// Rows are read from the accumulator one at a time (`rows_read` counts
// them, so the compute array may overwrite a row as soon as it is read),
// formatted, and cut into pieces of min(row bytes, 64) that fill beats.
module mm_writer
#(
    parameter int TILE = 128
) (
    input logic clk,
    input logic rst_n,

    input  logic        start_tile,  // one-edge pulse while idle
    input  logic [63:0] tile_addr,
    input  logic        tile_i32,
    input  logic        start_rec,   // one-edge pulse while idle
    input  logic [63:0] rec_addr,
    input  logic [511:0] rec_beat,
    output logic        busy,
    output logic        rec_sent,    // one-edge pulse: the record's beat left

    // accumulator rows (the read port is the writer's while `reading`)
    output logic                      reading,
    output logic [$clog2(TILE+1)-1:0] rows_read,
    output logic                      acc_re,
    output logic [  $clog2(TILE)-1:0] acc_raddr,
    input  logic [       32*TILE-1:0] acc_rdata,

    // write requests, to the port arbiter, and their data
    output logic         rq_valid,
    input  logic         rq_ready,
    output logic [ 63:0] rq_addr,
    output logic [ 12:0] rq_len,
    output logic [  7:0] rq_tag,
    output logic         dma_wdata_valid,
    input  logic         dma_wdata_ready,
    output logic [511:0] dma_wdata,
    output logic         dma_wdata_last
);
  localparam int LT = $clog2(TILE);
  localparam int LR = $clog2(TILE + 1);
  // per format: piece bytes, pieces per row, pieces per beat, chunk bytes,
  // chunks per tile, beats per chunk
  localparam int P8 = TILE < 64 ? TILE : 64;
  localparam int P32 = 4 * TILE < 64 ? 4 * TILE : 64;
  localparam int PPR8 = TILE / P8;
  localparam int PPR32 = 4 * TILE / P32;
  localparam int PPB8 = 64 / P8;
  localparam int PPB32 = 64 / P32;
  localparam int TB8 = TILE * TILE;
  localparam int TB32 = 4 * TILE * TILE;
  localparam int CH8 = TB8 < mm_pkg::DMA_MAX_BYTES ? TB8 : mm_pkg::DMA_MAX_BYTES;
  localparam int CH32 = TB32 < mm_pkg::DMA_MAX_BYTES ? TB32 : mm_pkg::DMA_MAX_BYTES;
  localparam int NC8 = TB8 / CH8;
  localparam int NC32 = TB32 / CH32;

  localparam logic [1:0] M_IDLE = 2'd0, M_TILE = 2'd1, M_REC = 2'd2;

  logic [1:0] mode;
  logic i32;
  logic [63:0] addr;
  logic [7:0] chunks_left;
  logic [6:0] beats_left;
  logic req_sent;
  logic [LR-1:0] rows_rd;
  logic rd_pending, row_valid;
  logic [32*TILE-1:0] row;
  logic [7:0] si, pi;
  logic [511:0] beat;

  logic [7:0] ppr, ppb;
  logic [12:0] chunk_bytes;
  assign ppr = i32 ? 8'(PPR32) : 8'(PPR8);
  assign ppb = i32 ? 8'(PPB32) : 8'(PPB8);
  assign chunk_bytes = mode == M_REC ? 13'd64 : i32 ? 13'(CH32) : 13'(CH8);

  logic beat_full, take, can_append;
  logic [7:0] pos;
  assign beat_full = pi == ppb;
  assign dma_wdata_valid = req_sent && (mode == M_REC || beat_full);
  assign dma_wdata = beat;
  assign dma_wdata_last = beats_left == 7'd1;
  assign take = dma_wdata_valid && dma_wdata_ready;
  assign can_append = mode == M_TILE && row_valid && (!beat_full || take);
  assign pos = beat_full ? 8'd0 : pi;

  assign busy = mode != M_IDLE;
  assign reading = mode == M_TILE && rows_rd < LR'(TILE);
  assign rows_read = rows_rd;
  assign acc_raddr = rows_rd[LT-1:0];

  logic read_now;
  assign read_now = reading && !row_valid && !rd_pending;
  assign acc_re = read_now;

  assign rq_addr = addr;
  assign rq_len = chunk_bytes;
  assign rq_tag = mode == M_REC ? {mm_pkg::DEST_RECORD, 5'd0} : {mm_pkg::DEST_RESULT, 4'd0, chunks_left == 8'd1};

  // int8: the requantize rule of studies/matmul/model/result.h
  function automatic logic [7:0] requantize(input logic [31:0] acc);
    logic signed [32:0] rounded;
    logic signed [20:0] q;
    rounded = $signed({acc[31], acc}) + 33'sd2048;
    q = 21'(rounded >>> 12);
    if (q > 21'sd127) requantize = 8'h7f;
    else if (q < -21'sd128) requantize = 8'h80;
    else requantize = q[7:0];
  endfunction

  // a row as it is sent: the raw accumulators (int32) or each requantized
  // into the row's first TILE bytes (int8)
  function automatic logic [32*TILE-1:0] format_row(input logic as_i32,
                                                      input logic [32*TILE-1:0] acc);
    format_row = '0;
    if (as_i32) format_row = acc;
    else for (int j = 0; j < TILE; j++) format_row[8*j+:8] = requantize(acc[32*j+:32]);
  endfunction

  // The row register has a block of its own: formatting is only worked out
  // for the edge that takes a row.
  always_ff @(posedge clk) begin
    if (!rst_n) row <= '0;
    else if (rd_pending) row <= format_row(i32, acc_rdata);
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      mode <= M_IDLE;
      i32 <= 1'b0;
      addr <= 64'd0;
      chunks_left <= 8'd0;
      beats_left <= 7'd0;
      rq_valid <= 1'b0;
      req_sent <= 1'b0;
      rows_rd <= '0;
      rd_pending <= 1'b0;
      row_valid <= 1'b0;
      si <= 8'd0;
      pi <= 8'd0;
      beat <= 512'd0;
      rec_sent <= 1'b0;
    end else begin
      rec_sent <= 1'b0;
      if (mode == M_IDLE && start_tile) begin
        mode <= M_TILE;
        i32 <= tile_i32;
        addr <= tile_addr;
        chunks_left <= tile_i32 ? 8'(NC32) : 8'(NC8);
        rq_valid <= 1'b1;
        rows_rd <= '0;
        row_valid <= 1'b0;
        si <= 8'd0;
        pi <= 8'd0;
      end else if (mode == M_IDLE && start_rec) begin
        mode <= M_REC;
        addr <= rec_addr;
        chunks_left <= 8'd1;
        rq_valid <= 1'b1;
        beat <= rec_beat;
      end

      if (rq_valid && rq_ready) begin
        rq_valid <= 1'b0;
        req_sent <= 1'b1;
        beats_left <= 7'(chunk_bytes / 13'd64);
      end

      // beats leave; after a request's last beat, the next request
      if (take) begin
        beats_left <= beats_left - 7'd1;
        if (dma_wdata_last) begin
          req_sent <= 1'b0;
          addr <= addr + {51'd0, chunk_bytes};
          chunks_left <= chunks_left - 8'd1;
          if (chunks_left == 8'd1) begin
            if (mode == M_REC) rec_sent <= 1'b1;
            mode <= M_IDLE;
          end else rq_valid <= 1'b1;
        end
      end

      // rows in from the accumulator, pieces into the beat
      rd_pending <= read_now;
      if (rd_pending) begin
        row_valid <= 1'b1;
        si <= 8'd0;
        rows_rd <= rows_rd + 1'b1;
      end
      if (can_append) begin
        if (i32) beat[pos*8*P32+:8*P32] <= row[si*8*P32+:8*P32];
        else beat[pos*8*P8+:8*P8] <= row[si*8*P8+:8*P8];
        pi <= pos + 8'd1;
        si <= si + 8'd1;
        if (si + 8'd1 == ppr) row_valid <= 1'b0;
      end else if (take && mode == M_TILE) pi <= 8'd0;
    end
  end
endmodule
