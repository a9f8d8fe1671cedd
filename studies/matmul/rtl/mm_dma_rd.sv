// mm_dma_rd.sv - the DMA read engine: takes read jobs (an address, a length
// up to 64 KiB and a destination), cuts them into requests of at most
// 4096 bytes issued in job order, keeps at most MAX_READS of them in
// flight, and hands every returning beat on with its destination and its
// beat index within the job. A request's tag is {destination, chunk
// index}; a tag cannot be reused while its read is in flight because a
// destination is refilled only after all its data arrived. `flush` drops
// the chunks not yet issued (reads in flight still return and are counted).
module mm_dma_rd
#(
    parameter int MAX_READS = 8
) (
    input logic clk,
    input logic rst_n,
    input logic flush,

    input  logic        job_valid,
    output logic        job_ready,
    input  logic [63:0] job_addr,
    input  logic [16:0] job_len,   // bytes, a multiple of 64 (one beat for the descriptor)
    input  logic [ 2:0] job_dest,
    output logic        busy,      // chunks of the current job not yet issued
    output logic        in_flight, // reads issued and not yet answered

    // requests, to the port arbiter
    output logic        rq_valid,
    input  logic        rq_ready,
    output logic [63:0] rq_addr,
    output logic [12:0] rq_len,
    output logic [ 7:0] rq_tag,

    // read data from the host
    input  logic         rdata_valid,
    output logic         rdata_ready,
    input  logic [511:0] rdata,
    input  logic [  7:0] rdata_tag,
    input  logic         rdata_last,
    input  logic         rdata_err,

    // beats handed on
    output logic         bt_valid,
    output logic [  2:0] bt_dest,
    output logic [ 10:0] bt_index,  // beat within the job
    output logic [511:0] bt_data,
    output logic         bt_err     // the host refused the read (one beat)
);
  localparam int LF = $clog2(MAX_READS + 1);

  logic active;
  logic [63:0] addr;
  logic [16:0] left;
  logic [2:0] dest;
  logic [4:0] chunk;
  logic [LF-1:0] flight;
  logic [5:0] beat_in_read;

  assign job_ready = !active && !flush;
  assign busy = active;
  assign in_flight = flight != '0;

  assign rq_valid = active && flight < LF'(MAX_READS);
  assign rq_addr = addr;
  assign rq_len = left > 17'(mm_pkg::DMA_MAX_BYTES) ? 13'(mm_pkg::DMA_MAX_BYTES) : left[12:0];
  assign rq_tag = {dest, chunk};

  assign rdata_ready = 1'b1;
  assign bt_valid = rdata_valid;
  assign bt_dest = rdata_tag[7:5];
  assign bt_index = {rdata_tag[4:0], beat_in_read};
  assign bt_data = rdata;
  assign bt_err = rdata_err;

  logic issued, answered;
  assign issued = rq_valid && rq_ready;
  assign answered = rdata_valid && rdata_last;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      active <= 1'b0;
      addr <= 64'd0;
      left <= 17'd0;
      dest <= 3'd0;
      chunk <= 5'd0;
      flight <= '0;
      beat_in_read <= 6'd0;
    end else begin
      if (flush) active <= 1'b0;
      else if (job_valid && job_ready) begin
        active <= 1'b1;
        addr <= job_addr;
        left <= job_len;
        dest <= job_dest;
        chunk <= 5'd0;
      end else if (issued) begin
        addr <= addr + {51'd0, rq_len};
        left <= left - {4'd0, rq_len};
        chunk <= chunk + 5'd1;
        if (left == {4'd0, rq_len}) active <= 1'b0;
      end
      flight <= flight + LF'(issued) - LF'(answered);
      if (rdata_valid) beat_in_read <= rdata_last ? 6'd0 : beat_in_read + 6'd1;
    end
  end
endmodule
