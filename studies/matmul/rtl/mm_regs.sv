// mm_regs.sv - design B's BAR0 register file: ID, TILE, N, the ring
// registers (RING_BASE, RING_SIZE, HEAD, TAIL), CONTROL, STATUS and
// COMPLETED, at the offsets of studies/matmul/docs/matmul.md. It answers every
// MMIO request (reads one edge later), keeps the ring settings and refuses
// bad ones (STATUS.ERR_RING), and moves HEAD when the controller finishes
// an entry. Accesses that name no register (another size, an unaligned
// offset, another BAR, a write to a read-only register) read as zeros and
// write nothing.
module mm_regs
#(
    parameter int TILE = 128,
    parameter int NMAX = 512,
    parameter bit MSIX = 1'b0  // reset value of CONTROL.IRQ
) (
    input logic clk,
    input logic rst_n,

    input  logic        mmio_req_valid,
    output logic        mmio_req_ready,
    input  logic        mmio_req_write,
    input  logic [ 2:0] mmio_req_bar,
    input  logic [31:0] mmio_req_addr,
    input  logic [ 3:0] mmio_req_size,
    input  logic [63:0] mmio_req_wdata,
    output logic        mmio_rsp_valid,
    output logic [63:0] mmio_rsp_rdata,

    // to the controller
    output logic [63:0] ring_base,
    output logic [12:0] ring_size,
    output logic [11:0] head,
    output logic [11:0] tail,
    output logic        enable,
    output logic        irq_en,
    // from the controller
    input  logic        busy,          // serving a descriptor
    input  logic        head_advance,  // the entry at HEAD is finished
    input  logic        completed_inc, // a completion record was sent
    input  logic        err_dma,       // set STATUS.mm_pkg::ERR_DMA
    input  logic        err_desc,      // set STATUS.ERR_DESC

    // trace: TAIL written (doorbell) and a refused ring setting (error)
    output logic        tr_doorbell,
    output logic        tr_ring_error,
    output logic [63:0] tr_arg
);
  logic [2:0] err_bits;  // {ERR_DESC, mm_pkg::ERR_DMA, ERR_RING}
  logic [31:0] completed;

  // ---- decoding ---------------------------------------------------------------
  logic take, is32, is64, bar0;
  logic [31:0] off;
  assign mmio_req_ready = 1'b1;
  assign take = mmio_req_valid;
  assign off = mmio_req_addr;
  assign bar0 = mmio_req_bar == 3'd0;
  assign is32 = bar0 && mmio_req_size == 4'd4 && off[1:0] == 2'b00;
  assign is64 = bar0 && mmio_req_size == 4'd8 && off == mm_pkg::REG_RING_BASE;

  logic [31:0] status_value;
  always_comb begin
    status_value = 32'd0;
    status_value[mm_pkg::ST_BUSY] = busy;
    status_value[mm_pkg::ST_ERR_RING] = err_bits[0];
    status_value[mm_pkg::ST_ERR_DMA] = err_bits[1];
    status_value[mm_pkg::ST_ERR_DESC] = err_bits[2];
  end

  function automatic logic [31:0] read32(input logic [31:0] o, input logic [63:0] base,
                                         input logic [12:0] size, input logic [11:0] h,
                                         input logic [11:0] t, input logic en,
                                         input logic irq, input logic [31:0] st,
                                         input logic [31:0] done);
    case (o)
      mm_pkg::REG_ID: read32 = mm_pkg::ID_VALUE;
      mm_pkg::REG_TILE: read32 = 32'(TILE);
      mm_pkg::REG_N: read32 = 32'(NMAX);
      mm_pkg::REG_RING_BASE: read32 = base[31:0];
      mm_pkg::REG_RING_BASE + 32'd4: read32 = base[63:32];
      mm_pkg::REG_RING_SIZE: read32 = {19'd0, size};
      mm_pkg::REG_RING_HEAD: read32 = {20'd0, h};
      mm_pkg::REG_RING_TAIL: read32 = {20'd0, t};
      mm_pkg::REG_CONTROL: read32 = {30'd0, irq, en};
      mm_pkg::REG_STATUS: read32 = st;
      mm_pkg::REG_COMPLETED: read32 = done;
      default: read32 = 32'd0;
    endcase
  endfunction

  // ---- writes ------------------------------------------------------------------
  logic wr, wr_base_lo, wr_base_hi, wr_size, wr_tail, wr_control, wr_status;
  logic [31:0] wv;
  assign wr = take && mmio_req_write;
  assign wv = mmio_req_wdata[31:0];
  assign wr_base_lo = wr && ((is32 && off == mm_pkg::REG_RING_BASE) || is64);
  assign wr_base_hi = wr && ((is32 && off == mm_pkg::REG_RING_BASE + 32'd4) || is64);
  assign wr_size = wr && is32 && off == mm_pkg::REG_RING_SIZE;
  assign wr_tail = wr && is32 && off == mm_pkg::REG_RING_TAIL;
  assign wr_control = wr && is32 && off == mm_pkg::REG_CONTROL;
  assign wr_status = wr && is32 && off == mm_pkg::REG_STATUS;

  logic enabling, ring_usable;
  assign enabling = wr_control && wv[mm_pkg::CTRL_ENABLE] && !enable;
  assign ring_usable = ring_size != 13'd0 && mm_pkg::addr_ok(ring_base, {45'd0, ring_size, 6'd0});

  // A write the ring refuses: settings while enabled, a bad size or TAIL,
  // enabling with no usable ring or while an entry is still served.
  logic refused;
  assign refused = ((wr_base_lo || wr_base_hi || wr_size) && enable) ||
                   (wr_size && (wv == 32'd0 || wv > 32'(mm_pkg::RING_MAX))) ||
                   (wr_tail && wv >= {19'd0, ring_size}) ||
                   (enabling && (busy || !ring_usable));

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      ring_base <= 64'd0;
      ring_size <= 13'd0;
      head <= 12'd0;
      tail <= 12'd0;
      enable <= 1'b0;
      irq_en <= MSIX;
      err_bits <= 3'd0;
      completed <= 32'd0;
      mmio_rsp_valid <= 1'b0;
      mmio_rsp_rdata <= 64'd0;
      tr_doorbell <= 1'b0;
      tr_ring_error <= 1'b0;
      tr_arg <= 64'd0;
    end else begin
      // reads: answered one edge later
      mmio_rsp_valid <= take && !mmio_req_write;
      if (take && !mmio_req_write) begin
        if (is64)
          mmio_rsp_rdata <= ring_base;
        else if (is32)
          mmio_rsp_rdata <= {32'd0, read32(off, ring_base, ring_size, head, tail, enable,
                                           irq_en, status_value, completed)};
        else mmio_rsp_rdata <= 64'd0;
      end

      tr_doorbell <= wr_tail && !refused;
      tr_ring_error <= refused;
      tr_arg <= refused ? 64'(1 << mm_pkg::ST_ERR_RING) : {52'd0, wv[11:0]};

      if (!refused) begin
        if (wr_base_lo) ring_base[31:0] <= wv;
        if (wr_base_hi) ring_base[63:32] <= is64 ? mmio_req_wdata[63:32] : wv;
        if (wr_size) ring_size <= wv[12:0];
        if (wr_tail) tail <= wv[11:0];
        if (wr_control) begin
          enable <= wv[mm_pkg::CTRL_ENABLE];
          irq_en <= wv[mm_pkg::CTRL_IRQ];
        end
      end

      if (enabling && !refused) head <= 12'd0;
      else if (head_advance) head <= ({1'b0, head} + 13'd1 == ring_size) ? 12'd0 : head + 12'd1;
      if (enabling && !refused) tail <= 12'd0;

      if (completed_inc) completed <= completed + 32'd1;

      // STATUS: write 1 to clear; a new error at the same edge wins
      if (wr_status) err_bits <= err_bits & ~wv[mm_pkg::ST_ERR_DESC:mm_pkg::ST_ERR_RING];
      if (refused) err_bits[0] <= 1'b1;
      if (err_dma) err_bits[1] <= 1'b1;
      if (err_desc) err_bits[2] <= 1'b1;
    end
  end

  // Parts of the write data no register holds.
  logic unused;
  assign unused = ^{mmio_req_wdata[63:32], wv[31:13]};
endmodule
