#!/usr/bin/env bash
# bench-boot: what booting costs with mortar, printed as key=value.
#
#   boot_plain_wall_s    the guest image in mortar's QEMU, icount, no mortar
#                        devices: wall seconds until the guest is ready
#   boot_mortar_wall_s   the two-host network system (two e1000 models and a
#                        switch in one mortar-sim): wall seconds until both
#                        guests are ready and synchronized at the common start
#   boot_ratio           boot_mortar_wall_s / boot_plain_wall_s
#   sync_phase_sim_us_per_wall_s
#                        both hosts idle after the switch to synchronized
#                        mode: simulated microseconds per wall second
# and with `mortar run` on the same system (bench/boot-net.json), wall
# seconds from the run's start to the common start (docs/snapshots.md):
#   start_snapshot_build_wall_s   booting both hosts to their snapshot
#                                 point and saving them (once per
#                                 configuration; a private cache here)
#   start_from_snapshot_wall_s    a run restored from the snapshots
#   start_cold_boot_wall_s        a run with --cold-boot
#   start_ratio                   cold / snapshot
# Not a test. Needs `make setup` (QEMU, guest image) and `make`.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export MORTAR_SOURCE=${MORTAR_SOURCE:-$(cd "$here/../.." && pwd)}
source "$MORTAR_SOURCE/bench/options.sh"
bench_options bench-boot "$0" "$@"
export MORTAR_BIN=${MORTAR_BIN:-$here}
source "$MORTAR_SOURCE/tests/qemu/harness.sh"
IDLE_S=${IDLE_S:-1}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# Waits until every named host's log has a line starting with $1.
wait_lines() {
    local pattern=$1 limit=$2
    shift 2
    local end=$((SECONDS + limit)) h
    for h in "$@"; do
        until qh_log "$h" | grep -q "^$pattern"; do
            [ "$SECONDS" -lt "$end" ] || qh_fail "no $pattern from $h within $limit s"
            sleep 0.05
        done
    done
}

# Plain boot: no mortar device at all.
qh_init bench-plain
t0=$(now)
qh_host plain "true"
wait_lines MORTAR-READY 300 plain
plain=$(elapsed "$t0" "$(now)")
qh_wait_hosts 120
qh_cleanup
trap - EXIT

# The two-host network system.
QH_HOSTS=2
qh_init bench-net
qh_sim net "{\"components\":[
   {\"name\":\"nic0\",\"kind\":\"e1000\",\"params\":{\"mac\":\"02:00:00:00:00:01\"}},
   {\"name\":\"nic1\",\"kind\":\"e1000\",\"params\":{\"mac\":\"02:00:00:00:00:02\"}},
   {\"name\":\"sw\",\"kind\":\"switch\",\"params\":{\"ports\":2}}],
 \"links\":[
   {\"name\":\"pcie0\",\"port\":\"nic0.0\",\"listen\":\"$QH_DIR/nic0.sock\",\"latency\":\"1us\"},
   {\"name\":\"pcie1\",\"port\":\"nic1.0\",\"listen\":\"$QH_DIR/nic1.sock\",\"latency\":\"1us\"},
   {\"name\":\"eth0\",\"port\":\"nic0.1\",\"peer\":\"sw.0\",\"latency\":\"500ns\",\"bandwidth\":\"10Gbps\"},
   {\"name\":\"eth1\",\"port\":\"nic1.1\",\"peer\":\"sw.1\",\"latency\":\"500ns\",\"bandwidth\":\"10Gbps\"}]}"
t0=$(now)
QH_APPEND="mortar.ip=10.0.0.1/24 mortar.mtu=9000"
qh_host h0 "sleep $IDLE_S" $(qh_device h0 "$QH_DIR/nic0.sock" nic0)
QH_APPEND="mortar.ip=10.0.0.2/24 mortar.mtu=9000"
qh_host h1 "sleep $IDLE_S" $(qh_device h1 "$QH_DIR/nic1.sock" nic1)
wait_lines MORTAR-SYNCHRONIZED 600 h0 h1
t1=$(now)
mortar=$(elapsed "$t0" "$t1")
qh_wait_hosts 3600
t2=$(now)
# The synchronized phase: from the common start to the later power-off.
sim_us=$(for h in h0 h1; do
    sed -n 's/.*"virtual_time_ps": \([0-9]*\), "sync_start_ps": \([0-9]*\).*/\1 \2/p' \
        "$QH_DIR/$h.host.json"
done | awk '{ d = ($1 - $2) / 1e6; if (d > m) m = d } END { printf "%.0f", m }')
sync_wall=$(elapsed "$t1" "$t2")

echo "boot_plain_wall_s=$plain"
echo "boot_mortar_wall_s=$mortar"
awk -v a="$mortar" -v b="$plain" 'BEGIN { printf "boot_ratio=%.2f\n", a / b }'
awk -v us="$sim_us" -v w="$sync_wall" 'BEGIN { printf "sync_phase_sim_us_per_wall_s=%.0f\n", us / w }'

# `mortar run` from snapshots and cold: the line
# "[mortar] hosts synchronized at the common start after X s (...)".
MORTAR=$MORTAR_BIN/mortar
[ -x "$MORTAR" ] || MORTAR=$MORTAR_SOURCE/build/bin/mortar
work=$(mktemp -d /tmp/mortar-bench-boot.XXXXXX)
trap 'rm -rf "$work"' EXIT
export MORTAR_SNAPSHOTS=$work/snapshots
start_after() {
    local name=$1
    shift
    "$MORTAR" run "$MORTAR_SOURCE/bench/boot-net.json" --db "$work/r.db" --out "$work/runs" \
        "$@" >/dev/null 2>"$work/$name.err" || { cat "$work/$name.err" >&2; exit 1; }
    sed -n 's/.*at the common start after \([0-9.]*\) s.*/\1/p' "$work/$name.err"
}
start_after build >/dev/null
build=$(sed -n 's/.*snapshots saved in \([0-9.]*\) s.*/\1/p' "$work/build.err")
snap=$(start_after snapshot)
cold=$(start_after cold --cold-boot)
echo "start_snapshot_build_wall_s=$build"
echo "start_from_snapshot_wall_s=$snap"
echo "start_cold_boot_wall_s=$cold"
awk -v a="$cold" -v b="$snap" 'BEGIN { printf "start_ratio=%.1f\n", a / b }'
