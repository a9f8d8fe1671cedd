#!/usr/bin/env bash
# bench-net: what the simulated network delivers, and what it costs, for each
# NIC model in the same run, printed as key=value.
#
# The system is the one SimBricks' paper measured with netperf: two hosts
# (one vCPU each, 4 instructions per ns: icount shift -2), each with a NIC on
# a PCIe link of 0.5 us, joined by a switch over Ethernet links of 0.5 us
# and 40 Gbit/s. Host 0 first streams BYTES over TCP to host 1 (the checked
# pattern of mortar-nettest), then runs RR_COUNT request/response
# transactions of 64 bytes each way, one at a time (netperf's TCP_RR).
# For each NIC model N:
#
#   N_stream_gbps          TCP goodput of the stream, from the sender's
#                          connect to the receiver's close (guest clock)
#   N_rr_mean_us           mean transaction latency; N_rr_p50_us, N_rr_p99_us
#   N_sim_us_per_wall_s    the synchronized phase (link up, stream and RR):
#                          simulated microseconds per wall second
#   N_wall_s               the whole run, boot included
#
# and the anchor's figures (SimBricks paper, QEMU-timing hosts, i40e model,
# 500 ns links) as anchor_stream_gbps=8.85, anchor_rr_us=17 and
# anchor_sim_us_per_wall_s=5000 (20 s of netperf in 1 h 05 min): the goal is
# at least that throughput, at most that latency, at least that speed.
#
# Knobs: NICS (default "i40e e1000"), BYTES (default 33554432), RR_COUNT
# (default 2000), MTU (default 1500, netperf's), SHIFT (default -2).
# Not a test. Needs `make setup` (QEMU, guest image) and `make`.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export MORTAR_SOURCE=${MORTAR_SOURCE:-$(cd "$here/../.." && pwd)}
source "$MORTAR_SOURCE/bench/options.sh"
bench_options bench-net "$0" "$@"
export MORTAR_BIN=${MORTAR_BIN:-$here}
NICS=${NICS:-"i40e e1000"}
BYTES=${BYTES:-33554432}
RR_COUNT=${RR_COUNT:-2000}
MTU=${MTU:-1500}
SHIFT=${SHIFT:--2}

now() { date +%s.%N; }

# bench_nic NIC: one run of the two-host system with NIC models of kind NIC.
bench_nic() {
    local nic=$1
    (
        source "$MORTAR_SOURCE/tests/qemu/harness.sh"
        QH_HOSTS=2
        QH_SHIFT=$SHIFT
        qh_init "bench-net-$nic"
        local eth='"latency": "500ns", "bandwidth": "40Gbps"'
        qh_sim net "{\"stats\": \"$QH_DIR/net.stats.json\", \"components\": [
          {\"name\": \"nic0\", \"kind\": \"$nic\", \"params\": {\"mac\": \"02:00:00:00:00:01\"}},
          {\"name\": \"nic1\", \"kind\": \"$nic\", \"params\": {\"mac\": \"02:00:00:00:00:02\"}},
          {\"name\": \"sw\", \"kind\": \"switch\", \"params\": {\"ports\": 2, \"bandwidth\": \"40Gbps\"}}],
         \"links\": [
          {\"name\": \"pcie0\", \"port\": \"nic0.0\", \"listen\": \"$QH_DIR/nic0.sock\", \"latency\": \"500ns\"},
          {\"name\": \"pcie1\", \"port\": \"nic1.0\", \"listen\": \"$QH_DIR/nic1.sock\", \"latency\": \"500ns\"},
          {\"name\": \"eth0\", \"port\": \"nic0.1\", \"peer\": \"sw.0\", $eth},
          {\"name\": \"eth1\", \"port\": \"nic1.1\", \"peer\": \"sw.1\", $eth}]}"
        local carrier='i=0
while [ "$(cat /sys/class/net/eth0/carrier 2>/dev/null)" != 1 ] && [ $i -lt 1000 ]; do
    sleep 0.01; i=$((i + 1))
done'
        local t0
        t0=$(now)
        QH_APPEND="mortar.ip=10.0.0.1/24 mortar.mtu=$MTU"
        qh_host h0 "$carrier
mortar-nettest send 10.0.0.2 5001 $BYTES 30 || exit 1
mortar-nettest rr 10.0.0.2 5002 $RR_COUNT 64 30" $(qh_device h0 "$QH_DIR/nic0.sock" nic0)
        QH_APPEND="mortar.ip=10.0.0.2/24 mortar.mtu=$MTU"
        qh_host h1 "$carrier
mortar-nettest serve 5001 30 || exit 1
mortar-nettest rr-serve 5002 64 30" $(qh_device h1 "$QH_DIR/nic1.sock" nic1)
        local end=$((SECONDS + 3600))
        until qh_log h0 | grep -q '^MORTAR-SYNCHRONIZED' && qh_log h1 | grep -q '^MORTAR-SYNCHRONIZED'; do
            [ "$SECONDS" -lt "$end" ] || qh_fail "$nic: the hosts did not synchronize"
            kill -0 "${QH_PIDS_HOST[@]}" 2>/dev/null || qh_fail "$nic: a host ended before synchronizing"
            sleep 0.05
        done
        local t1
        t1=$(now)
        qh_wait_hosts 3600
        local t2
        t2=$(now)
        qh_log h0 | grep -q '^transactions=' || qh_fail "$nic: the benchmark did not finish"
        local mbps rr sim_us
        mbps=$(qh_log h0 | sed -n 's/^bytes=.* mbps=\([0-9.]*\) .*/\1/p' | tail -n 1)
        rr=$(qh_log h0 | grep '^transactions=' | tail -n 1)
        sim_us=$(for h in h0 h1; do
            sed -n 's/.*"virtual_time_ps": \([0-9]*\), "sync_start_ps": \([0-9]*\).*/\1 \2/p' \
                "$QH_DIR/$h.host.json"
        done | awk '{ d = ($1 - $2) / 1e6; if (d > m) m = d } END { printf "%.0f", m }')
        awk -v n="$nic" -v mbps="$mbps" 'BEGIN { printf "%s_stream_gbps=%.2f\n", n, mbps / 1000 }'
        printf '%s\n' "$rr" | tr ' ' '\n' | awk -F= -v n="$nic" '
            $1 == "mean_ns" { printf "%s_rr_mean_us=%.1f\n", n, $2 / 1000 }
            $1 == "p50_ns" { printf "%s_rr_p50_us=%.1f\n", n, $2 / 1000 }
            $1 == "p99_ns" { printf "%s_rr_p99_us=%.1f\n", n, $2 / 1000 }'
        awk -v n="$nic" -v us="$sim_us" -v a="$t1" -v b="$t2" \
            'BEGIN { printf "%s_sim_us_per_wall_s=%.0f\n", n, us / (b - a) }'
        awk -v n="$nic" -v a="$t0" -v b="$t2" 'BEGIN { printf "%s_wall_s=%.1f\n", n, b - a }'
    )
}

for nic in $NICS; do
    "$MORTAR_BIN/mortar-sim" --list 2>/dev/null | grep -q "^ *$nic\b" ||
        { echo "bench-net: no model of kind $nic (mortar-sim --list)" >&2; exit 1; }
done
echo "anchor_stream_gbps=8.85"
echo "anchor_rr_us=17"
echo "anchor_sim_us_per_wall_s=5000"
for nic in $NICS; do
    echo "bench-net: $nic" >&2
    bench_nic "$nic" || exit 1
done
