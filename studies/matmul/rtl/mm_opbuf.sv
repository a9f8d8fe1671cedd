// mm_opbuf.sv - one operand tile buffer (TILE x TILE int8, 16 KiB at
// TILE = 128), filled by DMA beats and read by the compute array one tile
// row per cycle. Design B has four: two slots (double buffering) of an A
// and a B tile.
//
// A memory word is one row when a row is at least a beat (TILE >= 64: the
// row's TILE/64 beats are gathered and written at once), else one beat
// holding 64/TILE rows (the read picks the row out of the word). Beats of
// one DMA read arrive in order and a word never spans two reads (reads are
// whole multiples of a word), so gathering needs no more than the beat
// index.
module mm_opbuf #(
    parameter int TILE = 128,
    // bits of a beat index within the tile (at least 1)
    parameter int BIW = TILE * TILE / 64 > 1 ? $clog2(TILE * TILE / 64) : 1
) (
    input logic clk,

    input logic           wr_valid,
    input logic [BIW-1:0] wr_beat,  // beat index within the tile
    input logic [  511:0] wr_data,

    input  logic                    rd_en,
    input  logic [$clog2(TILE)-1:0] rd_row,
    output logic [      8*TILE-1:0] rd_data  // row rd_row of the last edge with rd_en
);
  localparam int WORD_BYTES = TILE >= 64 ? TILE : 64;
  localparam int WORDS = TILE * TILE / WORD_BYTES;
  localparam int BEATS_PER_WORD = WORD_BYTES / 64;
  localparam int ROWS_PER_WORD = WORD_BYTES / TILE;

  logic [8*WORD_BYTES-1:0] word_q;

  if (WORDS == 1) begin : g_single  // TILE = 8: the whole tile is one beat
    logic [511:0] word;
    logic [$clog2(TILE)-1:0] pick_q;
    always_ff @(posedge clk) begin
      if (wr_valid) word <= wr_data;
      if (rd_en) begin
        word_q <= word;
        pick_q <= rd_row;
      end
    end
    assign rd_data = word_q[8*TILE*pick_q+:8*TILE];
    logic unused;
    assign unused = ^wr_beat;
  end else begin : g_memory
    logic [8*WORD_BYTES-1:0] mem[WORDS];

    if (BEATS_PER_WORD == 1) begin : g_beat_word
      always_ff @(posedge clk) if (wr_valid) mem[wr_beat] <= wr_data;
    end else begin : g_gather
      localparam int LB = $clog2(BEATS_PER_WORD);
      logic [512*(BEATS_PER_WORD-1)-1:0] gathered;
      logic word_complete;
      assign word_complete = wr_beat[LB-1:0] == LB'(BEATS_PER_WORD - 1);
      always_ff @(posedge clk) begin
        if (wr_valid) begin
          if (word_complete) mem[wr_beat[BIW-1:LB]] <= {wr_data, gathered};
        end
      end
      // the word's earlier beats, the latest on top
      if (BEATS_PER_WORD == 2) begin : g_one
        always_ff @(posedge clk) if (wr_valid) gathered <= wr_data;
      end else begin : g_shift
        always_ff @(posedge clk)
          if (wr_valid) gathered <= {wr_data, gathered[$bits(gathered)-1:512]};
      end
    end

    if (ROWS_PER_WORD == 1) begin : g_row_word
      always_ff @(posedge clk) if (rd_en) word_q <= mem[rd_row];
      assign rd_data = word_q;
    end else begin : g_pick_row
      localparam int LR = $clog2(ROWS_PER_WORD);
      logic [LR-1:0] pick_q;
      always_ff @(posedge clk) begin
        if (rd_en) begin
          word_q <= mem[rd_row[$bits(rd_row)-1:LR]];
          pick_q <= rd_row[LR-1:0];
        end
      end
      assign rd_data = word_q[8*TILE*pick_q+:8*TILE];
    end
  end
endmodule
