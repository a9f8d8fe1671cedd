// mm_trace.sv - merges the block's trace events onto the one trace port.
// Each source holds one pending event, or two for the sources in TWO_DEEP;
// every edge the oldest event of the lowest-numbered source with one goes
// out (a one-edge pulse on trace_valid), so an event goes out two edges
// after its source fired it unless a lower-numbered source's event goes
// first. The sources fire rarely (a DMA job, a tile step, a request), except
// that the read jobs and read completions of a step's A and B tiles may come
// on consecutive edges: those two sources get two places. An event arriving
// with every place taken replaces the newest (the tests count the events to
// check that none is lost). Tracing changes nothing else in the block.
module mm_trace #(
    parameter int NSRC = 12,
    parameter logic [NSRC-1:0] TWO_DEEP = '0
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
  localparam int EW = 8 + 64 + 64;  // one event: kind, request, argument

  logic [NSRC-1:0] has0, has1;  // queue places taken (has1 implies has0)
  logic [EW-1:0] q0[NSRC], q1[NSRC];  // q0 the oldest (arrays, not one
                                       // vector: a simulator updates only
                                       // the places that change)
  logic [NSRC-1:0] pick;        // one-hot: the source whose oldest goes out

  always_comb begin
    pick = '0;
    for (int i = NSRC - 1; i >= 0; i--) if (has0[i]) pick = NSRC'(1) << i;
  end
  assign pending = has0 != '0;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      has0 <= '0;
      has1 <= '0;
      for (int i = 0; i < NSRC; i++) begin
        q0[i] <= '0;
        q1[i] <= '0;
      end
      trace_valid <= 1'b0;
      trace_kind <= 8'd0;
      trace_req <= 64'd0;
      trace_arg <= 64'd0;
    end else begin
      trace_valid <= has0 != '0;
      for (int i = 0; i < NSRC; i++) begin
        if (pick[i]) {trace_kind, trace_req, trace_arg} <= q0[i];
        // pop the oldest, then push the new one behind what is left
        if (pick[i]) begin
          q0[i] <= q1[i];
          has0[i] <= has1[i];
          has1[i] <= 1'b0;
        end
        if (ev_fire[i]) begin
          if (!TWO_DEEP[i] || (pick[i] ? !has1[i] : !has0[i])) begin
            q0[i] <= {ev_kind[8*i+:8], ev_req[64*i+:64], ev_arg[64*i+:64]};
            has0[i] <= 1'b1;
          end else begin
            q1[i] <= {ev_kind[8*i+:8], ev_req[64*i+:64], ev_arg[64*i+:64]};
            has1[i] <= 1'b1;
          end
        end
      end
    end
  end
endmodule
