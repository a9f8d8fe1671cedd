#!/usr/bin/env bash
# Two hosts, each with an e1000 model driven by the unmodified Linux e1000
# driver, joined by a 2-port switch; the three models share one mortar-sim.
# The driver binds and brings the link up, host 0 pings host 1, and 8 MiB go
# over TCP from host 0 to host 1 at MTU 9000, checked byte for byte.
#
# The guest programs give up after 5 s of guest time, so that a lost peer
# ends the run. Knobs: NET_BYTES (default 8388608), NET_TRACE=1 (binary trace
# of the models in the run directory; keep it with QH_KEEP=1).
source "$(dirname "$0")/harness.sh"
QH_HOSTS=2
BYTES=${NET_BYTES:-8388608}
PORT=5001
qh_init network

trace=''
[ -z "${NET_TRACE:-}" ] || trace="\"trace\": \"$QH_DIR/net.trace\","
eth='"latency": "500ns", "bandwidth": "10Gbps", "protocol": "eth"'
qh_sim net "{$trace \"stats\": \"$QH_DIR/net.stats.json\",
 \"components\": [
  {\"name\": \"nic0\", \"kind\": \"e1000\", \"params\": {\"mac\": \"52:54:00:00:00:01\"}},
  {\"name\": \"nic1\", \"kind\": \"e1000\", \"params\": {\"mac\": \"52:54:00:00:00:02\"}},
  {\"name\": \"sw\", \"kind\": \"switch\", \"params\": {\"ports\": 2}}],
 \"links\": [
  {\"name\": \"pcie0\", \"port\": \"nic0.0\", \"listen\": \"$QH_DIR/nic0.sock\", \"latency\": \"1us\"},
  {\"name\": \"pcie1\", \"port\": \"nic1.0\", \"listen\": \"$QH_DIR/nic1.sock\", \"latency\": \"1us\"},
  {\"name\": \"eth0\", \"port\": \"nic0.1\", \"peer\": \"sw.0\", $eth},
  {\"name\": \"eth1\", \"port\": \"nic1.1\", \"peer\": \"sw.1\", $eth}]}"

# Shared by both guests: wait (up to 5 s guest time) for the carrier, and
# print what the driver said and what the interface counted.
common='
carrier() {
    i=0
    while [ "$(cat /sys/class/net/eth0/carrier 2>/dev/null)" != 1 ] && [ $i -lt 500 ]; do
        sleep 0.01; i=$((i + 1))
    done
    echo "CARRIER=$(cat /sys/class/net/eth0/carrier 2>/dev/null) $(cut -d" " -f1 /proc/uptime)"
}
report() {
    echo "---- dmesg"; dmesg | grep -i -e e1000 -e eth0
    echo "---- ip"; ip link show eth0; grep -e Inter -e face -e eth0 /proc/net/dev
    echo "---- interrupts"; grep -i eth0 /proc/interrupts
    echo "----"
}
'
QH_APPEND="mortar.ip=10.0.0.1/24 mortar.mtu=9000"
qh_host h0 "$common
carrier
ping -c 3 -i 0.05 10.0.0.2; echo PING-EXIT=\$?
mortar-nettest send 10.0.0.2 $PORT $BYTES 5; rc=\$?
report
exit \$rc" $(qh_device h0 "$QH_DIR/nic0.sock" nic0)

QH_APPEND="mortar.ip=10.0.0.2/24 mortar.mtu=9000"
qh_host h1 "$common
mortar-nettest serve $PORT 5 & srv=\$!
carrier
wait \$srv; rc=\$?
report
exit \$rc" $(qh_device h1 "$QH_DIR/nic1.sock" nic1)

# Wait for both hosts; a guest kernel that oopses never gets to power off
# (its init may end in a shell), so look for that instead of waiting out
# the limit.
end=$((SECONDS + 300))
while kill -0 "${QH_PIDS_HOST[@]}" 2>/dev/null; do
    for h in h0 h1; do
        qh_log $h | grep -q -e 'general protection fault' -e 'double fault' -e 'Kernel panic' \
            -e '^\[ *[0-9.]*\] BUG: ' && { sleep 1; qh_fail "$h: the guest kernel crashed"; }
    done
    [ "$SECONDS" -lt "$end" ] || qh_fail "a host still running after 300 s"
    sleep 0.5
done
qh_wait_hosts 10
qh_wait_sims 30

for h in h0 h1; do
    qh_log $h | grep -q 'e1000 .* eth0: Intel(R) PRO/1000 Network Connection' ||
        qh_fail "$h: the e1000 driver did not bind"
    qh_log $h | grep -q 'e1000: eth0 NIC Link is Up' || qh_fail "$h: no link up"
done
qh_log h0 | grep -q '^PING-EXIT=0' || qh_fail "ping from host 0 to host 1 failed"
qh_log h0 | grep -q '3 packets transmitted, 3 packets received' ||
    qh_fail "ping lost packets"
qh_log h1 | grep -q '^MORTAR-EXIT 0' || qh_fail "the receiver failed"
qh_log h0 | grep -q '^MORTAR-EXIT 0' || qh_fail "the sender failed"
[ "$(qh_value h1 ok)" = 1 ] || qh_fail "the data arrived damaged"
[ "$(qh_value h1 bytes)" = "$BYTES" ] || qh_fail "received $(qh_value h1 bytes) bytes, expected $BYTES"
[ "$(qh_value h1 sum)" = "$(qh_value h0 sum)" ] || qh_fail "checksums differ"
echo "sender:   $(qh_log h0 | grep '^bytes=')"
echo "receiver: $(qh_log h1 | grep '^bytes=')"
echo "wall time: $SECONDS s"
echo "PASS: e1000 driver binds, ping and a $BYTES-byte TCP transfer at MTU 9000 work"
