#!/usr/bin/env bash
# run.sh [BYTES [REQUESTS]] - the smallest run of my-device: the device and
# its host side in two mortar-sim processes joined by a PCIe link over
# shared memory (500 ns one way), REQUESTS checksums of BYTES bytes each
# (default: one of 4096). Prints what the host checked; exits 0 when every
# checksum the device computed is right, 1 otherwise.
#
# Uses mortar-sim from PATH (or $MORTAR_SIM) and the plugins built next to
# this script (make). RUN_DIR=dir keeps the descriptions, logs and stats
# there instead of a temporary directory.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sim=${MORTAR_SIM:-mortar-sim}
bytes=${1:-4096}
requests=${2:-1}
case "$bytes$requests" in *[!0-9]*) echo "run.sh: BYTES and REQUESTS are numbers" >&2; exit 2 ;; esac
if [ -n "${RUN_DIR:-}" ]; then
    work=$RUN_DIR
    mkdir -p "$work"
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/my-device.XXXXXX")
    trap 'rm -rf "$work"' EXIT
fi
export MORTAR_PLUGIN_PATH="$here${MORTAR_PLUGIN_PATH:+:$MORTAR_PLUGIN_PATH}"

cat >"$work/device.json" <<JSON
{
  "stats": "$work/device.stats.json",
  "components": [{"name": "dev", "kind": "my-device"}],
  "links": [{"name": "pcie", "port": "dev.0", "listen": "$work/pcie.sock", "latency": "500ns"}]
}
JSON
cat >"$work/host.json" <<JSON
{
  "stats": "$work/host.stats.json",
  "components": [{"name": "host", "kind": "my-device-host",
                  "params": {"bytes": $bytes, "requests": $requests}}],
  "links": [{"name": "pcie", "port": "host.0", "connect": "$work/pcie.sock", "latency": "500ns"}]
}
JSON

# Both sides start at once; when one fails, the other (waiting for its peer
# up to the link's handshake timeout) is stopped.
"$sim" "$work/device.json" >"$work/device.log" 2>&1 &
device=$!
MORTAR_LOG=${MORTAR_LOG:-info} "$sim" "$work/host.json" >"$work/host.log" 2>&1 &
host=$!
declare -A status
first=
wait -n -p first "$device" "$host" && status[$first]=0 || status[$first]=$?
if [ "${status[$first]}" != 0 ]; then
    kill "$device" "$host" 2>/dev/null || true
fi
for pid in "$device" "$host"; do
    [ -n "${status[$pid]:-}" ] && continue
    wait "$pid" && status[$pid]=0 || status[$pid]=$?
done
host_status=${status[$host]} device_status=${status[$device]}
cat "$work/host.log"
if [ "$host_status" != 0 ] || [ "$device_status" != 0 ]; then
    echo "run.sh: mortar-sim exited with $host_status (host) and $device_status (device)" >&2
    cat "$work/device.log" >&2
    exit 1
fi

stat() { sed -n "s/^ *\"$1\": *\([0-9]*\).*/\1/p" "$work/$2.stats.json" | head -n1; }
checked=$(stat requests_checked host)
mismatches=$(stat mismatches host)
latency=$(stat last_latency_ps host)
jobs=$(stat jobs device)
echo "my-device: $checked of $requests checksums over $bytes bytes checked, $mismatches wrong;" \
    "the device ran $jobs jobs; the last took $latency ps from start to interrupt"
[ "$checked" = "$requests" ] && [ "$mismatches" = 0 ] && [ "$jobs" = "$requests" ]
