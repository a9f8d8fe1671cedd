#!/usr/bin/env bash
# Two hosts, each with an e1000 model driven by the unmodified Linux e1000
# driver, joined by a 2-port switch (tests/qemu/network.sh). The driver
# binds and brings the link up, host 0 pings host 1, and 8 MiB go over TCP
# from host 0 to host 1 at MTU 9000, checked byte for byte.
#
# The guest programs give up after 5 s of guest time, so that a lost peer
# ends the run. Knobs: NET_BYTES (default 8388608), NET_TRACE=1.
source "$(dirname "$0")/network.sh"
BYTES=${NET_BYTES:-8388608}
PORT=5001
net_start e1000 9000

net_host h0 10.0.0.1 "carrier
ping -c 3 -i 0.05 10.0.0.2; echo PING-EXIT=\$?
xfer A send 10.0.0.2 $PORT $BYTES 5; rc=\$?
report
exit \$rc"

net_host h1 10.0.0.2 "xfer A serve $PORT 5 & srv=\$!
carrier
wait \$srv; rc=\$?
report
exit \$rc"

net_wait
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
net_check_transfer h0 h1 A
[ "$(net_xfer_value h1 A bytes)" = "$BYTES" ] ||
    qh_fail "received $(net_xfer_value h1 A bytes) bytes, expected $BYTES"
echo "wall time: $SECONDS s"
echo "PASS: e1000 driver binds, ping and a $BYTES-byte TCP transfer at MTU 9000 work"
