#!/usr/bin/env bash
# A device model that dies while QEMU waits on it ends the host with an
# error naming the device; QEMU does not hang. A host without -icount is
# refused at once.
source "$(dirname "$0")/harness.sh"
qh_init death
qh_sim dev "{\"components\":[{\"name\":\"pt\",\"kind\":\"pcitest\"}],
 \"links\":[{\"name\":\"pcie\",\"port\":\"pt.0\",\"listen\":\"$QH_DIR/pt.sock\",\"latency\":\"500ns\"}]}"
qh_host h0 "mortar-pcitest mmio-timing 10000000" $(qh_device h0 "$QH_DIR/pt.sock" accel0)
end=$((SECONDS + 300))
until qh_log h0 | grep -q '^MORTAR-SYNCHRONIZED'; do
    [ "$SECONDS" -lt "$end" ] || qh_fail "the guest never synchronized"
    sleep 0.2
done
sleep 1
kill -9 "${QH_PIDS_SIM[0]}"
killed=$SECONDS
qh_wait_hosts 10
wait "${QH_PIDS_HOST[0]}"
status=$?
[ "$status" -ne 0 ] || qh_fail "QEMU exited with 0 after its device died"
grep -q "device 'accel0'" "$QH_DIR/h0.qemu.err" || qh_fail "QEMU's error does not name the device"
echo "QEMU exited $status after $((SECONDS - killed)) s: $(tail -n 1 "$QH_DIR/h0.qemu.err")"

# Without -icount the device refuses to start, saying why, instead of a
# guest that never synchronizes.
if "$QH_QEMU" "${QH_FIRMWARE[@]}" -M pc -nodefaults -display none \
    -device mortar-pci,socket="$QH_DIR/none.sock" 2>"$QH_DIR/noicount.err" </dev/null; then
    qh_fail "mortar-pci started without -icount"
fi
grep -q "mortar-pci: needs -icount" "$QH_DIR/noicount.err" ||
    qh_fail "no clear error without -icount: $(cat "$QH_DIR/noicount.err")"
echo "PASS: a dead device model ends its host with an error naming it; no -icount is refused"
