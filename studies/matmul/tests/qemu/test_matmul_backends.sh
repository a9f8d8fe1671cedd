#!/usr/bin/env bash
# The matmul case study's backends inside a QEMU host, each against the
# matmul model over a 1 us PCIe link: `mortar-matmul-server --selftest 2`
# computes requests 0 and 1 of seed 1 (n = 512) and checks both products
# against the reference computed on the build machine (matmul-expected.bin).
# Products are int8 (requantized on the device) by default; design b and
# the software baseline also run once with --result int32 (the raw
# accumulators: the descriptor's flag, the CPU's int32 sums).
#
# For the devices it also checks the compute time the device reports, 64
# tile steps of 12,000 (a, regcopy) or 16,000 (b) cycles at 400 MHz: 1,920
# and 2,560 us at speed 1, and the service time against the model's cost
# (studies/matmul/docs/matmul.md, L = 1 us, C = step time, W = a 16 KiB tile on the
# link's wire, PCIe 3.0 x16 here: the default slot): design a between
# C + 8L + 2W and C + 10L + 2W per step, and W more for each of the 16
# result tiles its status poll waits behind; design b S*C + 6L + 3W (6W with
# int32 results) for a request that finds the ring empty, and its second
# request queued behind the first (both are in the ring at once). The register copy moves every operand word with a
# posted 8-byte MMIO write and every 8 bytes of the int8 result with an
# 8-byte MMIO read (a round trip each: about 68 ms of simulated time per
# request). The software baseline runs in design a's guest.
source "$MORTAR_SOURCE/tests/qemu/harness.sh"

# run_host TAG DESIGN GUEST-SCRIPT: one host with the matmul model; the
# console log in $LOG.
run_host() {
    local tag=$1 design=$2 script=$3 start=$SECONDS
    qh_init "matmul-$tag"
    qh_sim dev "{\"components\":[{\"name\":\"mm\",\"kind\":\"matmul\",
      \"params\":{\"design\":\"$design\"}}],
     \"links\":[{\"name\":\"pcie\",\"port\":\"mm.0\",\"listen\":\"$QH_DIR/mm.sock\",\"latency\":\"1us\"}]}"
    qh_host h0 "$script" $(qh_device h0 "$QH_DIR/mm.sock" mm)
    qh_wait_hosts 600
    qh_wait_sims 30
    qh_log h0 | grep -q '^MORTAR-EXIT 0' || qh_fail "$tag: the guest program failed"
    LOG=$(qh_log h0)
    echo "$tag: wall $((SECONDS - start)) s (boot included)"
}

# Ends the run of run_host (the next one starts from scratch).
finish_host() {
    qh_cleanup
    trap - EXIT
    QH_PIDS_SIM=()
    QH_PIDS_HOST=()
    QH_NAMES_HOST=()
}

# The value of KEY in LINE.
value() {
    printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# check TAG BACKEND SEGMENT COMPUTE_NS SERVICE_MIN_NS SERVICE_MAX_NS [RESULT]:
# the summary and both request lines of one self-test (SEGMENT: its part of
# the log) with products in format RESULT (default int8). Empty bounds are
# not checked; the service bounds apply to request 0.
check() {
    local tag=$1 backend=$2 seg=$3 compute=$4 smin=$5 smax=$6 result=${7:-int8} line req svc
    line=$(printf '%s\n' "$seg" | grep "^backend=$backend " | tail -n 1)
    [ -n "$line" ] || qh_fail "$tag: no summary from backend $backend"
    [ "$(value "$line" result)" = "$result" ] || qh_fail "$tag: products not $result: $line"
    case $line in
        *" verified=2 selftest_ok=1"*) ;;
        *) qh_fail "$tag: products not verified: $line" ;;
    esac
    for req in 0 1; do
        line=$(printf '%s\n' "$seg" | grep "^req=$req .* n=512 " | tail -n 1)
        [ -n "$line" ] || qh_fail "$tag: no line for request $req"
        echo "$tag: $line"
        [ "$(value "$line" verified)" = 1 ] || qh_fail "$tag: request $req not verified"
        if [ -n "$compute" ] && [ "$(value "$line" device_compute_ns)" != "$compute" ]; then
            qh_fail "$tag: request $req: device compute time is not $compute ns"
        fi
    done
    line=$(printf '%s\n' "$seg" | grep "^req=0 " | tail -n 1)
    svc=$(value "$line" service_ns)
    if [ -n "$smin" ] && { [ "$svc" -lt "$smin" ] || [ "$svc" -gt "$smax" ]; }; then
        qh_fail "$tag: service time $svc ns, expected $smin..$smax ns"
    fi
}

# W: 64 TLPs of 8 + 12 + 256 bytes at PCIe 3.0 x16 (docs/pcie.md, "The
# rate": 1015.625 ps a byte a lane, 1 - 16/168 - 4/1538 of it for TLPs).
W=$(awk 'BEGIN { printf "%.0f", 64 * 276 * 1015.625 / 16 / (1 - 16/168 - 4/1538) / 1000 }')

# Design a, then the software baseline in the same guest, int8 and int32.
# Per step C = 30 us. a holds one request: --inflight 4 (a load run's
# setting) queues the rest.
run_host a a "mortar-matmul-server --backend a --inflight 4 --selftest 2 &&
    mortar-matmul-server --backend software --selftest 2 &&
    mortar-matmul-server --backend software --result int32 --selftest 2"
printf '%s\n' "$LOG" | grep -q '^note: backend a takes 1 request at a time' ||
    qh_fail "a: --inflight 4 did not say that a takes one request at a time"
check a a "$(printf '%s\n' "$LOG" | sed -n '1,/^backend=a /p')" \
    1920000 $((64 * (38000 + 2 * W))) $((64 * (40000 + 2 * W) + 16 * W + 50000))
check software software "$(printf '%s\n' "$LOG" | sed -n '/^backend=a /,/^backend=software /p')" \
    "" "" ""
check software-int32 software "$(printf '%s\n' "$LOG" |
    sed -n '/^backend=software result=int8 /,$p' | sed 1d)" "" "" "" int32
finish_host

# Design b: both requests in the ring at once. C = 40 us, 64 steps. Then
# the same with int32 results (the descriptor asks for them): the same
# compute time, 4 x the result bytes.
run_host b b "mortar-matmul-server --backend b --inflight 2 --selftest 2 &&
    mortar-matmul-server --backend b --inflight 2 --result int32 --selftest 2"
seg8=$(printf '%s\n' "$LOG" | sed -n '1,/^backend=b /p')
check b b "$seg8" 2560000 $((2560000 + 6000 + 3 * W)) $((2560000 + 6000 + 3 * W + 20000))
line=$(printf '%s\n' "$seg8" | grep '^req=1 ' | tail -n 1)
[ "$(value "$line" queued_behind)" = 1 ] ||
    qh_fail "b: request 1 was not queued behind request 0"
check b-int32 b "$(printf '%s\n' "$LOG" | sed -n '/^backend=b result=int8 /,$p' | sed 1d)" \
    2560000 $((2560000 + 6000 + 6 * W)) $((2560000 + 6000 + 6 * W + 20000)) int32
finish_host

# Register copy: design a's unit, 8-byte MMIO accesses for all data.
run_host regcopy regcopy "mortar-matmul-server --backend regcopy --selftest 2"
check regcopy regcopy "$LOG" 1920000 "" ""
line=$(printf '%s\n' "$LOG" | grep '^req=0 ' | tail -n 1)
[ "$(value "$line" mmio_reads)" -ge 32768 ] ||
    qh_fail "regcopy: fewer MMIO reads than 8-byte words of the int8 result"
finish_host

echo "PASS: designs a and b, the register copy and the software baseline compute verified int8 products (b and software int32 too); device compute 1920/2560/1920 us"
