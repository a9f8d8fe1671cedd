#!/usr/bin/env bash
# needs: qemu
# Issue 33, case 4: a program of the spec that the guest refuses to install
# (its name is one the image has: "sh", any busybox applet) had been
# reported only on the console, and the run recorded ok; the command ran
# the image's program of that name instead. The run now fails naming the
# program, and the command does not run.
source "$(dirname "$0")/../qemu/harness.sh"
source "$(dirname "$0")/lib_run.sh"
qh_init reliability-refused
cat >"$QH_DIR/spec.json" <<JSON
{"name": "refused",
 "hosts": [{"name": "h0", "memory_mib": 256, "programs": ["/bin/sh"],
            "run": "echo THE-COMMAND-RAN"}],
 "components": [{"name": "dev", "kind": "pcitest"}],
 "links": [{"name": "pcie0", "host": "h0", "component": "dev.0", "latency": "500ns"}]}
JSON
RR_DB=$QH_DIR/results.db
if "$QH_BIN/mortar" run "$QH_DIR/spec.json" --db "$RR_DB" --out "$QH_DIR/runs" \
    --timeout 300 2>"$QH_DIR/run.err"; then
    qh_fail "a run whose program was refused exited 0"
fi
[ "$(rr_last status)" = failed ] || qh_fail "the run is recorded '$(rr_last status)'"
rr_last error | grep -q "host h0: a program of this host was not installed: .*program sh" ||
    qh_fail "the error does not name the program: $(rr_last error)"
! grep -q THE-COMMAND-RAN "$QH_DIR"/runs/*/h0.console.log ||
    qh_fail "the command ran without its program"
echo "PASS: $(rr_last error)"
