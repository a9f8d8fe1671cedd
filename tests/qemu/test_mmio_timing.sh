#!/usr/bin/env bash
# MMIO reads over a link of latency L, timed by a guest program on the
# guest's clock (simulated time): each read costs 2L plus a small constant,
# for L = 0.5 us and 2.5 us, and the same run twice gives identical times.
source "$(dirname "$0")/harness.sh"

run_timing() { # latency_ns tag -> prints total_ns and per_read_ns
    local lat=$1 tag=$2
    qh_init "mmio-$tag"
    qh_sim dev "{\"components\":[{\"name\":\"pt\",\"kind\":\"pcitest\"}],
     \"links\":[{\"name\":\"pcie\",\"port\":\"pt.0\",\"listen\":\"$QH_DIR/pt.sock\",\"latency\":\"${lat}ns\"}]}"
    qh_host h0 "mortar-pcitest mmio-timing 2000" $(qh_device h0 "$QH_DIR/pt.sock" pt)
    qh_wait_hosts 300
    qh_wait_sims 30
    qh_log h0 | grep -q '^MORTAR-EXIT 0' || qh_fail "the guest program failed (L=$lat ns)"
    local per total ok
    per=$(qh_value h0 per_read_ns)
    total=$(qh_value h0 total_ns)
    ok=$(qh_value h0 counter_ok)
    [ "$ok" = 1 ] || qh_fail "counter values were not consecutive"
    [ "$per" -ge $((2 * lat)) ] && [ "$per" -le $((2 * lat + 50)) ] ||
        qh_fail "L=$lat ns: $per ns per read, expected 2L = $((2 * lat)) ns plus at most 50 ns"
    echo "L=${lat}ns per_read_ns=$per total_ns=$total"
    RESULT_TOTAL=$total
    qh_cleanup
    trap - EXIT
}

run_timing 500 a
first=$RESULT_TOTAL
run_timing 500 b
[ "$RESULT_TOTAL" = "$first" ] || qh_fail "two identical runs differ: $first ns vs $RESULT_TOTAL ns"
run_timing 2500 c
echo "PASS: MMIO reads cost 2L + a constant, identically across runs"
