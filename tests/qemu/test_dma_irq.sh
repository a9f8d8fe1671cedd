#!/usr/bin/env bash
# The test device writes a pattern into a guest buffer by DMA and raises an
# MSI-X interrupt; the guest sees both, and a DMA read-back sums correctly.
# The link is PCIe 3.0 x8 with 16 chunks of 4 KiB in flight: QEMU's side
# serves the guest buffer at the link's rate (docs/pcie.md), so each 64 KiB
# DMA takes its two latencies plus 16 x 16 completions (or writes) of 276
# bytes on the wire.
source "$(dirname "$0")/harness.sh"
qh_init dma-irq
qh_sim dev "{\"components\":[{\"name\":\"pt\",\"kind\":\"pcitest\",\"params\":{\"outstanding\":16}}],
 \"links\":[{\"name\":\"pcie\",\"port\":\"pt.0\",\"listen\":\"$QH_DIR/pt.sock\",\"latency\":\"1us\",
             \"pcie\":{\"gen\":3,\"lanes\":8}}]}"
qh_host h0 "mortar-pcitest dma-irq" $(qh_device h0 "$QH_DIR/pt.sock" pt)
qh_wait_hosts 300
qh_wait_sims 30
qh_log h0 | grep -q '^MORTAR-EXIT 0' || qh_fail "the guest program failed"
[ "$(qh_value h0 pattern_ok)" = 1 ] || qh_fail "the DMA pattern did not arrive"
[ "$(qh_value h0 readback_ok)" = 1 ] || qh_fail "the DMA read-back sum is wrong"
[ "$(qh_value h0 irq)" = msix ] || qh_fail "no MSI-X interrupt (irq=$(qh_value h0 irq))"

# ns of `bytes` on PCIe 3.0 x8, MPS 256 (docs/pcie.md, "The rate"):
# 1015.625 ps a byte a lane, TLPs get 1 - 16/203 - 4/1538 of the link.
wire_ns() { awk -v b="$1" 'BEGIN { printf "%.3f", b * 1015.625 / 8 / (1 - 16/203 - 4/1538) / 1000 }'; }
chunk=$(wire_ns $((16 * 276)))  # one 4 KiB chunk: 16 TLPs of 8 + 12 + 256
first=$(wire_ns 20)             # a read's first request
check() { # name measured expected
    awk -v m="$2" -v e="$3" 'BEGIN { d = m - e; exit !(d <= 2 && d >= -2) }' ||
        qh_fail "$1: $2 ns, expected $3 ns (2 x 1 us + the wire of 16 chunks at 3.0 x8)"
    echo "$1: $2 ns (expected $3 ns)"
}
write_ns=$(qh_value h0 write_dma_ns)
read_ns=$(qh_value h0 read_dma_ns)
check "64 KiB DMA write" "$write_ns" "$(awk -v c="$chunk" 'BEGIN { printf "%.0f", 2000 + 16 * c }')"
check "64 KiB DMA read" "$read_ns" "$(awk -v c="$chunk" -v f="$first" 'BEGIN { printf "%.0f", 2000 + f + 16 * c }')"
echo "PASS: DMA both ways at the link's rate, and MSI-X interrupts reach the guest"
