// mm_dma_port.sv - the one DMA request port of the block, shared by the
// read engine and the result writer. The request is a register: a source
// whose request is taken into it may present the next one at the same
// edge the host takes the current one. Writes go first (a writer that holds
// the port streams its data beats before it asks again, so reads are not
// starved).
module mm_dma_port (
    input logic clk,
    input logic rst_n,

    input  logic        rd_valid,
    output logic        rd_ready,
    input  logic [63:0] rd_addr,
    input  logic [12:0] rd_len,
    input  logic [ 7:0] rd_tag,

    input  logic        wr_valid,
    output logic        wr_ready,
    input  logic [63:0] wr_addr,
    input  logic [12:0] wr_len,
    input  logic [ 7:0] wr_tag,

    output logic        dma_req_valid,
    input  logic        dma_req_ready,
    output logic        dma_req_write,
    output logic [63:0] dma_req_addr,
    output logic [12:0] dma_req_len,
    output logic [ 7:0] dma_req_tag
);
  logic free;
  assign free = !dma_req_valid || dma_req_ready;
  assign wr_ready = free;
  assign rd_ready = free && !wr_valid;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      dma_req_valid <= 1'b0;
      dma_req_write <= 1'b0;
      dma_req_addr <= 64'd0;
      dma_req_len <= 13'd0;
      dma_req_tag <= 8'd0;
    end else if (free) begin
      dma_req_valid <= wr_valid || rd_valid;
      dma_req_write <= wr_valid;
      dma_req_addr <= wr_valid ? wr_addr : rd_addr;
      dma_req_len <= wr_valid ? wr_len : rd_len;
      dma_req_tag <= wr_valid ? wr_tag : rd_tag;
    end
  end
endmodule
