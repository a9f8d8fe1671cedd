// mm_acc.sv - the accumulator tile: TILE rows of TILE int32 lanes, one
// row per word (4 KiB words, 64 KiB at TILE = 128). One synchronous read
// port (data one edge after an enabled read, held until the next; the
// compute array and the result writer take turns, mm_ctrl decides) and one
// write port (the array).
module mm_acc #(
    parameter int TILE = 128
) (
    input  logic                    clk,
    input  logic                    re,
    input  logic [$clog2(TILE)-1:0] raddr,
    output logic [   32*TILE-1:0] rdata,
    input  logic                    we,
    input  logic [$clog2(TILE)-1:0] waddr,
    input  logic [   32*TILE-1:0] wdata
);
  logic [32*TILE-1:0] mem[TILE];
  always_ff @(posedge clk) begin
    if (we) mem[waddr] <= wdata;
    if (re) rdata <= mem[raddr];
  end
endmodule
