// testdev.sv - a tiny DMA copy engine that exercises every port of the
// RTL contract (docs/rtl-ports.md); the adapter's tests run on it.
//
// BAR0, 4 KiB of registers, accessed 1, 2, 4 or 8 bytes at a time (an
// access covers the bytes it names within one 8-byte-aligned slot):
//   0x00 ID = 0x52544c01 (ro)        0x04 SCRATCH (rw)
//   0x08 SRC host address (64, rw)   0x10 DST host address (64, rw)
//   0x18 LEN bytes, 1..4096 (rw)     0x1c VECTOR interrupt vector (rw, 5 bits)
//   0x20 DOORBELL: a write starts a copy of LEN bytes from SRC to DST; the
//        value is the request id of its trace events (reads back the last)
//   0x24 STATUS: bit0 busy, bit1 done, bit2 error (write 1 to clear 1 and 2)
//   0x28 CYCLES (64, ro): edges this design has evaluated since reset; it
//        stands still while the adapter skips an idle design
//   0x30 COPIES (ro): copies finished
//   0x34 TIMER: a write of N > 0 counts N edges down, then interrupts
//   0x38 START_AT (64, ro): now_ps of the edge that took the last doorbell
//   0x40 DONE_AT (64, ro): now_ps of the edge that finished the last copy
//   0x48 MODE (rw): bit0 early interrupt: a copy interrupts at the edge its
//        DMA write request is taken, before its data, instead of when it is
//        done (the adapter must still deliver it after the write); bit1 no length check: LEN
//        goes to the DMA request as it is (the adapter refuses 0 and > 4096)
// A copy: one DMA read of LEN bytes (tag 1) into a 4 KiB buffer, one DMA
// write of them (tag 2), the write's response, then STATUS done (or error
// when the host refused either, or LEN was out of range), an interrupt on
// VECTOR and a trace event. Idle while waiting for a doorbell or the host.
// Trace codes: 0 doorbell (arg LEN), 1 copy_done (arg STATUS),
// 2 timer_done (arg N).
module testdev (
    input  logic         clk,
    input  logic         rst_n,
    input  logic [63:0]  now_ps,
    output logic         idle,

    input  logic         mmio_req_valid,
    output logic         mmio_req_ready,
    input  logic         mmio_req_write,
    input  logic [2:0]   mmio_req_bar,
    input  logic [31:0]  mmio_req_addr,
    input  logic [3:0]   mmio_req_size,
    input  logic [63:0]  mmio_req_wdata,
    output logic         mmio_rsp_valid,
    output logic [63:0]  mmio_rsp_rdata,

    output logic         dma_req_valid,
    input  logic         dma_req_ready,
    output logic         dma_req_write,
    output logic [63:0]  dma_req_addr,
    output logic [12:0]  dma_req_len,
    output logic [7:0]   dma_req_tag,

    output logic         dma_wdata_valid,
    input  logic         dma_wdata_ready,
    output logic [511:0] dma_wdata,
    output logic         dma_wdata_last,

    input  logic         dma_rdata_valid,
    output logic         dma_rdata_ready,
    input  logic [511:0] dma_rdata,
    input  logic [7:0]   dma_rdata_tag,
    input  logic         dma_rdata_last,
    input  logic         dma_rdata_err,

    input  logic         dma_wresp_valid,
    input  logic [7:0]   dma_wresp_tag,
    input  logic         dma_wresp_err,

    output logic         irq_valid,
    output logic [4:0]   irq_vector,

    output logic         trace_valid,
    output logic [7:0]   trace_kind,
    output logic [63:0]  trace_req,
    output logic [63:0]  trace_arg
);
    localparam logic [31:0] ID = 32'h52544c01;
    localparam logic [7:0] TAG_READ = 8'd1;
    localparam logic [7:0] TAG_WRITE = 8'd2;
    localparam logic [7:0] TRACE_DOORBELL = 8'd0;
    localparam logic [7:0] TRACE_COPY_DONE = 8'd1;
    localparam logic [7:0] TRACE_TIMER_DONE = 8'd2;

    typedef enum logic [2:0] {
        S_IDLE, S_START, S_RD_REQ, S_RD_DATA, S_WR_REQ, S_WR_DATA, S_WR_RESP, S_DONE
    } state_t;

    state_t state;
    logic [31:0] scratch, len, doorbell, copies, timer_n, timer_left;
    logic [4:0] vector;
    logic [1:0] mode;
    logic early_irq, early_sent;
    logic [2:0] status;  // error, done, busy
    logic [63:0] src, dst, cycles, start_at, done_at;
    logic [511:0] buffer [64];
    logic [6:0] beat, beats;
    logic rsp_pending, timer_fire;
    logic [63:0] rsp_data;

    // ---- MMIO: one request per edge, the read's answer one edge later ----
    logic [8:0] slot;
    logic [63:0] byte_mask, wvalue, slot_value;
    logic take_mmio;

    assign take_mmio = mmio_req_valid && mmio_req_ready;
    assign slot = mmio_req_addr[11:3];
    assign byte_mask = size_mask(mmio_req_size) << {mmio_req_addr[2:0], 3'b000};
    assign wvalue = mmio_req_wdata << {mmio_req_addr[2:0], 3'b000};

    function automatic logic [63:0] size_mask(input logic [3:0] size);
        case (size)
            4'd1: size_mask = 64'h0000_0000_0000_00ff;
            4'd2: size_mask = 64'h0000_0000_0000_ffff;
            4'd4: size_mask = 64'h0000_0000_ffff_ffff;
            4'd8: size_mask = 64'hffff_ffff_ffff_ffff;
            default: size_mask = 64'h0;
        endcase
    endfunction

    function automatic logic [63:0] merge(input logic [63:0] old);
        merge = (old & ~byte_mask) | (wvalue & byte_mask);
    endfunction

    always_comb begin
        case (slot)
            9'd0: slot_value = {scratch, ID};
            9'd1: slot_value = src;
            9'd2: slot_value = dst;
            9'd3: slot_value = {27'b0, vector, len};
            9'd4: slot_value = {29'b0, status, doorbell};
            9'd5: slot_value = cycles;
            9'd6: slot_value = {timer_left, copies};
            9'd7: slot_value = start_at;
            9'd8: slot_value = done_at;
            9'd9: slot_value = {62'b0, mode};
            default: slot_value = 64'h0;
        endcase
    end

    logic bar0;
    assign bar0 = mmio_req_bar == 3'd0;
    assign mmio_req_ready = !rsp_pending;
    assign mmio_rsp_valid = rsp_pending;
    assign mmio_rsp_rdata = rsp_data;

    // A write to the doorbell or timer bytes starts something.
    logic ring, arm_timer;
    logic [63:0] merged;
    assign merged = merge(slot_value);
    assign ring = take_mmio && mmio_req_write && bar0 && slot == 9'd4 && byte_mask[0];
    assign arm_timer = take_mmio && mmio_req_write && bar0 && slot == 9'd6 && byte_mask[32];

    // ---- the copy -----------------------------------------------------------
    logic len_ok;
    assign len_ok = mode[1] || (len != 32'd0 && len <= 32'd4096);

    assign dma_req_valid = state == S_RD_REQ || state == S_WR_REQ;
    assign dma_req_write = state == S_WR_REQ;
    assign dma_req_addr = state == S_WR_REQ ? dst : src;
    assign dma_req_len = len[12:0];
    assign dma_req_tag = state == S_WR_REQ ? TAG_WRITE : TAG_READ;
    assign dma_rdata_ready = state == S_RD_DATA;
    assign dma_wdata_valid = state == S_WR_DATA;
    assign dma_wdata = buffer[beat[5:0]];
    assign dma_wdata_last = beat + 7'd1 == beats;

    assign irq_valid = (state == S_DONE && !early_sent) || early_irq || timer_fire;
    assign irq_vector = vector;
    assign trace_valid = state == S_START || state == S_DONE || timer_fire;
    assign trace_kind = state == S_START ? TRACE_DOORBELL
                      : state == S_DONE ? TRACE_COPY_DONE : TRACE_TIMER_DONE;
    assign trace_req = {32'b0, doorbell};
    assign trace_arg = state == S_START ? {32'b0, len}
                     : state == S_DONE ? {61'b0, status} : {32'b0, timer_n};

    assign idle = (state == S_IDLE || state == S_RD_DATA || state == S_WR_RESP)
                  && !rsp_pending && timer_left == 32'd0 && !timer_fire;

    // Inputs this design has no use for (the adapter keeps addresses inside
    // the 4 KiB BAR).
    logic unused;
    assign unused = ^{dma_rdata_tag, dma_rdata_last, dma_wresp_tag, mmio_req_addr[31:12]};

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            state <= S_IDLE;
            {scratch, len, doorbell, copies, timer_n, timer_left} <= '0;
            {src, dst, cycles, start_at, done_at, rsp_data} <= '0;
            vector <= '0;
            mode <= '0;
            early_irq <= 1'b0;
            early_sent <= 1'b0;
            status <= '0;
            beat <= '0;
            beats <= '0;
            rsp_pending <= 1'b0;
            timer_fire <= 1'b0;
        end else begin
            cycles <= cycles + 64'd1;
            rsp_pending <= take_mmio && !mmio_req_write;
            if (take_mmio && !mmio_req_write)
                rsp_data <= bar0 ? slot_value >> {mmio_req_addr[2:0], 3'b000} : 64'h0;
            if (take_mmio && mmio_req_write && bar0) begin
                case (slot)
                    9'd0: scratch <= merged[63:32];
                    9'd1: src <= merged;
                    9'd2: dst <= merged;
                    9'd3: begin
                        len <= merged[31:0];
                        vector <= merged[36:32];
                    end
                    9'd9: mode <= merged[1:0];
                    9'd4: begin
                        if (byte_mask[0]) doorbell <= merged[31:0];
                        status <= status & ~(wvalue[34:32] & byte_mask[34:32] & 3'b110);
                    end
                    default: ;
                endcase
            end
            timer_fire <= timer_left == 32'd1;
            early_irq <= state == S_WR_REQ && dma_req_ready && mode[0];
            if (ring) early_sent <= 1'b0;
            else if (early_irq) early_sent <= 1'b1;
            if (arm_timer) begin
                timer_n <= merged[63:32];
                timer_left <= merged[63:32];
            end else if (timer_left != 32'd0) begin
                timer_left <= timer_left - 32'd1;
            end

            case (state)
                S_IDLE: if (ring) begin
                    if (len_ok) begin
                        state <= S_START;
                        status <= 3'b001;
                        beats <= 7'((len + 32'd63) >> 6);
                    end else begin
                        state <= S_DONE;
                        status <= 3'b110;
                    end
                    start_at <= now_ps;
                end
                S_START: state <= S_RD_REQ;
                S_RD_REQ: if (dma_req_ready) begin
                    state <= S_RD_DATA;
                    beat <= '0;
                end
                S_RD_DATA: if (dma_rdata_valid) begin
                    buffer[beat[5:0]] <= dma_rdata;
                    beat <= beat + 7'd1;
                    if (dma_rdata_err) begin
                        state <= S_DONE;
                        status <= 3'b110;
                    end else if (beat + 7'd1 == beats) begin
                        state <= S_WR_REQ;
                    end
                end
                S_WR_REQ: if (dma_req_ready) begin
                    state <= S_WR_DATA;
                    beat <= '0;
                end
                S_WR_DATA: if (dma_wdata_ready) begin
                    beat <= beat + 7'd1;
                    if (dma_wdata_last) state <= S_WR_RESP;
                end
                S_WR_RESP: if (dma_wresp_valid) begin
                    state <= S_DONE;
                    status <= dma_wresp_err ? 3'b110 : 3'b010;
                end
                S_DONE: begin
                    state <= S_IDLE;
                    copies <= copies + 32'd1;
                    done_at <= now_ps;
                end
                default: state <= S_IDLE;
            endcase
        end
    end
endmodule
