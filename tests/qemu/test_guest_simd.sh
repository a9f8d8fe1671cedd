#!/usr/bin/env bash
# The vCPU's PMADDWD, which mortar's QEMU translates inline
# (hosts/qemu/patches/i386-pmaddwd-inline.patch; the case study's software
# baseline runs it in its inner loop), gives what the instruction defines
# on every pair of edge values and on random vectors, in its register,
# memory and same-register forms (guest/programs/simd.c). A guest without
# a device: it boots, runs the check and powers off.
source "$(dirname "$0")/harness.sh"
qh_init guest-simd
qh_host h0 "mortar-simd"
qh_wait_hosts 300
qh_log h0 | grep -q '^MORTAR-EXIT 0' ||
    qh_fail "mortar-simd failed: $(qh_log h0 | grep 'mortar-simd:' | head -n 1)"
[ "$(qh_value h0 pmaddwd_ok)" = 1 ] || qh_fail "no pmaddwd_ok=1 on the console"
echo "PASS: PMADDWD right in $(qh_value h0 pmaddwd_cases) cases"
