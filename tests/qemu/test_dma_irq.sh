#!/usr/bin/env bash
# The test device writes a pattern into a guest buffer by DMA and raises an
# MSI-X interrupt; the guest sees both, and a DMA read-back sums correctly.
source "$(dirname "$0")/harness.sh"
qh_init dma-irq
qh_sim dev "{\"components\":[{\"name\":\"pt\",\"kind\":\"pcitest\"}],
 \"links\":[{\"name\":\"pcie\",\"port\":\"pt.0\",\"listen\":\"$QH_DIR/pt.sock\",\"latency\":\"1us\"}]}"
qh_host h0 "mortar-pcitest dma-irq" $(qh_device h0 "$QH_DIR/pt.sock" pt)
qh_wait_hosts 300
qh_wait_sims 30
qh_log h0 | grep -q '^MORTAR-EXIT 0' || qh_fail "the guest program failed"
[ "$(qh_value h0 pattern_ok)" = 1 ] || qh_fail "the DMA pattern did not arrive"
[ "$(qh_value h0 readback_ok)" = 1 ] || qh_fail "the DMA read-back sum is wrong"
[ "$(qh_value h0 irq)" = msix ] || qh_fail "no MSI-X interrupt (irq=$(qh_value h0 irq))"
echo "PASS: DMA both ways and MSI-X interrupts reach the guest"
