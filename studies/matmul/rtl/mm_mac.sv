// mm_mac.sv - the compute unit: a TILE-lane int8 multiply-accumulate array
// with an int32 accumulator tile (TILE x TILE, in mm_acc).
//
// One tile step computes acc += A x B for two TILE x TILE int8 tiles. The
// array holds one accumulator row in its lanes: for row r it loads
// acc[r] (or zero on the first step of an output tile), then for
// k = 0..TILE-1 adds A[r][k] * B[k][0..TILE-1] into the TILE lanes (one
// B row per cycle, lane j holds column j), and writes the row back with the
// last product. Rows follow each other without a gap: from the edge that
// takes `start` the TILE * TILE (row, k) pairs issue on the next TILE *
// TILE edges (stage 0: read addresses), the last one's MAC and write-back
// happen one edge later (stage 1: data, multiply, add, write back) and
// `done` is high after that edge: TILE * TILE + 2 edges from start to done
// (mm_ctrl adds one edge for its start register: a step is TILE * TILE + 3
// cycles, 16,387 at TILE = 128).
//
// The result writer may still be reading the previous output tile out of
// the accumulator while a first step (`clear`, which reads no accumulator)
// runs: the array issues the last k of row r, whose write-back overwrites
// acc[r], only when r < rows_free, the rows the writer has already taken.
// The writer takes a row in a few cycles and the array needs TILE cycles
// per row, so in practice it never waits.
module mm_mac #(
    parameter int TILE = 128
) (
    input logic clk,
    input logic rst_n,

    input  logic start,  // one-edge pulse while idle
    input  logic clear,  // with start: first step of an output tile
    input  logic cancel, // drop the step (the request failed)
    input  logic [$clog2(TILE+1)-1:0] rows_free,
    output logic busy,
    output logic done,   // one-edge pulse: the step's last row is written

    // operand rows (synchronous reads: data one edge after the address,
    // read only when enabled; the data holds until the next read)
    output logic                    a_re,
    output logic [  $clog2(TILE)-1:0] a_row,
    output logic                    b_re,
    output logic [  $clog2(TILE)-1:0] b_row,
    input  logic [      8*TILE-1:0] a_data,
    input  logic [      8*TILE-1:0] b_data,
    // accumulator rows
    output logic                    acc_re,
    output logic [  $clog2(TILE)-1:0] acc_raddr,
    input  logic [     32*TILE-1:0] acc_rdata,
    output logic                    acc_we,
    output logic [  $clog2(TILE)-1:0] acc_waddr,
    output logic [     32*TILE-1:0] acc_wdata
);
  localparam int LT = $clog2(TILE);

  // stage 0: the (row, k) being issued
  logic running, clear_q;
  logic [LT-1:0] r, k;
  logic stall, issue, last_issue;
  assign stall = k == LT'(TILE - 1) && clear_q && {1'b0, r} >= rows_free;
  assign issue = running && !stall;
  assign last_issue = r == LT'(TILE - 1) && k == LT'(TILE - 1);

  // A row r is read once, at its first k, and held for the row's TILE
  // cycles; a B row every cycle; the accumulator row at the first k unless
  // the step starts from zero.
  assign a_re = issue && k == '0;
  assign a_row = r;
  assign b_re = issue;
  assign b_row = k;
  assign acc_re = issue && k == '0 && !clear_q;
  assign acc_raddr = r;

  // stage 1: the data of the (row, k) issued one edge earlier
  logic s1_valid;
  logic [LT-1:0] s1_r, s1_k;
  logic [32*TILE-1:0] lanes, sums;  // lane j: bits 32*j+31..32*j
  logic signed [7:0] a_k;
  assign a_k = a_data[8*s1_k+:8];

  // The row's running sums, from the accumulator (or zero) at k = 0. The
  // lanes are packed vectors written by one loop, not per-lane assignments
  // into a vector: Verilator evaluates the loop as one word per lane, where
  // 128 part-select assignments became a chain of ever wider concatenations
  // (studies/matmul/docs/rtl-matmul.md, "Simulation speed").
  logic from_lanes;
  assign from_lanes = s1_k != '0;
  always_comb
    for (int j = 0; j < TILE; j++)
      sums[32*j+:32] = (from_lanes ? lanes[32*j+:32] : clear_q ? 32'd0 : acc_rdata[32*j+:32]) +
                       32'($signed(a_k) * $signed(b_data[8*j+:8]));
  assign acc_wdata = sums;
  always_ff @(posedge clk) if (s1_valid) lanes <= sums;

  assign acc_we = s1_valid && s1_k == LT'(TILE - 1);
  assign acc_waddr = s1_r;
  assign busy = running || s1_valid || done;

  always_ff @(posedge clk) begin
    if (!rst_n || cancel) begin
      running <= 1'b0;
      clear_q <= 1'b0;
      r <= '0;
      k <= '0;
      s1_valid <= 1'b0;
      s1_r <= '0;
      s1_k <= '0;
      done <= 1'b0;
    end else begin
      if (start && !running) begin
        running <= 1'b1;
        clear_q <= clear;
        r <= '0;
        k <= '0;
      end else if (issue) begin
        {r, k} <= {r, k} + 1'b1;
        if (last_issue) running <= 1'b0;
      end
      s1_valid <= issue;
      s1_r <= r;
      s1_k <= k;
      done <= s1_valid && s1_r == LT'(TILE - 1) && s1_k == LT'(TILE - 1);
    end
  end
endmodule
