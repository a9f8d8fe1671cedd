#!/usr/bin/env bash
# A guest boots and finds a mortar device with the IDs and BAR sizes of the
# device model's intro, read from /sys by a guest program.
source "$(dirname "$0")/harness.sh"
qh_init boot-ids
qh_sim dev "{\"components\":[{\"name\":\"pt\",\"kind\":\"pcitest\"}],
 \"links\":[{\"name\":\"pcie\",\"port\":\"pt.0\",\"listen\":\"$QH_DIR/pt.sock\",\"latency\":\"500ns\"}]}"
qh_host h0 "mortar-pcitest ids" $(qh_device h0 "$QH_DIR/pt.sock" pt)
qh_wait_hosts 300
qh_wait_sims 30
qh_log h0 | grep -q '^MORTAR-EXIT 0' || qh_fail "the guest program failed"
check() { [ "$(qh_value h0 "$1")" = "$2" ] || qh_fail "$1 is '$(qh_value h0 "$1")', expected '$2'"; }
check vendor 0x1de5
check device 0x7e57
check class 0xff0000
check bar0_size 4096
check bar2_size 1048576
check bar2_type mem64-prefetch
check msi_vectors 1
check msix_vectors 4
check irq_pin 1
echo "PASS: the guest sees the model's identity and BARs"
