#!/usr/bin/env bash
# needs: qemu
# Issue 33, case 9: with --out on a full file system and --trace, the run
# had failed as "sim sim0 exited with status 1" with an empty log, and "No
# space left on device" appeared nowhere. The failure now names the full
# file system. The test mounts a 2 MiB tmpfs as the output folder (root
# only) and removes it at the end.
source "$(dirname "$0")/../qemu/harness.sh"
source "$(dirname "$0")/lib_run.sh"
qh_init reliability-full
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to mount a tmpfs"; exit 0; }
OUT=$QH_DIR/small
mkdir "$OUT"
mount -t tmpfs -o size=2m mortar-test "$OUT" || qh_fail "cannot mount a tmpfs"
trap 'umount "$OUT"; qh_cleanup' EXIT
RR_DB=$QH_DIR/results.db
if "$QH_BIN/mortar" run "$QH_SOURCE/experiments/examples/pcitest.json" --db "$RR_DB" \
    --out "$OUT" --trace --set reads=16000 --timeout 300 2>"$QH_DIR/run.err"; then
    qh_fail "a run on a full file system exited 0"
fi
[ "$(rr_last status)" = failed ] || qh_fail "the run is recorded '$(rr_last status)'"
rr_last error | grep -q "the file system holding $OUT/[^ ]* is full: No space left on device" ||
    qh_fail "the error does not name the full file system: $(rr_last error)"
grep -q "No space left on device" "$QH_DIR/run.err" || qh_fail "mortar run did not say so"
echo "PASS: $(rr_last error)"
