#!/usr/bin/env bash
# Two hosts, each with an i40e (XL710) model driven by the unmodified Linux
# i40e driver, joined by a 2-port switch (tests/qemu/network.sh). Checks, in
# one run:
#   - the driver probes, takes the MAC address from the NVM and the link
#     comes up with flow control RX/TX; ping works both ways;
#   - TCP bulk transfers with a checked pattern at MTU 9000, both ways;
#   - the same at MTU 1500 (host 0 changes its MTU, which makes the driver
#     rebuild its rings; the peer's TCP follows host 0's MSS);
#   - link down and up (`ip link set eth0 down; up`), then ping;
#   - a driver reload (rmmod i40e; insmod), then ping and a transfer;
#   - no kernel warning, oops or driver error in either guest's log.
#
# The guest programs give up after 20 s of guest time, so that a lost peer
# ends the run. Knobs: NET_BYTES (per transfer, default 4194304),
# NET_TRACE=1.
source "$(dirname "$0")/network.sh"
BYTES=${NET_BYTES:-4194304}
T=20
net_start i40e 9000

net_host h0 10.0.0.1 "carrier
ping -c 3 -i 0.05 10.0.0.2; echo PING-EXIT=\$?
xfer A send 10.0.0.2 5001 $BYTES $T
xfer B serve 5002 $T
ip link set eth0 mtu 1500; carrier
xfer C send 10.0.0.2 5003 $BYTES $T
xfer D serve 5004 $T
ip link set eth0 down; ip link set eth0 up; carrier
ping -c 2 -i 0.05 10.0.0.2; echo PING2-EXIT=\$?
rmmod i40e; echo RMMOD-EXIT=\$?
insmod /lib/modules/i40e.ko; echo INSMOD-EXIT=\$?
i=0; while [ ! -e /sys/class/net/eth0 ] && [ \$i -lt 100 ]; do sleep 0.01; i=\$((i + 1)); done
ip link set eth0 mtu 1500; ip link set eth0 up; ip addr add 10.0.0.1/24 dev eth0; carrier
ping -c 2 -i 0.05 10.0.0.2; echo PING3-EXIT=\$?
xfer E send 10.0.0.2 5005 $BYTES $T
report
exit 0"

net_host h1 10.0.0.2 "carrier
ping -c 3 -i 0.05 10.0.0.1; echo PING-EXIT=\$?
xfer A serve 5001 $T
xfer B send 10.0.0.1 5002 $BYTES $T
xfer C serve 5003 $T
xfer D send 10.0.0.1 5004 $BYTES $T
xfer E serve 5005 $T
report
exit 0"

net_wait
for h in h0 h1; do
    qh_log $h | grep -q 'i40e .*: MAC address: 52:54:00:00:00:0' ||
        qh_fail "$h: the i40e driver did not probe (or took no MAC address from the NVM)"
    qh_log $h | grep -q 'NIC Link is Up, 40 Gbps' || qh_fail "$h: no link up"
    # the driver's default flow control, as the model's firmware negotiates it
    qh_log $h | grep -q 'NIC Link is Up, 40 Gbps Full Duplex, Flow Control: RX/TX' ||
        qh_fail "$h: link flow control is not RX/TX"
    qh_log $h | grep -q '^PING-EXIT=0' || qh_fail "$h: ping failed"
done
mac0=$(qh_log h0 | sed -n 's/.*i40e .*: MAC address: \([0-9a-f:]*\).*/\1/p' | head -n 1)
[ "$mac0" = 52:54:00:00:00:01 ] || qh_fail "host 0 has MAC $mac0, expected the NVM's 52:54:00:00:00:01"
net_check_transfer h0 h1 A
net_check_transfer h1 h0 B
net_check_transfer h0 h1 C
net_check_transfer h1 h0 D
qh_log h0 | grep -q '^PING2-EXIT=0' || qh_fail "ping after link down/up failed"
qh_log h0 | grep -q '^RMMOD-EXIT=0' || qh_fail "rmmod i40e failed"
qh_log h0 | grep -q '^INSMOD-EXIT=0' || qh_fail "insmod i40e failed"
qh_log h0 | grep -q '^PING3-EXIT=0' || qh_fail "ping after the driver reload failed"
net_check_transfer h0 h1 E
for h in h0 h1; do
    net_check_dmesg $h
done
qh_log h0 | grep -m 1 'NIC Link is Up'
echo "wall time: $SECONDS s"
echo "PASS: i40e probes with the NVM's MAC, links up, ping both ways, TCP at MTU 9000 and 1500 both ways, link down/up and a driver reload work"
