// matmul_b.sv - design B of the case study's matmul block ("deep
// pipeline", studies/matmul/docs/matmul.md) as RTL, with the ports of
// docs/rtl-ports.md. It wires the parts together:
//
//   mm_regs      BAR0 registers (MMIO)
//   mm_ctrl      the descriptor ring and the tile-step schedule
//   mm_dma_rd    DMA reads: 4 KiB requests, MAX_READS in flight, beats by tag
//   mm_dma_port  the one request port, shared with the writes
//   mm_opbuf x4  operand buffers: two slots of an A and a B tile
//   mm_mac       the TILE-lane MAC array
//   mm_acc       the int32 accumulator tile
//   mm_writer    result tiles (int8 or int32) and the completion record
//   mm_trace     trace events onto the trace port
//
// TILE is the tile edge (128 for the case study, a power of two from 8;
// the synthesis test uses a smaller one, studies/matmul/docs/rtl-matmul.md says why), NMAX the largest n a
// descriptor may ask for, MAX_READS the DMA reads in flight, MSIX the reset
// value of CONTROL.IRQ.
module matmul_b
#(
    parameter int TILE = 128,
    parameter int NMAX = 512,
    parameter int MAX_READS = 8,
    parameter bit MSIX = 1'b0
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic [63:0] now_ps,
    output logic        idle,

    input  logic        mmio_req_valid,
    output logic        mmio_req_ready,
    input  logic        mmio_req_write,
    input  logic [ 2:0] mmio_req_bar,
    input  logic [31:0] mmio_req_addr,
    input  logic [ 3:0] mmio_req_size,
    input  logic [63:0] mmio_req_wdata,
    output logic        mmio_rsp_valid,
    output logic [63:0] mmio_rsp_rdata,

    output logic        dma_req_valid,
    input  logic        dma_req_ready,
    output logic        dma_req_write,
    output logic [63:0] dma_req_addr,
    output logic [12:0] dma_req_len,
    output logic [ 7:0] dma_req_tag,

    output logic         dma_wdata_valid,
    input  logic         dma_wdata_ready,
    output logic [511:0] dma_wdata,
    output logic         dma_wdata_last,

    input  logic         dma_rdata_valid,
    output logic         dma_rdata_ready,
    input  logic [511:0] dma_rdata,
    input  logic [  7:0] dma_rdata_tag,
    input  logic         dma_rdata_last,
    input  logic         dma_rdata_err,

    input logic       dma_wresp_valid,
    input logic [7:0] dma_wresp_tag,
    input logic       dma_wresp_err,

    output logic       irq_valid,
    output logic [4:0] irq_vector,

    output logic        trace_valid,
    output logic [ 7:0] trace_kind,
    output logic [63:0] trace_req,
    output logic [63:0] trace_arg
);
  localparam int LT = $clog2(TILE);
  localparam int LR = $clog2(TILE + 1);
  localparam int BIW = TILE * TILE / 64 > 1 ? $clog2(TILE * TILE / 64) : 1;  // beat index

  // ---- registers ----------------------------------------------------------------
  logic [63:0] ring_base;
  logic [12:0] ring_size;
  logic [11:0] head, tail;
  logic enable, irq_en, busy, head_advance, completed_inc, err_dma, err_desc;
  logic tr_doorbell, tr_ring_error;
  logic [63:0] tr_reg_arg;

  mm_regs #(
      .TILE(TILE),
      .NMAX(NMAX),
      .MSIX(MSIX)
  ) u_regs (
      .clk, .rst_n,
      .mmio_req_valid, .mmio_req_ready, .mmio_req_write, .mmio_req_bar, .mmio_req_addr,
      .mmio_req_size, .mmio_req_wdata, .mmio_rsp_valid, .mmio_rsp_rdata,
      .ring_base, .ring_size, .head, .tail, .enable, .irq_en,
      .busy, .head_advance, .completed_inc, .err_dma, .err_desc,
      .tr_doorbell, .tr_ring_error, .tr_arg(tr_reg_arg)
  );

  // ---- DMA reads ------------------------------------------------------------------
  logic job_valid, job_ready, rd_busy, rd_in_flight, rd_flush;
  logic [63:0] job_addr;
  logic [16:0] job_len;
  logic [2:0] job_dest;
  logic rd_rq_valid, rd_rq_ready;
  logic [63:0] rd_rq_addr;
  logic [12:0] rd_rq_len;
  logic [7:0] rd_rq_tag;
  logic bt_valid, bt_err;
  logic [2:0] bt_dest;
  logic [10:0] bt_index;
  logic [511:0] bt_data;

  mm_dma_rd #(
      .MAX_READS(MAX_READS)
  ) u_dma_rd (
      .clk, .rst_n, .flush(rd_flush),
      .job_valid, .job_ready, .job_addr, .job_len, .job_dest,
      .busy(rd_busy), .in_flight(rd_in_flight),
      .rq_valid(rd_rq_valid), .rq_ready(rd_rq_ready), .rq_addr(rd_rq_addr),
      .rq_len(rd_rq_len), .rq_tag(rd_rq_tag),
      .rdata_valid(dma_rdata_valid), .rdata_ready(dma_rdata_ready), .rdata(dma_rdata),
      .rdata_tag(dma_rdata_tag), .rdata_last(dma_rdata_last), .rdata_err(dma_rdata_err),
      .bt_valid, .bt_dest, .bt_index, .bt_data, .bt_err
  );

  // ---- the request port -------------------------------------------------------------
  logic wr_rq_valid, wr_rq_ready;
  logic [63:0] wr_rq_addr;
  logic [12:0] wr_rq_len;
  logic [7:0] wr_rq_tag;

  mm_dma_port u_port (
      .clk, .rst_n,
      .rd_valid(rd_rq_valid), .rd_ready(rd_rq_ready), .rd_addr(rd_rq_addr),
      .rd_len(rd_rq_len), .rd_tag(rd_rq_tag),
      .wr_valid(wr_rq_valid), .wr_ready(wr_rq_ready), .wr_addr(wr_rq_addr),
      .wr_len(wr_rq_len), .wr_tag(wr_rq_tag),
      .dma_req_valid, .dma_req_ready, .dma_req_write, .dma_req_addr, .dma_req_len,
      .dma_req_tag
  );

  // ---- operand buffers: slot 0 A, slot 0 B, slot 1 A, slot 1 B ------------------------
  logic a_re, b_re;
  logic [LT-1:0] a_row, b_row;
  logic [8*TILE-1:0] opbuf_data[4];
  logic mac_start, mac_slot;
  // the slot register changes only at a start, so the rows read for the
  // step in progress always come from its slot (the other slot's buffers
  // are not read: they are being filled)
  logic slot_q;
  always_ff @(posedge clk) if (mac_start) slot_q <= mac_slot;
  for (genvar i = 0; i < 4; i++) begin : g_opbuf
    mm_opbuf #(
        .TILE(TILE)
    ) u_opbuf (
        .clk,
        .wr_valid(bt_valid && !bt_err && bt_dest == 3'(i + 1)),
        .wr_beat(bt_index[BIW-1:0]),
        .wr_data(bt_data),
        .rd_en((i % 2 == 0 ? a_re : b_re) && slot_q == 1'(i / 2)),
        .rd_row(i % 2 == 0 ? a_row : b_row),
        .rd_data(opbuf_data[i])
    );
  end

  // ---- compute array and accumulator -----------------------------------------------
  logic mac_clear, mac_cancel, mac_busy, mac_done;
  logic [LR-1:0] rows_free;
  logic mac_acc_re, wr_acc_re;
  logic [LT-1:0] mac_acc_raddr, acc_waddr, wr_acc_raddr;
  logic [32*TILE-1:0] acc_rdata, acc_wdata;
  logic acc_we;

  mm_mac #(
      .TILE(TILE)
  ) u_mac (
      .clk, .rst_n,
      .start(mac_start), .clear(mac_clear), .cancel(mac_cancel), .rows_free,
      .busy(mac_busy), .done(mac_done),
      .a_re, .a_row, .b_re, .b_row,
      .a_data(slot_q ? opbuf_data[2] : opbuf_data[0]),
      .b_data(slot_q ? opbuf_data[3] : opbuf_data[1]),
      .acc_re(mac_acc_re), .acc_raddr(mac_acc_raddr), .acc_rdata, .acc_we, .acc_waddr, .acc_wdata
  );

  logic wr_reading;
  mm_acc #(
      .TILE(TILE)
  ) u_acc (
      .clk,
      .re(wr_reading ? wr_acc_re : mac_acc_re),
      .raddr(wr_reading ? wr_acc_raddr : mac_acc_raddr),
      .rdata(acc_rdata),
      .we(acc_we), .waddr(acc_waddr), .wdata(acc_wdata)
  );

  // ---- result writer ---------------------------------------------------------------
  logic wr_start_tile, wr_i32, wr_start_rec, wr_busy, wr_rec_sent;
  logic [63:0] wr_tile_addr, wr_rec_addr;
  logic [511:0] wr_rec_beat;
  logic [LR-1:0] wr_rows_read;

  mm_writer #(
      .TILE(TILE)
  ) u_writer (
      .clk, .rst_n,
      .start_tile(wr_start_tile), .tile_addr(wr_tile_addr), .tile_i32(wr_i32),
      .start_rec(wr_start_rec), .rec_addr(wr_rec_addr), .rec_beat(wr_rec_beat),
      .busy(wr_busy), .rec_sent(wr_rec_sent),
      .reading(wr_reading), .rows_read(wr_rows_read), .acc_re(wr_acc_re),
      .acc_raddr(wr_acc_raddr), .acc_rdata,
      .rq_valid(wr_rq_valid), .rq_ready(wr_rq_ready), .rq_addr(wr_rq_addr),
      .rq_len(wr_rq_len), .rq_tag(wr_rq_tag),
      .dma_wdata_valid, .dma_wdata_ready, .dma_wdata, .dma_wdata_last
  );

  // ---- controller ----------------------------------------------------------------
  logic ctrl_quiet;
  logic [9:0] tr_fire;
  logic [64*10-1:0] tr_req, tr_arg;

  mm_ctrl #(
      .TILE(TILE),
      .NMAX(NMAX)
  ) u_ctrl (
      .clk, .rst_n, .now_ps,
      .enable, .irq_en, .ring_base, .head, .tail, .busy, .head_advance, .completed_inc,
      .err_dma, .err_desc,
      .job_valid, .job_ready, .job_addr, .job_len, .job_dest, .rd_busy, .rd_in_flight,
      .rd_flush, .bt_valid, .bt_dest, .bt_index, .bt_data, .bt_err,
      .wresp_valid(dma_wresp_valid), .wresp_tag(dma_wresp_tag), .wresp_err(dma_wresp_err),
      .mac_start, .mac_clear, .mac_cancel, .mac_slot, .mac_busy, .mac_done, .rows_free,
      .wr_start_tile, .wr_tile_addr, .wr_i32, .wr_start_rec, .wr_rec_addr, .wr_rec_beat,
      .wr_busy, .wr_rec_sent, .wr_reading, .wr_rows_read,
      .irq_valid, .quiet(ctrl_quiet),
      .tr_fire, .tr_req, .tr_arg
  );
  assign irq_vector = 5'd0;

  // ---- trace: the controller's ten sources (steps first), then the registers'
  logic trace_pending;
  mm_trace #(
      .NSRC(12),
      .TWO_DEEP(12'b0000_0001_1000)  // dma_read, dma_read_done
  ) u_trace (
      .clk, .rst_n,
      .ev_fire({tr_ring_error, tr_doorbell, tr_fire}),
      .ev_kind({mm_pkg::TR_ERROR, mm_pkg::TR_DOORBELL, mm_pkg::TR_ERROR, mm_pkg::TR_INTERRUPT,
                mm_pkg::TR_COMPLETION, mm_pkg::TR_DMA_WRITE_DONE, mm_pkg::TR_DMA_WRITE,
                mm_pkg::TR_DMA_READ_DONE, mm_pkg::TR_DMA_READ, mm_pkg::TR_DESC_FETCH,
                mm_pkg::TR_COMPUTE_END, mm_pkg::TR_COMPUTE_START}),
      .ev_req({64'd0, 64'd0, tr_req}),
      .ev_arg({tr_reg_arg, tr_reg_arg, tr_arg}),
      .pending(trace_pending),
      .trace_valid, .trace_kind, .trace_req, .trace_arg
  );

  // Idle: nothing will change until an input arrives.
  assign idle = ctrl_quiet && !trace_pending && !trace_valid && !mmio_rsp_valid &&
                !dma_req_valid && !wr_busy && !mac_busy && !tr_doorbell && !tr_ring_error;

  // Port bits this design does not use: its tags name everything.
  logic unused;
  assign unused = ^{ring_size, bt_index[10:BIW]};
endmodule
