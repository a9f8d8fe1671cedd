// mm_trace.sv - merges the block's trace events onto the one trace port.
// Each source holds one pending event; every edge the lowest-numbered
// pending one goes out (a one-edge pulse on trace_valid). The sources fire
// far more rarely than once per NSRC edges (a DMA job, a tile step, a
// request), so a pending event is always out before its source fires
// again; a source that did fire again meanwhile would replace it (the test
// counts the events to check none is lost). Tracing changes nothing else
// in the block.
module mm_trace #(
    parameter int NSRC = 12
) (
    input logic clk,
    input logic rst_n,

    input logic [   NSRC-1:0] ev_fire,
    input logic [ 8*NSRC-1:0] ev_kind,
    input logic [64*NSRC-1:0] ev_req,
    input logic [64*NSRC-1:0] ev_arg,

    output logic        pending,  // an event is still to go out
    output logic        trace_valid,
    output logic [ 7:0] trace_kind,
    output logic [63:0] trace_req,
    output logic [63:0] trace_arg
);
  logic [NSRC-1:0] held;
  logic [8*NSRC-1:0] kind_q;
  logic [64*NSRC-1:0] req_q, arg_q;
  logic [NSRC-1:0] pick;  // one-hot: the event going out at this edge

  always_comb begin
    pick = '0;
    for (int i = NSRC - 1; i >= 0; i--) if (held[i]) pick = NSRC'(1) << i;
  end
  assign pending = held != '0;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      held <= '0;
      kind_q <= '0;
      req_q <= '0;
      arg_q <= '0;
      trace_valid <= 1'b0;
      trace_kind <= 8'd0;
      trace_req <= 64'd0;
      trace_arg <= 64'd0;
    end else begin
      trace_valid <= held != '0;
      for (int i = 0; i < NSRC; i++) begin
        if (pick[i]) begin
          trace_kind <= kind_q[8*i+:8];
          trace_req <= req_q[64*i+:64];
          trace_arg <= arg_q[64*i+:64];
        end
        if (ev_fire[i]) begin
          kind_q[8*i+:8] <= ev_kind[8*i+:8];
          req_q[64*i+:64] <= ev_req[64*i+:64];
          arg_q[64*i+:64] <= ev_arg[64*i+:64];
        end
      end
      held <= (held & ~pick) | ev_fire;
    end
  end
endmodule
