# tests/qemu/network.sh - two hosts, each with a NIC model of kind $NET_NIC
# driven by the unmodified Linux driver, joined by a 2-port switch; the
# three models share one mortar-sim. Sourced by the test_network*.sh entry
# points, which give the guests' scripts and check the results:
#
#   net_start NIC MTU        the run directory, the models, NET_COMMON
#   net_host NAME IP SCRIPT  start a host (10.0.0.x/24, mtu MTU) running SCRIPT
#   net_wait                 wait for both hosts (failing on a guest crash)
#   net_check_transfer SRC DST TAG
#                            the transfer tagged TAG arrived intact
#   net_check_dmesg NAME     no kernel warning, oops or driver error
#
# Knobs: NET_TRACE=1 (binary trace of the models in the run directory; keep
# it with QH_KEEP=1), NET_PCAP=1 (the switch writes every frame to sw.pcap
# in the run directory), NET_LIMIT (wall seconds for the hosts, default 600),
# NET_APPEND (more kernel command line, e.g. loglevel=7), NET_LINK_BW (the
# Ethernet links' bandwidth, default 10Gbps), QH_* (harness.sh).
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
QH_HOSTS=2

# Shared by both guests: wait (up to 5 s guest time) for the carrier, and
# print what the driver said and what the interface counted. `xfer TAG CMD`
# runs a mortar-nettest command and tags its result line.
NET_COMMON='
carrier() {
    i=0
    while [ "$(cat /sys/class/net/eth0/carrier 2>/dev/null)" != 1 ] && [ $i -lt 500 ]; do
        sleep 0.01; i=$((i + 1))
    done
    echo "CARRIER=$(cat /sys/class/net/eth0/carrier 2>/dev/null) $(cut -d" " -f1 /proc/uptime)"
}
xfer() {
    tag=$1; shift
    out=$(mortar-nettest "$@"); r=$?
    out=$(echo $out)
    echo "XFER-$tag rc=$r $out at=$(cut -d" " -f1 /proc/uptime)"
    return $r
}
report() {
    echo "---- dmesg"; dmesg | grep -i -e "$NIC" -e eth0 -e "WARNING:" -e "Call Trace" -e "BUG" -e "Oops" 
    echo "---- ip"; ip link show eth0; grep -e Inter -e face -e eth0 /proc/net/dev
    echo "---- interrupts"; grep -i -e eth0 -e "$NIC" /proc/interrupts
    echo "----"
}
'

net_start() {
    NET_NIC=$1
    NET_MTU=$2
    qh_init "network-$NET_NIC"
    local trace='' eth='"latency": "500ns", "bandwidth": "'"${NET_LINK_BW:-10Gbps}"'", "protocol": "eth"'
    [ -z "${NET_TRACE:-}" ] || trace="\"trace\": \"$QH_DIR/net.trace\","
    local pcap=''
    [ -z "${NET_PCAP:-}" ] || pcap=", \"pcap\": \"$QH_DIR/sw.pcap\""
    qh_sim net "{$trace \"stats\": \"$QH_DIR/net.stats.json\",
 \"components\": [
  {\"name\": \"nic0\", \"kind\": \"$NET_NIC\", \"params\": {\"mac\": \"52:54:00:00:00:01\"}},
  {\"name\": \"nic1\", \"kind\": \"$NET_NIC\", \"params\": {\"mac\": \"52:54:00:00:00:02\"}},
  {\"name\": \"sw\", \"kind\": \"switch\", \"params\": {\"ports\": 2$pcap}}],
 \"links\": [
  {\"name\": \"pcie0\", \"port\": \"nic0.0\", \"listen\": \"$QH_DIR/nic0.sock\", \"latency\": \"1us\"},
  {\"name\": \"pcie1\", \"port\": \"nic1.0\", \"listen\": \"$QH_DIR/nic1.sock\", \"latency\": \"1us\"},
  {\"name\": \"eth0\", \"port\": \"nic0.1\", \"peer\": \"sw.0\", $eth},
  {\"name\": \"eth1\", \"port\": \"nic1.1\", \"peer\": \"sw.1\", $eth}]}"
}

net_host() {
    local name=$1 ip=$2 script=$3 idx=${1#h}
    QH_APPEND="mortar.ip=$ip/24 mortar.mtu=$NET_MTU ${NET_APPEND:-}" qh_host "$name" "NIC=$NET_NIC
$NET_COMMON
$script" $(qh_device "$name" "$QH_DIR/nic$idx.sock" "nic$idx")
}

# A guest kernel that oopses never gets to power off (its init may end in a
# shell), so look for that instead of waiting out the limit.
net_wait() {
    local end=$((SECONDS + ${NET_LIMIT:-600})) h
    while kill -0 "${QH_PIDS_HOST[@]}" 2>/dev/null; do
        for h in h0 h1; do
            qh_log $h | grep -q -e 'general protection fault' -e 'double fault' -e 'Kernel panic' \
                -e '^\[ *[0-9.]*\] BUG: ' && { sleep 1; qh_fail "$h: the guest kernel crashed"; }
        done
        [ "$SECONDS" -lt "$end" ] || qh_fail "a host still running after ${NET_LIMIT:-600} s"
        sleep 0.5
    done
    qh_wait_hosts 10
    qh_wait_sims 30
}

# The value of key=value on the host's XFER-TAG line.
net_xfer_value() {
    qh_log "$1" | grep "^XFER-$2 " | tail -n 1 | tr ' ' '\n' | sed -n "s/^$3=//p"
}

net_check_transfer() {
    local src=$1 dst=$2 tag=$3
    [ "$(net_xfer_value "$src" "$tag" rc)" = 0 ] || qh_fail "transfer $tag: the sender ($src) failed"
    [ "$(net_xfer_value "$dst" "$tag" rc)" = 0 ] || qh_fail "transfer $tag: the receiver ($dst) failed"
    [ "$(net_xfer_value "$dst" "$tag" ok)" = 1 ] || qh_fail "transfer $tag: the data arrived damaged"
    [ "$(net_xfer_value "$dst" "$tag" sum)" = "$(net_xfer_value "$src" "$tag" sum)" ] ||
        qh_fail "transfer $tag: checksums differ"
    echo "transfer $tag: $(qh_log "$dst" | grep "^XFER-$tag " | tail -n 1)"
}

# Kernel warnings and oopses, and the driver's reports of failed admin
# commands, timeouts, hangs and errors (the report's dmesg section has them
# even when the console is quiet).
net_check_dmesg() {
    local bad
    bad=$(qh_log "$1" | grep -e 'WARNING:' -e 'Call Trace' -e 'Oops' -e ' BUG' \
        -e 'timeout' -e 'timed out' -e 'Tx ring .* disable' -e 'hang' -e 'failed:' \
        -e 'failed,' -e 'aq_err' -e 'Error' -e ' err ' | head -n 5)
    [ -z "$bad" ] || qh_fail "$1: the kernel or driver complained: $bad"
}
