// mm_ctrl.sv - design B's request controller: the descriptor ring and the
// tile-step schedule of one request.
//
// For the entry at HEAD (when CONTROL.ENABLE is set and TAIL != HEAD) it
// reads the 64-byte descriptor by DMA, checks it (completion address,
// then n, then the operand and result extents), and runs the (n/TILE)^3
// tile steps in the order of studies/matmul/model/compute.c: output tiles row-major,
// each summed over k. Operand tiles stream into two buffer slots: step s
// uses slot s % 2, whose A and B tiles are requested as soon as the slot
// is free, so while step s computes the tiles of step s+1 arrive and those
// of s+2 are requested when step s ends. After the last step of an output
// tile the result writer takes the accumulator out (the next step may start
// at once: the array waits row by row for the writer). After the last step
// and the last result write, the completion record is written (timestamps
// from now_ps), MSI-X vector 0 is requested when CONTROL.IRQ is set, HEAD
// advances and the next entry is served.
//
// Errors, as studies/matmul/docs/matmul.md's design B: an unreadable descriptor
// (STATUS.ERR_DMA) or one with an unusable completion address
// (STATUS.ERR_DESC) is skipped without a record; a bad n (1) or address (2)
// gets an error record (ERR_DESC); a refused DMA during the request (3)
// stops it: chunks not yet requested are dropped, the step in progress is
// cancelled, a result write already started is finished, and once every
// read in flight has returned the error record is written (ERR_DMA).
module mm_ctrl
#(
    parameter int TILE = 128,
    parameter int NMAX = 512
) (
    input logic        clk,
    input logic        rst_n,
    input logic [63:0] now_ps,

    // ring registers
    input  logic        enable,
    input  logic        irq_en,
    input  logic [63:0] ring_base,
    input  logic [11:0] head,
    input  logic [11:0] tail,
    output logic        busy,
    output logic        head_advance,
    output logic        completed_inc,
    output logic        err_dma,
    output logic        err_desc,

    // read engine
    output logic        job_valid,
    input  logic        job_ready,
    output logic [63:0] job_addr,
    output logic [16:0] job_len,
    output logic [ 2:0] job_dest,
    input  logic        rd_busy,
    input  logic        rd_in_flight,
    output logic        rd_flush,
    input  logic        bt_valid,
    input  logic [ 2:0] bt_dest,
    input  logic [10:0] bt_index,
    input  logic [511:0] bt_data,
    input  logic        bt_err,

    // write responses
    input logic       wresp_valid,
    input logic [7:0] wresp_tag,
    input logic       wresp_err,

    // compute array
    output logic                      mac_start,
    output logic                      mac_clear,
    output logic                      mac_cancel,
    output logic                      mac_slot,
    input  logic                      mac_busy,
    input  logic                      mac_done,
    output logic [$clog2(TILE+1)-1:0] rows_free,

    // result writer
    output logic         wr_start_tile,
    output logic [ 63:0] wr_tile_addr,
    output logic         wr_i32,
    output logic         wr_start_rec,
    output logic [ 63:0] wr_rec_addr,
    output logic [511:0] wr_rec_beat,
    input  logic         wr_busy,
    input  logic         wr_rec_sent,
    input  logic         wr_reading,
    input  logic [$clog2(TILE+1)-1:0] wr_rows_read,

    output logic irq_valid,
    output logic quiet,  // nothing to do until an input arrives

    // trace sources: compute_start, compute_end, desc_fetch, dma_read,
    // dma_read_done, dma_write, dma_write_done, completion, interrupt, error
    // (bit i of tr_fire, 64-bit field i of tr_req and tr_arg)
    output logic [   9:0] tr_fire,
    output logic [64*10-1:0] tr_req,
    output logic [64*10-1:0] tr_arg
);
  localparam int LT = $clog2(TILE);
  localparam int LR = $clog2(TILE + 1);
  localparam int BEATS = TILE * TILE / 64;  // beats per operand tile
  localparam int LB = $clog2(BEATS + 1);
  localparam logic [63:0] TILE_BYTES = 64'(TILE * TILE);
  localparam int LTT = $clog2(NMAX / TILE + 1);  // bits of n / TILE for a valid n

  localparam logic [2:0] S_IDLE = 3'd0, S_DESC = 3'd1, S_CHECK = 3'd2, S_RUN = 3'd3,
                         S_DRAIN = 3'd4, S_REC = 3'd5, S_RECW = 3'd6;
  logic [2:0] state;

  // the descriptor
  logic [63:0] req_id, a_addr, b_addr, c_addr, cpl_addr;
  logic [31:0] n;
  logic i32;
  // the request
  logic [31:0] code;
  logic [15:0] tiles;  // n / TILE
  logic [31:0] steps, fetched, started, finished;
  logic [63:0] row_stride;  // bytes of one row of tiles: n * TILE
  logic [63:0] t_accept, t_start, t_end, compute_ps, step_t0;
  // operand fetch position (step `fetched`)
  logic fetch_b;
  logic [15:0] fk, fj;
  logic [63:0] a_off, b_off, a_row_base, b_col_base;
  // slots
  logic [1:0] slot_busy;
  logic [LB-1:0] cnt_a[2], cnt_b[2];
  logic [63:0] slot_a_addr[2], slot_b_addr[2];
  // compute and results
  logic [15:0] ck, dk;
  logic [63:0] out_off, res_addr, res_bytes;
  logic res_pending;

  // ---- decisions of this cycle --------------------------------------------------
  logic job_free, slot_ready_s, can_fetch, can_start, can_launch, all_done;
  assign job_free = !job_valid || job_ready;
  assign slot_ready_s = slot_busy[started[0]] && cnt_a[started[0]] == LB'(BEATS) &&
                        cnt_b[started[0]] == LB'(BEATS);
  assign can_fetch = fetched < steps && (fetch_b || !slot_busy[fetched[0]]);
  assign can_start = started < steps && slot_ready_s && !mac_busy && !mac_start;
  assign can_launch = res_pending && !wr_busy && !wr_start_tile;
  assign all_done = finished == steps && !res_pending && !wr_busy && !wr_start_tile &&
                    !mac_busy && !mac_start;

  logic operand_beat, beat_failed, write_failed;
  assign operand_beat = bt_valid && !bt_err && bt_dest >= mm_pkg::DEST_S0A && bt_dest <= mm_pkg::DEST_S1B;
  assign beat_failed = bt_valid && bt_err && bt_dest != mm_pkg::DEST_DESC;
  assign write_failed = wresp_valid && wresp_err && wresp_tag[7:5] == mm_pkg::DEST_RESULT;

  logic bt_slot, bt_is_b;
  assign bt_slot = bt_dest >= mm_pkg::DEST_S1A;
  assign bt_is_b = bt_dest == mm_pkg::DEST_S0B || bt_dest == mm_pkg::DEST_S1B;

  // ---- descriptor checks ----------------------------------------------------------
  logic bad_n, bad_addr, cpl_ok;
  logic [63:0] operand_bytes, result_bytes;
  // for a valid n (bad_n is checked first): (n/TILE)^2 tiles, small factors
  logic [LTT-1:0] t_n;
  assign t_n = n[LT+LTT-1:LT];
  assign operand_bytes = 64'(t_n * t_n) * TILE_BYTES;
  assign result_bytes = i32 ? operand_bytes << 2 : operand_bytes;
  assign bad_n = n < 32'(TILE) || n[LT-1:0] != '0 || n > 32'(NMAX);
  assign bad_addr = !mm_pkg::addr_ok(a_addr, operand_bytes) || !mm_pkg::addr_ok(b_addr, operand_bytes) ||
                    !mm_pkg::addr_ok(c_addr, result_bytes);
  assign cpl_ok = mm_pkg::addr_ok(cpl_addr, 64'd64);

  // ---- interlock: rows of the accumulator the array may overwrite --------------
  assign rows_free = (res_pending || wr_start_tile) ? '0 : wr_reading ? wr_rows_read : LR'(TILE);

  assign busy = state != S_IDLE;
  assign quiet =
      !head_advance && !completed_inc && !err_dma && !err_desc && !irq_valid &&
      tr_fire == 10'd0 && !mac_start && !mac_cancel && !wr_start_tile && !wr_start_rec &&
      !rd_flush && !job_valid && (
      (state == S_IDLE && !(enable && head != tail)) || state == S_DESC ||
      (state == S_RUN && !can_fetch && !can_start && !mac_busy && !res_pending && !wr_busy &&
       !rd_busy && finished != steps) ||
      (state == S_DRAIN && rd_in_flight && !rd_busy && !wr_busy && !mac_busy));

  // ---- the completion record ---------------------------------------------------
  function automatic logic [511:0] record(input logic [63:0] id, input logic [31:0] err,
                                          input logic [63:0] acc, input logic [63:0] t0,
                                          input logic [63:0] t1, input logic [63:0] cps,
                                          input logic [63:0] done, input logic [31:0] st);
    logic [31:0] status;
    status = err != mm_pkg::ERR_NONE ? mm_pkg::CPL_DONE | mm_pkg::CPL_ERROR : mm_pkg::CPL_DONE;
    record = {32'd0, st, done, cps, t1, t0, acc, err, status, id};
  endfunction

  // ---- trace helpers -----------------------------------------------------------
  // (the step events first: mm_trace sends lower numbers first, so they go
  // out a fixed two edges after they happen and the trace times steps exactly)
  localparam int T_START = 0, T_END = 1, T_DESC = 2, T_READ = 3, T_READ_DONE = 4,
                 T_WRITE = 5, T_WRITE_DONE = 6, T_COMPLETION = 7, T_IRQ = 8, T_ERROR = 9;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      state <= S_IDLE;
      req_id <= 64'd0;
      a_addr <= 64'd0;
      b_addr <= 64'd0;
      c_addr <= 64'd0;
      cpl_addr <= 64'd0;
      n <= 32'd0;
      i32 <= 1'b0;
      code <= 32'd0;
      tiles <= 16'd0;
      steps <= 32'd0;
      fetched <= 32'd0;
      started <= 32'd0;
      finished <= 32'd0;
      row_stride <= 64'd0;
      t_accept <= 64'd0;
      t_start <= 64'd0;
      t_end <= 64'd0;
      compute_ps <= 64'd0;
      step_t0 <= 64'd0;
      fetch_b <= 1'b0;
      fk <= 16'd0;
      fj <= 16'd0;
      a_off <= 64'd0;
      b_off <= 64'd0;
      a_row_base <= 64'd0;
      b_col_base <= 64'd0;
      slot_busy <= 2'b00;
      for (int s = 0; s < 2; s++) begin
        cnt_a[s] <= '0;
        cnt_b[s] <= '0;
        slot_a_addr[s] <= 64'd0;
        slot_b_addr[s] <= 64'd0;
      end
      ck <= 16'd0;
      dk <= 16'd0;
      out_off <= 64'd0;
      res_addr <= 64'd0;
      res_bytes <= 64'd0;
      res_pending <= 1'b0;
      job_valid <= 1'b0;
      job_addr <= 64'd0;
      job_len <= 17'd0;
      job_dest <= 3'd0;
      rd_flush <= 1'b0;
      head_advance <= 1'b0;
      completed_inc <= 1'b0;
      err_dma <= 1'b0;
      err_desc <= 1'b0;
      mac_start <= 1'b0;
      mac_clear <= 1'b0;
      mac_cancel <= 1'b0;
      mac_slot <= 1'b0;
      wr_start_tile <= 1'b0;
      wr_tile_addr <= 64'd0;
      wr_i32 <= 1'b0;
      wr_start_rec <= 1'b0;
      wr_rec_addr <= 64'd0;
      wr_rec_beat <= 512'd0;
      irq_valid <= 1'b0;
      tr_fire <= 10'd0;
      tr_req <= '0;
      tr_arg <= '0;
    end else begin
      // one-edge pulses
      head_advance <= 1'b0;
      completed_inc <= 1'b0;
      err_dma <= 1'b0;
      err_desc <= 1'b0;
      mac_start <= 1'b0;
      mac_cancel <= 1'b0;
      rd_flush <= 1'b0;
      wr_start_tile <= 1'b0;
      wr_start_rec <= 1'b0;
      irq_valid <= 1'b0;
      tr_fire <= 10'd0;
      if (job_valid && job_ready) job_valid <= 1'b0;

      // a result or record write the host refused: sticky mm_pkg::ERR_DMA
      if (wresp_valid && wresp_err) err_dma <= 1'b1;
      if (wresp_valid && !wresp_err && wresp_tag[7:5] == mm_pkg::DEST_RESULT && wresp_tag[0]) begin
        tr_fire[T_WRITE_DONE] <= 1'b1;
        tr_req[64*T_WRITE_DONE+:64] <= req_id;
        tr_arg[64*T_WRITE_DONE+:64] <= {56'd0, wresp_tag};
      end

      case (state)
        S_IDLE:  // (HEAD moves at the edge after head_advance)
        if (enable && head != tail && !job_valid && !head_advance) begin
          job_valid <= 1'b1;
          job_addr <= ring_base + {46'd0, head, 6'd0};
          job_len <= 17'd64;
          job_dest <= mm_pkg::DEST_DESC;
          t_accept <= now_ps;
          t_start <= 64'd0;
          t_end <= 64'd0;
          compute_ps <= 64'd0;
          finished <= 32'd0;
          req_id <= 64'd0;
          tr_fire[T_READ] <= 1'b1;
          tr_req[64*T_READ+:64] <= 64'd0;
          tr_arg[64*T_READ+:64] <= ring_base + {46'd0, head, 6'd0};
          state <= S_DESC;
        end

        S_DESC:
        if (bt_valid && bt_dest == mm_pkg::DEST_DESC) begin
          if (bt_err) begin  // unreadable: nowhere to report to
            err_dma <= 1'b1;
            head_advance <= 1'b1;
            state <= S_IDLE;
          end else begin
            req_id <= bt_data[63:0];
            a_addr <= bt_data[127:64];
            b_addr <= bt_data[191:128];
            c_addr <= bt_data[255:192];
            cpl_addr <= bt_data[319:256];
            n <= bt_data[351:320];
            i32 <= bt_data[352];
            state <= S_CHECK;
          end
        end

        S_CHECK: begin
          tr_fire[T_DESC] <= 1'b1;
          tr_req[64*T_DESC+:64] <= req_id;
          tr_arg[64*T_DESC+:64] <= {52'd0, head};
          if (!cpl_ok) begin
            err_desc <= 1'b1;
            head_advance <= 1'b1;
            state <= S_IDLE;
          end else if (bad_n || bad_addr) begin
            code <= bad_n ? mm_pkg::ERR_BAD_N : mm_pkg::ERR_BAD_ADDR;
            err_desc <= 1'b1;
            tr_fire[T_ERROR] <= 1'b1;
            tr_req[64*T_ERROR+:64] <= req_id;
            tr_arg[64*T_ERROR+:64] <= bad_n ? 64'(mm_pkg::ERR_BAD_N) : 64'(mm_pkg::ERR_BAD_ADDR);
            state <= S_REC;
          end else begin
            code <= mm_pkg::ERR_NONE;
            tiles <= 16'(t_n);
            steps <= 32'(t_n * t_n * t_n);
            row_stride <= {32'd0, n} << LT;
            fetched <= 32'd0;
            started <= 32'd0;
            fetch_b <= 1'b0;
            fk <= 16'd0;
            fj <= 16'd0;
            a_off <= 64'd0;
            b_off <= 64'd0;
            a_row_base <= 64'd0;
            b_col_base <= 64'd0;
            slot_busy <= 2'b00;
            ck <= 16'd0;
            dk <= 16'd0;
            out_off <= 64'd0;
            res_bytes <= i32 ? TILE_BYTES << 2 : TILE_BYTES;
            res_pending <= 1'b0;
            wr_i32 <= i32;
            state <= S_RUN;
          end
        end

        S_RUN: begin
          // operand tiles: A then B of step `fetched` into slot fetched % 2
          if (can_fetch && job_free) begin
            job_valid <= 1'b1;
            job_len <= 17'(TILE * TILE);
            tr_fire[T_READ] <= 1'b1;
            tr_req[64*T_READ+:64] <= req_id;
            if (!fetch_b) begin
              job_addr <= a_addr + a_off;
              job_dest <= fetched[0] ? mm_pkg::DEST_S1A : mm_pkg::DEST_S0A;
              tr_arg[64*T_READ+:64] <= a_addr + a_off;
              slot_busy[fetched[0]] <= 1'b1;
              cnt_a[fetched[0]] <= '0;
              cnt_b[fetched[0]] <= '0;
              slot_a_addr[fetched[0]] <= a_addr + a_off;
              slot_b_addr[fetched[0]] <= b_addr + b_off;
              fetch_b <= 1'b1;
            end else begin
              job_addr <= b_addr + b_off;
              job_dest <= fetched[0] ? mm_pkg::DEST_S1B : mm_pkg::DEST_S0B;
              tr_arg[64*T_READ+:64] <= b_addr + b_off;
              fetch_b <= 1'b0;
              fetched <= fetched + 32'd1;
              // next step: k, then j, then i
              if (fk + 16'd1 != tiles) begin
                fk <= fk + 16'd1;
                a_off <= a_off + TILE_BYTES;
                b_off <= b_off + row_stride;
              end else begin
                fk <= 16'd0;
                if (fj + 16'd1 != tiles) begin
                  fj <= fj + 16'd1;
                  a_off <= a_row_base;
                  b_off <= b_col_base + TILE_BYTES;
                  b_col_base <= b_col_base + TILE_BYTES;
                end else begin
                  fj <= 16'd0;
                  a_off <= a_row_base + row_stride;
                  a_row_base <= a_row_base + row_stride;
                  b_off <= 64'd0;
                  b_col_base <= 64'd0;
                end
              end
            end
          end

          // operand beats
          if (operand_beat) begin
            if (bt_is_b) cnt_b[bt_slot] <= cnt_b[bt_slot] + 1'b1;
            else cnt_a[bt_slot] <= cnt_a[bt_slot] + 1'b1;
            if ((bt_is_b ? cnt_b[bt_slot] : cnt_a[bt_slot]) == LB'(BEATS - 1)) begin
              tr_fire[T_READ_DONE] <= 1'b1;
              tr_req[64*T_READ_DONE+:64] <= req_id;
              tr_arg[64*T_READ_DONE+:64] <= bt_is_b ? slot_b_addr[bt_slot] : slot_a_addr[bt_slot];
            end
          end

          // a step starts when its slot is full and the array is free
          if (can_start) begin
            mac_start <= 1'b1;
            mac_clear <= ck == 16'd0;
            mac_slot <= started[0];
            step_t0 <= now_ps;
            if (started == 32'd0) t_start <= now_ps;
            started <= started + 32'd1;
            ck <= ck + 16'd1 == tiles ? 16'd0 : ck + 16'd1;
            tr_fire[T_START] <= 1'b1;
            tr_req[64*T_START+:64] <= req_id;
            tr_arg[64*T_START+:64] <= {32'd0, started};
          end

          // a step ends: its slot is free; an output tile may be finished
          if (mac_done) begin
            finished <= finished + 32'd1;
            compute_ps <= compute_ps + (now_ps - step_t0);
            slot_busy[finished[0]] <= 1'b0;
            if (finished + 32'd1 == steps) t_end <= now_ps;
            tr_fire[T_END] <= 1'b1;
            tr_req[64*T_END+:64] <= req_id;
            tr_arg[64*T_END+:64] <= {32'd0, finished};
            if (dk + 16'd1 == tiles) begin
              dk <= 16'd0;
              res_pending <= 1'b1;
              res_addr <= c_addr + out_off;
              out_off <= out_off + res_bytes;
            end else dk <= dk + 16'd1;
          end

          if (can_launch) begin
            wr_start_tile <= 1'b1;
            wr_tile_addr <= res_addr;
            res_pending <= 1'b0;
            tr_fire[T_WRITE] <= 1'b1;
            tr_req[64*T_WRITE+:64] <= req_id;
            tr_arg[64*T_WRITE+:64] <= res_addr;
          end

          if (all_done) state <= S_REC;

          // a refused read or result write ends the request
          if (beat_failed || write_failed) begin
            code <= mm_pkg::ERR_DMA;
            err_dma <= 1'b1;
            mac_start <= 1'b0;
            mac_cancel <= 1'b1;
            rd_flush <= 1'b1;
            job_valid <= 1'b0;
            res_pending <= 1'b0;
            wr_start_tile <= 1'b0;
            state <= S_DRAIN;
          end
        end

        S_DRAIN:
        if (!rd_busy && !rd_in_flight && !wr_busy && !mac_busy && !mac_cancel) state <= S_REC;

        S_REC: begin
          wr_start_rec <= 1'b1;
          wr_rec_addr <= cpl_addr;
          wr_rec_beat <= record(req_id, code, t_accept, t_start, t_end, compute_ps, now_ps,
                                finished);
          completed_inc <= 1'b1;
          tr_fire[T_COMPLETION] <= 1'b1;
          tr_req[64*T_COMPLETION+:64] <= req_id;
          tr_arg[64*T_COMPLETION+:64] <= {32'd0, code};
          state <= S_RECW;
        end

        S_RECW:
        if (wr_rec_sent) begin
          head_advance <= 1'b1;
          if (irq_en) begin
            irq_valid <= 1'b1;
            tr_fire[T_IRQ] <= 1'b1;
            tr_req[64*T_IRQ+:64] <= req_id;
            tr_arg[64*T_IRQ+:64] <= 64'd0;
          end
          state <= S_IDLE;
        end

        default: state <= S_IDLE;
      endcase
    end
  end

  // Descriptor bits the block does not use (reserved fields, other flags).
  logic unused;
  assign unused = ^{bt_data[511:353], bt_index};
endmodule
