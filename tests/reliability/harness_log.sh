#!/usr/bin/env bash
# The QEMU tests' harness (tests/qemu/harness.sh): a host's console log can
# be read from the moment qh_host returns. Its QEMU started in the
# background, and the log was made by that child's redirection, so a read
# at once said "harness.sh: line 87: .../plain.log: No such file or
# directory" (bench-boot, issue 33, case 12). No QEMU: a stand-in that
# prints what a guest would.
set -u
source "$(dirname "$0")/../qemu/harness.sh"
QH_DIR=$(mktemp -d /tmp/mortar-harness-log.XXXXXX)
trap 'rm -rf "$QH_DIR"' EXIT
QH_QEMU=$QH_DIR/qemu
QH_FIRMWARE=()
QH_IMAGE=$QH_DIR/image
printf '#!/bin/sh\necho MORTAR-READY\n' >"$QH_QEMU"
chmod +x "$QH_QEMU"
for i in $(seq 50); do
    qh_host "h$i" true
    qh_log "h$i" >/dev/null 2>>"$QH_DIR/read.err"
done
wait
if [ -s "$QH_DIR/read.err" ]; then
    echo "FAIL: a host's log was read before it existed:" >&2
    sort "$QH_DIR/read.err" | uniq -c >&2
    exit 1
fi
echo "PASS: every host's log was there when qh_host returned"
